"""What typing does: TYPE actions, keyboard keys and ENTER on the focused text field.

Each function takes the screen in front, an app's or the launcher's (its
:class:`~mobileintent_gym.phone.app.Entry` holds the fields' text, the focus and the
keyboard's key set) and returns what the phone logs: a note (empty when something
happened), the element hit (never one: the keyboard is its own window) and the text that
really reached the field.
"""

from __future__ import annotations

from collections.abc import Callable

from mobileintent_gym.phone import keyboard
from mobileintent_gym.phone.app import Entry
from mobileintent_gym.phone.characters import count, cut_before, last_character
from mobileintent_gym.phone.keyboard import BACKSPACE, ENTER, LETTERS, SHIFT, SYMBOLS
from mobileintent_gym.phone.ui import Intent
from mobileintent_gym.phone.view import View
from mobileintent_gym.phone.widgets import MAX_FIELD_LENGTH

Outcome = tuple[str, None, str | None]


def type_text(top: Entry, text: str) -> Outcome:
    """Append ``text`` to the focused field, up to :data:`MAX_FIELD_LENGTH` code points.

    What does not fit is dropped (never part of a character: an emoji family or an
    accented letter is typed whole or not at all), and the note says how much was typed.
    """
    if top.focus is None:
        return "no focused field", None, None
    value = top.fields.get(top.focus, "")
    added = text[:cut_before(text, MAX_FIELD_LENGTH - len(value))]
    if not added:
        return "the field is full", None, None
    top.fields[top.focus] = value + added
    cut = "" if len(added) == len(text) else (
        f"the field is full: {count(added)} of {count(text)} characters typed")
    return cut, None, added


def enter(top: Entry, view: View, dispatch: Callable[[Intent], None]) -> str:
    """ENTER: submit the focused field (``dispatch`` runs its intent)."""
    node = view.fields.get(top.focus) if top.focus else None
    if node is None or node.on_submit is None:
        return "nothing to submit"
    dispatch(node.on_submit)
    return ""


def key_tap(top: Entry, view: View, char: str, dispatch: Callable[[Intent], None]) -> Outcome:
    """A tap on the keyboard's key ``char``: type it, delete, submit or switch key sets."""
    if char == ENTER:
        return enter(top, view, dispatch), None, None
    if char == BACKSPACE:
        value = top.fields.get(top.focus, "")
        if not value:
            return "nothing to delete", None, None
        top.fields[top.focus] = value[:last_character(value)]
        return "", None, None
    if char in (SHIFT, SYMBOLS, LETTERS):
        top.key_set = keyboard.after(top.key_set, char)
        return "", None, None
    outcome = type_text(top, char)
    if outcome[2]:
        top.key_set = keyboard.after(top.key_set, char)
    return outcome

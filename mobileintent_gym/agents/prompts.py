"""Prompts and answer parsing for executing an intention on the phone.

The prompt follows the Act2Intention study's execution input,
``a_{t+1} = π(intention, history, o_t, guidance)``: the intention (the task's
instruction), the actions taken so far, the screen as compact text read from the hierarchy
dump, and optionally guidance (the action list of a similar past intention). Answers are
parsed into the Act2Intention action format leniently: the first action written anywhere
in the answer counts, in any case, with brackets or parentheses, as JSON
``{"action": "..."}``, or as ``CLICK[3]`` naming element [3] of the screen.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from mobileintent_gym.actions import Action, parse_action
from mobileintent_gym.errors import InvalidActionError
from mobileintent_gym.phone.elements import (
    ScreenElement,
    element_at,
    read_screen,
    screen_elements,
)

_FORMS = ("CLICK[x,y]", "LONG_CLICK[x,y]", "TYPE[text]", "SWIPE[UP|DOWN|LEFT|RIGHT]",
          "PRESS[HOME|BACK|ENTER]")
_ACTION_LIST = f"{', '.join(_FORMS)} or COMPLETE"
_SWIPE_NOTE = "SWIPE[UP] shows what is further down"
_EXAMPLE = "answer CLICK[270,945]"
EXECUTE_SYSTEM = (
    "You operate an Android phone to carry out a user's intention. You see the intention, "
    "the actions so far, the screen's elements with the pixel at their centre, and maybe "
    f"guidance. Answer with one action only: {_ACTION_LIST} (the intention is done). "
    f"{_SWIPE_NOTE}; TYPE writes into the focused text field. "
    f"Example: to tap an element listed at (270,945), {_EXAMPLE}")
# After a copied form, the list's last item: "… or COMPLETE", ", COMPLETE", "\n6. COMPLETE".
_LIST_END = r"(?:\s*(?:,|\bor\b|\n\s*[0-9]+[.)])\s*COMPLETE\b)?"
_COPIED = re.compile("|".join(
    r"\s+".join(re.escape(word) for word in part.split()) + _LIST_END
    for part in (_ACTION_LIST, _SWIPE_NOTE, _EXAMPLE, *_FORMS)), re.I | re.A)
"""The system prompt's own actions, which a small model often copies into its answer (a
form of the list with the COMPLETE that ends it)."""
MAX_LABEL = 80  # characters of an element's text kept in the prompt
MAX_ELEMENTS = 48  # elements listed per screen
MAX_OTHER_TEXT = 12  # texts shown outside any element


def _clip(text: str) -> str:
    return text if len(text) <= MAX_LABEL else text[:MAX_LABEL - 1] + "…"


def _label(element: ScreenElement) -> str:
    """`` "text | text"`` of an element (cut to :data:`MAX_LABEL`), or nothing."""
    return f' "{_clip(" | ".join(element.texts))}"' if element.texts else ""


def element_line(element: ScreenElement, index: int) -> str:
    """One element as the prompt lists it: ``[3] chat "Lucas Martin | ..." at (270,945)``.

    Its texts are joined with `` | `` and cut to :data:`MAX_LABEL` characters.
    """
    flags = " (text field, focused)" if element.focused else \
        " (text field)" if element.field else ""
    x, y = element.point
    return f"[{index}] {element.kind}{flags}{_label(element)} at ({x},{y})"


def screen_text(elements: Sequence[ScreenElement], others: Sequence[str] = (),
                max_elements: int = MAX_ELEMENTS) -> str:
    """The screen as the prompt shows it: the first ``max_elements`` elements, then others' text.

    Elements are numbered from 0 (``CLICK[3]`` names element [3]).
    """
    lines = [element_line(e, i) for i, e in enumerate(elements[:max_elements])]
    lines = lines or ["(nothing to touch)"]
    if others:
        lines.append("Other text: " + "; ".join(f'"{_clip(t)}"' for t in others[:MAX_OTHER_TEXT]))
    return "\n".join(lines)


def describe_action(action: Action | None, elements: Sequence[ScreenElement]) -> str:
    """One line of the action history: the action and the element it was aimed at.

    Args:
        action: The parsed action, or ``None`` when the answer held none.
        elements: The elements of the screen the action was taken on.
    """
    if action is None:
        return "(an answer without an action: nothing happened)"
    element = None if action.x is None else element_at(elements, action.x, action.y)
    if element is None:
        return str(action)
    return f"{action} on {element.kind}{_label(element)}"


def execute_prompt(instruction: str, history: Sequence[str], screen: str,
                   guidance: Sequence[str] | None = None) -> list[dict[str, str]]:
    """Chat messages asking for the next action.

    Args:
        instruction: The user's intention.
        history: The actions taken so far, oldest first (:func:`describe_action`).
        screen: The current screen (:func:`screen_text`).
        guidance: Actions of a similar past intention, if any.
    """
    parts = [f"Intention: {instruction}"]
    if guidance:
        parts.append("Guidance (actions of a similar past intention):\n"
                      + "\n".join(f"- {g}" for g in guidance))
    done = "\n".join(f"{i}. {h}" for i, h in enumerate(history, 1)) or "(none yet)"
    parts += [f"Actions so far:\n{done}", f"Screen:\n{screen}", "Next action:"]
    return [{"role": "system", "content": EXECUTE_SYSTEM},
            {"role": "user", "content": "\n\n".join(parts)}]


def step_prompt(instruction: str, xml: str, history: Sequence[str],
                guidance: Sequence[str] | None = None, max_elements: int = MAX_ELEMENTS
                ) -> tuple[list[dict[str, str]], list[ScreenElement]]:
    """The prompt for one step from the screen's dump, and the screen's elements.

    One function for acting and for training on demonstrations, so both see the same text.
    The elements come back for :func:`parse_answer` and :func:`describe_action`.
    """
    elements, others = read_screen(xml)
    screen = screen_text(elements, others, max_elements)
    return execute_prompt(instruction, history, screen, guidance), elements[:max_elements]


def prompt_elements(xml: str, max_elements: int = MAX_ELEMENTS) -> list[ScreenElement]:
    """The elements :func:`step_prompt` lists for the screen of ``xml``."""
    return screen_elements(xml)[:max_elements]


# ASCII: in Unicode mode IGNORECASE matches the Kelvin sign as "k", which upper() keeps.
_JSON_ACTION = re.compile(r'"action"\s*:\s*"((?:[^"\\]|\\.)*)"', re.I | re.A)
_PRESS_SHORT = re.compile(r"\bPRESS_(HOME|BACK|ENTER)\b", re.I | re.A)
_CANDIDATE = re.compile(
    r"\b(LONG_CLICK|CLICK|TAP|TYPE|SWIPE|PRESS|COMPLETE)\b[ \t]*"
    r"(?:\[([^\]\n]*)\]|\(([^)\n]*)\))?", re.I | re.A)
_BRACKET = re.compile(r"[\[\]\n]")
# A pixel, or an element's number; a decimal pixel (270.5) is rounded.
_NUMBER = re.compile(r"-?[0-9]{1,9}(?:\.[0-9]{1,9})?")
MAX_CANDIDATES = 64
"""Unclosed brackets after an action word each answer is searched past, at most: each is
read to the end of its line, so many ``CLICK[`` would cost time quadratic in the answer's
length (120 KB: 9.4–11.5 s). Words without a bracket cost nothing and are not counted."""


def parse_answer(answer: str, elements: Sequence[ScreenElement] = ()) -> Action | None:
    """The first action in a model's answer, or ``None`` when it holds none.

    Accepted: the canonical strings (``CLICK[344,217]``, ``TYPE[coffee]``, ``SWIPE[UP]``,
    ``PRESS[BACK]``, ``COMPLETE``) anywhere in the text and in any case; parentheses for
    brackets; ``TAP`` for ``CLICK``; ``PRESS_BACK``; a JSON ``"action"`` field; and a click
    with a single number, ``CLICK[3]``, meaning the centre of element [3] of ``elements``;
    ``TYPE["text"]`` for ``TYPE[text]`` (quotes around all of it are the model's); typed
    text may hold balanced brackets (``TYPE[a [b] c]``); a decimal pixel is rounded.
    The word "complete" in a sentence ("to complete the task, CLICK[…]") is prose, not
    the action: COMPLETE counts in capitals, or as the whole answer. What the answer copies
    of the system prompt's actions (its list or any of its forms, such as ``TYPE[text]``,
    its example) is prose too, with the COMPLETE that ends a copied list. A JSON
    ``"action"`` field that holds no action leaves the rest of the answer to search. The
    search stops after :data:`MAX_CANDIDATES` unclosed brackets. Never raises.
    """
    if not isinstance(answer, str):
        return None
    found = _JSON_ACTION.search(answer)
    if found is None:
        return _first_action(answer, elements)
    field = _json_string(found.group(1))
    action = _first_action(field, elements) or _typed_whole(field)
    if action is not None:
        return action
    # A JSON field that holds no action ("tap the search bar") hides nothing of the rest;
    # the field itself is read decoded only (undecoded, its escapes would be typed).
    return _first_action(f"{answer[:found.start()]} {answer[found.end():]}", elements)


_TYPE_WHOLE = re.compile(r"\s*TYPE\[(.*)\]\s*", re.I | re.A | re.S)


def _typed_whole(field: str) -> Action | None:
    """A JSON ``"action"`` field that is one TYPE, with its text whole.

    Line breaks, which a JSON string holds escaped, are typed: where a plain answer's
    action ends at its line's end, the field's ends with the field.
    """
    whole = _TYPE_WHOLE.fullmatch(field)
    return None if whole is None else _candidate("TYPE", whole.group(1), ())


def _first_action(text: str, elements: Sequence[ScreenElement]) -> Action | None:
    """The first action of ``text`` (one candidate of :func:`parse_answer`), or ``None``."""
    text = _COPIED.sub(" ", _PRESS_SHORT.sub(r"PRESS[\1]", text))
    alone = text.strip(" \t\n.!\"'`").upper() == "COMPLETE"
    unclosed = 0
    for match in _CANDIDATE.finditer(text):
        head = match.group(1).upper()
        if match.lastindex == 1 and text[match.end():match.end() + 1] in ("[", "("):
            unclosed += 1  # its bracket was read to the end of the line, and not closed
            if unclosed > MAX_CANDIDATES:
                return None
        if head == "COMPLETE" and not (match.group(1).isupper() or alone):
            continue
        argument = match.group(2) if match.group(2) is not None else match.group(3)
        if head == "TYPE" and match.group(2) is not None:
            argument = _balanced(text, match.start(2)) or argument
        action = _candidate(head, argument, elements)
        if action is not None:
            return action
    return None


def _balanced(text: str, start: int) -> str | None:
    """The text from ``start`` (just after a ``[``) to the ``]`` that closes it on its line.

    ``TYPE[a [b] c]`` types ``a [b] c``, as :func:`~mobileintent_gym.actions.parse_action`
    reads it; ``None`` when the line does not close it.
    """
    depth = 1
    for bracket in _BRACKET.finditer(text, start):
        char = bracket.group()
        if char == "\n":
            return None
        depth += 1 if char == "[" else -1
        if depth == 0:
            return text[start:bracket.start()]
    return None


def _json_string(body: str) -> str:
    """A JSON string's ``body`` (between its quotes) unescaped; as it is, if not valid."""
    try:
        return json.loads(f'"{body}"')
    except ValueError:
        return body


def _unquoted(text: str) -> str:
    """``text`` without the one pair of matching quotes around all of it (``"Li Wei"``)."""
    inner = text.strip()
    if (len(inner) >= 3 and inner[0] == inner[-1] and inner[0] in "'\"`"
            and inner[0] not in inner[1:-1]):
        return inner[1:-1]
    return text


def _candidate(head: str, argument: str | None, elements: Sequence[ScreenElement]
               ) -> Action | None:
    head = "CLICK" if head == "TAP" else head
    if head == "COMPLETE":
        return Action.complete()
    if argument is None:
        return None
    if head in ("CLICK", "LONG_CLICK"):
        numbers = _NUMBER.findall(argument)
        if len(numbers) == 1 and numbers[0].isdigit() and int(numbers[0]) < len(elements):
            point = elements[int(numbers[0])].point
            numbers = [str(point[0]), str(point[1])]
        if len(numbers) != 2:
            return None
        argument = ",".join(str(round(float(n))) for n in numbers)
    elif head == "TYPE":
        argument = _unquoted(argument)
    else:
        argument = argument.strip().strip("'\"")
    try:
        return parse_action(f"{head}[{argument}]")
    except InvalidActionError:
        return None

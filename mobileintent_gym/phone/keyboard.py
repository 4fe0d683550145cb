"""The on-screen keyboard: it takes the bottom of the screen while a field is focused.

Like a real input method it is its own window, so it is absent from the uiautomator dump;
its keys still type when tapped. It has three key sets, as Gboard does: lower-case
letters; upper-case letters after a tap on shift (for one letter, then back); digits and
symbols after a tap on ``?123`` (``ABC`` goes back to letters).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from mobileintent_gym.phone.paint import Fill, Icon, Round
from mobileintent_gym.phone.render import Op, ops_of
from mobileintent_gym.phone.ui import Rect, contains

BACKSPACE, ENTER, SPACE = "\b", "\n", " "
SHIFT, SYMBOLS, LETTERS = "\x0f", "\x0e", "\x10"
LOWER, UPPER, DIGITS = "lower", "upper", "symbols"
ROWS = {
    LOWER: ("qwertyuiop", "asdfghjkl", f"{SHIFT}zxcvbnm{BACKSPACE}",
            f"{SYMBOLS},{SPACE}.{ENTER}"),
    UPPER: ("QWERTYUIOP", "ASDFGHJKL", f"{SHIFT}ZXCVBNM{BACKSPACE}",
            f"{SYMBOLS},{SPACE}.{ENTER}"),
    DIGITS: ("1234567890", "@#$_&-+()/", f"=*\"':;!?{BACKSPACE}",
             f"{LETTERS},{SPACE}.{ENTER}"),
}
"""Key set → its rows of keys, top to bottom."""
_LABELS = {SYMBOLS: "?123", LETTERS: "ABC", SPACE: "space"}
_ICONS = {SHIFT: "shift", BACKSPACE: "backspace", ENTER: "enter"}
_WIDE = {SPACE: 4.5, SHIFT: 1.5, BACKSPACE: 1.5, ENTER: 1.5, SYMBOLS: 1.5, LETTERS: 1.5}
_BACKGROUND = (232, 234, 237)
_KEY = (255, 255, 255)
_SPECIAL = (198, 202, 208)
_ON = (138, 180, 248)  # shift while it is on
_TEXT = (32, 33, 36)


@dataclass(frozen=True, slots=True)
class Keyboard:
    r"""The keyboard laid out for one screen size and key set.

    Attributes:
        rect: The keyboard window.
        keys: ``(rect, character)`` per key; ``\\b`` is backspace, ``\\n`` enter, and
            :data:`SHIFT`, :data:`SYMBOLS`, :data:`LETTERS` switch key sets.
        ops: Draw operations of the keyboard.
    """

    rect: Rect
    keys: tuple[tuple[Rect, str], ...]
    ops: tuple[Op, ...]

    def key_at(self, x: int, y: int) -> str | None:
        """The character of the key under (x, y), if any."""
        for rect, char in self.keys:
            if contains(rect, x, y):
                return char
        return None


def after(key_set: str, char: str) -> str:
    """The key set after tapping ``char`` on ``key_set`` (shift holds for one letter)."""
    if char == SHIFT:
        return LOWER if key_set == UPPER else UPPER
    if char in (SYMBOLS, LETTERS):
        return DIGITS if char == SYMBOLS else LOWER
    return LOWER if key_set == UPPER and char.isalpha() else key_set


@lru_cache(maxsize=24)
def layout(width: int, bottom: int, density: float, key_set: str = LOWER) -> Keyboard:
    """The keyboard of ``key_set``, its bottom edge at ``bottom``, ``width`` pixels wide.

    The result is immutable and shared: every screen with a keyboard reuses it.
    """
    rows = ROWS[key_set]
    key_h, gap = round(54 * density), round(6 * density)
    top = bottom - len(rows) * key_h - gap
    keys, ops = [], [((0, top, width, bottom), Fill(_BACKGROUND), None)]
    unit = (width - gap) / 10.0
    for r, row in enumerate(rows):
        x = (width - sum(_WIDE.get(c, 1.0) for c in row) * unit) / 2
        y = top + gap + r * key_h
        for char in row:
            w = _WIDE.get(char, 1.0)
            rect = (round(x + gap / 2), y, round(x + w * unit - gap / 2), y + key_h - gap)
            keys.append((rect, char))
            ops.extend(_key_ops(rect, char, key_set, density))
            x += w * unit
    return Keyboard((0, top, width, bottom), tuple(keys), tuple(ops))


def _key_ops(rect: Rect, char: str, key_set: str, density: float) -> list[Op]:
    """A key's cap and its label or icon."""
    special = char in _WIDE and char != SPACE
    fill = _ON if char == SHIFT and key_set == UPPER else _SPECIAL if special else _KEY
    label = "" if char in _ICONS else _LABELS.get(char, char)
    size = round((16 if len(label) > 1 else 20) * density)
    ops = ops_of(rect, Round(fill, _BACKGROUND, round(6 * density), label, _TEXT, size), None)
    if char in _ICONS:
        ops.append((rect, Icon(_ICONS[char], _TEXT, fill, round(22 * density)), None))
    return ops

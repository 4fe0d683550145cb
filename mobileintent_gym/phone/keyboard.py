"""The on-screen keyboard: it takes the bottom of the screen while a field is focused.

Like a real input method it is its own window, so it is absent from the uiautomator dump;
its keys still type when tapped.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from mobileintent_gym.phone.paint import Fill, Round
from mobileintent_gym.phone.render import Op, ops_of
from mobileintent_gym.phone.ui import Rect, contains

ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm\b", ",  .\n")
BACKSPACE, ENTER, SPACE = "\b", "\n", " "
_LABELS = {BACKSPACE: "del", ENTER: "go", SPACE: "space"}
_BACKGROUND = (232, 234, 237)
_KEY = (255, 255, 255)
_SPECIAL = (198, 202, 208)
_TEXT = (32, 33, 36)


@dataclass(frozen=True, slots=True)
class Keyboard:
    r"""The keyboard laid out for one screen size.

    Attributes:
        rect: The keyboard window.
        keys: ``(rect, character)`` per key; ``\\b`` is backspace and ``\\n`` enter.
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


def _row_keys(row: str) -> list[tuple[str, float]]:
    """Characters of a row with their widths in key units (space is wide)."""
    out: list[tuple[str, float]] = []
    for char in row:
        if char == " " and out and out[-1][0] == SPACE:
            out[-1] = (SPACE, out[-1][1] + 2.5)
        else:
            out.append((char, 2.5 if char == SPACE else 1.5 if char in (BACKSPACE, ENTER)
                        else 1.0))
    return out


@lru_cache(maxsize=8)
def layout(width: int, bottom: int, density: float) -> Keyboard:
    """The keyboard whose bottom edge is at ``bottom`` on a ``width``-pixel-wide screen.

    The result is immutable and shared: every screen with a keyboard reuses it.
    """
    key_h, gap = round(54 * density), round(6 * density)
    top = bottom - len(ROWS) * key_h - gap
    keys, ops = [], [((0, top, width, bottom), Fill(_BACKGROUND), None)]
    unit = (width - gap) / 10.0
    for r, row in enumerate(ROWS):
        cells = _row_keys(row)
        x = (width - sum(w for _, w in cells) * unit) / 2
        y = top + gap + r * key_h
        for char, w in cells:
            rect = (round(x + gap / 2), y, round(x + w * unit - gap / 2), y + key_h - gap)
            special = char in _LABELS
            label = _LABELS.get(char, char)
            paint = Round(_SPECIAL if special and char != SPACE else _KEY, _BACKGROUND,
                          round(6 * density), label, _TEXT, round(20 * density))
            keys.append((rect, char))
            ops.extend(ops_of(rect, paint, None))
            x += w * unit
    return Keyboard((0, top, width, bottom), tuple(keys), tuple(ops))

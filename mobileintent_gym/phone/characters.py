"""Characters as a reader sees them, where text is cut: by Backspace, or across lines.

A character is a letter with its combining marks, an emoji with its skin tone and
variation selector, a family of emoji joined by zero-width joiners, or a flag (a pair of
regional indicators); cutting inside one leaves a stray mark or a broken emoji.
"""

from __future__ import annotations

import unicodedata


def last_character(text: str) -> int:
    """Where the last character as a reader sees it starts in non-empty ``text``.

    What one Backspace deletes, as Android's keyboard deletes it; and where a word broken
    across lines may be cut before ``text``'s end.
    """
    start = len(text) - 1
    while True:
        while start > 0 and _extends(text[start]):
            start -= 1
        if not (start > 1 and text[start - 1] == _JOINER):
            break
        start -= 2  # joined to the character before the joiner
    if text[start] in _REGIONAL:  # a flag is a pair: an even run ends in one
        head = text[:start + 1]
        return start - 1 if (len(head) - len(head.rstrip(_REGIONAL))) % 2 == 0 else start
    return start


def folded(text: str) -> str:
    """``text`` as a search compares it: NFC, case-folded, whitespace runs as one space.

    NFC first: a composed and a decomposed accent (``é``, ``e`` + U+0301) are one text.
    """
    return " ".join(unicodedata.normalize("NFC", text).casefold().split())


def cut_before(text: str, index: int) -> int:
    """The cut at or before ``index`` that ends ``text[:cut]`` between whole characters.

    ``index`` itself, or where the character holding ``text[index]`` starts.
    """
    return index if index >= len(text) or index <= 0 else last_character(text[:index + 1])


def cut_after(text: str, index: int) -> int:
    """The cut at or after ``index`` that starts ``text[cut:]`` with a whole character.

    ``index`` itself, or where the character holding ``text[index]`` ends.
    """
    while cut_before(text, index) != index:
        index += 1
    return index


def count(text: str) -> int:
    """How many characters ``text`` holds, as a reader counts them."""
    return sum(cut_before(text, index) == index for index in range(len(text)))


_JOINER = "\u200d"
_REGIONAL = "".join(map(chr, range(0x1F1E6, 0x1F200)))  # regional indicators A to Z


def _extends(char: str) -> bool:
    """Whether ``char`` belongs to the character before it (a mark, modifier, selector)."""
    code = ord(char)
    return (char == _JOINER or unicodedata.category(char) in ("Mn", "Me", "Mc")
            or 0x1F3FB <= code <= 0x1F3FF or 0xFE00 <= code <= 0xFE0F
            or 0xE0020 <= code <= 0xE007F)

"""Paints: hashable descriptions of how a node's frame is drawn, and their tile painters.

A paint is plain data, so the renderer can cache the pixels it produces by value. Every
paint that draws shapes or text names the colour ``under`` it, which makes its tile opaque:
the renderer blits tiles with a slice copy instead of alpha-blending.
"""

from __future__ import annotations

import colorsys
import hashlib
import itertools
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from mobileintent_gym.phone import icons, typeset
from mobileintent_gym.phone.characters import cut_after, cut_before, last_character

Color = tuple[int, int, int]
OUTLINE_WIDTH = 2


@dataclass(frozen=True, slots=True)
class Fill:
    """A solid rectangle."""

    color: Color


@dataclass(frozen=True, slots=True)
class Dim:
    """A scrim that darkens what is below it to half its brightness."""


@dataclass(frozen=True, slots=True)
class Round:
    """A rounded rectangle (card, button, pill, badge) with an optional centred label."""

    color: Color
    under: Color
    radius: int
    label: str = ""
    label_color: Color = (255, 255, 255)
    size: int = 0
    outline: Color | None = None


@dataclass(frozen=True, slots=True)
class Label:
    """Text wrapped at spaces onto at most ``lines`` lines; what does not fit ends in "…".

    ``align`` is ``left``, ``center`` or ``right``. The renderer draws wrapping text line
    by line (:func:`~mobileintent_gym.phone.render.ops_of`); a tile holds one line.
    """

    text: str
    size: int
    color: Color
    under: Color
    bold: bool = False
    align: str = "left"
    lines: int = 1


@dataclass(frozen=True, slots=True)
class Icon:
    """A vector icon from :mod:`icons` (a name or a painter), centred, ``size`` pixels square."""

    name: icons.Glyph
    color: Color
    under: Color
    size: int
    badge: str = ""


@dataclass(frozen=True, slots=True)
class Avatar:
    """Artwork or an avatar.

    A colour derived from ``seed`` with the label's initials, or an app-style rounded icon
    when ``glyph`` is an icon (a name or a painter).
    """

    seed: str
    label: str
    under: Color
    glyph: icons.Glyph = ""
    color: Color | None = None


Paint = Fill | Dim | Round | Label | Icon | Avatar


_FONTS = Path(__file__).with_name("fonts")


@lru_cache(maxsize=1024)
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """Roboto (Android's typeface, shipped in this package) at ``size`` pixels.

    Bold text uses Roboto Medium, as Android's titles do. No system font is read. A face
    is made once per size and weight and kept (glyph bitmaps are cached per face; the
    cache holds every size up to 4K screens).
    """
    name = "Roboto-Medium.ttf" if bold else "Roboto-Regular.ttf"
    # Basic layout: a fifth faster than raqm and exact for the Latin, Greek and Cyrillic
    # text Roboto covers (scripts that need shaping would need raqm).
    return ImageFont.truetype(str(_FONTS / name), max(6, size),
                              layout_engine=ImageFont.Layout.BASIC)


def seed_color(seed: str) -> Color:
    """A stable, pleasant colour for ``seed`` (same in every process)."""
    digest = hashlib.blake2s(seed.encode("utf-8"), digest_size=4).digest()
    hue = digest[0] / 255.0
    r, g, b = colorsys.hls_to_rgb(hue, 0.45 + digest[1] / 255.0 * 0.15, 0.55)
    return (int(r * 255), int(g * 255), int(b * 255))


@lru_cache(maxsize=16384)
def text_length(text: str, size: int, bold: bool = False) -> float:
    """Length in pixels of ``text`` on one line at ``size`` pixels (measured once)."""
    return font(size, bold).getlength(text)


def text_width(text: str, size: int, bold: bool = False) -> int:
    """Width in pixels of ``text`` on one line at ``size`` pixels, rounded up."""
    return math.ceil(text_length(text, size, bold))


def line_height(size: int) -> int:
    """Pixels from one line of text at ``size`` pixels to the next."""
    return math.ceil(size * 1.3)  # Roboto's glyph box around the "lm" anchor


_BREAKS = re.compile(r"[^\S\u00a0\u2007\u202f]+")
"""White space a line may break at: any but the no-break spaces (``1\u00a0234 km``)."""


def _words(text: str) -> list[str]:
    """``text``'s words: what lies between the white space a line may break at."""
    return [word for word in _BREAKS.split(text) if word]


def _one_line(text: str) -> str:
    """``text``'s words joined by single spaces (no-break spaces kept as they are)."""
    return " ".join(_words(text))


def fit_text(text: str, face: ImageFont.FreeTypeFont, width: int) -> str:
    """``text`` on one line, cut with an ellipsis to fit ``width`` pixels."""
    line = _one_line(text)
    if face.getlength(line) <= width:
        return line
    return _closed(line, face, width)


def fit_end(text: str, size: int, width: int) -> str:
    """``text`` on one line, its start cut with an ellipsis to fit ``width`` pixels.

    What an edit field shows while its text is longer than the field: the end, where the
    cursor is.
    """
    line, face = _one_line(text), font(size, False)
    if face.getlength(line) <= width:
        return line
    kept = _fitting(lambda n: "…" + line[len(line) - n:], len(line), face, width)
    return "…" + line[cut_after(line, len(line) - kept):]


def _fitting(piece: Callable[[int], str], most: int, face: ImageFont.FreeTypeFont,
             width: int) -> int:
    """The largest ``n`` up to ``most`` whose ``piece(n)`` fits ``width`` pixels.

    ``piece(n)`` grows with ``n``: ``n`` characters of a text, with what goes beside them.
    """
    lo, hi = 0, most
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if face.getlength(piece(mid)) <= width:
            lo = mid
        else:
            hi = mid - 1
    return lo


@lru_cache(maxsize=8192)
def wrap(text: str, size: int, bold: bool, width: int, lines: int) -> tuple[str, ...]:
    """``text`` broken into lines of at most ``width`` pixels, at most ``lines``.

    Lines break at spaces and at every newline (an empty paragraph is an empty line). A
    word wider than a line (a link, a long number) is broken across lines, as a text view
    breaks it; the last line ends in "…" when text is left over.
    Layout and painting both call this, so a text is measured once (the result is cached).
    """
    face = font(size, bold)
    out = list(itertools.islice(_lines(text.strip(), face, width), lines + 1))
    if len(out) > lines:
        rest = " ".join(out[lines:])
        out = out[:lines]
        last = fit_text(f"{out[-1]} {rest}", face, width)
        out[-1] = last if last.endswith("…") else _closed(out[-1], face, width)
    return tuple(fit_text(line, face, width) for line in out)


def _lines(text: str, face: ImageFont.FreeTypeFont, width: int) -> Iterator[str]:
    """``text``'s lines (see :func:`wrap`), measured only as far as they are taken."""
    for paragraph in text.split("\n"):
        line = ""
        for word in _words(paragraph):
            longer = f"{line} {word}" if line else word
            if face.getlength(longer) <= width:
                line = longer
                continue
            if line:
                yield line
            *whole, line = _pieces(word, face, width)
            yield from whole
        yield line


def _pieces(word: str, face: ImageFont.FreeTypeFont, width: int) -> Iterator[str]:
    """``word`` in pieces of ``width`` pixels at most, cut between whole characters.

    Characters as a reader sees them (:mod:`.characters`); one wider still is a piece of
    its own.
    """
    while len(word) > 1 and face.getlength(word) > width:
        cut = max(1, _fitting(lambda n, rest=word: rest[:n], len(word), face, width))
        cut = last_character(word[:cut + 1]) or cut  # not inside a character
        yield word[:cut]
        word = word[cut:]
    yield word


def _closed(line: str, face: ImageFont.FreeTypeFont, width: int) -> str:
    """``line`` cut so that it and a closing "…" fit ``width`` pixels."""
    kept = _fitting(lambda n: f"{line[:n]}…", len(line), face, width)
    return f"{line[:cut_before(line, kept)].rstrip()}…"


def fitted(text: str, size: int, bold: bool, width: int) -> tuple[str, float]:
    """:func:`fit_text` of ``text`` at ``size`` pixels, and the line's length in pixels.

    A text that fits is measured once whatever the width (:func:`text_length`), so a tile
    cropped to its text and then painted at the narrower width measures nothing again.
    """
    line = _one_line(text)
    length = text_length(line, size, bold)
    if length <= width:
        return line, length
    return _cut(line, size, bold, width)


@lru_cache(maxsize=4096)
def _cut(line: str, size: int, bold: bool, width: int) -> tuple[str, float]:
    """``line`` (too long for ``width``) cut with an ellipsis, and the cut line's length."""
    cut = fit_text(line, font(size, bold), width)
    return cut, text_length(cut, size, bold)


Run = tuple[tuple[int, int, int, int], str, int, Color, bool, str]
"""One line of text to set: its box, text, size, colour, weight and alignment in the box."""


def _set_text(alpha: np.ndarray, run: Run) -> None:
    box, text, size, _, bold, align = run
    line, length = fitted(text, size, bold, box[2] - box[0])
    x = {"left": box[0], "right": box[2] - length - 2}.get(align, (box[0] + box[2] - length) / 2)
    typeset.set_line(alpha, x, (box[1] + box[3]) / 2, line, font(size, bold))


def _paint_round(p: Round, draw: ImageDraw.ImageDraw, w: int, h: int) -> list[Run]:
    draw.rounded_rectangle((0, 0, w - 1, h - 1), radius=min(p.radius, h // 2, w // 2),
                           fill=p.color, outline=p.outline,
                           width=OUTLINE_WIDTH if p.outline else 0)
    return ([((0, 0, w, h), p.label, p.size or h // 2, p.label_color, True, "center")]
            if p.label else [])


def _paint_icon(p: Icon, draw: ImageDraw.ImageDraw, w: int, h: int) -> list[Run]:
    x0, y0 = (w - p.size) // 2, (h - p.size) // 2
    icons.draw(draw, p.name, (x0, y0, p.size), p.color, p.under)
    if not p.badge:
        return []
    r = max(6, p.size // 4)
    cx, cy = x0 + p.size - r // 2, y0 + r // 2
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(235, 64, 52))
    return [((cx - r, cy - r, cx + r, cy + r), p.badge, int(r * 1.2), (255, 255, 255), True,
             "center")]


def _paint_avatar(p: Avatar, draw: ImageDraw.ImageDraw, w: int, h: int) -> list[Run]:
    # Plain artwork never gets here: the renderer draws it as fills and a label.
    color = p.color or seed_color(p.seed)
    draw.rounded_rectangle((0, 0, w - 1, h - 1), radius=max(4, min(w, h) // 5), fill=color)
    size = int(min(w, h) * 0.5)
    icons.draw(draw, p.glyph, ((w - size) // 2, (h - size) // 2, size), (255, 255, 255), color)
    return []


# Shape painters draw with Pillow and return the text runs set over the shapes.
_PAINTERS = {
    Round: _paint_round,
    Icon: _paint_icon,
    Avatar: _paint_avatar,
}


def tile(paint: Paint, width: int, height: int) -> tuple[np.ndarray, int, int]:
    """Draw a shape or text paint for a ``width × height`` frame.

    A label is drawn as one line, whatever its ``lines`` (the renderer splits wrapping
    text into its lines, see :func:`~mobileintent_gym.phone.render.ops_of`), in a box one
    line high: a glyph that reaches beyond it (a capital with stacked accents) is cut
    there. Its tile is cut to the text's ink (the frame around it is the parent's
    background, the colour the paint names ``under`` it), which keeps the tile cache small.

    Returns:
        The ``h × w × 3`` uint8 tile and its offset (dx, dy) inside the frame.
    """
    dx = dy = 0
    if type(paint) is Label:
        inked = math.ceil(fitted(paint.text, paint.size, paint.bold, width)[1]) + 4
        if inked < width:
            dx = {"left": 0, "right": width - inked}.get(paint.align, (width - inked) // 2)
            width = inked
        block = line_height(paint.size)
        if block < height:
            dy, height = (height - block) // 2, block
        pixels, (left, top) = _label_tile(paint, width, height)
        return pixels, dx + left, dy + top
    image = Image.new("RGB", (width, height), paint.under)
    runs = _PAINTERS[type(paint)](paint, ImageDraw.Draw(image), width, height)
    pixels = np.asarray(image)
    for run in runs:
        alpha = np.zeros((height, width), np.uint8)
        _set_text(alpha, run)
        pixels = typeset.blend(pixels, run[3], alpha)
    return pixels, dx, dy


def _label_tile(p: Label, width: int, height: int) -> tuple[np.ndarray, tuple[int, int]]:
    """A label's tile cut to its ink, and where that cut starts in the ``width × height`` box.

    The coverage mask is coloured through a 256-entry palette in one step.
    """
    alpha = np.zeros((height, width), np.uint8)
    _set_text(alpha, ((0, 0, width, height), p.text, p.size, p.color, p.bold, p.align))
    rows, columns = np.flatnonzero(alpha.any(axis=1)), np.flatnonzero(alpha.any(axis=0))
    if not rows.size:
        return np.zeros((0, 0, 3), np.uint8), (0, 0)
    alpha = np.ascontiguousarray(alpha[rows[0]:rows[-1] + 1, columns[0]:columns[-1] + 1])
    image = Image.frombuffer("P", alpha.shape[::-1], alpha, "raw", "P", 0, 1)
    image.putpalette(typeset.ink_table(p.color, p.under).tobytes())
    return np.asarray(image.convert("RGB")), (int(columns[0]), int(rows[0]))

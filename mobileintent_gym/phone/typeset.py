"""Text set from cached glyph bitmaps, pixel for pixel what Pillow's basic layout draws.

FreeType renders each glyph of a font size once; a line of text is then its glyphs'
coverage masks placed at the pen positions Pillow would use (26.6 fixed point, rounded
the way FreeType rounds) and joined with Pillow's coverage rule where two glyphs overlap.
Drawing a label costs a few array copies instead of a FreeType call per label.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

Color = tuple[int, int, int]


_Glyph = tuple[np.ndarray, int, int, int, int, int]
"""A glyph's coverage mask, its left and top offsets from the pen on the baseline, its
height and width, and its advance in 26.6 fixed point."""


def _pixel(value: int) -> int:
    """FreeType's rounding of a 26.6 fixed-point value to whole pixels."""
    return ((value + 32) & -64) >> 6


@lru_cache(maxsize=4096)
def _glyph(face: ImageFont.FreeTypeFont, char: str) -> _Glyph:
    left, top, right, bottom = face.getbbox(char, anchor="ls")
    image = Image.new("L", (max(0, right - left), max(0, bottom - top)))
    if image.width and image.height:
        ImageDraw.Draw(image).text((-left, -top), char, fill=255, font=face, anchor="ls")
    mask = np.asarray(image)
    return mask, left, top, image.height, image.width, round(face.getlength(char) * 64)


@lru_cache(maxsize=1024)
def _middle(face: ImageFont.FreeTypeFont) -> int:
    """Pixels from the middle of the em box (anchor ``m``) down to the baseline."""
    return face.getbbox("x", anchor="lm")[1] - face.getbbox("x", anchor="ls")[1]


def set_line(alpha: np.ndarray, x: float, y: float, text: str,
             face: ImageFont.FreeTypeFont) -> None:
    """Add ``text``'s coverage to ``alpha`` with its left middle (anchor ``lm``) at (x, y).

    Positions follow Pillow: the pen starts at the fractional part of ``x`` in 26.6
    units and each glyph lands at the pen rounded to a pixel plus its bearing.
    """
    height, width = alpha.shape
    # As Pillow splits a position: the integer part truncated, the fraction kept signed.
    pen = round(math.modf(x)[0] * 64) + 32  # + 32: FreeType rounds to the nearest pixel
    baseline = int(y) + _middle(face) - _pixel(round(-math.modf(y)[0] * 64))
    origin, inked_to = int(x), -1 << 30
    for char in text:
        mask, left, top, gh, gw, advance = _glyph(face, char)
        gx, gy = origin + ((pen & -64) >> 6) + left, baseline + top
        pen += advance
        x2, y2 = gx + gw, gy + gh
        if gx < 0 or gy < 0 or x2 > width or y2 > height:
            mask, gx, gy, x2, y2 = _clipped(mask, gx, gy, width, height)
            if mask is None:
                continue
        if gx >= inked_to:
            alpha[gy:y2, gx:x2] = mask
        else:
            _cover(alpha[gy:y2, gx:x2], mask)
        inked_to = max(inked_to, x2)


def _clipped(mask: np.ndarray, gx: int, gy: int, width: int, height: int
             ) -> tuple[np.ndarray | None, int, int, int, int]:
    """The part of a glyph placed at (gx, gy) inside a ``width × height`` canvas."""
    gh, gw = mask.shape
    x1, y1, x2, y2 = max(gx, 0), max(gy, 0), min(gx + gw, width), min(gy + gh, height)
    if x1 >= x2 or y1 >= y2:
        return None, 0, 0, 0, 0
    return mask[y1 - gy:y2 - gy, x1 - gx:x2 - gx], x1, y1, x2, y2


def _cover(target: np.ndarray, source: np.ndarray) -> None:
    """Pillow's rule for a glyph drawn over coverage already there: s + t·(255 − s)/255."""
    t = target.astype(np.uint32)
    s = source.astype(np.uint32)
    product = t * (255 - s) + 128
    joined = np.minimum(s + (((product >> 8) + product) >> 8), 255)
    target[...] = np.where(s == 0, t, np.where(t == 0, s, joined))


def blend(under: np.ndarray, ink: Color, alpha: np.ndarray) -> np.ndarray:
    """``ink`` over ``under`` (…×3 uint8) with coverage ``alpha``, rounded as Pillow does."""
    a = alpha.astype(np.uint32)[..., None]
    mixed = under.astype(np.uint32) * (255 - a) + np.array(ink, np.uint32) * a + 128
    return (((mixed >> 8) + mixed) >> 8).astype(np.uint8)


@lru_cache(maxsize=256)
def ink_table(ink: Color, under: Color) -> np.ndarray:
    """The 256 colours of ``ink`` over ``under`` at each coverage, for one-lookup painting."""
    return blend(np.array([under], np.uint8), ink, np.arange(256, dtype=np.uint8))

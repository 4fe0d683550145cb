"""How an action is drawn on the screen it was taken on: a dot, a ring, an arrow, a caption.

:func:`marks` turns an action string into shapes in device pixels; :func:`draw_marks` paints
them onto a frame (GIF export) and :func:`svg_marks` writes them as an SVG overlay (HTML
report), so both show the same thing.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

from PIL import Image, ImageDraw

from mobileintent_gym.actions import ActionType, parse_action
from mobileintent_gym.adbd.conventions import swipe_gesture
from mobileintent_gym.errors import InvalidActionError
from mobileintent_gym.phone.paint import fit_text, font

COLOR = (229, 57, 53)  # the marks' red
RADIUS = 0.035  # of the screen width


@dataclass(frozen=True, slots=True)
class Dot:
    """A touch at (x, y); ``held`` for a long press (drawn with a second ring)."""

    x: int
    y: int
    held: bool = False


@dataclass(frozen=True, slots=True)
class Arrow:
    """A finger moving from (x1, y1) to (x2, y2)."""

    x1: int
    y1: int
    x2: int
    y2: int


@dataclass(frozen=True, slots=True)
class Caption:
    """Text shown over the top of the screen (typed text, a key, COMPLETE, an invalid action)."""

    text: str


Mark = Dot | Arrow | Caption


def marks(action: str, width: int, height: int, invalid: str | None = None) -> list[Mark]:
    """The marks of one recorded action on a ``width`` × ``height`` screen.

    Args:
        action: The action's string form (as a run records it).
        width: Screen width in device pixels.
        height: Screen height in device pixels.
        invalid: Why the env refused it; such an action is shown as a caption only.
    """
    if invalid is not None:
        return [Caption(f"invalid: {action}")]
    try:
        parsed = parse_action(action)
    except InvalidActionError:
        return [Caption(action)]
    kind = parsed.type
    if kind in (ActionType.CLICK, ActionType.LONG_CLICK):
        return [Dot(parsed.x, parsed.y, kind is ActionType.LONG_CLICK)]
    if kind is ActionType.SWIPE:
        return [Arrow(*swipe_gesture(parsed.direction, width, height))]
    if kind is ActionType.TYPE:
        return [Caption(f"type “{parsed.text}”")]
    if kind is ActionType.PRESS:
        return [Caption(f"press {parsed.key}")]
    return [Caption("COMPLETE")]


def _arrow_head(arrow: Arrow, size: float) -> list[tuple[float, float]]:
    angle = math.atan2(arrow.y2 - arrow.y1, arrow.x2 - arrow.x1)
    return [(arrow.x2, arrow.y2)] + [
        (arrow.x2 - size * math.cos(angle + turn), arrow.y2 - size * math.sin(angle + turn))
        for turn in (0.45, -0.45)]


def draw_marks(frame: Image.Image, shapes: list[Mark], width: int) -> Image.Image:
    """A copy of ``frame`` (any size) with ``shapes`` of a ``width``-pixel-wide screen on it."""
    image = frame.convert("RGB")
    draw = ImageDraw.Draw(image)
    scale = image.width / width
    radius = RADIUS * image.width
    for shape in shapes:
        if isinstance(shape, Dot):
            x, y = shape.x * scale, shape.y * scale
            rings = (radius, radius * 1.6) if shape.held else (radius,)
            for r in rings:
                draw.ellipse((x - r, y - r, x + r, y + r), outline=COLOR,
                             width=max(2, round(radius / 3)))
            draw.ellipse((x - radius / 3, y - radius / 3, x + radius / 3, y + radius / 3),
                         fill=COLOR)
        elif isinstance(shape, Arrow):
            scaled = Arrow(*(round(v * scale) for v in (shape.x1, shape.y1, shape.x2, shape.y2)))
            draw.line((scaled.x1, scaled.y1, scaled.x2, scaled.y2), fill=COLOR,
                      width=max(2, round(radius / 2)))
            draw.polygon(_arrow_head(scaled, radius * 1.5), fill=COLOR)
        else:
            face = font(max(10, round(image.width / 24)), bold=True)
            text = fit_text(shape.text, face, image.width - 16)
            box = draw.textbbox((0, 0), text, font=face)
            # Over the status bar, where it hides the clock, not the app bar's title
            draw.rectangle((0, 0, image.width, box[3] + 12), fill=(33, 33, 33))
            draw.text((8, 6), text, font=face, fill=(255, 255, 255))
    return image


def svg_marks(shapes: list[Mark], width: int, height: int) -> str:
    """``shapes`` as an SVG in device coordinates (captions are left to the page's text)."""
    r = RADIUS * width
    stroke = f'stroke-width="{r / 3:.0f}"'
    parts = []
    for shape in shapes:
        if isinstance(shape, Dot):
            rings = (r, r * 1.6) if shape.held else (r,)
            parts += [f'<circle cx="{shape.x}" cy="{shape.y}" r="{ring:.0f}" class="ring" '
                      f"{stroke}/>" for ring in rings]
            parts.append(f'<circle cx="{shape.x}" cy="{shape.y}" r="{r / 3:.0f}" class="dot"/>')
        elif isinstance(shape, Arrow):
            head = " ".join(f"{x:.0f},{y:.0f}" for x, y in _arrow_head(shape, r * 1.5))
            parts.append(f'<line x1="{shape.x1}" y1="{shape.y1}" x2="{shape.x2}" '
                         f'y2="{shape.y2}" class="ring" {stroke}/>'
                         f'<polygon points="{head}" class="dot"/>')
    return (f'<svg viewBox="0 0 {width} {height}" class="marks" aria-hidden="true">'
            f'{"".join(parts)}</svg>')


def caption(shapes: list[Mark]) -> str:
    """The caption text among ``shapes`` (HTML-escaped), or an empty string."""
    return " ".join(html.escape(s.text) for s in shapes if isinstance(s, Caption))

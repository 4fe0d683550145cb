"""Vector icons drawn with Pillow primitives on a 24-unit grid (Material-like shapes).

An icon is named (the shared set below) or is a painter function of its own: an app's
launcher icon lives in the app's package and draws with a :class:`Pen`.
"""

from __future__ import annotations

from collections.abc import Callable

from PIL import ImageDraw

Color = tuple[int, int, int]
Box = tuple[int, int, int]  # x, y, size


class Pen:
    """Draws on a 24-unit grid mapped to pixels inside a box.

    Attributes:
        d: The Pillow drawing context.
        color: The icon's colour.
        under: The colour below the icon (what ``hole`` shapes paint).
    """

    def __init__(self, draw: ImageDraw.ImageDraw, box: Box, color: Color,
                 under: Color) -> None:
        self.d, self.color, self.under = draw, color, under
        self.x, self.y, self.s = box[0], box[1], box[2] / 24.0
        self.w = max(1, round(2 * self.s))

    def p(self, *xy: float) -> list[tuple[float, float]]:
        """Grid points ``x1, y1, x2, y2 …`` in pixels."""
        return [(self.x + xy[i] * self.s, self.y + xy[i + 1] * self.s)
                for i in range(0, len(xy), 2)]

    def box(self, x1: float, y1: float, x2: float, y2: float) -> list[float]:
        """A grid rectangle in pixels."""
        return [self.x + x1 * self.s, self.y + y1 * self.s,
                self.x + x2 * self.s, self.y + y2 * self.s]

    def line(self, *xy: float) -> None:
        """A stroke through grid points."""
        self.d.line(self.p(*xy), fill=self.color, width=self.w, joint="curve")

    def poly(self, *xy: float, hole: bool = False) -> None:
        """A filled polygon (in the background colour when ``hole``)."""
        self.d.polygon(self.p(*xy), fill=self.under if hole else self.color)

    def circle(self, cx: float, cy: float, r: float, fill: bool = True,
               hole: bool = False) -> None:
        """A disc, a ring (``fill=False``) or a hole."""
        box = self.box(cx - r, cy - r, cx + r, cy + r)
        if fill:
            self.d.ellipse(box, fill=self.under if hole else self.color)
        else:
            self.d.ellipse(box, outline=self.color, width=self.w)

    def rect(self, x1: float, y1: float, x2: float, y2: float, fill: bool = True,
             hole: bool = False, radius: float = 0) -> None:
        """A (rounded) rectangle, filled, outlined or a hole."""
        color = self.under if hole else self.color
        box = self.box(x1, y1, x2, y2)
        if fill:
            self.d.rounded_rectangle(box, radius=radius * self.s, fill=color)
        else:
            self.d.rounded_rectangle(box, radius=radius * self.s, outline=color, width=self.w)

    def arc(self, cx: float, cy: float, r: float, start: float, end: float) -> None:
        """A stroked arc from ``start`` to ``end`` degrees (clockwise from 3 o'clock)."""
        self.d.arc(self.box(cx - r, cy - r, cx + r, cy + r), start, end, fill=self.color,
                   width=self.w)


def _home(p: Pen) -> None:
    p.poly(12, 3, 2, 12, 5, 12, 5, 21, 10, 21, 10, 15, 14, 15, 14, 21, 19, 21, 19, 12, 22, 12)


def _search(p: Pen) -> None:
    p.circle(10, 10, 6, fill=False)
    p.line(14.5, 14.5, 21, 21)


def _library(p: Pen) -> None:
    p.line(5, 3, 5, 21)
    p.line(10, 3, 10, 21)
    p.line(14, 4, 19.5, 20.5)


def _back(p: Pen) -> None:
    p.line(20, 12, 4, 12)
    p.line(11, 5, 4, 12, 11, 19)


def _more(p: Pen) -> None:
    for cy in (5, 12, 19):
        p.circle(12, cy, 2)


def _play(p: Pen) -> None:
    p.poly(7, 4, 20, 12, 7, 20)


def _pause(p: Pen) -> None:
    p.rect(6, 4, 10, 20)
    p.rect(14, 4, 18, 20)


def _heart(p: Pen) -> None:
    p.circle(8, 9, 4.5)
    p.circle(16, 9, 4.5)
    p.poly(3.8, 10.5, 12, 21, 20.2, 10.5, 12, 8)


def _heart_outline(p: Pen) -> None:
    _heart(p)
    p.circle(8.3, 9.2, 2.6, hole=True)
    p.circle(15.7, 9.2, 2.6, hole=True)
    p.poly(6.2, 10.8, 12, 18, 17.8, 10.8, 12, 9.5, hole=True)


def _bubble(p: Pen) -> None:
    p.rect(2, 4, 22, 17, radius=4)
    p.poly(6, 16, 6, 22, 12, 16)
    for cx in (7, 12, 17):
        p.circle(cx, 10.5, 1.4, hole=True)


def _person(p: Pen) -> None:
    p.circle(12, 8, 4.5)
    p.d.pieslice(p.box(3, 13, 21, 31), 180, 360, fill=p.color)


def _contacts(p: Pen) -> None:
    p.rect(3, 3, 21, 21, fill=False, radius=3)
    p.circle(12, 10, 3)
    p.d.pieslice(p.box(6, 14, 18, 24), 180, 360, fill=p.color)


def _discover(p: Pen) -> None:
    p.circle(12, 12, 9.5, fill=False)
    p.poly(15.5, 8.5, 13.5, 13.5, 8.5, 15.5, 10.5, 10.5)


def _plus(p: Pen) -> None:
    p.line(12, 4, 12, 20)
    p.line(4, 12, 20, 12)


def _send(p: Pen) -> None:
    p.poly(2, 3, 22, 12, 2, 21, 4, 13.5, 14, 12, 4, 10.5)


def _check(p: Pen) -> None:
    p.line(4, 12.5, 9.5, 18, 20, 6.5)


def _chevron_right(p: Pen) -> None:
    p.line(9, 5, 16, 12, 9, 19)


def _chevron_down(p: Pen) -> None:
    p.line(5, 9, 12, 16, 19, 9)


def _chevron_up(p: Pen) -> None:
    p.line(5, 15, 12, 8, 19, 15)


def _close(p: Pen) -> None:
    p.line(5, 5, 19, 19)
    p.line(19, 5, 5, 19)


def _aperture(p: Pen) -> None:
    p.circle(12, 12, 9.5, fill=False)
    for a, b, c, d in ((12, 2.5, 15, 12), (21.5, 12, 12, 15), (12, 21.5, 9, 12), (2.5, 12, 12, 9)):
        p.line(a, b, c, d)


def _camera(p: Pen) -> None:
    p.rect(2, 7, 22, 20, radius=2)
    p.rect(8, 4, 16, 8, radius=1)
    p.circle(12, 13.5, 4, hole=True)
    p.circle(12, 13.5, 2.2)


def _wifi(p: Pen) -> None:
    p.d.pieslice(p.box(1, 4, 23, 26), 225, 315, fill=p.color)


def _signal(p: Pen) -> None:
    p.poly(2, 21, 21, 21, 21, 2)


def _battery(p: Pen) -> None:
    p.rect(8, 3, 16, 21, radius=1.5)
    p.rect(10, 1.5, 14, 3.5)


def _share(p: Pen) -> None:
    for cx, cy in ((18, 5), (6, 12), (18, 19)):
        p.circle(cx, cy, 3)
    p.line(18, 5, 6, 12, 18, 19)


def _queue(p: Pen) -> None:
    for y in (6, 11, 16):
        p.line(3, y, 15, y)
    p.poly(17, 13, 22, 16.5, 17, 20)


def _album(p: Pen) -> None:
    p.circle(12, 12, 10, fill=False)
    p.circle(12, 12, 3)


def _next(p: Pen) -> None:
    p.poly(5, 5, 15, 12, 5, 19)
    p.rect(16, 5, 19, 19)


def _mic(p: Pen) -> None:
    p.rect(9, 2, 15, 15, radius=3)
    p.arc(12, 10, 7, 0, 180)
    p.line(12, 17, 12, 22)


def _smile(p: Pen) -> None:
    p.circle(12, 12, 9.5, fill=False)
    p.circle(8.5, 9.5, 1.4)
    p.circle(15.5, 9.5, 1.4)
    p.arc(12, 12, 5.5, 20, 160)


def _settings(p: Pen) -> None:
    p.circle(12, 12, 8)
    for a, b, c, d in ((12, 1, 12, 23), (1, 12, 23, 12), (4, 4, 20, 20), (20, 4, 4, 20)):
        p.d.line(p.p(a, b, c, d), fill=p.color, width=max(1, round(4 * p.s)))
    p.circle(12, 12, 3.5, hole=True)


def _bell(p: Pen) -> None:
    p.d.pieslice(p.box(5, 4, 19, 26), 180, 360, fill=p.color)
    p.rect(4, 15, 20, 18)
    p.circle(12, 20.5, 2)


def _shift(p: Pen) -> None:
    p.poly(12, 3, 3, 12.5, 8, 12.5, 8, 20, 16, 20, 16, 12.5, 21, 12.5)
    p.poly(12, 6, 6.5, 11, 10, 11, 10, 18, 14, 18, 14, 11, 17.5, 11, hole=True)


def _backspace(p: Pen) -> None:
    p.poly(8, 5, 22, 5, 22, 19, 8, 19, 2, 12)
    p.d.line(p.p(11, 8.5, 18, 15.5), fill=p.under, width=p.w)
    p.d.line(p.p(18, 8.5, 11, 15.5), fill=p.under, width=p.w)


def _enter(p: Pen) -> None:
    p.line(19, 5, 19, 14, 6, 14)
    p.line(10, 9.5, 5.5, 14, 10, 18.5)


_ICONS: dict[str, Callable[[Pen], None]] = {
    "album": _album, "back": _back, "battery": _battery, "bell": _bell, "camera": _camera,
    "bubble": _bubble, "check": _check, "chevron_down": _chevron_down,
    "chevron_right": _chevron_right, "chevron_up": _chevron_up, "close": _close,
    "contacts": _contacts, "discover": _discover, "heart": _heart,
    "heart_outline": _heart_outline, "home": _home, "library": _library, "mic": _mic,
    "aperture": _aperture, "more": _more, "next": _next, "pause": _pause,
    "person": _person, "play": _play, "plus": _plus, "queue": _queue, "search": _search,
    "send": _send, "settings": _settings, "share": _share, "shift": _shift,
    "signal": _signal, "backspace": _backspace, "enter": _enter,
    "smile": _smile, "wifi": _wifi,
}

Glyph = str | Callable[[Pen], None]
"""An icon: the name of a shared one, or a painter function of one's own."""


def draw(draw: ImageDraw.ImageDraw, glyph: Glyph, box: Box, color: Color, under: Color) -> None:
    """Draw ``glyph`` into ``box`` = (x, y, size) of ``draw``.

    Raises:
        KeyError: When no shared icon has that name.
    """
    painter = _ICONS[glyph] if isinstance(glyph, str) else glyph
    painter(Pen(draw, box, color, under))

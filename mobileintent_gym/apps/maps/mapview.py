"""The map the maps app draws under its screens: a street grid, a park, a river, marks.

A map is a few flat rectangles (blocks of land under a grid of streets, main roads, a
park and a river), laid out from a seed so that each place's map differs; flat colour
costs the renderer a broadcast row per rectangle and no tile. Pins and the dot of your
location sit at the centres of blocks, on land, and a route follows the streets.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from mobileintent_gym.apps.maps import glyphs
from mobileintent_gym.apps.maps.ids import Rid
from mobileintent_gym.phone import ui, widgets
from mobileintent_gym.phone.icons import Glyph
from mobileintent_gym.phone.paint import Color, Fill, Icon, text_width
from mobileintent_gym.phone.ui import Node, Rect
from mobileintent_gym.phone.widgets import Ctx

LAND, STREET, MAIN_ROAD = (238, 235, 228), (255, 255, 255), (252, 222, 140)
PARK, WATER = (197, 229, 187), (167, 208, 240)
ROUTE, PIN, INK = (26, 115, 232), (221, 60, 48), (60, 64, 67)
BLOCK_DP, STREET_DP, MAIN_DP, ROUTE_DP, PIN_DP = 96, 7, 13, 6, 40

Cell = tuple[int, int]
"""A block of the grid: (column, row), from the top left."""


@dataclass(frozen=True, slots=True)
class Mark:
    """Something drawn on the map at the centre of a block.

    Attributes:
        cell: The block.
        kind: ``pin`` (a place) or ``me`` (your location).
        label: The place's name (shown beside a pin, and its description).
        entity: The place id a pin shows.
        intent: What a tap on the pin does (``None``: nothing).
    """

    cell: Cell
    kind: str
    label: str = ""
    entity: str | None = None
    intent: tuple | None = None


@dataclass(frozen=True, slots=True)
class Grid:
    """The street grid of a map: where its streets and blocks are.

    Attributes:
        rect: The map's rectangle.
        pitch: Pixels from one street to the next.
        x0: X of the first vertical street.
        y0: Y of the first horizontal street.
        cols: Whole blocks across.
        rows: Whole blocks down.
        seed: The bytes the layout was drawn from.
    """

    rect: Rect
    pitch: int
    x0: int
    y0: int
    cols: int
    rows: int
    seed: bytes

    def x(self, k: int) -> int:
        """X of vertical street ``k``."""
        return self.x0 + k * self.pitch

    def y(self, k: int) -> int:
        """Y of horizontal street ``k``."""
        return self.y0 + k * self.pitch

    def centre(self, cell: Cell) -> tuple[int, int]:
        """The middle of a block."""
        half = self.pitch // 2
        return self.x(cell[0]) + half, self.y(cell[1]) + half


def grid(ctx: Ctx, rect: Rect, seed: str) -> Grid:
    """The street grid of the map of ``seed`` over ``rect``."""
    digest = hashlib.blake2s(seed.encode("utf-8"), digest_size=8).digest()
    pitch = ctx.dp(BLOCK_DP)
    x0 = rect[0] + digest[0] * pitch // 512  # within the first half block
    y0 = rect[1] + digest[1] * pitch // 512
    return Grid(rect, pitch, x0, y0, max(1, (rect[2] - x0) // pitch),
                max(1, (rect[3] - y0) // pitch), digest)


def map_view(ctx: Ctx, rect: Rect, seed: str, marks: Sequence[Mark] = (),
             route: tuple[Cell, Cell] | None = None) -> Node:
    """A map over ``rect`` laid out from ``seed``, with ``marks`` and an optional route."""
    g = grid(ctx, rect, seed)
    root = Node(ui.FRAME, rect, resource_id=ctx.rid(Rid.MAP), desc="Map", paint=Fill(LAND))
    taken = {m.cell for m in marks}
    free = [(c, r) for r in range(g.rows) for c in range(g.cols) if (c, r) not in taken]
    if free:
        c, r = free[g.seed[2] % len(free)]
        inset = ctx.dp(STREET_DP)
        root.add(_fill(rect, (g.x(c) + inset, g.y(r) + inset, g.x(c + 1) - inset,
                              g.y(r + 1) - inset), PARK))
    river = 1 + g.seed[3] % max(1, g.rows - 1)
    for k in range(g.cols + 2):
        root.add(_road(ctx, rect, g.x(k), True, k == 1 + g.seed[4] % max(1, g.cols)))
    for k in range(g.rows + 2):
        if k == river:
            continue
        root.add(_road(ctx, rect, g.y(k), False, k == g.seed[5] % max(1, g.rows + 1)))
    half = ctx.dp(12)
    root.add(_fill(rect, (rect[0], g.y(river) - half, rect[2], g.y(river) + half), WATER))
    if route is not None:
        root.add(*_route(ctx, rect, g, *route))
    for mark in marks:
        root.add(*_mark(ctx, rect, g, mark))
    return root


def _fill(clip: Rect, frame: Rect, color: Color) -> Node | None:
    visible = ui.intersect(clip, frame)
    return None if visible is None else Node(ui.VIEW_GROUP, visible, paint=Fill(color))


def _road(ctx: Ctx, rect: Rect, at: int, vertical: bool, main: bool) -> Node | None:
    half = ctx.dp(MAIN_DP if main else STREET_DP) // 2
    frame = (at - half, rect[1], at + half, rect[3]) if vertical else (
        rect[0], at - half, rect[2], at + half)
    return _fill(rect, frame, MAIN_ROAD if main else STREET)


def _route(ctx: Ctx, rect: Rect, g: Grid, start: Cell, end: Cell) -> list[Node | None]:
    """The route from the centre of ``start`` to ``end``'s, along the streets between."""
    (x1, y1), (x2, y2) = g.centre(start), g.centre(end)
    street_y = g.y(start[1])  # the street above the start
    street_x = g.x(end[0])  # the street left of the end
    below_end = g.y(end[1] + 1)
    points = [(x1, y1), (x1, street_y), (street_x, street_y), (street_x, below_end),
              (x2, below_end), (x2, y2)]
    half = ctx.dp(ROUTE_DP) // 2
    segments = []
    for (ax, ay), (bx, by) in itertools.pairwise(points):
        frame = (min(ax, bx) - half, min(ay, by) - half, max(ax, bx) + half, max(ay, by) + half)
        segments.append(_fill(rect, frame, ROUTE))
    return segments


def _mark(ctx: Ctx, rect: Rect, g: Grid, mark: Mark) -> list[Node | None]:
    x, y = g.centre(mark.cell)
    if mark.kind == "me":
        side = ctx.dp(22)
        frame = (x - side // 2, y - side // 2, x + side - side // 2, y + side - side // 2)
        return [_icon(ctx, rect, frame, glyphs.dot, ROUTE, "Your location", Rid.MY_LOCATION)]
    side = ctx.dp(PIN_DP)
    frame = (x - side // 2, y - side, x + side - side // 2, y)
    pin = _icon(ctx, rect, frame, glyphs.pin, PIN, mark.label, Rid.PIN)
    if pin is not None:
        pin.entity, pin.on_click, pin.clickable = mark.entity, mark.intent, bool(mark.intent)
    return [pin, _label(ctx, rect, g, mark.label, x, y - side + ctx.dp(4), y - ctx.dp(12))]


def _label(ctx: Ctx, rect: Rect, g: Grid, label: str, x: int, top: int,
           bottom: int) -> Node | None:
    """A pin's name beside it: on its right, or on its left near the map's right edge."""
    gap = ctx.dp(PIN_DP) // 2
    width = min(g.pitch, text_width(label, ctx.dp(12), True) + ctx.dp(4))
    right = (x + gap, top, min(rect[2], x + gap + width), bottom)
    room = right if right[2] - right[0] >= min(width, g.pitch * 3 // 4) else (
        max(rect[0], x - gap - width), top, x - gap, bottom)
    if not label or room[0] >= room[2] or ui.intersect(rect, room) != room:
        return None
    return widgets.text(ctx, room, label, 12, bold=True, color=INK, under=LAND)


def _icon(ctx: Ctx, rect: Rect, frame: Rect, glyph: Glyph, color: Color, desc: str,
          rid: str) -> Node | None:
    if ui.intersect(rect, frame) != frame:
        return None  # a mark is drawn whole or not at all
    return Node(ui.IMAGE_VIEW, frame, desc=desc, resource_id=ctx.rid(rid),
                paint=Icon(glyph, color, LAND, frame[2] - frame[0]))

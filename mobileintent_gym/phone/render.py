"""Frame composition with damage tracking and a byte-bounded tile cache.

A frame is described by an ordered list of draw operations ``(frame, paint, clip)``.
Between two frames only the rectangles whose operations changed are repainted (with every
operation that overlaps them, in order), so a step that changes a badge repaints a badge.
Shape and text tiles are cached by value (paint and size) in an LRU bounded in bytes.

Frames handed out are read-only and never modified afterwards: a new frame is a new array,
so an observation an agent keeps stays what it was.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from mobileintent_gym.phone.paint import Dim, Fill, Paint, tile
from mobileintent_gym.phone.ui import Rect, intersect

Op = tuple[Rect, Paint, Rect | None]
"""One draw operation: the node's frame, its paint and the clip of its scrolling parent."""

# Past this share of the screen a full repaint is cheaper than copying and patching.
_FULL_REPAINT_SHARE = 0.6
_MAX_DAMAGE_RECTS = 6


class TileCache:
    """Tiles keyed by ``(paint, width, height)``, least recently used evicted past a budget."""

    def __init__(self, budget_bytes: int) -> None:
        self.budget = budget_bytes
        self.bytes = 0
        self._tiles: OrderedDict[tuple, np.ndarray] = OrderedDict()

    def get(self, paint: Paint, width: int, height: int) -> np.ndarray:
        """The tile for ``paint`` at this size, drawn on a miss."""
        key = (paint, width, height)
        found = self._tiles.get(key)
        if found is not None:
            self._tiles.move_to_end(key)
            return found
        made = tile(paint, width, height)
        self._tiles[key] = made
        self.bytes += made.nbytes
        while self.bytes > self.budget and len(self._tiles) > 1:
            _, old = self._tiles.popitem(last=False)
            self.bytes -= old.nbytes
        return made

    def clear(self) -> None:
        """Drop every tile."""
        self._tiles.clear()
        self.bytes = 0


class Renderer:
    """Turns op lists into H×W×3 uint8 frames.

    Args:
        width: Frame width in pixels.
        height: Frame height in pixels.
        cache: With ``False`` every frame is drawn from scratch and no tile is kept (the
            baseline the benchmark compares against).
        budget_bytes: Upper bound of the tile cache.
    """

    def __init__(self, width: int, height: int, cache: bool = True,
                 budget_bytes: int = 12 << 20) -> None:
        self.width, self.height, self.cache = width, height, cache
        self.tiles = TileCache(budget_bytes if cache else 0)
        self._ops: list[Op] = []
        self._frame: np.ndarray | None = None

    def render(self, ops: list[Op]) -> np.ndarray:
        """The frame for ``ops`` (read-only; the same array while nothing changes)."""
        if self._frame is not None and self.cache and (ops is self._ops or ops == self._ops):
            return self._frame
        damage = self._damage(ops) if self._frame is not None and self.cache else None
        if damage is None:
            buf = np.empty((self.height, self.width, 3), np.uint8)
            damage = [(0, 0, self.width, self.height)]
        else:
            buf = self._frame.copy()
        for rect in damage:
            self._paint(buf, ops, rect)
        if not self.cache:
            self.tiles.clear()
        buf.flags.writeable = False
        self._frame, self._ops = buf, ops
        return buf

    def reset(self) -> None:
        """Forget the last frame (tiles stay cached)."""
        self._frame, self._ops = None, []

    def _damage(self, ops: list[Op]) -> list[Rect] | None:
        """Rectangles that differ from the last frame; ``None`` for a full repaint."""
        old, new = set(self._ops), set(ops)
        rects = [r for op in old.symmetric_difference(new) if (r := _visible(op)) is not None]
        area = sum((r[2] - r[0]) * (r[3] - r[1]) for r in rects)
        if area > _FULL_REPAINT_SHARE * self.width * self.height:
            return None
        if len(rects) > _MAX_DAMAGE_RECTS:
            rects = [(min(r[0] for r in rects), min(r[1] for r in rects),
                      max(r[2] for r in rects), max(r[3] for r in rects))]
        return rects

    def _paint(self, buf: np.ndarray, ops: list[Op], region: Rect) -> None:
        for frame, paint, clip in ops:
            r = intersect(frame, region)
            if r is not None and clip is not None:
                r = intersect(r, clip)
            if r is None:
                continue
            x1, y1, x2, y2 = r
            dst = buf[y1:y2, x1:x2]
            kind = type(paint)
            if kind is Fill:
                dst[...] = paint.color
            elif kind is Dim:
                np.multiply(dst, paint.keep, out=dst, casting="unsafe")
            else:
                src = self.tiles.get(paint, frame[2] - frame[0], frame[3] - frame[1])
                dst[...] = src[y1 - frame[1]:y2 - frame[1], x1 - frame[0]:x2 - frame[0]]


def _visible(op: Op) -> Rect | None:
    frame, _, clip = op
    return frame if clip is None else intersect(frame, clip)

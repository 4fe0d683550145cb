"""Frame composition with damage tracking and a byte-bounded tile cache.

A frame is described by an ordered list of draw operations ``(frame, paint, clip)``.
Between two frames only the rectangles whose operations changed are repainted (with every
operation that overlaps them, in order), so a step that changes a badge repaints a badge.
Shape and text tiles are cached by value (paint and size) in an LRU bounded in bytes.

Frames handed out are read-only and never modified while anything outside the renderer
holds them: an observation an agent keeps stays what it was. A frame nobody holds any more
is reused for the next one. Frames can also be drawn straight into arrays of the caller's
(:meth:`Renderer.add_canvas`), such as a vector env worker's row of shared memory.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass, field

import numpy as np

from mobileintent_gym.errors import brief
from mobileintent_gym.held import held
from mobileintent_gym.phone.lru import LRU
from mobileintent_gym.phone.paint import (
    OUTLINE_WIDTH,
    Avatar,
    Dim,
    Fill,
    Label,
    Paint,
    Round,
    line_height,
    seed_color,
    tile,
    wrap,
)
from mobileintent_gym.phone.ui import Rect, intersect

Op = tuple[Rect, Paint, Rect | None]
"""One draw operation: the node's frame, its paint and the clip of its scrolling parent."""

# Past this share of the screen a full repaint is cheaper than copying and patching.
_FULL_REPAINT_SHARE = 0.6
_MAX_DAMAGE_RECTS = 6
_NINE_PATCH_AREA = 20_000
_ROW_COLORS = 256
TILE_BUDGET = 14 << 20
"""Default bytes of a renderer's tile cache.

With it, ``benchmarks/phone_step.py``'s walk peaks at 29.2 MB in a process where phones ran
before.
"""


class TileCache:
    """Tiles keyed by ``(paint, width, height)``, least recently used evicted past a budget."""

    def __init__(self, budget_bytes: int) -> None:
        self.budget = budget_bytes
        self.bytes = 0
        self._tiles: OrderedDict[tuple, tuple[np.ndarray, int, int]] = OrderedDict()

    def get(self, paint: Paint, width: int, height: int) -> tuple[np.ndarray, int, int]:
        """The tile for ``paint`` at this size and its offset in the frame, drawn on a miss."""
        key = (paint, width, height)
        found = self._tiles.get(key)
        if found is not None:
            self._tiles.move_to_end(key)
            return found
        made = tile(paint, width, height)
        self._tiles[key] = made
        self.bytes += made[0].nbytes
        while self.bytes > self.budget and len(self._tiles) > 1:
            old = self._tiles.popitem(last=False)[1][0]
            self.bytes -= old.nbytes
        return made

    def clear(self) -> None:
        """Drop every tile."""
        self._tiles.clear()
        self.bytes = 0


@dataclass(eq=False)
class _Canvas:
    """A buffer frames are drawn into and the ops it shows (``None``: not known)."""

    pixels: np.ndarray | None = None
    ops: list[Op] | None = None
    op_set: set[Op] = field(default_factory=set)

    def __setstate__(self, state: dict) -> None:
        # An unpickled frame is a view of the pickle's immutable bytes, which can never be
        # made writable again: own a copy, so the next frame can be drawn into it.
        self.__dict__.update(state)
        if self.pixels is not None and not self.pixels.flags.owndata:
            self.pixels = self.pixels.copy()
            self.pixels.flags.writeable = False


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
                 budget_bytes: int = TILE_BUDGET) -> None:
        self.width, self.height, self.cache = width, height, cache
        self.tiles = TileCache(budget_bytes if cache else 0)
        self._own = self._canvas = self._last = _Canvas()  # _last: the last frame drawn
        self._own_used = False  # a frame came from the own buffer since the last canvas frame
        self._canvases: dict[Hashable, _Canvas] = {}
        self._rows: LRU[np.ndarray] = LRU(_ROW_COLORS)

    def add_canvas(self, key: Hashable, pixels: np.ndarray) -> None:
        """Let frames be drawn straight into ``pixels`` once :meth:`draw_into` picks ``key``.

        ``pixels`` (H×W×3 uint8, C-contiguous, writable; a row of shared memory, say)
        replaces the canvas ``key`` named before. What it shows is taken as unknown, so the
        first frame drawn into it is drawn whole; call this again after writing to it.

        Raises:
            ValueError: When ``pixels`` is not such an array, or ``key`` is unhashable.
        """
        _check_key(key)
        if not (isinstance(pixels, np.ndarray) and pixels.dtype == np.uint8
                and pixels.shape == (self.height, self.width, 3)
                and pixels.flags.c_contiguous and pixels.flags.writeable):
            raise ValueError(f"a canvas must be a writable C-contiguous uint8 array of shape "
                             f"{(self.height, self.width, 3)}, got {_described(pixels)}")
        canvas, replaced = _Canvas(pixels), self._canvases.get(key)
        if self._canvas is replaced:
            self._canvas = canvas
        if self._last is replaced:
            self._last = self._own
        self._canvases[key] = canvas

    def draw_into(self, key: Hashable | None) -> None:
        """Draw the next frames into the canvas ``key`` (``None``: the renderer's own).

        A canvas that anything outside the renderer still holds (the frame last drawn there,
        a view of it) is never drawn over: the frame goes to the renderer's own buffers.
        Once frames go to canvases only, the renderer lets go of its own buffer (a
        1080×2400 frame is 7.8 MB).

        Raises:
            ValueError: When no canvas was added under ``key``.
        """
        try:  # one lookup: a vector env's worker calls this twice a step
            self._canvas = self._own if key is None else self._canvases[key]
        except KeyError:
            raise ValueError(f"no canvas named {key!r}; add it with add_canvas first") from None
        except TypeError:
            _check_key(key)  # raises, naming the unhashable key
            raise

    def render(self, ops: list[Op], layout: Geometry | None = None, fresh: bool = False
               ) -> np.ndarray:
        """The frame for ``ops`` (read-only; the same array while nothing changes).

        ``layout`` is :func:`geometry` of ``ops`` when the caller keeps it. With ``fresh``
        an unchanged frame that something outside the renderer still holds comes back as a
        copy, so the result shares no memory with any frame handed out before.
        """
        canvas = self._canvas
        if canvas is not self._own and held(canvas.pixels):
            canvas = self._own
        self._own_used |= canvas is self._own
        if self.cache and _shows(canvas, ops):
            self._last, canvas.ops = canvas, ops
            if fresh and canvas is self._own and held(canvas.pixels):
                canvas.pixels = canvas.pixels.copy()
                canvas.pixels.flags.writeable = False
            return canvas.pixels
        drawn = set(ops) if self.cache else set()
        damage = self._damage_to(canvas, drawn) if self.cache else None
        self._last = canvas
        buf = self._writable_frame(canvas, keep=damage is not None)
        canvas.ops = None  # not known until it is drawn
        if damage is None:
            damage = [(0, 0, self.width, self.height)]
        if damage:  # none when the canvas caught up with a last frame that was this one
            rects, opaque = layout if layout is not None else geometry(ops)
            for region in damage:
                self._paint(buf, ops, region, rects, opaque)
        if not self.cache:
            self.tiles.clear()
        buf.flags.writeable = False
        canvas.pixels, canvas.ops, canvas.op_set = buf, ops, drawn
        if canvas is not self._own:
            self._release_own()
        return buf

    def _damage_to(self, canvas: _Canvas, drawn: set[Op]) -> list[Rect] | None:
        """Where ``canvas`` must be painted to show ``drawn``; ``None``: everywhere.

        Frames drawn into two canvases in turn (a vector env handing out batches in turn)
        find each canvas two frames behind. When the last frame drawn, in another buffer,
        is close to ``drawn``, the canvas first copies what differs from that frame
        (cheaper than painting it again) and only the last frame's changes are painted.
        """
        last = self._last
        if (last is not canvas and last.pixels is not None
                and not (canvas.pixels is not None and held(canvas.pixels))):
            left = self._damage(last, drawn)
            if left is not None:
                self._copy_frame(last, canvas)
                return left
        return self._damage(canvas, drawn)

    def _copy_frame(self, source: _Canvas, canvas: _Canvas) -> None:
        """Make ``canvas`` (held by nothing outside) show ``source``'s frame: copy what differs."""
        rects = self._damage(canvas, source.op_set)
        buf = canvas.pixels if canvas.pixels is not None else np.empty_like(source.pixels)
        buf.flags.writeable = True
        if rects is None:
            np.copyto(buf, source.pixels)
        else:
            for x1, y1, x2, y2 in rects:
                buf[y1:y2, x1:x2] = source.pixels[y1:y2, x1:x2]
        buf.flags.writeable = False
        canvas.pixels, canvas.ops, canvas.op_set = buf, source.ops, source.op_set

    def _release_own(self) -> None:
        """After a frame drawn into a canvas: let go of the own buffer if it is not in use.

        It is kept while something holds it, or while frames are taken from it between
        canvas frames too (``render()`` of an env whose steps go to shared memory), so that
        those are still drawn incrementally.
        """
        if not self._own_used and self._own.pixels is not None and not held(
                self._own.pixels):
            self._own.pixels = self._own.ops = None
        self._own_used = False

    def _writable_frame(self, canvas: _Canvas, keep: bool) -> np.ndarray:
        """A buffer for the next frame: ``canvas``'s own when nobody else holds it.

        A frame handed out must never change, so while any reference to it exists outside
        the renderer (an agent's observation, a view, a tensor sharing its memory) the next
        frame goes to a new buffer (a copy when ``keep``); otherwise it is drawn in place.
        An added canvas is never held here (see :meth:`render`).
        """
        if canvas.pixels is not None and not held(canvas.pixels):
            canvas.pixels.flags.writeable = True
            return canvas.pixels
        if canvas.pixels is not None and keep:
            return canvas.pixels.copy()
        return np.empty((self.height, self.width, 3), np.uint8)

    def _row(self, color: tuple[int, int, int]) -> np.ndarray:
        """A screen-wide row of ``color``.

        Broadcasting it down a slice is ~70x faster than assigning the colour tuple. Rows
        are kept for the most recently used colours only: artwork brings a colour per record.
        """
        row = self._rows.get(color)
        if row is None:
            row = self._rows.put(color, np.empty((1, self.width, 3), np.uint8))
            row[...] = color
        return row

    def _damage(self, canvas: _Canvas, drawn: set[Op]) -> list[Rect] | None:
        """Rectangles where ``drawn`` differs from what ``canvas`` shows; ``None``: all.

        A canvas whose frame is not known (``ops`` is ``None``) differs everywhere.
        """
        if canvas.ops is None:
            return None
        rects = [r for op in canvas.op_set.symmetric_difference(drawn)
                 if (r := _visible(op)) is not None]
        area = sum((r[2] - r[0]) * (r[3] - r[1]) for r in rects)
        if area > _FULL_REPAINT_SHARE * self.width * self.height:
            return None
        if len(rects) > _MAX_DAMAGE_RECTS:
            rects = [(min(r[0] for r in rects), min(r[1] for r in rects),
                      max(r[2] for r in rects), max(r[3] for r in rects))]
        return rects

    def _paint(self, buf: np.ndarray, ops: list[Op], region: Rect, rects: np.ndarray,
               opaque: np.ndarray) -> None:
        """Repaint ``region``: every op overlapping it, from the last opaque op covering it."""
        x1, y1, x2, y2 = region
        hits = np.flatnonzero((rects[:, 0] < x2) & (rects[:, 2] > x1)
                              & (rects[:, 1] < y2) & (rects[:, 3] > y1))
        covering = hits[opaque[hits] & (rects[hits, 0] <= x1) & (rects[hits, 1] <= y1)
                        & (rects[hits, 2] >= x2) & (rects[hits, 3] >= y2)]
        if covering.size:
            hits = hits[hits >= covering[-1]]
        # Every hit op's part of the region at once; an empty piece (e.g. the middle band
        # of a pill) is left out.
        parts = np.clip(rects[hits], (x1, y1, x1, y1), (x2, y2, x2, y2))
        whole = (parts[:, 0] < parts[:, 2]) & (parts[:, 1] < parts[:, 3])
        for i, r in zip(hits[whole].tolist(), parts[whole].tolist(), strict=True):
            frame, paint, _ = ops[i]
            kind = type(paint)
            if kind is Fill:
                buf[r[1]:r[3], r[0]:r[2]] = self._row(paint.color)[:, :r[2] - r[0]]
            elif kind is Dim:
                dst = buf[r[1]:r[3], r[0]:r[2]]
                np.right_shift(dst, 1, out=dst)
            else:
                self._blit(buf, r, frame, paint)

    def _blit(self, buf: np.ndarray, r: Rect, frame: Rect, paint: Paint) -> None:
        """Copy the part of ``paint``'s tile that falls in ``r`` (a part of ``frame``)."""
        src, dx, dy = self.tiles.get(paint, frame[2] - frame[0], frame[3] - frame[1])
        left, top = frame[0] + dx, frame[1] + dy
        x1, x2 = max(r[0], left), min(r[2], left + src.shape[1])
        y1, y2 = max(r[1], top), min(r[3], top + src.shape[0])
        if x1 < x2 and y1 < y2:
            buf[y1:y2, x1:x2] = src[y1 - top:y2 - top, x1 - left:x2 - left]


def ops_of(frame: Rect, paint: Paint, clip: Rect | None) -> list[Op]:
    """The draw operations of one node.

    Artwork becomes fills and a text tile; wrapping text becomes one label per line; a
    rounded rectangle (with its label) becomes three fills, four corners of one small shared
    tile (a nine-patch) and a text tile. The tile cache then holds text and icons, not
    megabytes of flat colour.
    """
    kind = type(paint)
    if kind is Avatar and not paint.glyph:
        return _artwork(frame, paint, clip)
    if kind is Label and paint.lines > 1:
        return _text_lines(frame, paint, clip)
    x1, y1, x2, y2 = frame
    r = min(paint.radius, (x2 - x1) // 2, (y2 - y1) // 2) if kind is Round else 0
    if r < 3 or (x2 - x1) * (y2 - y1) < _NINE_PATCH_AREA:
        return [(frame, paint, clip)]
    bands = [(x1 + r, y1, x2 - r, y2), (x1, y1 + r, x1 + r, y2 - r), (x2 - r, y1 + r, x2, y2 - r)]
    ops: list[Op] = [(band, Fill(paint.color), clip) for band in bands]
    if paint.outline is not None:
        w = OUTLINE_WIDTH
        ops = [(band, Fill(paint.outline), clip) for band in bands] + [
            ((x1 + r, y1 + w, x2 - r, y2 - w), Fill(paint.color), clip),
            ((x1 + w, y1 + r, x1 + r, y2 - r), Fill(paint.color), clip),
            ((x2 - r, y1 + r, x2 - w, y2 - r), Fill(paint.color), clip)]
    corner = Round(paint.color, paint.under, r, outline=paint.outline)
    for cx, cy in ((x1, y1), (x2 - r, y1), (x1, y2 - r), (x2 - r, y2 - r)):
        piece = (cx, cy, cx + r, cy + r)
        visible = piece if clip is None else intersect(piece, clip)
        if visible is not None:
            tile_x, tile_y = (x1 if cx == x1 else x2 - 2 * r), (y1 if cy == y1 else y2 - 2 * r)
            ops.append(((tile_x, tile_y, tile_x + 2 * r, tile_y + 2 * r), corner, visible))
    if paint.label:
        ops.append((frame, Label(paint.label, paint.size or (y2 - y1) // 2, paint.label_color,
                                 paint.color, True, "center"), clip))
    return ops


def _text_lines(frame: Rect, paint: Label, clip: Rect | None) -> list[Op]:
    """Wrapping text as one single-line label per line, the block centred in ``frame``.

    Each line's tile is cut to that line's ink, so no tile holds the gaps between lines or
    the end of a short last line, and a line out of view (scrolled away, or past the
    frame's edge, where lines are cut) gets no op: a long paragraph adds only the lines
    a frame shows to the ops each frame hashes and lays out.
    """
    x1, y1, x2, y2 = frame
    shown = frame if clip is None else intersect(frame, clip)
    if shown is None:
        return []
    lines = wrap(paint.text, paint.size, paint.bold, x2 - x1, paint.lines)
    step = line_height(paint.size)
    top = y1 + max(0, (y2 - y1 - step * len(lines)) // 2)
    return [((x1, top + i * step, x2, top + (i + 1) * step),
             Label(line, paint.size, paint.color, paint.under, paint.bold, paint.align), shown)
            for i, line in enumerate(lines)
            if top + (i + 1) * step > shown[1] and top + i * step < shown[3]]


def _artwork(frame: Rect, paint: Avatar, clip: Rect | None) -> list[Op]:
    """Square artwork as fills and one small text tile, instead of a tile per thumbnail.

    The seed's colour, a lighter band along the bottom and the label's initials.
    """
    x1, y1, x2, y2 = frame
    color = paint.color or seed_color(paint.seed)
    light = (min(255, color[0] + 36), min(255, color[1] + 36), min(255, color[2] + 36))
    band = y2 - (y2 - y1) * 3 // 10
    shown = initials(paint.label)
    size = max(6, (min(x2 - x1, y2 - y1) * 38) // 100)
    return [(frame, Fill(color), clip), ((x1, band, x2, y2), Fill(light), clip),
            ((x1, y1, x2, band), Label(shown, size, (255, 255, 255), color, True, "center"),
             clip)]


def initials(label: str) -> str:
    """What artwork shows for ``label``: the first letters of its first two words.

    Words that do not start with a letter or digit ("&", "-") are skipped, so
    "Hearth & Home Goods" shows "HH"; a label without such a word shows "?".
    """
    words = [word for word in label.split() if word[0].isalnum()]
    return "".join(word[0] for word in words[:2]).upper() or "?"


Geometry = tuple[np.ndarray, np.ndarray]


def geometry(ops: list[Op]) -> Geometry:
    """Each op's visible rectangle (empty when clipped away) and whether it is opaque.

    Text tiles are cropped to the text, so they do not cover their whole frame.
    """
    rects = np.array([_visible(op) or (0, 0, 0, 0) for op in ops], dtype=np.int64).reshape(-1, 4)
    opaque = np.array([type(p) is not Label and type(p) is not Dim for _, p, _ in ops], bool)
    return rects, opaque


def _visible(op: Op) -> Rect | None:
    frame, _, clip = op
    return frame if clip is None else intersect(frame, clip)


def _shows(canvas: _Canvas, ops: list[Op]) -> bool:
    """Whether ``canvas`` shows the frame of ``ops``."""
    return canvas.ops is not None and (ops is canvas.ops or ops == canvas.ops)



def _check_key(key: object) -> None:
    """Refuse a canvas key that cannot name a canvas (a list, say), naming it."""
    try:
        hash(key)
    except TypeError:
        raise ValueError(f"a canvas key must be hashable, got {brief(key, 60)}") from None


def _described(value: object) -> str:
    """What a would-be canvas is, for an error message."""
    if not isinstance(value, np.ndarray):
        return type(value).__name__
    flags = "" if value.flags.c_contiguous and value.flags.writeable else ", not a writable C array"
    return f"{value.dtype} array of shape {value.shape}{flags}"

"""A small declarative UI toolkit: view nodes with Android semantics, laid out top-down.

A screen is built as a tree of :class:`Node` objects whose ``frame`` (the drawn rectangle)
is fixed when the node is created, by the layout helpers here (:class:`Column`,
:func:`scroll_list`). ``bounds`` is the part of the frame that is visible after clipping
by scrolling containers; hit-testing, the uiautomator dump and rendering all read these
same two rectangles, so what is drawn is what is clickable.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from mobileintent_gym.phone.paint import Paint

Rect = tuple[int, int, int, int]
"""``(left, top, right, bottom)`` in device pixels, right and bottom exclusive."""

Intent = tuple
"""What a click does, as data: ``(name, *args)``, dispatched by the phone or the app."""

TEXT_VIEW = "android.widget.TextView"
BUTTON = "android.widget.Button"
IMAGE_VIEW = "android.widget.ImageView"
IMAGE_BUTTON = "android.widget.ImageButton"
EDIT_TEXT = "android.widget.EditText"
FRAME = "android.widget.FrameLayout"
LINEAR = "android.widget.LinearLayout"
VIEW_GROUP = "android.view.ViewGroup"
RECYCLER = "androidx.recyclerview.widget.RecyclerView"
TAB_LAYOUT = "com.google.android.material.tabs.TabLayout"
BOTTOM_NAV = "com.google.android.material.bottomnavigation.BottomNavigationView"
TOOLBAR = "androidx.appcompat.widget.Toolbar"


def intersect(a: Rect, b: Rect) -> Rect | None:
    """The overlap of two rectangles, or ``None`` when they do not overlap."""
    x1, y1 = max(a[0], b[0]), max(a[1], b[1])
    x2, y2 = min(a[2], b[2]), min(a[3], b[3])
    return (x1, y1, x2, y2) if x1 < x2 and y1 < y2 else None


def contains(rect: Rect, x: int, y: int) -> bool:
    """Whether pixel (x, y) lies inside ``rect``."""
    return rect[0] <= x < rect[2] and rect[1] <= y < rect[3]


def center(rect: Rect) -> tuple[int, int]:
    """The pixel at the middle of ``rect`` (where a tap on it lands)."""
    return (rect[0] + rect[2]) // 2, (rect[1] + rect[3]) // 2


@dataclass(slots=True, eq=False)
class Node:
    """One view in the hierarchy.

    The first group of attributes is what a uiautomator dump shows; the second is what the
    simulator needs to draw and run the view and is never shown to an agent.
    """

    cls: str
    frame: Rect
    text: str = ""
    resource_id: str = ""
    desc: str = ""
    clickable: bool = False
    long_clickable: bool = False
    scrollable: bool = False
    focusable: bool = False
    focused: bool = False
    selected: bool = False
    checkable: bool = False
    checked: bool = False
    enabled: bool = True
    password: bool = False
    package: str = ""
    children: list[Node] = field(default_factory=list)
    # Simulator-only attributes.
    paint: Paint | None = None
    entity: str | None = None
    on_click: Intent | None = None
    on_long_click: Intent | None = None
    on_submit: Intent | None = None
    field_key: str | None = None
    scroll_key: str | None = None
    scroll_axis: int = 1
    scroll_range: tuple[int, int] = (0, 0)
    modal: bool = False  # a dialog or sheet: touches on it stop here
    paged: bool = False  # a pager: a swipe scrolls by one whole page
    bounds: Rect = (0, 0, 0, 0)
    clip: Rect | None = None

    def __post_init__(self) -> None:
        self.bounds = self.frame
        if self.on_click is not None:
            self.clickable = True
        if self.on_long_click is not None:
            self.long_clickable = True

    def add(self, *children: Node | None) -> Node:
        """Append children (``None`` entries are skipped) and return ``self``."""
        append = self.children.append
        for child in children:
            if child is not None:
                append(child)
        return self

    def walk(self) -> list[Node]:
        """This node and all its descendants, parents before children (paint order)."""
        out: list[Node] = []
        stack = [self]
        while stack:
            node = stack.pop()
            out.append(node)
            if node.children:
                stack.extend(reversed(node.children))
        return out


class Column:
    """A vertical layout cursor that hands out stacked rectangles from a region."""

    def __init__(self, rect: Rect) -> None:
        self.left, self.top, self.right, self.bottom = rect

    def take(self, height: int) -> Rect:
        """The next ``height`` pixels from the top."""
        rect = (self.left, self.top, self.right, min(self.top + height, self.bottom))
        self.top = rect[3]
        return rect

    def take_bottom(self, height: int) -> Rect:
        """The last ``height`` pixels at the bottom."""
        rect = (self.left, max(self.bottom - height, self.top), self.right, self.bottom)
        self.bottom = rect[1]
        return rect

    def rest(self) -> Rect:
        """What is left between the top and bottom cursors."""
        return (self.left, self.top, self.right, self.bottom)


def split_row(rect: Rect, widths: Sequence[int | None]) -> list[Rect]:
    """Split ``rect`` horizontally; ``None`` widths share what the fixed widths leave."""
    fixed = sum(w for w in widths if w is not None)
    flexible = [w for w in widths if w is None]
    share = max(0, (rect[2] - rect[0] - fixed) // max(1, len(flexible)))
    out, x = [], rect[0]
    for w in widths:
        width = share if w is None else w
        out.append((x, rect[1], x + width, rect[3]))
        x += width
    return out


def inset(rect: Rect, dx: int, dy: int | None = None) -> Rect:
    """``rect`` shrunk by ``dx`` on the left and right and ``dy`` on the top and bottom."""
    dy = dx if dy is None else dy
    return (rect[0] + dx, rect[1] + dy, rect[2] - dx, rect[3] - dy)


def clip_tree(node: Node, clip: Rect) -> bool:
    """Clip a subtree's visible bounds to ``clip``, dropping children that vanish.

    Returns:
        Whether any part of ``node`` is still visible.
    """
    visible = intersect(node.frame, clip)
    if visible is None:
        return False
    node.bounds = visible
    node.clip = clip if visible != node.frame else node.clip
    node.children = [c for c in node.children if clip_tree(c, clip)]
    return True


ItemBuilder = Callable[[Rect], Node]


def scroll_list(
    rect: Rect,
    key: str,
    items: Sequence[tuple[int, ItemBuilder]],
    offset: int,
    resource_id: str = "",
    axis: int = 1,
) -> Node:
    """A RecyclerView over ``items`` scrolled by ``offset`` pixels along ``axis``.

    Only the items at least partly inside ``rect`` are built (like a RecyclerView, whose
    off-screen rows are not attached and so do not appear in a uiautomator dump).

    Args:
        rect: The viewport.
        key: Key of this list's offset in the screen's scroll state.
        items: ``(extent, builder)`` per item; the builder receives the item's frame.
        offset: Scroll offset in pixels, clamped here to the content.
        resource_id: Resource id of the RecyclerView.
        axis: 1 for a vertical list, 0 for a horizontal one.

    Returns:
        The list node; ``scroll_range`` holds the clamped offset and the largest offset.
    """
    start, end = rect[axis], rect[axis + 2]
    total = sum(extent for extent, _ in items)
    max_offset = max(0, total - (end - start))
    offset = min(max(0, offset), max_offset)
    node = Node(RECYCLER, rect, resource_id=resource_id, scrollable=max_offset > 0,
                scroll_key=key, scroll_axis=axis, scroll_range=(offset, max_offset))
    pos = start - offset
    for extent, build in items:
        if pos + extent > start and pos < end:
            item_rect = (rect[0], pos, rect[2], pos + extent) if axis else (
                pos, rect[1], pos + extent, rect[3])
            child = build(item_rect)
            inside = pos >= start and pos + extent <= end
            if inside or clip_tree(child, rect):
                node.children.append(child)
        pos += extent
    return node

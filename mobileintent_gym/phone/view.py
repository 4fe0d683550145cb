"""A built screen: its node tree and everything derived from it once, then reused.

Building a screen, laying it out, listing its touch targets, its draw operations and its
uiautomator XML happen once per distinct screen state; a step that revisits a state (or
changes nothing) reuses the :class:`View`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mobileintent_gym.phone import hierarchy, touch
from mobileintent_gym.phone.keyboard import Keyboard
from mobileintent_gym.phone.paint import Dim, Fill, Round
from mobileintent_gym.phone.render import Geometry, Op, geometry, ops_of
from mobileintent_gym.phone.ui import Node, contains


@dataclass(slots=True, eq=False)
class Layer:
    """One screen's built node tree, shared by every view that shows it, and its XML."""

    node: Node
    _xml: dict[int, str] = field(default_factory=dict)

    def xml(self, index: int, package: str) -> str:
        """The tree's uiautomator XML as the ``index``-th child of the window."""
        text = self._xml.get(index)
        if text is None:
            text = self._xml[index] = hierarchy.subtree(self.node, index, package)
        return text


@dataclass(slots=True, eq=False)
class View:
    """One screen as shown.

    Attributes:
        root: The window's root node.
        route: The route of the top screen.
        package: The package the window belongs to.
        top: The subtree of the top screen (touches go to it; a dialog covers the rest).
        keyboard: The keyboard, while a field is focused.
        layers: The screens under the window root, as shared layers.
    """

    root: Node
    route: str
    package: str
    top: Node
    keyboard: Keyboard | None = None
    layers: tuple[Layer, ...] = ()
    targets: list[Node] = field(default_factory=list)
    scrollers: list[Node] = field(default_factory=list)
    fields: dict[str, Node] = field(default_factory=dict)
    visible: tuple[str, ...] = ()
    record: str | None = None
    _ops: list[Op] | None = None
    _frame: tuple[tuple[Op, ...], list[Op], Geometry] | None = None
    _xml: str | None = None

    def __post_init__(self) -> None:
        for node in self.top.walk():
            if touch.is_target(node):
                self.targets.append(node)
            if node.scroll_key is not None and node.scrollable:
                self.scrollers.append(node)
            if node.field_key is not None:
                self.fields[node.field_key] = node
        self.visible = touch.visible_entities(self.root)
        self.record = touch.screen_record(self.root)

    def ops(self) -> list[Op]:
        """The draw operations of this screen, keyboard included (built on first use)."""
        if self._ops is None:
            self._ops = []
            _collect_ops(self.root, None, self._ops)
            if self.keyboard is not None:
                self._ops.extend(self.keyboard.ops)
        return self._ops

    def frame_ops(self, bars: tuple[Op, ...]) -> tuple[list[Op], Geometry]:
        """This screen's ops followed by ``bars`` (the system bars), and their geometry."""
        if self._frame is None or self._frame[0] is not bars:
            ops = self.ops() + list(bars)
            self._frame = (bars, ops, geometry(ops))
        return self._frame[1], self._frame[2]

    def xml(self) -> str:
        """The uiautomator dump of this screen (built on first use)."""
        if self._xml is None:
            children = [layer.xml(i, self.package) for i, layer in enumerate(self.layers)]
            self._xml = hierarchy.dump(self.root, self.package, children=children or None)
        return self._xml

    def target_at(self, x: int, y: int) -> Node | None:
        """The node a touch at (x, y) acts on (:func:`.touch.target_at` on the top screen)."""
        return touch.target_at(self.targets, x, y)

    def scroller_at(self, x: int, y: int, axis: int, fallback: bool = True) -> Node | None:
        """The topmost scrollable container along ``axis`` under (x, y).

        With ``fallback`` (a swipe with no start point) the largest such container is
        taken when none is under the point.
        """
        along = [n for n in self.scrollers if n.scroll_axis == axis]
        for node in reversed(along):
            if contains(node.bounds, x, y):
                return node
        return max(along, key=_area, default=None) if fallback else None


def _collect_ops(node: Node, ground: tuple | None, out: list[Op]) -> None:
    """Append the subtree's draw operations in paint order.

    ``ground`` is the colour an ancestor already filled the node's area with; a fill of the
    same colour would repaint identical pixels, so it is left out (siblings in a layer do
    not overlap, and a scrim resets the ground).
    """
    paint = node.paint
    if paint is not None and not (type(paint) is Fill and paint.color == ground):
        out.extend(ops_of(node.frame, paint, node.clip))
    kind = type(paint)
    if kind is Fill or kind is Round:
        ground = paint.color
    elif kind is Dim:
        ground = None
    for child in node.children:
        _collect_ops(child, ground, out)


def _area(node: Node) -> int:
    b = node.bounds
    return (b[2] - b[0]) * (b[3] - b[1])

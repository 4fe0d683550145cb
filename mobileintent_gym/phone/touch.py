"""What a touch lands on and which records a screen shows, read from a node tree.

One implementation for both backends: :class:`~mobileintent_gym.phone.view.View` applies it
to the nodes SimPhone builds, :class:`~mobileintent_gym.backends.adb.AdbDevice` to parsed
uiautomator dumps, so both log the same ``hit`` and ``visible`` for the same screen. The
rules read only what a dump shows (see :mod:`.hierarchy` for ``entity-id`` and for modal
surfaces, which are written focusable):

* A node **takes** a touch when it is clickable, long-clickable or a text field
  (``android.widget.EditText``); it **stops** a touch when it is modal or focusable but
  takes none (a bottom sheet or dialog card: a touch on it reaches nothing behind it).
* The **target** under a point is the last node in tree order (the deepest, frontmost)
  among those that take or stop touches; a node that only stops them is no hit.
* The **visible** records are the entity ids of every node, ordered by the top, then the
  left edge of their bounds, each listed once.
* The **record a screen is about** is shown by its header: where a modal surface is open
  (a menu sheet, a dialog), the first record inside the last such surface (its header);
  else the last toolbar (``androidx.appcompat.widget.Toolbar``) that carries an entity id
  (the top screen's). A screen with neither is about no record.

SimPhone hands touches to the top screen's subtree only, while a dump does not mark which
screen is on top, so AdbDevice searches the whole window. Both give the same target:
every overlay (sheet, dialog) lays a scrim over the whole app window, so inside the window
the top screen always has a node under the point and it comes last in tree order; outside
the window (status bar, navigation handle, the keyboard, which is its own window and
absent from the dump) no screen has a node, so a key tap is no hit on either backend.
"""

from __future__ import annotations

from collections.abc import Sequence

from mobileintent_gym.phone import hierarchy
from mobileintent_gym.phone.events import Hit
from mobileintent_gym.phone.ui import EDIT_TEXT, TOOLBAR, Node, contains


def takes_touch(node: Node) -> bool:
    """Whether a touch on ``node`` acts on it (clickable, long-clickable or a text field)."""
    return node.clickable or node.long_clickable or node.cls == EDIT_TEXT


def is_target(node: Node) -> bool:
    """Whether ``node`` takes or stops touches (a touch under it goes no deeper behind it)."""
    return takes_touch(node) or node.focusable or node.modal


def targets(root: Node) -> list[Node]:
    """The nodes of the tree under ``root`` that take or stop touches, in tree order."""
    return [node for node in root.walk() if is_target(node)]


def target_at(candidates: Sequence[Node], x: int, y: int) -> Node | None:
    """The node a touch at (x, y) acts on, among ``candidates`` in tree order.

    Returns:
        The last candidate under the point, or ``None`` when there is none or it only
        stops touches (a modal surface).
    """
    for node in reversed(candidates):
        if contains(node.bounds, x, y):
            return node if takes_touch(node) and not node.modal else None
    return None


def shown_texts(node: Node) -> tuple[str, ...]:
    """Every text and content description in ``node``'s subtree, in tree order.

    What a row container shows through its children: where a device's dumps carry no
    entity ids, a target is recognised by these.
    """
    return tuple(t for n in node.walk() for t in (n.text, n.desc) if t)


def hit_of(node: Node) -> Hit:
    """The :class:`Hit` logged for a touch on ``node``."""
    return Hit(node.resource_id, node.cls, node.text or node.desc, node.bounds, node.entity,
               shown_texts(node))


def visible_entities(root: Node) -> tuple[str, ...]:
    """Entity ids shown in the tree, top to bottom then left to right, each once.

    A node counts when at least a hundredth of the screen's height of it shows both ways
    (about half a line of text): a row scrolled to a sliver of 1-3 pixels, still in the
    dump with its clipped bounds, shows nothing legible.
    """
    least = max(1, (root.bounds[3] - root.bounds[1]) // 100)
    shown = sorted((n.bounds[1], n.bounds[0], n.entity) for n in root.walk()
                   if n.entity is not None and n.bounds[2] - n.bounds[0] >= least
                   and n.bounds[3] - n.bounds[1] >= least)
    return tuple(dict.fromkeys(entity for _, _, entity in shown))


def screen_record(root: Node) -> str | None:
    """Id of the record the screen under ``root`` is about, read from its header."""
    surfaces = [n for n in root.walk() if is_target(n) and not takes_touch(n)]
    if surfaces:
        return next((n.entity for n in surfaces[-1].walk() if n.entity is not None), None)
    bars = [n.entity for n in root.walk() if n.cls == TOOLBAR and n.entity is not None]
    return bars[-1] if bars else None


class ScreenDump:
    """A uiautomator dump with its touch targets and visible records, read once.

    Args:
        xml: The dump, as a device writes it.

    Attributes:
        xml: The dump.
        targets: Its nodes that take or stop touches, in tree order (whole window).
        visible: Its :func:`visible_entities`.
        record: Its :func:`screen_record`.

    Raises:
        DeviceError: When ``xml`` is not a uiautomator dump.
    """

    __slots__ = ("record", "targets", "visible", "xml")

    def __init__(self, xml: str) -> None:
        root = hierarchy.parse(xml)
        self.xml = xml
        self.targets = targets(root)
        self.visible = visible_entities(root)
        self.record = screen_record(root)

    def hit_at(self, x: int, y: int) -> Hit | None:
        """What a click or long click at (x, y) hits, as SimPhone logs it."""
        node = target_at(self.targets, x, y)
        return None if node is None else hit_of(node)

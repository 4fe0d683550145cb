"""The elements of a screen as an agent reads them: what a touch reaches, with its text.

Read from a hierarchy dump alone, so the same on the simulated phone and on real devices.
Language agents list these elements in their prompts; feature wrappers for RL encode them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mobileintent_gym.phone import hierarchy, touch
from mobileintent_gym.phone.query import rid_suffix
from mobileintent_gym.phone.ui import EDIT_TEXT, Node, Rect, center, contains


@dataclass(frozen=True, slots=True)
class ScreenElement:
    """One element a touch reaches.

    Attributes:
        kind: Its resource id suffix, else its class name without the package.
        texts: Its own and its descendants' texts and descriptions, in tree order and each
            once, leaving out descendants that are touch targets themselves (a row's menu
            button is its own element).
        point: The pixel at its centre, where a tap on it lands.
        bounds: Its bounds on screen, ``(left, top, right, bottom)``.
        field: It is a text field.
        focused: It has the input focus.
    """

    kind: str
    texts: tuple[str, ...]
    point: tuple[int, int]
    bounds: Rect
    field: bool = False
    focused: bool = False


def reachable(root: Node) -> list[Node]:
    """The nodes under ``root`` that a touch at their centre acts on, in tree order.

    A node counts when it takes touches and nothing drawn over it (a dialog, sheet or
    scrim) takes the touch at its centre instead (:mod:`~mobileintent_gym.phone.touch`).
    """
    candidates = touch.targets(root)
    return [node for node in candidates
            if touch.target_at(candidates, *center(node.bounds)) is node]


def _shown(node: Node, stop: set[int]) -> list[Node]:
    """``node`` and its descendants, not descending into the other touch targets in ``stop``."""
    out, stack = [], [node]
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(c for c in reversed(current.children) if id(c) not in stop)
    return out


def read_screen(xml: str) -> tuple[list[ScreenElement], list[str]]:
    """The elements a touch reaches on the screen of dump ``xml``, and the other texts shown.

    Elements come in tree order (:func:`reachable`, the order of
    :class:`~mobileintent_gym.wrappers.ElementActions`); the other texts are
    those of nodes inside no element (titles, message bubbles …), each once.
    """
    root = hierarchy.parse(xml)
    stop = {id(n) for n in touch.targets(root)}
    elements, labelled = [], set()
    for node in reachable(root):
        shown = _shown(node, stop - {id(node)})
        labelled.update(id(n) for n in shown)
        texts = tuple(dict.fromkeys(t for n in shown for t in (n.text, n.desc) if t))
        elements.append(ScreenElement(rid_suffix(node.resource_id) or node.cls.rpartition(".")[2],
                                      texts, center(node.bounds), node.bounds,
                                      node.cls == EDIT_TEXT, node.focused))
    others = [t for n in root.walk() if id(n) not in labelled for t in (n.text, n.desc) if t]
    return elements, list(dict.fromkeys(others))


def element_at(elements: Sequence[ScreenElement], x: int, y: int) -> ScreenElement | None:
    """The last (frontmost) of ``elements`` whose bounds hold the point, if any."""
    return next((e for e in reversed(elements) if contains(e.bounds, x, y)), None)

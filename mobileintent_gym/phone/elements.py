"""The elements of a screen as an agent reads them: what a touch reaches, with its text.

Read from a hierarchy dump alone, so the same on the simulated phone and on real devices.
Language agents list these elements in their prompts; feature wrappers for RL encode them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mobileintent_gym.phone import hierarchy, touch
from mobileintent_gym.phone.overlays import SCRIM
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
    return _reachable(touch.targets(root))


def _reachable(candidates: Sequence[Node]) -> list[Node]:
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
    those of nodes inside no element (titles, message bubbles …), each once, leaving out
    those the scrim of a dialog or sheet is drawn over (:func:`_covered`).
    """
    root = hierarchy.parse(xml)
    candidates = touch.targets(root)
    elements, labelled = _elements(candidates)
    drawn = root.walk()
    scrims = [(next(i for i, n in enumerate(drawn) if n is c), c) for c in candidates
              if rid_suffix(c.resource_id) == SCRIM]
    others = [t for i, n in enumerate(drawn) if id(n) not in labelled and (n.text or n.desc)
              and not (scrims and _covered(i, n, scrims)) for t in (n.text, n.desc) if t]
    return elements, list(dict.fromkeys(others))


def screen_elements(xml: str) -> list[ScreenElement]:
    """The elements of :func:`read_screen` alone (the other texts are not read)."""
    return _elements(touch.targets(hierarchy.parse(xml)))[0]


def _elements(candidates: Sequence[Node]) -> tuple[list[ScreenElement], set[int]]:
    """The elements among the touch targets ``candidates``, and the ids of their nodes."""
    stop = {id(n) for n in candidates}
    elements, labelled = [], set()
    for node in _reachable(candidates):
        shown = _shown(node, stop - {id(node)})
        labelled.update(id(n) for n in shown)
        texts = tuple(dict.fromkeys(t for n in shown for t in (n.text, n.desc) if t))
        elements.append(ScreenElement(rid_suffix(node.resource_id) or node.cls.rpartition(".")[2],
                                      texts, center(node.bounds), node.bounds,
                                      node.cls == EDIT_TEXT, node.focused))
    return elements, labelled


def _covered(index: int, node: Node, scrims: Sequence[tuple[int, Node]]) -> bool:
    """Whether the scrim of a dialog or sheet drawn after ``node`` covers its centre.

    ``node`` is at ``index`` in paint order (:meth:`Node.walk`), and each scrim with its
    own; one covers it when drawn after the node's whole subtree. A scrim is the dimmed
    area around a dialog or sheet that dismisses it (resource id ``touch_outside``, as
    Android's own dialogs name it), laid over the whole window. No other surface covers:
    real apps lay transparent clickable or focusable views over cards and lists whose
    texts show through.
    """
    end = index + len(node.walk())
    x, y = center(node.bounds)
    return any(at >= end and contains(scrim.bounds, x, y) for at, scrim in scrims)


def element_at(elements: Sequence[ScreenElement], x: int, y: int) -> ScreenElement | None:
    """The last (frontmost) of ``elements`` whose bounds hold the point, if any."""
    return next((e for e in reversed(elements) if contains(e.bounds, x, y)), None)

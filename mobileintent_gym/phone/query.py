"""Find elements in a uiautomator dump, the way scripted agents and tests address a screen."""

from __future__ import annotations

from collections.abc import Iterator

from mobileintent_gym.actions import Action
from mobileintent_gym.errors import InvalidArgumentError, MobileIntentError
from mobileintent_gym.phone import hierarchy
from mobileintent_gym.phone.ui import Node, center


def rid_suffix(resource_id: str) -> str:
    """The part of a resource id after ``:id/`` (the whole id when it has none)."""
    return resource_id.rpartition(":id/")[2]


def matches(node: Node, *, text: str | None = None, resource_id: str | None = None,
            desc: str | None = None) -> bool:
    """Whether ``node``'s text, resource id suffix and description are the given ones."""
    return ((text is None or node.text == text)
            and (resource_id is None or rid_suffix(node.resource_id) == resource_id)
            and (desc is None or node.desc == desc))


def find_all(xml: str, *, text: str | None = None, resource_id: str | None = None,
             desc: str | None = None) -> Iterator[Node]:
    """Nodes of a dump whose text, resource id (suffix after ``:id/``) and description match."""
    for node in hierarchy.parse(xml).walk():
        if matches(node, text=text, resource_id=resource_id, desc=desc):
            yield node


def find(xml: str, *, text: str | None = None, resource_id: str | None = None,
         desc: str | None = None) -> Node:
    """The first node matching the criteria given (see :func:`find_all`).

    Raises:
        InvalidArgumentError: When none is given (the screen's root would match).
        MobileIntentError: When no node matches; the message names the criteria.
    """
    criteria = {name: value for name, value in
                (("text", text), ("resource_id", resource_id), ("desc", desc))
                if value is not None}
    if not criteria:
        raise InvalidArgumentError("name the element by its text, resource_id or desc")
    node = next(find_all(xml, **criteria), None)
    if node is None:
        raise MobileIntentError(f"no element with {criteria} on screen")
    return node


def tap(xml: str, **criteria: str) -> Action:
    """A CLICK at the centre of the first node matching ``criteria`` (see :func:`find`).

    Raises:
        MobileIntentError: As :func:`find` does.
        TypeError: Naming a criterion :func:`find` does not take.
    """
    return Action.click(*center(find(xml, **criteria).bounds))

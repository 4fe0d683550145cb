"""Find elements in a uiautomator dump, the way scripted agents and tests address a screen."""

from __future__ import annotations

from collections.abc import Iterator

from mobileintent_gym.actions import Action
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.phone import hierarchy
from mobileintent_gym.phone.ui import Node


def find_all(xml: str, *, text: str | None = None, resource_id: str | None = None,
             desc: str | None = None) -> Iterator[Node]:
    """Nodes of a dump whose text, resource id (suffix after ``:id/``) and description match."""
    for node in hierarchy.parse(xml).walk():
        if text is not None and node.text != text:
            continue
        if resource_id is not None and node.resource_id.rpartition(":id/")[2] != resource_id:
            continue
        if desc is not None and node.desc != desc:
            continue
        yield node


def find(xml: str, **criteria: str) -> Node:
    """The first node matching ``criteria`` (see :func:`find_all`).

    Raises:
        MobileIntentError: When no node matches; the message names the criteria.
    """
    node = next(find_all(xml, **criteria), None)
    if node is None:
        raise MobileIntentError(f"no element with {criteria} on screen")
    return node


def tap(xml: str, **criteria: str) -> Action:
    """A CLICK at the centre of the first node matching ``criteria``."""
    b = find(xml, **criteria).bounds
    return Action.click((b[0] + b[2]) // 2, (b[1] + b[3]) // 2)

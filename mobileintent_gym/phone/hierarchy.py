"""The uiautomator dump format: write it from view nodes, and parse it back into nodes.

The writer produces what ``adb shell uiautomator dump`` writes on a device (one line, the
same attribute order); the parser is shared with the adb backend, which reads real dumps.

Two things a device dump does not say are written in ways a device dump can carry:

* **Entity ids.** A node that shows a record (a track, chat, post …) has one extra attribute
  ``entity-id="…"`` after ``bounds``. uiautomator parsers ignore unknown attributes and real
  devices do not write it; :func:`parse` reads it back into :attr:`Node.entity` (``None``
  without it).
* **Modal surfaces.** A bottom sheet or dialog card takes every touch on it, so the scrim
  behind it is not touched through it; it is written ``focusable="true"``, as the surface
  that holds the focus. :mod:`.touch` reads a focusable node that is neither clickable nor
  a text field as one that stops touches.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from functools import lru_cache

from mobileintent_gym.checks import XML_INVALID
from mobileintent_gym.errors import DeviceError
from mobileintent_gym.phone.ui import Node

HEADER = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
_BOOL_ATTRS = ("checkable", "checked", "clickable", "enabled", "focusable", "focused",
               "scrollable", "long-clickable", "password", "selected")
_FIELD = {"long-clickable": "long_clickable"}
_INVALID_XML = re.compile(f"[{XML_INVALID}]")
_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")


_SPECIAL = re.compile(f'[&<>"\n\r\t{XML_INVALID}]')


def escape(value: str) -> str:
    """``value`` as an XML attribute value (quotes, markup and invalid characters)."""
    if not _SPECIAL.search(value):
        return value
    value = _INVALID_XML.sub("", value)
    return (value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("\n", "&#10;").replace("\r", "&#13;")
            .replace("\t", "&#9;"))


@lru_cache(maxsize=1024)
def _flags_xml(*flags: bool) -> str:
    return " ".join(f'{name}="{"true" if on else "false"}"'
                    for name, on in zip(_BOOL_ATTRS, flags, strict=True))


def _open_tag(node: Node, index: int, package: str) -> str:
    b = node.bounds
    text, rid, desc, entity = node.text, node.resource_id, node.desc, node.entity
    flags = _flags_xml(node.checkable, node.checked, node.clickable, node.enabled,
                       node.focusable or node.modal, node.focused, node.scrollable,
                       node.long_clickable, node.password, node.selected)
    tag = (f'<node index="{index}" text="{escape(text) if text else ""}" '
           f'resource-id="{escape(rid) if rid else ""}" class="{node.cls}" '
           f'package="{package}" content-desc="{escape(desc) if desc else ""}" {flags} '
           f'bounds="[{b[0]},{b[1]}][{b[2]},{b[3]}]"')
    return tag if entity is None else f'{tag} entity-id="{escape(entity)}"'


def subtree(node: Node, index: int, package: str) -> str:
    """The ``<node>`` element of ``node`` and its descendants, ``index`` among its siblings."""
    out: list[str] = []
    # An explicit stack instead of recursion: this runs on every new screen.
    stack: list[tuple[Node, int] | None] = [(node, index)]
    while stack:
        item = stack.pop()
        if item is None:
            out.append("</node>")
            continue
        current, position = item
        out.append(_open_tag(current, position, package))
        children = current.children
        if children:
            out.append(">")
            stack.append(None)
            stack.extend((children[i], i) for i in range(len(children) - 1, -1, -1))
        else:
            out.append(" />")
    return "".join(out)


def dump(root: Node, package: str, rotation: int = 0,
         children: list[str] | None = None) -> str:
    """The uiautomator XML of the window rooted at ``root``.

    Args:
        root: The window's root node.
        package: The package name written on every node.
        rotation: Screen rotation (0 for portrait).
        children: The XML of the root's children when the caller already has it (each
            from :func:`subtree` with its index); by default it is written here.

    Returns:
        The dump as one string, without a trailing newline, as a device writes it.
    """
    if children is None:
        children = [subtree(child, i, package) for i, child in enumerate(root.children)]
    inner = ">" + "".join(children) + "</node>" if children else " />"
    return (f'{HEADER}<hierarchy rotation="{rotation}">{_open_tag(root, 0, package)}{inner}'
            "</hierarchy>")


def _from_element(element: ET.Element) -> Node:
    match = _BOUNDS.fullmatch(element.get("bounds", ""))
    if match is None:
        raise DeviceError(f"node has no valid bounds: {element.get('bounds')!r}")
    bounds = tuple(int(v) for v in match.groups())
    flags = {_FIELD.get(a, a): element.get(a) == "true" for a in _BOOL_ATTRS}
    node = Node(element.get("class", element.tag), bounds, text=element.get("text", ""),
                resource_id=element.get("resource-id", ""),
                desc=element.get("content-desc", ""), package=element.get("package", ""),
                entity=element.get("entity-id"), **flags)
    node.add(*(_from_element(child) for child in element))
    return node


@lru_cache(maxsize=32)
def parse(xml: str | bytes) -> Node:
    """Parse a uiautomator dump into view nodes.

    The same dump gives the same tree (an unchanged screen's dump is the same string, and
    readers such as the judge, the oracle and the touch rule parse it in turn): treat the
    tree as read-only.

    Elements are read whatever their tag: ``uiautomator dump`` writes ``<node>``, Appium's
    UiAutomator2 page source names each element by its class
    (``<android.widget.FrameLayout …>``). A dump whose hierarchy holds several window roots
    is returned under one synthetic ``hierarchy`` node covering their union.

    Raises:
        DeviceError: When the text is not a uiautomator dump; the message says why.
    """
    if not isinstance(xml, str | bytes):
        raise DeviceError(f"a uiautomator dump is text, got {type(xml).__name__}")
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as err:
        raise DeviceError(f"not a uiautomator dump: {err}") from err
    if root.tag != "hierarchy":
        raise DeviceError(f"not a uiautomator dump: root element is <{root.tag}>")
    try:
        windows = [_from_element(child) for child in root]
    except RecursionError:
        raise DeviceError("the uiautomator dump is nested too deeply to read") from None
    if len(windows) == 1:
        return windows[0]
    if not windows:
        raise DeviceError("uiautomator dump holds no node")
    union = (min(w.bounds[0] for w in windows), min(w.bounds[1] for w in windows),
             max(w.bounds[2] for w in windows), max(w.bounds[3] for w in windows))
    return Node("hierarchy", union).add(*windows)

"""Android components built from :mod:`ui` nodes and :mod:`paint` paints.

Every builder takes a :class:`Ctx` (screen metrics and theme) and the rectangle it fills,
and returns one node whose children are positioned inside it.

Resource ids follow one convention: code names a view by its id's *name* (``track``,
``nav_your_library``: lower case, digits and underscores), and the full id is
``<package>:id/<name>`` (:meth:`Ctx.rid`). The names below are the ones the components
give their own parts; task templates refer to them through their app's names module.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, TypeVar

from mobileintent_gym.phone import ui
from mobileintent_gym.phone.paint import (
    Avatar,
    Color,
    Fill,
    Icon,
    Label,
    Round,
    fit_end,
    line_height,
    wrap,
)
from mobileintent_gym.phone.state import DEFAULT_CLOCK
from mobileintent_gym.phone.ui import Intent, ItemBuilder, Node, Rect

_T = TypeVar("_T")

MAX_FIELD_LENGTH = 4000
"""The most characters a text field (:func:`text_field`) holds; typing stops there."""
WHOLE = MAX_FIELD_LENGTH + 1
"""Lines enough for any text a field can hold (every character a line, and one more):
what users type is shown whole, as a text view grows with its text."""

TOOLBAR, TITLE, UP, SUBTITLE, THUMB, META, BADGE = (
    "toolbar", "title", "up", "subtitle", "thumb", "meta", "badge")
MORE, SECTION_TITLE, BOTTOM_NAV, TABS = "more", "section_title", "bottom_nav", "tabs"


_DEFAULT_DAY = DEFAULT_CLOCK.date()


@dataclass(frozen=True, slots=True)
class Theme:
    """An app's colours."""

    background: Color
    surface: Color
    text: Color
    muted: Color
    accent: Color
    bar: Color
    divider: Color
    on_accent: Color = (255, 255, 255)


@dataclass(frozen=True, slots=True)
class Ctx:
    """Screen metrics and theme for building one screen.

    Attributes:
        width: Screen width in pixels.
        height: Screen height in pixels.
        density: Pixels per dp (2.625 on a 1080-pixel-wide phone).
        content: The app window's rectangle (below the status bar, above the navigation
            handle and the keyboard when it shows).
        theme: The app's colours.
        package: The app's package name.
        today: The phone's date, which times are shown against (``Today``, ``Yesterday``);
            the default clock's when not given.
        daytime: ``morning`` (5-12 h), ``afternoon`` (12-18 h) or ``evening`` on the
            phone's clock, for greetings.
    """

    width: int
    height: int
    density: float
    content: Rect
    theme: Theme
    package: str
    today: date = _DEFAULT_DAY
    daytime: str = "morning"

    def dp(self, value: float) -> int:
        """``value`` density-independent pixels in device pixels."""
        return round(value * self.density)

    def rid(self, name: str) -> str:
        """The full resource id of the view named ``name`` in this app (``""`` for none)."""
        return f"{self.package}:id/{name}" if name else ""


def daytime(hour: int) -> str:
    """The :attr:`Ctx.daytime` of ``hour`` (0-23)."""
    return "morning" if 5 <= hour < 12 else "afternoon" if 12 <= hour < 18 else "evening"


def counted(count: int, noun: str, shown: str | None = None) -> str:
    """``count`` of ``noun`` as apps write it: ``1 like``, ``7 likes``, ``1,204 likes``.

    ``shown`` is the number as written, where the app abbreviates it (``12.5K``).
    """
    return f"{f'{count:,}' if shown is None else shown} {noun}{'' if count == 1 else 's'}"


def page(ctx: Ctx, rid: str, color: Color | None = None) -> tuple[Node, ui.Column]:
    """A screen's root filling the app window, and a layout cursor over it."""
    root = Node(ui.LINEAR, ctx.content, resource_id=ctx.rid(rid),
                paint=Fill(color or ctx.theme.background))
    return root, ui.Column(ctx.content)


def text(ctx: Ctx, rect: Rect, value: str, size: float = 16, *, color: Color | None = None,
         under: Color | None = None, bold: bool = False, rid: str = "",
         align: str = "left", **kw: Any) -> Node:
    """A TextView on one line (cut with an ellipsis when it does not fit)."""
    t = ctx.theme
    paint = Label(value, ctx.dp(size), color or t.text, under or t.background, bold, align)
    return Node(ui.TEXT_VIEW, rect, text=value, resource_id=ctx.rid(rid), paint=paint, **kw)


def text_height(ctx: Ctx, value: str, size: float, width: int, *, lines: int = WHOLE,
                bold: bool = False) -> int:
    """Pixels that :func:`paragraph` needs for ``value`` in ``width`` pixels.

    Rows that hold wrapping text take their height from this (it measures each text once;
    see :func:`~mobileintent_gym.phone.paint.wrap`).
    """
    px = ctx.dp(size)
    return len(wrap(value, px, bold, width, lines)) * line_height(px)


def paragraph(ctx: Ctx, rect: Rect, value: str, size: float = 16, *, lines: int = WHOLE,
              color: Color | None = None, under: Color | None = None, bold: bool = False,
              rid: str = "", **kw: Any) -> Node:
    """A TextView whose text wraps onto up to ``lines`` lines, from the top of ``rect``.

    Its frame is ``rect`` cut to the measured height (:func:`text_height`).
    """
    t = ctx.theme
    height = text_height(ctx, value, size, rect[2] - rect[0], lines=lines, bold=bold)
    frame = (rect[0], rect[1], rect[2], min(rect[3], rect[1] + height))
    paint = Label(value, ctx.dp(size), color or t.text, under or t.background, bold, "left",
                  lines)
    return Node(ui.TEXT_VIEW, frame, text=value, resource_id=ctx.rid(rid), paint=paint, **kw)


def icon_button(ctx: Ctx, rect: Rect, icon: str, desc: str, intent: Intent | None, *,
                rid: str = "", color: Color | None = None, under: Color | None = None,
                size: float = 24, badge: str = "") -> Node:
    """An ImageButton with a vector icon and a content description."""
    t = ctx.theme
    paint = Icon(icon, color or t.text, under or t.background, ctx.dp(size), badge)
    return Node(ui.IMAGE_BUTTON, rect, desc=desc, resource_id=ctx.rid(rid), paint=paint,
                on_click=intent)


def app_bar(ctx: Ctx, rect: Rect, title: str, *, back: bool = True,
            actions: Sequence[tuple[str, str, Intent]] = (), large: bool = False,
            entity: str | None = None, desc: str = "") -> Node:
    """A Toolbar: optional up arrow, title, and ``(icon, description, intent)`` actions.

    ``entity`` is the record the whole screen is about (a playlist, a conversation);
    ``desc`` names it where the title does not (a post's page titled by its community).
    """
    t = ctx.theme
    bar = Node(ui.TOOLBAR, rect, resource_id=ctx.rid(TOOLBAR), paint=Fill(t.bar),
               entity=entity, desc=desc)
    side = ctx.dp(56)
    widths = [side if back else ctx.dp(16), None] + [ctx.dp(48)] * len(actions)
    cells = ui.split_row(rect, widths)
    if back:
        bar.add(icon_button(ctx, cells[0], "back", "Navigate up", ("back",), under=t.bar,
                            rid=UP))
    bar.add(text(ctx, cells[1], title, 26 if large else 20, bold=True, under=t.bar,
                 rid=TITLE))
    for cell, (icon, desc, intent) in zip(cells[2:], actions, strict=True):
        bar.add(icon_button(ctx, cell, icon, desc, intent, under=t.bar,
                            rid=f"action_{icon}"))
    return bar


def list_row(ctx: Ctx, rect: Rect, title: str, subtitle: str = "", *,
             thumb: Avatar | None = None, on_click: Intent | None = None,
             on_long_click: Intent | None = None, entity: str | None = None,
             rid: str = "row", trailing: tuple[str, str, Intent] | None = None,
             trailing_rid: str = MORE, meta: str = "", badge: str = "",
             highlight: bool = False) -> Node:
    """A list row: thumbnail, title over subtitle, optional meta text, badge or button.

    ``trailing`` is the button's icon, description and intent; ``trailing_rid`` its
    resource id, for a button that a task must tell from other rows' buttons.
    """
    t = ctx.theme
    row = Node(ui.VIEW_GROUP, rect, resource_id=ctx.rid(rid), paint=Fill(t.background),
               entity=entity, on_click=on_click, on_long_click=on_long_click)
    pad, height = ctx.dp(16), rect[3] - rect[1]
    widths = [pad, height - ctx.dp(16) if thumb else 0, pad, None,
              ctx.dp(64) if (meta or badge) else 0, ctx.dp(48) if trailing else ctx.dp(8)]
    _, art, _, body, side, tail = ui.split_row(rect, widths)
    if thumb:
        row.add(Node(ui.IMAGE_VIEW, ui.inset(art, 0, ctx.dp(8)), paint=thumb,
                     resource_id=ctx.rid(THUMB)))
    col = ui.Column(ui.inset(body, 0, ctx.dp(10)))
    half = (col.bottom - col.top) // 2 if subtitle else col.bottom - col.top
    row.add(text(ctx, col.take(half), title, 16, rid=TITLE,
                 color=t.accent if highlight else t.text))
    if subtitle:
        row.add(text(ctx, col.take(half), subtitle, 13.5, color=t.muted,
                     rid=SUBTITLE))
    if meta or badge:
        side_col = ui.Column(ui.inset(side, 0, ctx.dp(12)))
        if meta:
            row.add(text(ctx, side_col.take(ctx.dp(20)), meta, 12, color=t.muted,
                         align="right", rid=META))
        if badge:
            pill = side_col.take(ctx.dp(22))
            pill = (pill[2] - ctx.dp(28), pill[1] + ctx.dp(2), pill[2] - ctx.dp(4), pill[3])
            row.add(Node(ui.TEXT_VIEW, pill, text=badge, resource_id=ctx.rid(BADGE),
                         paint=Round((235, 64, 52), t.background, ctx.dp(11), badge,
                                     size=ctx.dp(12))))
    if trailing:
        icon, desc, intent = trailing
        # The button acts on the row's record, so it shows (and reports) the same entity.
        button = icon_button(ctx, tail, icon, desc, intent, color=t.muted, rid=trailing_rid)
        button.entity = entity
        row.add(button)
    return row


def detail_row(ctx: Ctx, rect: Rect, key: str, value: str, *, key_dp: float,
               rid: str) -> Node:
    """One detail: its name on the left (``key_dp`` wide), its value on the right."""
    t = ctx.theme
    row = Node(ui.LINEAR, rect, resource_id=ctx.rid(rid), paint=Fill(t.background))
    name, shown = ui.split_row(ui.inset(rect, ctx.dp(20), 0), [ctx.dp(key_dp), None])
    return row.add(text(ctx, name, key, 14, color=t.muted),
                   text(ctx, shown, value, 14, align="right"))


def card_pairs(ctx: Ctx, items: Sequence[_T], height: int, gap: int,
               card: Callable[[Rect, _T], Node]) -> list[tuple[int, ItemBuilder]]:
    """Items of a scrolling list showing ``items`` as cards, two to a row, ``gap`` apart.

    Each row is ``height`` pixels tall, on the theme's surface colour; ``card`` builds one
    card in its cell.
    """
    def pair(rect: Rect, shown: Sequence[_T]) -> Node:
        node = Node(ui.LINEAR, rect, paint=Fill(ctx.theme.surface))
        cells = ui.split_row((rect[0] + gap, rect[1] + gap, rect[2] - gap, rect[3]),
                             [None, gap, None])
        return node.add(*(card(cell, item) for cell, item in zip(cells[::2], shown,
                                                                 strict=False)))

    rows = [items[i:i + 2] for i in range(0, len(items), 2)]
    return [(height, lambda r, shown=shown: pair(r, shown)) for shown in rows]


def divider(ctx: Ctx, rect: Rect) -> Node:
    """A hairline separator."""
    return Node(ui.VIEW_GROUP, (rect[0], rect[3] - max(1, ctx.dp(0.5)), rect[2], rect[3]),
                paint=Fill(ctx.theme.divider))


def section_header(ctx: Ctx, rect: Rect, title: str, *, on_click: Intent | None = None,
                   expanded: bool | None = None, rid: str = "section") -> Node:
    """A bold section title; with ``expanded`` set it is a collapsible group header."""
    t = ctx.theme
    head = Node(ui.LINEAR, rect, resource_id=ctx.rid(rid), on_click=on_click,
                paint=Fill(t.background))
    if expanded is not None:
        head.checkable, head.checked = True, expanded
    cells = ui.split_row(rect, [ctx.dp(16), None, ctx.dp(48)])
    head.add(text(ctx, cells[1], title, 20, bold=True, rid=SECTION_TITLE))
    if expanded is not None:
        head.add(Node(ui.IMAGE_VIEW, cells[2], desc="Collapse" if expanded else "Expand",
                      paint=Icon("chevron_up" if expanded else "chevron_down", t.muted,
                                 t.background, ctx.dp(24))))
    return head


def bottom_nav(ctx: Ctx, rect: Rect, items: Sequence[tuple[str, str, Intent, str, str]],
               selected: int) -> Node:
    """A BottomNavigationView of ``(label, icon, intent, badge, resource id name)`` items."""
    t = ctx.theme
    nav = Node(ui.BOTTOM_NAV, rect, resource_id=ctx.rid(BOTTOM_NAV), paint=Fill(t.bar))
    for i, (cell, (label, icon, intent, badge, rid)) in enumerate(
            zip(ui.split_row(rect, [None] * len(items)), items, strict=True)):
        color = t.accent if i == selected else t.muted
        item = Node(ui.FRAME, cell, desc=_badged(label, badge), selected=i == selected,
                    on_click=intent, resource_id=ctx.rid(rid))
        col = ui.Column(ui.inset(cell, 0, ctx.dp(6)))
        item.add(Node(ui.IMAGE_VIEW, col.take(ctx.dp(30)),
                      paint=Icon(icon, color, t.bar, ctx.dp(24), badge)))
        item.add(text(ctx, col.rest(), label, 12, color=color, under=t.bar, align="center",
                      bold=i == selected))
        nav.add(item)
    return nav


def _badged(label: str, badge: str) -> str:
    """A navigation item's description, its badge said as Material says it.

    ``Chats, 4 new notifications``; ``Chats, New notification`` for a badge without a
    number; the label alone without a badge.
    """
    if not badge:
        return label
    said = counted(int(badge), "new notification") if badge.isdigit() else "New notification"
    return f"{label}, {said}"


def tabs(ctx: Ctx, rect: Rect, labels: Sequence[tuple[str, Intent]], selected: int) -> Node:
    """A TabLayout with an underline under the selected tab."""
    t = ctx.theme
    bar = Node(ui.TAB_LAYOUT, rect, resource_id=ctx.rid(TABS), paint=Fill(t.background))
    for i, (cell, (label, intent)) in enumerate(
            zip(ui.split_row(rect, [None] * len(labels)), labels, strict=True)):
        tab = Node(ui.LINEAR, cell, desc=label, selected=i == selected, on_click=intent)
        tab.add(text(ctx, cell, label, 15, bold=i == selected, align="center",
                     color=t.text if i == selected else t.muted))
        if i == selected:
            line = (cell[0] + ctx.dp(24), cell[3] - ctx.dp(3), cell[2] - ctx.dp(24), cell[3])
            tab.add(Node(ui.VIEW_GROUP, line, paint=Fill(t.accent)))
        bar.add(tab)
    return bar


def text_field(ctx: Ctx, rect: Rect, key: str, value: str, hint: str, *, focused: bool,
               on_submit: Intent | None = None, rid: str = "input",
               under: Color | None = None) -> Node:
    """An EditText; it shows its hint as text when empty, like a uiautomator dump."""
    t = ctx.theme
    under = under or t.background
    box = Node(ui.EDIT_TEXT, rect, text=value or hint, resource_id=ctx.rid(rid),
               focusable=True, focused=focused, clickable=True,
               paint=Round(t.surface, under, ctx.dp(8),
                           outline=t.accent if focused else t.divider),
               field_key=key, on_submit=on_submit)
    inner = ui.inset(rect, ctx.dp(12), 0)
    cursor = "|" if focused else ""
    # Empty, it shows the hint, focused or not (the cursor before it), as Android does.
    shown = value + cursor if value else cursor + hint
    if focused and value:  # scrolled to the cursor: the end of a text longer than the field
        shown = fit_end(shown, ctx.dp(16), inner[2] - inner[0])
    box.add(Node(ui.VIEW_GROUP, inner, paint=Label(
        shown, ctx.dp(16), t.text if value else t.muted, t.surface)))
    return box


def button(ctx: Ctx, rect: Rect, label: str, intent: Intent | None, *, rid: str = "button",
           primary: bool = True, under: Color | None = None, enabled: bool = True) -> Node:
    """A pill Button."""
    t = ctx.theme
    fill = t.accent if primary and enabled else t.divider
    color = t.on_accent if primary and enabled else t.muted
    return Node(ui.BUTTON, rect, text=label, resource_id=ctx.rid(rid),
                enabled=enabled, on_click=intent if enabled else None,
                clickable=enabled,
                paint=Round(fill, under or t.background, ctx.dp(24), label, color,
                            ctx.dp(15)))

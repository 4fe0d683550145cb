"""The home screen: a clock, a search bar and a centred grid of app icons, in pages.

Icons fill rows of :data:`COLUMNS` cells in the order the apps were installed; a row that
is not full is centred. When the apps need more rows than the screen holds, the grid is a
horizontal pager (``SWIPE[LEFT]`` shows the next page) with a dot per page below it.

The search bar is a text field, as on Android's launcher: a tap focuses it and shows the
keyboard, and while it holds text the grid shows only the apps whose label has a word
starting with each typed word (:func:`matching`), from the first page of them, ENTER
opening the first. BACK hides the keyboard, then closes the search; HOME and opening an
app close it too.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from mobileintent_gym.phone import ui
from mobileintent_gym.phone.characters import folded
from mobileintent_gym.phone.paint import Avatar, Fill, Round
from mobileintent_gym.phone.state import month_name, weekday_name
from mobileintent_gym.phone.ui import Node, Rect
from mobileintent_gym.phone.widgets import Ctx, Theme, text, text_field

if TYPE_CHECKING:
    from mobileintent_gym.phone.app import App, Entry

PACKAGE = "com.android.launcher3"
THEME = Theme(background=(28, 43, 74), surface=(44, 62, 99), text=(250, 250, 252),
              muted=(190, 200, 220), accent=(138, 180, 248), bar=(28, 43, 74),
              divider=(60, 80, 120))
COLUMNS = 4
ICON, PAGES, PAGE, DOTS = "icon", "workspace_pages", "page", "page_indicator"
SEARCH = "search"  # the search bar's field key and resource id
SEARCH_HINT = "Search apps"  # what the search bar shows while it holds no text
RESULTS = f"{PAGES}:"  # + the query: the scroll key of a search's pages (each from its first)
CELL_DP = 108


def close_search(entry: Entry) -> bool:
    """Close the search of the launcher's ``entry`` (text, focus, keyboard, result pages).

    Returns:
        Whether it was open.
    """
    was_open = bool(entry.fields) or entry.focus is not None
    entry.fields.clear()
    entry.focus, entry.keyboard, entry.key_set = None, False, "lower"
    for key in [k for k in entry.scroll if k.startswith(RESULTS)]:
        del entry.scroll[key]
    return was_open


def matching(apps: Sequence[App], query: str) -> list[App]:
    """The apps a search for ``query`` finds, in install order (all of them for no words).

    An app is found when each word of the query starts a word of its label, case
    ignored: ``"mus"`` finds Music, ``"sic"`` does not.
    """
    wanted = folded(query).split()
    return [app for app in apps
            if all(any(word.startswith(w) for word in folded(app.label).split())
                   for w in wanted)]


def build(ctx: Ctx, apps: Sequence[App], clock: datetime, entry: Entry) -> Node:
    """The launcher window for ``apps`` at time ``clock``; ``entry`` holds the page scroll."""
    t = ctx.theme
    root = Node(ui.FRAME, ctx.content, resource_id=ctx.rid("workspace"),
                paint=Fill(t.background))
    col = ui.Column(ui.inset(ctx.content, 0, ctx.dp(24)))
    head = ui.Column(ui.inset(col.take(ctx.dp(200)), ctx.dp(24), 0))
    root.add(text(ctx, head.take(ctx.dp(72)), clock.strftime("%H:%M"), 56, bold=True,
                  rid="clock", align="center"))
    date = f"{weekday_name(clock)}, {month_name(clock)} {clock.day}"
    root.add(text(ctx, head.take(ctx.dp(28)), date, 16, color=t.muted, align="center",
                  rid="date"))
    head.take(ctx.dp(12))
    query = entry.fields.get(SEARCH, "")
    found = matching(apps, query)
    submit = ("launch", found[0].id) if query.strip() and found else None
    root.add(text_field(ctx, head.take(ctx.dp(52)), SEARCH, query, SEARCH_HINT,
                        focused=entry.focus == SEARCH, on_submit=submit, rid=SEARCH))
    col.take(ctx.dp(16))
    dots = col.take_bottom(ctx.dp(24))
    grid = col.rest()
    if not found:
        return root.add(text(ctx, ui.Column(grid).take(ctx.dp(48)), f'No apps match "{query}"',
                             16, color=t.muted, align="center", rid="no_results"))
    searching = entry.focus == SEARCH or bool(query)
    key = RESULTS + query if searching else PAGES
    per_page = COLUMNS * max(1, (grid[3] - grid[1]) // ctx.dp(CELL_DP))
    pages = [found[i:i + per_page] for i in range(0, len(found), per_page)] or [[]]
    if len(pages) == 1:
        return root.add(_page(ctx, grid, pages[0]))
    width = grid[2] - grid[0]
    pager = ui.scroll_list(grid, key, [(width, lambda r, p=p: _page(ctx, r, p)) for p in pages],
                           entry.scroll.get(key, 0), ctx.rid(PAGES), axis=0)
    pager.paged = True
    return root.add(pager, _dots(ctx, dots, len(pages), pager.scroll_range[0] // width))


def _page(ctx: Ctx, rect: Rect, apps: Sequence[App]) -> Node:
    """One page of the grid; a row that is not full is centred."""
    page = Node(ui.FRAME, rect, resource_id=ctx.rid(PAGE))
    cell_w, cell_h = (rect[2] - rect[0]) // COLUMNS, ctx.dp(CELL_DP)
    for start in range(0, len(apps), COLUMNS):
        row = apps[start:start + COLUMNS]
        left = rect[0] + (rect[2] - rect[0] - cell_w * len(row)) // 2
        top = rect[1] + start // COLUMNS * cell_h
        for i, app in enumerate(row):
            page.add(_icon(ctx, (left + i * cell_w, top, left + (i + 1) * cell_w, top + cell_h),
                           app))
    return page


def _dots(ctx: Ctx, rect: Rect, count: int, current: int) -> Node:
    """The page indicator: one dot per page, the current one bright."""
    t, size, gap = ctx.theme, ctx.dp(8), ctx.dp(8)
    left = (rect[0] + rect[2] - count * size - (count - 1) * gap) // 2
    top = (rect[1] + rect[3] - size) // 2
    bar = Node(ui.LINEAR, rect, resource_id=ctx.rid(DOTS),
               desc=f"Page {current + 1} of {count}")
    for i in range(count):
        x = left + i * (size + gap)
        color = t.text if i == current else t.divider
        bar.add(Node(ui.VIEW_GROUP, (x, top, x + size, top + size),
                     paint=Round(color, t.background, size // 2)))
    return bar


def _icon(ctx: Ctx, cell: Rect, app: App) -> Node:
    """A launcher shortcut: a TextView labelled with the app name, as Launcher3 has."""
    t = ctx.theme
    icon = Node(ui.TEXT_VIEW, cell, text=app.label, desc=app.label,
                resource_id=ctx.rid(ICON), on_click=("launch", app.id))
    size = ctx.dp(60)
    x = (cell[0] + cell[2] - size) // 2
    icon.add(Node(ui.IMAGE_VIEW, (x, cell[1] + ctx.dp(6), x + size, cell[1] + ctx.dp(6) + size),
                  paint=Avatar(app.id, app.label, t.background, glyph=app.icon,
                               color=app.color)))
    icon.add(text(ctx, (cell[0], cell[1] + ctx.dp(72), cell[2], cell[3]), app.label, 13,
                  align="center"))
    return icon

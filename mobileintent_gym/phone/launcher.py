"""The home screen: a clock widget and a grid of app icons that open the apps."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from mobileintent_gym.phone import ui
from mobileintent_gym.phone.paint import Avatar, Fill, Round
from mobileintent_gym.phone.ui import Node
from mobileintent_gym.phone.widgets import Ctx, Theme, text

if TYPE_CHECKING:
    from mobileintent_gym.phone.app import App

PACKAGE = "com.android.launcher3"
THEME = Theme(background=(28, 43, 74), surface=(44, 62, 99), text=(250, 250, 252),
              muted=(190, 200, 220), accent=(138, 180, 248), bar=(28, 43, 74),
              divider=(60, 80, 120))
COLUMNS = 4
ICON = "icon"


def build(ctx: Ctx, apps: Sequence[App], clock: datetime) -> Node:
    """The launcher window for ``apps`` at time ``clock``."""
    t = ctx.theme
    root = Node(ui.FRAME, ctx.content, resource_id=ctx.rid("workspace"),
                paint=Fill(t.background))
    col = ui.Column(ui.inset(ctx.content, ctx.dp(24), ctx.dp(24)))
    root.add(text(ctx, col.take(ctx.dp(72)), clock.strftime("%H:%M"), 56, bold=True,
                  rid="clock", align="center"))
    root.add(text(ctx, col.take(ctx.dp(28)), clock.strftime("%A, %B %-d"), 16,
                  color=t.muted, align="center", rid="date"))
    col.take(ctx.dp(12))
    search = col.take(ctx.dp(52))
    root.add(Node(ui.TEXT_VIEW, search, desc="Search", resource_id=ctx.rid("search"),
                  paint=Round(t.surface, t.background, ctx.dp(26), "Search apps",
                              t.muted, ctx.dp(16))))
    col.take(ctx.dp(36))
    cell_h = ctx.dp(108)
    rows = [apps[i:i + COLUMNS] for i in range(0, len(apps), COLUMNS)]
    for row in rows:
        cells = ui.split_row(col.take(cell_h), [None] * COLUMNS)
        for cell, app in zip(cells, row, strict=False):
            root.add(_icon(ctx, cell, app))
    return root


def _icon(ctx: Ctx, cell: ui.Rect, app: App) -> Node:
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

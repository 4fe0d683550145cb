"""Modal surfaces: the scrim, bottom sheets and dialogs."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from mobileintent_gym.phone import ui
from mobileintent_gym.phone.paint import Avatar, Dim, Fill, Icon, Round
from mobileintent_gym.phone.ui import Intent, Node, Rect
from mobileintent_gym.phone.widgets import Ctx, list_row, text

SCRIM, SHEET, SHEET_HEADER = "touch_outside", "design_bottom_sheet", "sheet_header"
DIALOG_TITLE = "android:id/alertTitle"


def scrim(ctx: Ctx, dismiss: Intent = ("back",)) -> Node:
    """The darkened full-screen layer under a dialog or sheet; tapping it dismisses."""
    return Node(ui.FRAME, ctx.content, resource_id=ctx.rid(SCRIM),
                paint=Dim(), on_click=dismiss)


def bottom_sheet(ctx: Ctx, title: str, items: Sequence[tuple[str, str, Intent, str]],
                 header: Avatar | None = None, subtitle: str = "",
                 entity: str | None = None) -> Node:
    """A modal bottom sheet of ``(label, icon, intent, resource id)`` menu items.

    ``entity`` is the record the sheet is about; its header shows it.
    """
    t = ctx.theme
    row_h, head_h = ctx.dp(56), ctx.dp(80)
    left, _, right, bottom = ctx.content
    top = bottom - head_h - row_h * len(items) - ctx.dp(16)
    layer = scrim(ctx)
    sheet = Node(ui.LINEAR, (left, top, right, bottom),
                 resource_id=ctx.rid(SHEET),
                 paint=Round(t.surface, t.background, ctx.dp(16)), modal=True)
    col = ui.Column(ui.inset((left, top, right, bottom), 0, ctx.dp(8)))
    head = col.take(head_h)
    # The header is a list row drawn on the sheet's surface instead of the page background.
    on_sheet = dataclasses.replace(ctx, theme=dataclasses.replace(t, background=t.surface))
    sheet.add(list_row(on_sheet, head, title, subtitle, thumb=header, rid=SHEET_HEADER,
                       entity=entity)
              if header else text(on_sheet, ui.inset(head, ctx.dp(16), 0), title, 18,
                                  bold=True))
    for label, icon, intent, rid in items:
        cell = col.take(row_h)
        item = Node(ui.LINEAR, cell, resource_id=ctx.rid(rid), on_click=intent,
                    paint=Fill(t.surface))
        parts = ui.split_row(cell, [ctx.dp(16), ctx.dp(40), ctx.dp(16), None])
        item.add(Node(ui.IMAGE_VIEW, parts[1], paint=Icon(icon, t.text, t.surface, ctx.dp(24))))
        item.add(text(ctx, parts[3], label, 16, under=t.surface))
        sheet.add(item)
    return layer.add(sheet)


def dialog(ctx: Ctx, title: str, body: Sequence[Node], buttons: Sequence[Node],
           height: int) -> Node:
    """A centred modal dialog; ``body`` and ``buttons`` are placed by the caller.

    Use :func:`dialog_rect` to get the rectangles to place them in.
    """
    t = ctx.theme
    layer = scrim(ctx)
    rect = dialog_rect(ctx, height)
    card = Node(ui.FRAME, rect, resource_id="android:id/content",
                paint=Round(t.surface, t.background, ctx.dp(20)), modal=True)
    head = (rect[0] + ctx.dp(24), rect[1] + ctx.dp(20), rect[2] - ctx.dp(24),
            rect[1] + ctx.dp(56))
    heading = text(ctx, head, title, 20, bold=True, under=t.surface)
    heading.resource_id = DIALOG_TITLE  # the platform's dialog, not the app's
    card.add(heading, *body, *buttons)
    return layer.add(card)


def dialog_rect(ctx: Ctx, height: int) -> Rect:
    """The card rectangle of a :func:`dialog` of ``height`` pixels."""
    left, top, right, bottom = ctx.content
    y = top + max(ctx.dp(24), (bottom - top - height) // 2)
    return (left + ctx.dp(28), y, right - ctx.dp(28), y + height)

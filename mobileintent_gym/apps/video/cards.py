"""How the video app draws a video: cards of its grids and rows of its lists."""

from __future__ import annotations

from collections.abc import Sequence

from mobileintent_gym.apps.video.ids import Rid, Route
from mobileintent_gym.apps.video.state import Video, compact
from mobileintent_gym.phone import ui, widgets
from mobileintent_gym.phone.paint import Avatar, Color, Fill, Round, text_width
from mobileintent_gym.phone.ui import Column, Intent, ItemBuilder, Node, Rect
from mobileintent_gym.phone.widgets import Ctx

CHIP = (24, 24, 24)  # the duration chip on a cover
ROW_DP, COVER_DP = 106, 160  # a list row's height, its cover's width


def open_video(video: Video) -> Intent:
    """The intent that opens a video's page."""
    return ("open", Route.VIDEO, (("id", video.id),))


def cover(ctx: Ctx, rect: Rect, video: Video, under: Color) -> Node:
    """A video's cover: artwork with its title's initials and its duration in a chip."""
    art = Node(ui.IMAGE_VIEW, rect, desc=video.title, paint=Avatar(video.id, video.title, under))
    width = text_width(video.duration, ctx.dp(11)) + ctx.dp(10)
    pad = ctx.dp(5)
    chip = (rect[2] - pad - width, rect[3] - pad - ctx.dp(18), rect[2] - pad, rect[3] - pad)
    return art.add(Node(ui.VIEW_GROUP, chip, paint=Fill(CHIP)).add(
        widgets.text(ctx, chip, video.duration, 11, color=(255, 255, 255), under=CHIP,
                     align="center")))


def card_height(ctx: Ctx, width: int) -> int:
    """The height of a card ``width`` pixels wide: its cover, two title lines, two lines."""
    return width * 9 // 16 + ctx.dp(100)


def card(ctx: Ctx, rect: Rect, video: Video) -> Node:
    """A card of a grid: cover, title on two lines, uploader, views and age."""
    t = ctx.theme
    node = Node(ui.LINEAR, rect, resource_id=ctx.rid(Rid.VIDEO_CARD), entity=video.id,
                on_click=open_video(video), paint=Round(t.background, t.surface, ctx.dp(6)))
    col = Column(rect)
    node.add(cover(ctx, col.take((rect[2] - rect[0]) * 9 // 16), video, t.surface))
    body = Column(ui.inset(col.rest(), ctx.dp(8), ctx.dp(6)))
    title = widgets.paragraph(ctx, body.take(ctx.dp(40)), video.title, 14, lines=2,
                              rid=Rid.TITLE)
    body.take(ctx.dp(4))
    return node.add(title, *_byline(ctx, body, video, 12, t.background))


def row(ctx: Ctx, rect: Rect, video: Video, *, under: Color | None = None,
        clickable: bool = True) -> Node:
    """A list row: cover on the left; title on two lines, uploader, views and age.

    A row that is not ``clickable`` is a drawing inside a card that takes the touch.
    """
    under = under or ctx.theme.background
    node = Node(ui.VIEW_GROUP, rect, paint=Fill(under), entity=video.id,
                resource_id=ctx.rid(Rid.VIDEO) if clickable else "",
                on_click=open_video(video) if clickable else None)
    pad, top = ctx.dp(12), rect[1] + ctx.dp(8)
    art = (rect[0] + pad, top, rect[0] + pad + ctx.dp(COVER_DP), top + ctx.dp(COVER_DP) * 9 // 16)
    body = Column((art[2] + pad, art[1], rect[2] - pad, art[3]))
    title = widgets.paragraph(ctx, body.take(ctx.dp(42)), video.title, 15, lines=2,
                              under=under, rid=Rid.TITLE)
    return node.add(cover(ctx, art, video, under), title, *_byline(ctx, body, video, 12.5, under))


def _byline(ctx: Ctx, col: Column, video: Video, size: float, under: Color) -> list[Node]:
    """The uploader over views and age, in muted text at the bottom of ``col``."""
    muted = ctx.theme.muted
    stats = col.take_bottom(ctx.dp(size + 8))
    return [widgets.text(ctx, col.take_bottom(ctx.dp(size + 8)), video.uploader, size,
                         color=muted, under=under, rid=Rid.UPLOADER),
            widgets.text(ctx, stats, f"{compact(video.views)} views · {video.age}", size,
                         color=muted, under=under)]


def grid(ctx: Ctx, videos: Sequence[Video]) -> list[tuple[int, ItemBuilder]]:
    """Items of a scrolling list that show ``videos`` as cards, two to a row, on grey."""
    gap = ctx.dp(8)
    height = card_height(ctx, (ctx.width - 3 * gap) // 2) + gap
    return widgets.card_pairs(ctx, videos, height, gap, lambda cell, video: card(ctx, cell, video))

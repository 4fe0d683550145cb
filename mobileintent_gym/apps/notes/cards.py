"""How the notes app draws a note in its grids: cover, title, author and likes."""

from __future__ import annotations

from collections.abc import Sequence

from mobileintent_gym.apps.notes.ids import Rid, Route
from mobileintent_gym.apps.notes.state import Note, NotesState
from mobileintent_gym.phone import ui, widgets
from mobileintent_gym.phone.paint import Avatar, Icon, Round
from mobileintent_gym.phone.ui import Column, Intent, ItemBuilder, Node, Rect
from mobileintent_gym.phone.widgets import Ctx

GAP_DP = 6


def open_note(note: Note) -> Intent:
    """The intent that opens a note's page."""
    return ("open", Route.NOTE, (("id", note.id),))


def card(ctx: Ctx, rect: Rect, note: Note, state: NotesState) -> Node:
    """A card: the cover, the title on two lines, the author and the likes (red if yours)."""
    t = ctx.theme
    node = Node(ui.LINEAR, rect, resource_id=ctx.rid(Rid.NOTE_CARD), entity=note.id,
                on_click=open_note(note), paint=Round(t.background, t.surface, ctx.dp(8)))
    col = Column(rect)
    node.add(Node(ui.IMAGE_VIEW, col.take((rect[2] - rect[0]) * 6 // 5), desc=note.title,
                  paint=Avatar(note.id, note.title, t.surface)))
    body = Column(ui.inset(col.rest(), ctx.dp(8), ctx.dp(6)))
    node.add(widgets.paragraph(ctx, body.take(ctx.dp(40)), note.title, 14, lines=2,
                               bold=True, rid=Rid.TITLE))
    author, like_count = state.author(note), state.likes(note)
    liked = note.id in state.liked
    side = ctx.dp(20)
    face, _, name, likes = ui.split_row(body.take_bottom(side), [side, ctx.dp(6), None,
                                                                 ctx.dp(72)])
    heart = Icon("heart" if liked else "heart_outline", t.accent if liked else t.muted,
                 t.background, ctx.dp(15))
    icon_cell, count_cell = ui.split_row(likes, [ctx.dp(22), None])
    return node.add(
        Node(ui.IMAGE_VIEW, face, desc=author, paint=Avatar(author, author, t.background)),
        widgets.text(ctx, name, author, 12, color=t.muted, rid=Rid.AUTHOR),
        Node(ui.LINEAR, likes, resource_id=ctx.rid(Rid.LIKES),
             desc=widgets.counted(like_count, "like")).add(
            Node(ui.IMAGE_VIEW, icon_cell, paint=heart),
            widgets.text(ctx, count_cell, f"{like_count:,}", 12, color=t.muted)))


def grid(ctx: Ctx, notes: Sequence[Note], state: NotesState) -> list[tuple[int, ItemBuilder]]:
    """Items of a scrolling list that show ``notes`` as cards, two to a row, on grey."""
    gap = ctx.dp(GAP_DP)
    height = (ctx.width - 3 * gap) // 2 * 6 // 5 + ctx.dp(84) + gap
    return widgets.card_pairs(ctx, notes, height, gap,
                              lambda cell, note: card(ctx, cell, note, state))

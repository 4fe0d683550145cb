"""A messenger's parts: message bubbles, the input bar with Send, and taking the draft.

Apps with conversations (a chat, a payments app's messages) build them from these, so their
bubbles measure, wrap and lay out one way. The names below are the ids the parts give
themselves; an app's names module re-exports them for its templates.
"""

from __future__ import annotations

from dataclasses import dataclass

from mobileintent_gym.phone import ui, widgets
from mobileintent_gym.phone.app import Entry
from mobileintent_gym.phone.paint import Avatar, Color, Fill, Label, Round, text_width, wrap
from mobileintent_gym.phone.ui import Intent, Node, Rect
from mobileintent_gym.phone.widgets import Ctx

MESSAGE_LIST, MESSAGE_IN, MESSAGE_OUT = "message_list", "message_in", "message_out"
INPUT, SEND = "input", "send"
DRAFT = "message"  # the entry field that holds the draft

_TEXT, _FACE, _SIDE, _GAP = 15, 40, 12, 12  # dp: text size, avatar, row padding, row gap
_PAD_X, _PAD_Y, _TO_FACE = 14, 10, 8  # dp: text inside a bubble; bubble to avatar


@dataclass(frozen=True, slots=True)
class BubbleStyle:
    """A conversation's colours.

    Attributes:
        mine: The fill of the user's own bubbles.
        ink: The text colour of the user's own bubbles (others' take the theme's text).
        theirs: The fill of the other side's bubbles.
        under: The background the rows stand on.
        radius: The bubbles' corner radius in dp.
    """

    mine: Color
    ink: Color
    theirs: Color
    under: Color
    radius: float = 6


def _room(ctx: Ctx) -> int:
    """The widest a bubble's text may be: the row less both avatars and the padding."""
    return ctx.width - 2 * (ctx.dp(_FACE) + 2 * ctx.dp(_SIDE)) - 2 * ctx.dp(_PAD_X)


def bubble_height(ctx: Ctx, text: str) -> int:
    """A message row's height: its bubble (wrapped text, avatar high at least) and gaps."""
    measured = widgets.text_height(ctx, text, _TEXT, _room(ctx))
    return max(ctx.dp(_FACE), measured + 2 * ctx.dp(_PAD_Y)) + 2 * ctx.dp(_GAP)


def bubble_row(ctx: Ctx, rect: Rect, text: str, face: Avatar, *, mine: bool,
               style: BubbleStyle) -> Node:
    """A message: the sender's face beside a bubble as wide as its longest line.

    The user's own messages stand on the right (id :data:`MESSAGE_OUT`), the other side's
    on the left (:data:`MESSAGE_IN`); ``rect`` is :func:`bubble_height` high.
    """
    row = Node(ui.LINEAR, rect, paint=Fill(style.under))
    side, top = ctx.dp(_FACE), rect[1] + ctx.dp(_GAP)
    left = rect[2] - ctx.dp(_SIDE) - side if mine else rect[0] + ctx.dp(_SIDE)
    row.add(Node(ui.IMAGE_VIEW, (left, top, left + side, top + side), desc=face.label,
                 paint=face))
    size = ctx.dp(_TEXT)
    lines = wrap(text, size, False, _room(ctx), widgets.WHOLE)
    width = max(text_width(line, size) for line in lines) + 1 + 2 * ctx.dp(_PAD_X)
    x = left - ctx.dp(_TO_FACE) - width if mine else left + side + ctx.dp(_TO_FACE)
    bubble = (x, top, x + width, rect[3] - ctx.dp(_GAP))
    fill = style.mine if mine else style.theirs
    row.add(Node(ui.TEXT_VIEW, bubble, text=text,
                 resource_id=ctx.rid(MESSAGE_OUT if mine else MESSAGE_IN),
                 paint=Round(fill, style.under, ctx.dp(style.radius))))
    # As wide as its longest line, the text wraps into the same lines it was measured in.
    ink = style.ink if mine else ctx.theme.text
    return row.add(Node(ui.VIEW_GROUP, ui.inset(bubble, ctx.dp(_PAD_X), ctx.dp(_PAD_Y)),
                        paint=Label(text, size, ink, fill, lines=widgets.WHOLE)))


def input_bar(ctx: Ctx, rect: Rect, entry: Entry, send: Intent, *, hint: str,
              color: Color) -> Node:
    """The bar under a conversation: the draft's field and Send (enabled once it holds text).

    Args:
        ctx: The screen's metrics and theme.
        rect: The bar.
        entry: The conversation screen's entry (its field :data:`DRAFT` holds the draft).
        send: What Send and the keyboard's enter key do.
        hint: What the empty field shows.
        color: The bar's background.
    """
    draft = entry.fields.get(DRAFT, "")
    field, button = ui.split_row(ui.inset(rect, ctx.dp(8), ctx.dp(10)), [None, ctx.dp(84)])
    return Node(ui.LINEAR, rect, paint=Fill(color)).add(
        widgets.text_field(ctx, ui.inset(field, ctx.dp(4), 0), DRAFT, draft, hint,
                           focused=entry.focus == DRAFT, on_submit=send, rid=INPUT,
                           under=color),
        widgets.button(ctx, ui.inset(button, ctx.dp(4), ctx.dp(2)), "Send", send, rid=SEND,
                       under=color, enabled=bool(draft.strip())))


def take_draft(entry: Entry) -> str:
    """The draft to send, stripped, leaving the field empty (``""``: nothing to send).

    Once a message is sent, the conversation scrolls back to its newest message.
    """
    text = entry.fields.get(DRAFT, "").strip()
    if text:
        entry.fields[DRAFT] = ""
        entry.scroll.pop(MESSAGE_LIST, None)
    return text

"""The pay app's messages: the message list and a conversation.

:class:`~mobileintent_gym.apps.pay.app.PayApp` takes these screens as a mixin (they use
``App.scroll`` and the app's tab frame).
"""

from __future__ import annotations

from mobileintent_gym.apps.pay.ids import Rid
from mobileintent_gym.apps.pay.state import ME, Conversation, Message, PayState
from mobileintent_gym.phone import messenger, widgets
from mobileintent_gym.phone.app import Entry
from mobileintent_gym.phone.paint import Avatar, Color
from mobileintent_gym.phone.state import when
from mobileintent_gym.phone.ui import Node, Rect
from mobileintent_gym.phone.widgets import Ctx

_SERVICE = (22, 119, 255)  # service accounts wear the app's blue with a bell


def face(conversation: Conversation, under: Color) -> Avatar:
    """Who a conversation is with: a bell for services, initials for merchants and friends."""
    if conversation.kind == "service":
        return Avatar(conversation.id, conversation.name, under, glyph="bell", color=_SERVICE)
    return Avatar(conversation.id, conversation.name, under)


class MessageScreens:
    """The message list and a conversation (a mixin of the pay app)."""

    def messages_screen(self, ctx: Ctx, entry: Entry, state: PayState) -> Node:
        """Conversations, most recent first: who, the last message, when, unread count."""
        root, col = self._tab_root(ctx, state, 1)
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(56)), "Messages", back=False,
                                 actions=[("contacts", "Contacts", ("noop",)),
                                          ("plus", "More", ("noop",))]))
        items = [(ctx.dp(76), lambda r, c=c: self._conversation_row(ctx, r, c))
                 for c in state.conversations]
        root.add(self.scroll(entry, col.rest(), Rid.CONVERSATIONS, items))
        return root

    @staticmethod
    def _conversation_row(ctx: Ctx, rect: Rect, conversation: Conversation) -> Node:
        last = conversation.messages[-1] if conversation.messages else Message(ME, "", "")
        row = widgets.list_row(ctx, rect, conversation.name, last.text,
                               thumb=face(conversation, ctx.theme.background),
                               on_click=("open_conversation", conversation.id),
                               entity=conversation.id, rid=Rid.CONVERSATION,
                               meta=when(last.time, ctx.today, clock=False),
                               badge=str(conversation.unread or ""))
        return row.add(widgets.divider(ctx, rect))

    def conversation_screen(self, ctx: Ctx, entry: Entry, state: PayState) -> Node:
        """The messages (the newest at the bottom) above an input bar with Send."""
        t = ctx.theme
        conversation = state.conversation(entry.param("id"))
        root, col = widgets.page(ctx, "conversation", t.surface)
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(56)), conversation.name,
                                 entity=conversation.id,
                                 actions=[("more", "Conversation settings", ("noop",))]))
        bar = messenger.input_bar(ctx, col.take_bottom(ctx.dp(64)), entry,
                                  ("send", conversation.id), hint="Send a message",
                                  color=t.background)
        first = conversation.messages[0].time if conversation.messages else ""
        items = [(ctx.dp(36), lambda r: widgets.text(ctx, r, when(first, ctx.today), 12,
                                                    color=t.muted,
                                                    under=t.surface, align="center"))]
        style = messenger.BubbleStyle(t.accent, (255, 255, 255), t.background, t.surface, 8)
        faces = {True: Avatar(ME, state.me, t.surface), False: face(conversation, t.surface)}
        items += [(messenger.bubble_height(ctx, m.text), lambda r, m=m: messenger.bubble_row(
            ctx, r, m.text, faces[m.sender == ME], mine=m.sender == ME, style=style))
            for m in conversation.messages]
        # A conversation opens at its newest message.
        root.add(self.scroll(entry, col.rest(), Rid.MESSAGE_LIST, items, default=1 << 30), bar)
        return root

"""Chat: a messenger that mirrors WeChat's structure.

Routes (names in :mod:`.ids`): ``chat/chats`` (chat list with unread badges),
``chat/conversation?id=`` (messages, a text input and Send), ``chat/contacts``,
``chat/discover`` → ``chat/moments`` → ``chat/profile?id=`` (an author's profile), and
``chat/me``.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any, ClassVar

from mobileintent_gym.apps.chat import icon, tour
from mobileintent_gym.apps.chat.content import CONTEXTS, build_state
from mobileintent_gym.apps.chat.ids import APP, PACKAGE, Desc, Rid, Route, Text
from mobileintent_gym.apps.chat.intents import ChatIntents
from mobileintent_gym.apps.chat.social import SocialScreens
from mobileintent_gym.apps.chat.state import ME, Chat, ChatState, Message, moved_state
from mobileintent_gym.phone import messenger, widgets
from mobileintent_gym.phone.app import App, Entry, Screen
from mobileintent_gym.phone.paint import Avatar
from mobileintent_gym.phone.state import when
from mobileintent_gym.phone.ui import Column, Node, Rect
from mobileintent_gym.phone.widgets import Ctx, Theme
from mobileintent_gym.users.pair import random_state

_MINE = (149, 236, 105)  # the colour of the user's own bubbles
_NAV_ITEMS = (("Chats", icon.draw, Route.CHATS, Rid.NAV_CHATS),
              ("Contacts", "contacts", Route.CONTACTS, Rid.NAV_CONTACTS),
              (Desc.DISCOVER, "discover", Route.DISCOVER, Rid.NAV_DISCOVER),
              ("Me", "person", Route.ME, Rid.NAV_ME))


class ChatApp(ChatIntents, SocialScreens, App):
    """The chat app."""

    id = APP
    package = PACKAGE
    label = "Chat"
    icon = staticmethod(icon.draw)
    color = (7, 193, 96)
    theme = Theme(background=(255, 255, 255), surface=(247, 247, 247), text=(25, 25, 25),
                  muted=(128, 128, 128), accent=(7, 193, 96), bar=(237, 237, 237),
                  divider=(229, 229, 229))
    home = Route.CHATS
    state_type = ChatState
    routes: ClassVar[dict[str, Screen]] = {
        Route.CHATS: Screen("chats_screen", tab=True),
        Route.CONTACTS: Screen("contacts_screen", tab=True),
        Route.DISCOVER: Screen("discover_screen", tab=True),
        Route.ME: Screen("me_screen", tab=True),
        Route.CONVERSATION: Screen("conversation_screen", params=("id",)),
        Route.MOMENTS: Screen("moments_screen"),
        Route.PROFILE: Screen("profile_screen", params=("id",)),
    }
    tour = tour.STEPS

    def initial_state(self, seed: int) -> ChatState:
        """Built-in content for ``seed``."""
        return random_state(CONTEXTS, build_state, APP, seed)

    def moved(self, state: ChatState, by: timedelta) -> ChatState:
        """``state`` with its messages' times moved by ``by``."""
        return moved_state(state, by)

    def samples(self, state: ChatState) -> Mapping[str, Mapping[str, Any]]:
        """Parameters that open each parametrised route on ``state``."""
        return {Route.CONVERSATION: {"id": state.chats[0].id},
                Route.PROFILE: {"id": state.moments[0].author}}

    def _tab_root(self, ctx: Ctx, state: ChatState, tab: int, title: str) -> tuple[Node, Column]:
        root, col = widgets.page(ctx, "root")
        unread = sum(c.unread for c in state.chats)
        items = [(label, glyph, ("open", route), str(unread) if i == 0 and unread else "", rid)
                 for i, (label, glyph, route, rid) in enumerate(_NAV_ITEMS)]
        root.add(widgets.bottom_nav(ctx, col.take_bottom(ctx.dp(60)), items, tab))
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(56)), title, back=False,
                                 actions=[("search", "Search", ("noop",)),
                                          ("plus", "More", ("noop",))]))
        return root, col

    def chats_screen(self, ctx: Ctx, entry: Entry, state: ChatState) -> Node:
        """The chat list: avatar, name, last message, time and unread badge per chat."""
        root, col = self._tab_root(ctx, state, 0, "Chats")
        items = [(ctx.dp(76), lambda r, c=chat: self._chat_row(ctx, r, c, state))
                 for chat in state.chats]
        root.add(self.scroll(entry, col.rest(), Rid.CHATS, items))
        return root

    def _chat_row(self, ctx: Ctx, rect: Rect, chat: Chat, state: ChatState) -> Node:
        contact = state.contacts[chat.contact]
        last = chat.messages[-1] if chat.messages else Message(ME, "", "")
        row = widgets.list_row(ctx, rect, contact.name, last.text,
                               thumb=self._avatar(contact, ctx.theme.background),
                               on_click=("open_chat", chat.id), entity=chat.id, rid=Rid.CHAT,
                               meta=when(last.time, ctx.today, clock=False),
                               badge=str(chat.unread) if chat.unread else "")
        return row.add(widgets.divider(ctx, rect))

    def conversation_screen(self, ctx: Ctx, entry: Entry, state: ChatState) -> Node:
        """Message bubbles above an input bar with a Send button."""
        t = ctx.theme
        chat = state.chat(entry.param("id"))
        contact = state.contacts[chat.contact]
        root, col = widgets.page(ctx, "conversation", t.bar)
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(56)), contact.name,
                                 actions=[("more", "Chat info", ("noop",))], entity=chat.id))
        bar = messenger.input_bar(ctx, col.take_bottom(ctx.dp(64)), entry, ("send", chat.id),
                                  hint="", color=t.surface)
        style = messenger.BubbleStyle(_MINE, t.text, (255, 255, 255), t.bar)
        faces = {True: Avatar(ME, state.me, t.bar), False: Avatar(contact.id, contact.name, t.bar)}
        items = [(messenger.bubble_height(ctx, m.text), lambda r, m=m: messenger.bubble_row(
            ctx, r, m.text, faces[m.sender == ME], mine=m.sender == ME, style=style))
            for m in chat.messages]
        # Conversations open at their newest message, like a messenger.
        root.add(self.scroll(entry, col.rest(), Rid.MESSAGE_LIST, items, default=1 << 30), bar)
        return root

    def contacts_screen(self, ctx: Ctx, entry: Entry, state: ChatState) -> Node:
        """Contacts in alphabetical order; a tap opens the profile."""
        root, col = self._tab_root(ctx, state, 1, "Contacts")
        people = sorted(state.contacts.values(), key=lambda c: c.name)
        items = [(ctx.dp(64), lambda r, c=c: widgets.list_row(
            ctx, r, c.name, thumb=self._avatar(c, ctx.theme.background),
            on_click=("open", Route.PROFILE, (("id", c.id),)), entity=c.id, rid=Rid.CONTACT))
            for c in people]
        root.add(self.scroll(entry, col.rest(), Rid.CONTACTS, items))
        return root

    def discover_screen(self, ctx: Ctx, entry: Entry, state: ChatState) -> Node:
        """Discover: the entry to Moments."""
        root, col = self._tab_root(ctx, state, 2, "Discover")
        t = ctx.theme
        row = widgets.list_row(ctx, col.take(ctx.dp(64)), Text.MOMENTS,
                               thumb=Avatar("moments", "Moments", t.background,
                                            glyph="aperture", color=(250, 157, 59)),
                               on_click=("open", Route.MOMENTS), rid=Rid.MOMENTS_ENTRY,
                               trailing=("chevron_right", "Open Moments",
                                         ("open", Route.MOMENTS)))
        root.add(row.add(widgets.divider(ctx, row.frame)))
        return root

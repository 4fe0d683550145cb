"""What the chat app's controls do to its data: its intent handlers.

:class:`~mobileintent_gym.apps.chat.app.ChatApp` takes them as a mixin. The state is
immutable: each handler gives ``nav`` a new one, and the phone notices the change.
"""

from __future__ import annotations

from dataclasses import replace

from mobileintent_gym.apps.chat.ids import Route
from mobileintent_gym.apps.chat.state import ME, Chat, ChatState, Message
from mobileintent_gym.phone import messenger
from mobileintent_gym.phone.backstack import Nav
from mobileintent_gym.phone.state import MINUTE_FORMAT


class ChatIntents:
    """The ``on_<intent>`` handlers of the chat app (see :meth:`App.handle`)."""

    def on_open_chat(self, nav: Nav, chat_id: str) -> None:
        """Open a conversation; its unread messages become read."""
        state: ChatState = nav.state
        chat = state.chat(chat_id)
        nav.update(chats=tuple(replace(c, unread=0) if c is chat else c for c in state.chats))
        nav.push(Route.CONVERSATION, id=chat_id)

    def on_send(self, nav: Nav, chat_id: str) -> None:
        """Send the draft; the conversation moves to the top of the chat list."""
        state: ChatState = nav.state
        text = messenger.take_draft(nav.stack[-1])
        if not text:
            return
        chat = state.chat(chat_id)
        message = Message(ME, text, nav.clock.strftime(MINUTE_FORMAT))
        sent = replace(chat, messages=(*chat.messages, message))
        nav.update(chats=(sent, *(c for c in state.chats if c is not chat)))

    def on_message(self, nav: Nav, contact_id: str) -> None:
        """Open (or start) the conversation with a contact."""
        state: ChatState = nav.state
        chat = next((c for c in state.chats if c.contact == contact_id), None)
        if chat is None:
            chat = Chat(f"chat_{contact_id}", contact_id, ())
            nav.update(chats=(chat, *state.chats))
        self.on_open_chat(nav, chat.id)

    def on_noop(self, nav: Nav) -> None:
        """A control this simulation does not model."""

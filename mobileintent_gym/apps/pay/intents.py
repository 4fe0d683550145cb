"""What the pay app's controls do to its data: its intent handlers.

:class:`~mobileintent_gym.apps.pay.app.PayApp` takes them as a mixin. The state is
immutable: each handler gives ``nav`` a new one, and the phone notices the change.
"""

from __future__ import annotations

from dataclasses import replace

from mobileintent_gym.apps.pay.ids import Route
from mobileintent_gym.apps.pay.state import ME, TIME_FORMAT, Message, PayState
from mobileintent_gym.phone import messenger
from mobileintent_gym.phone.backstack import Nav


class PayIntents:
    """The ``on_<intent>`` handlers of the pay app (see :meth:`App.handle`)."""

    def on_open_conversation(self, nav: Nav, conversation_id: str) -> None:
        """Open a conversation; its unread messages become read."""
        state: PayState = nav.state
        opened = state.conversation(conversation_id)
        nav.update(conversations=tuple(replace(c, unread=0) if c is opened else c
                                       for c in state.conversations))
        nav.push(Route.CONVERSATION, id=conversation_id)

    def on_send(self, nav: Nav, conversation_id: str) -> None:
        """Send the draft; the conversation moves to the top of the message list."""
        state: PayState = nav.state
        text = messenger.take_draft(nav.stack[-1])
        if not text:
            return
        conversation = state.conversation(conversation_id)
        sent = replace(conversation, messages=(
            *conversation.messages, Message(ME, text, nav.clock.strftime(TIME_FORMAT))))
        nav.update(conversations=(sent, *(c for c in state.conversations
                                          if c is not conversation)))

    def on_noop(self, nav: Nav) -> None:
        """A control this simulation does not model."""

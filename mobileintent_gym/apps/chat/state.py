"""The chat app's data: immutable records in an immutable state."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import timedelta

from mobileintent_gym.apps.plugin import DEFAULT_OWNER
from mobileintent_gym.phone.state import frozen_fields, moved_each

ME = "me"


@dataclass(frozen=True, slots=True)
class Contact:
    """A person (or group) the user can chat with."""

    id: str
    name: str
    region: str
    signature: str


@dataclass(frozen=True, slots=True)
class Message:
    """One message; ``sender`` is a contact id or ``"me"``, ``time`` ``YYYY-MM-DD HH:MM``."""

    sender: str
    text: str
    time: str


@dataclass(frozen=True, slots=True)
class Chat:
    """A conversation with one contact."""

    id: str
    contact: str
    messages: tuple[Message, ...]
    unread: int = 0


@dataclass(frozen=True, slots=True)
class Moment:
    """A post in Moments; ``time`` is its age as shown (``2 h ago``)."""

    id: str
    author: str
    text: str
    time: str
    likes: int


@dataclass(frozen=True, slots=True)
class ChatState:
    """The chat app's data (lists given as lists are kept as tuples).

    Attributes:
        contacts: Contact id → contact.
        chats: Conversations, most recent first.
        moments: Moments posts, newest first.
        me: The owner's name (the profile's ``name``).
    """

    contacts: Mapping[str, Contact]
    chats: tuple[Chat, ...]
    moments: tuple[Moment, ...]
    me: str = DEFAULT_OWNER

    def __post_init__(self) -> None:
        frozen_fields(self, ("contacts",), ("chats", "moments"))

    def chat(self, chat_id: str) -> Chat:
        """The conversation with id ``chat_id``.

        Raises:
            KeyError: When there is no such conversation.
        """
        for chat in self.chats:
            if chat.id == chat_id:
                return chat
        raise KeyError(f"no chat {chat_id!r}")


def moved_state(state: ChatState, by: timedelta) -> ChatState:
    """``state`` with its messages' times moved by ``by`` (Moments' ages stay)."""
    return replace(state, chats=[replace(c, messages=moved_each(c.messages, by))
                                 for c in state.chats])

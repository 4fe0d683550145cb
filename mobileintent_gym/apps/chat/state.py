"""The chat app's data: immutable records in containers that are cheap to copy."""

from __future__ import annotations

from dataclasses import dataclass

from mobileintent_gym.apps import content

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
    """One message; ``sender`` is a contact id or ``"me"``."""

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
    """A post in Moments."""

    id: str
    author: str
    text: str
    time: str
    likes: int


@dataclass(slots=True)
class ChatState:
    """The chat app's data.

    Attributes:
        contacts: Contact id → contact (shared between copies; never mutated).
        chats: Conversations, most recent first.
        moments: Moments posts, newest first.
        me: The user's display name.
    """

    contacts: dict[str, Contact]
    chats: list[Chat]
    moments: list[Moment]
    me: str = "Alex"

    def copy(self) -> ChatState:
        """An independent copy (contacts are shared)."""
        return ChatState(self.contacts, list(self.chats), list(self.moments), self.me)

    def chat(self, chat_id: str) -> Chat:
        """The conversation with id ``chat_id``.

        Raises:
            KeyError: When there is no such conversation.
        """
        for chat in self.chats:
            if chat.id == chat_id:
                return chat
        raise KeyError(f"no chat {chat_id!r}")


def clock_text(minutes: int) -> str:
    """How the app shows a time ``minutes`` after today's midnight.

    ``HH:MM`` for today, ``Yesterday`` before midnight, as WeChat does.
    """
    return "Yesterday" if minutes < 0 else f"{minutes // 60 % 24:02d}:{minutes % 60:02d}"


def default_state(seed: int) -> ChatState:
    """Built-in contacts, conversations and Moments in a seeded order."""
    rng = content.rng(seed, "chat")
    contacts = {f"c{i:02d}": Contact(f"c{i:02d}", *c) for i, c in enumerate(content.CONTACTS)}
    ids = list(contacts)
    chats = []
    for n, i in enumerate(rng.permutation(len(content.CONVERSATIONS))):
        lines = content.CONVERSATIONS[i]
        cid = ids[int(i)]
        # The chat list is newest first: chat n ended 37n minutes before 09:40, and its
        # messages came two minutes apart.
        ends = 9 * 60 + 40 - 37 * n
        messages = tuple(
            Message(cid if k % 2 == 0 else ME, text, clock_text(ends - 2 * (len(lines) - 1 - k)))
            for k, text in enumerate(lines))
        chats.append(Chat(f"chat_{cid}", cid, messages, int(rng.integers(0, 4))))
    moments = [Moment(f"m{k:02d}", ids[int(rng.integers(0, 14))], text, f"{k + 1} h ago",
                      int(rng.integers(0, 30))) for k, text in enumerate(content.MOMENTS)]
    return ChatState(contacts, chats, moments)



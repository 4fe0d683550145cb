"""The chat app's content: its record pools, its PAIR contexts and the state built from them.

Pools: ``data/contacts.jsonl`` (``c00``…: region, signature), ``data/chats.jsonl``
(``chat_c00``…: the contact, relations, topic and the lines of the conversation, which
alternate between the contact, first, and the user) and ``data/moments.jsonl`` (``m00``…:
author, text, tags). Timing: the chat list is newest first, chat n's last message
37n + 1 minutes before the clock and its messages two minutes apart; post k of Moments is
k + 1 hours old.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from types import MappingProxyType

import numpy as np

from mobileintent_gym.apps.chat.ids import Pair
from mobileintent_gym.apps.chat.state import (
    ME,
    Chat,
    ChatState,
    Contact,
    Message,
    Moment,
)
from mobileintent_gym.apps.plugin import since_owner
from mobileintent_gym.apps.records import Record, read_records
from mobileintent_gym.phone.state import minutes_ago
from mobileintent_gym.users.contexts import ContextSpec, Pool

LAST_MESSAGE_AGO = 1  # minutes before the clock
CHAT_SPACING_MINUTES = 37
MAX_UNREAD = 3
MAX_LIKES = 29
# PersonaLens domains whose tastes show in a social feed.
LIFESTYLE_DOMAINS = ("Books", "Events", "Games", "Media", "Movies", "Music", "Restaurants",
                     "Shopping", "Sports", "Travel")


def _describe_chat(r: Record) -> str:
    return (f"chat with {r.label} ({', '.join(r['relations'])}) about {r['topic']}: "
            f"{r['messages'][-1]}")


def _describe_moment(r: Record) -> str:
    return f"{r['text']} ({', '.join(r['tags'])})"


def _author(record_id: str, state: ChatState) -> tuple[str, str]:
    """A Moments post's author: the contact id and the name the post shows."""
    moment = next(m for m in state.moments if m.id == record_id)
    return moment.author, state.contacts[moment.author].name


CHATS = Pool(__package__, "chats", _describe_chat, ("label", "relations"))
MOMENTS = Pool(__package__, "moments", _describe_moment, ("tags",))

CONTEXTS = (
    ContextSpec(Pair.CHATS, CHATS, ("Messaging",), ("chat_c00", "chat_c14")),
    ContextSpec(Pair.MOMENTS, MOMENTS, LIFESTYLE_DOMAINS, ("m01", "m02"),
                roles={"author": _author}),
)


@functools.cache
def contacts() -> Mapping[str, Contact]:
    """Every contact of ``data/contacts.jsonl`` by id."""
    return MappingProxyType({r.id: Contact(r.id, r.label, r["region"], r["signature"])
                             for r in read_records(__package__, "contacts")})


def build_state(lists: Mapping[str, Sequence[Record]], rng: np.random.Generator,
                owner: str) -> ChatState:
    """A chat state with PAIR's chat list and Moments, newest first.

    Contacts are the people of the chats and the authors of the posts.

    Args:
        lists: The chat list and the Moments posts.
        rng: Source of unread counts (for chats whose last message is the contact's) and
            like counts.
        owner: The owner's name, on the Me page.
    """
    chats = [_timed_chat(r, n, int(rng.integers(0, MAX_UNREAD + 1)))
             for n, r in enumerate(lists[Pair.CHATS])]
    moments = [Moment(r.id, r["author"], r["text"], f"{k + 1} h ago",
                      int(rng.integers(0, MAX_LIKES + 1)))
               for k, r in enumerate(lists[Pair.MOMENTS])]
    people = {c.contact for c in chats} | {m.author for m in moments}
    return ChatState({cid: c for cid, c in contacts().items() if cid in people}, chats,
                     moments, me=owner)


def _timed_chat(record: Record, n: int, unread: int) -> Chat:
    ends = LAST_MESSAGE_AGO + CHAT_SPACING_MINUTES * n
    lines, contact = record["messages"], record["contact"]
    last = len(lines) - 1
    messages = tuple(
        Message(contact if k % 2 == 0 else ME, text, minutes_ago(ends + 2 * (last - k)))
        for k, text in enumerate(lines))
    # Unread are at most the contact's messages since the owner's last.
    theirs = since_owner([m.sender for m in messages], contact)
    return Chat(record.id, contact, messages, min(unread, theirs))

"""The chat pools: contacts (``c00``…) with their conversations, and Moments (``m00``…).

A conversation's lines alternate between the contact (first) and the user, as in the
built-in chats; its entity id is the chat's id, ``chat_<contact id>``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from mobileintent_gym.apps import content
from mobileintent_gym.apps.chat.state import Contact
from mobileintent_gym.users.catalogs.base import Entity, keys_of, read_rows

# A post's label: the first words of its first sentence, as many as fit on one feed line.
LABEL_WORDS = 6
LABEL_CHARS = 34


@dataclass(frozen=True)
class ChatSeed:
    """A conversation before PAIR times it: the contact and its lines."""

    contact: Contact
    lines: tuple[str, ...]


@dataclass(frozen=True)
class MomentSeed:
    """A Moments post before PAIR times it: author contact id and text."""

    author: str
    text: str


@functools.cache
def contacts() -> dict[str, Contact]:
    """Every contact by id: the built-in ones first, then the invented ones."""
    result = {}
    for i, row in enumerate(read_rows("contacts", "c", 2)):
        if i < len(content.CONTACTS):
            result[row["id"]] = Contact(row["id"], *content.CONTACTS[i])
        else:
            result[row["id"]] = Contact(row["id"], row["name"], row["region"], row["signature"])
    return result


@functools.cache
def chats() -> tuple[Entity[ChatSeed], ...]:
    """One conversation per contact, labelled with the contact's name."""
    entities = []
    for i, row in enumerate(read_rows("contacts", "c", 2)):
        contact = contacts()[row["id"]]
        lines = content.CONVERSATIONS[i] if i < len(content.CONVERSATIONS) else row["messages"]
        relations = ", ".join(row["relations"])
        text = f"chat with {contact.name} ({relations}) about {row['topic']}: {lines[-1]}"
        entities.append(Entity(f"chat_{contact.id}", contact.name, row["cue"], text,
                               keys_of(contact.name, *row["relations"]),
                               ChatSeed(contact, tuple(lines))))
    return tuple(entities)


@functools.cache
def moments() -> tuple[Entity[MomentSeed], ...]:
    """Every Moments post, labelled with its first words (a prefix of its text)."""
    entities = []
    for i, row in enumerate(read_rows("moments", "m", 2)):
        text = content.MOMENTS[i] if i < len(content.MOMENTS) else row["text"]
        author = contacts()[row["author"]]
        entities.append(Entity(row["id"], _first_words(text), row["cue"],
                               f"{text} ({', '.join(row['tags'])})", keys_of(*row["tags"]),
                               MomentSeed(author.id, text)))
    return tuple(entities)


def _first_words(text: str) -> str:
    words = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0].split()[:LABEL_WORDS]
    while len(words) > 1 and len(" ".join(words)) > LABEL_CHARS:
        words.pop()
    return " ".join(words).rstrip(" -,.;:!?")

"""What PAIR ranks: entities (a record with the text the encoder sees) and exact-match keys."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Generic, TypeVar

R = TypeVar("R")


@dataclass(frozen=True)
class Entity(Generic[R]):
    """One candidate item of a pool.

    Attributes:
        id: The id the app's state and screens use (a track id, ``chat_c07`` …).
        label: What the screen shows for it (title, playlist or contact name, first words).
        cue: A short implicit description that does not contain ``label``.
        text: Descriptive text that the encoder embeds for similarity scores.
        keys: ``match_key`` of every value that counts as an exact preference match.
        record: The record it comes from.
    """

    id: str
    label: str
    cue: str
    text: str
    keys: frozenset[str]
    record: R


def match_key(value: str) -> str:
    """A value compared for exact matches: case-folded letters and digits only.

    ``"Hip-Hop"``, ``"hip hop"`` and ``"hiphop"`` all give ``"hiphop"``; ``"R&B"`` gives
    ``"rb"``. Compatibility-normalised first (NFKC): a composed and a decomposed accent
    give one key.
    """
    return "".join(ch for ch in unicodedata.normalize("NFKC", value).casefold()
                   if ch.isalnum())


def keys_of(*values: str) -> frozenset[str]:
    """The match keys of ``values``, empty ones left out."""
    return frozenset(k for k in map(match_key, values) if k)

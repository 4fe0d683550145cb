"""What every pool is made of: entities, exact-match keys and the packaged rows."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, Generic, TypeVar

from mobileintent_gym.errors import InvalidStateError

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
        record: The app record it becomes (``Track``, ``Playlist``, ``ChatSeed`` …).
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
    ``"rb"``.
    """
    return "".join(ch for ch in value.casefold() if ch.isalnum())


def keys_of(*values: str) -> frozenset[str]:
    """The match keys of ``values``, empty ones left out."""
    return frozenset(k for k in map(match_key, values) if k)


def read_rows(name: str, prefix: str, width: int) -> list[dict[str, Any]]:
    """The rows of ``data/NAME.jsonl``, checked to be numbered ``PREFIX0…`` in order.

    Raises:
        InvalidStateError: When a row's id breaks the numbering.
    """
    data = resources.files("mobileintent_gym.users.catalogs") / "data"
    text = (data / f"{name}.jsonl").read_text("utf-8")
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    for i, row in enumerate(rows):
        if row.get("id") != f"{prefix}{i:0{width}d}":
            raise InvalidStateError(f"{name}.jsonl row {i} has id {row.get('id')!r}, "
                                    f"expected {prefix}{i:0{width}d}")
    return rows


"""Entity pools that PAIR ranks for each user: the apps' built-in records, extended.

Each pool keeps the records of :mod:`mobileintent_gym.apps.content` under the ids that
``default_state`` gives them (``t000``, ``p00``, ``c00``, ``m00`` …) and continues their
numbering with the invented records of ``data/*.jsonl``. Every entity carries the label the
screen shows for it, an implicit cue that does not contain that label, the descriptive text
the encoder sees and the normalised values that count as an exact preference match.
"""

from __future__ import annotations

from mobileintent_gym.users.catalogs.base import Entity, keys_of, match_key
from mobileintent_gym.users.catalogs.chat import (
    ChatSeed,
    MomentSeed,
    chats,
    contacts,
    moments,
)
from mobileintent_gym.users.catalogs.music import playlists, tracks

__all__ = ["ChatSeed", "Entity", "MomentSeed", "chats", "contacts", "keys_of", "match_key",
           "moments", "playlists", "tracks"]

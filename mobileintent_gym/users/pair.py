"""PAIR: user-conditioned phone content built from a user profile (SPEC B).

For each UI context (Liked Songs, recently played, home playlists, the chat list, Moments)
the pipeline keeps the user's active interests (``interests == 1``) among the PersonaLens
domains relevant to the context, ranks the context's entity pool by r(e) (exact match = 1,
else the best cosine similarity to a preference value; see :mod:`.ranking`), takes the
highest-ranked entities, removes duplicate ids and names and the reserved common items, adds
the context's common items and shuffles the list with a seeded hash of (seed, user,
context). Contexts that share a pool are filled in order and never repeat an entity, so a
personal target belongs to one context only. :mod:`.states` then turns the lists into
complete app states: same app structure, different content.

Example:
    >>> from mobileintent_gym.users import build_user_content, resolve_profile
    >>> content = build_user_content(resolve_profile("demo-ana"))
    >>> content.contexts["music/liked"].common
    ('t009', 't024')
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType

from mobileintent_gym.apps import content
from mobileintent_gym.phone.lru import LRU
from mobileintent_gym.phone.state import PhoneState
from mobileintent_gym.users import cache, catalogs, states
from mobileintent_gym.users.catalogs import Entity
from mobileintent_gym.users.encoders import Encoder
from mobileintent_gym.users.profile import UserProfile, resolve_profile
from mobileintent_gym.users.ranking import preference_values, rank_entities

# PersonaLens domains whose tastes show in a social feed.
LIFESTYLE_DOMAINS = ("Books", "Events", "Games", "Media", "Movies", "Music", "Restaurants",
                     "Shopping", "Sports", "Travel")
# Attributes that say how or when a user consumes, not what: their values ("Spotify",
# "under $50", "weekends") describe no entity and would only add noise to max-cosine scores.
LOGISTICS_ATTRIBUTES = (
    "Platform Preference", "Preferred Audio Quality", "Preferred Messaging Apps",
    "Communication Style", "Price Range", "Price Range Preference", "Group Size Preference",
    "Seating Preference", "Days of Week Preference", "Gaming Platforms", "Gaming Frequency",
    "Multiplayer Preference", "Viewing Platform Preference", "Theater Type Preference",
    "Viewing Time Preference", "Seat Type Preference", "Reading Format",
    "Reading Time Preference", "Reading Frequency", "Duration Preference",
    "Travel Season Preference", "Viewing Preference")
CACHE_SIZE = 64


@dataclass(frozen=True)
class ContextSpec:
    """A UI context that PAIR fills.

    Attributes:
        key: Context key, ``<app>/<list>``.
        pool: Returns the candidate entities.
        domains: PersonaLens domains relevant to it.
        common: Reserved entity ids present for every user (the tasks' common targets).
    """

    key: str
    pool: Callable[[], tuple[Entity, ...]]
    domains: tuple[str, ...]
    common: tuple[str, ...]


CONTEXTS = (
    ContextSpec("music/liked", catalogs.tracks, ("Music",), ("t009", "t024")),
    ContextSpec("music/recent", catalogs.tracks, ("Music",), ("t012", "t038")),
    ContextSpec("music/home", catalogs.playlists, ("Music",), ("p00", "p04")),
    ContextSpec("chat/chats", catalogs.chats, ("Messaging",), ("chat_c00", "chat_c14")),
    ContextSpec("chat/moments", catalogs.moments, LIFESTYLE_DOMAINS, ("m01", "m02")),
)
_SPECS = {spec.key: spec for spec in CONTEXTS}


@dataclass(frozen=True)
class PairConfig:
    """How PAIR builds content; hashable, so built content is cached per config.

    Attributes:
        encoder: ``auto``, ``sentence`` or ``lexical`` (see ``make_encoder``), or an Encoder.
        top_k: Items per list, common items included (most lists of the study hold 20).
        sizes: Per-context overrides of ``top_k`` as (context key, size) pairs; a mapping
            is accepted too.
        seed: Seed of the shuffle (the study shuffles with a seed-0 hash).
        skip_attributes: Affinity attributes left out of the preference values; ``()``
            uses every value.
    """

    encoder: str | Encoder = "auto"
    top_k: int = 20
    sizes: tuple[tuple[str, int], ...] = (("music/recent", 10), ("music/home", 8))
    seed: int = 0
    skip_attributes: tuple[str, ...] = LOGISTICS_ATTRIBUTES

    def __post_init__(self) -> None:
        if isinstance(self.top_k, bool) or not isinstance(self.top_k, int):
            raise ValueError(f"top_k must be an integer, got {self.top_k!r}")
        sizes = self.sizes.items() if isinstance(self.sizes, Mapping) else self.sizes
        object.__setattr__(self, "sizes", tuple(sorted((str(k), int(v)) for k, v in sizes)))
        object.__setattr__(self, "skip_attributes", tuple(self.skip_attributes))
        unknown = sorted(set(dict(self.sizes)) - set(_SPECS))
        if unknown:
            raise ValueError(f"sizes name unknown contexts {unknown}; known: {list(_SPECS)}")
        for spec in CONTEXTS:
            if self.size(spec.key) < len(spec.common):
                raise ValueError(f"{spec.key} needs room for its {len(spec.common)} common "
                                 f"items, got size {self.size(spec.key)}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {self.seed!r}")

    def size(self, context: str) -> int:
        """The number of items in ``context``'s list, common items included."""
        return dict(self.sizes).get(context, self.top_k)


@dataclass(frozen=True)
class ContextItems:
    """The entities of one context for one user.

    Attributes:
        common: Reserved common entity ids (the same for every user).
        personal: This user's other entity ids in the context, best-ranked first.
    """

    common: tuple[str, ...]
    personal: tuple[str, ...]


@dataclass(frozen=True)
class UserContent:
    """A user's phone content and what tasks need to know about it.

    Attributes:
        user_id: The profile's user id.
        state: The phone state (music and chat apps). Every ``build_user_content`` call
            returns its own copy; copy it with ``PhoneState.copy()`` before handing it to
            code that mutates it while you keep using it (``SimPhone.reset`` copies).
        contexts: ``music/liked``, ``music/recent`` (track ids), ``music/home`` (playlist
            ids), ``chat/chats`` (chat ids) and ``chat/moments`` (moment ids).
        labels: Entity id → the label the screen shows for it.
        cues: Entity id → an implicit cue that does not contain the label.
        encoder: Name of the encoder that ranked the content.
    """

    user_id: str
    state: PhoneState
    contexts: Mapping[str, ContextItems]
    labels: Mapping[str, str]
    cues: Mapping[str, str]
    encoder: str


_CACHE: LRU[UserContent] = LRU(CACHE_SIZE)


def build_user_content(profile: UserProfile, config: PairConfig | None = None) -> UserContent:
    """Build (or fetch from this process's cache, else from disk) a user's phone content.

    Content built before, by any process, is read from disk without loading the encoder
    (see :mod:`.cache`).

    Args:
        profile: The user.
        config: Pipeline settings (default ``PairConfig()``).

    Returns:
        The content, with a state of its own (see ``UserContent.state``).

    Raises:
        DependencyNotInstalled: When ``config.encoder`` is ``sentence`` without ``[embed]``.
        CacheError: When the content cache folder cannot be written.
    """
    config = config or PairConfig()
    key = (_fingerprint(profile), config)  # one encoder per kind and process (make_encoder)
    built = _CACHE.get(key) or _CACHE.put(key, cache.fetch(
        key[0], config, CONTEXTS, functools.partial(_build, profile, config), UserContent))
    return replace(built, state=built.state.copy())


def load_user_content(user: str | os.PathLike[str], config: PairConfig | None = None,
                      profiles_dir: str | os.PathLike[str] | None = None) -> UserContent:
    """The content of a user given by profile name or path (see ``resolve_profile``).

    Raises:
        UnknownProfileError: When no profile of that name is found.
        InvalidProfileError: When the profile is not valid.
    """
    return build_user_content(resolve_profile(user, profiles_dir), config)


def _fingerprint(profile: UserProfile) -> str:
    text = json.dumps(profile.to_dict(), sort_keys=True, ensure_ascii=False)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def _build(profile: UserProfile, config: PairConfig, encoder: Encoder) -> UserContent:
    blocked = _reserved()
    contexts: dict[str, ContextItems] = {}
    shown: dict[str, list[Entity]] = {}
    for spec in CONTEXTS:
        pool = spec.pool()
        values = preference_values(profile, spec.domains, config.skip_attributes)
        ranked = [entity for entity, _ in rank_entities(values, pool, encoder)]
        personal = _select(ranked, config.size(spec.key) - len(spec.common), blocked[spec.pool])
        contexts[spec.key] = ContextItems(spec.common, personal)
        by_id = {e.id: e for e in pool}
        order = _shuffled((*spec.common, *personal), config.seed, profile.user_id, spec.key)
        shown[spec.key] = [by_id[i] for i in order]
    chat_rng = content.rng(config.seed, f"pair/{profile.user_id}/chat")
    state = PhoneState({
        "music": states.music_state(shown["music/liked"], shown["music/recent"],
                                    shown["music/home"]),
        "chat": states.chat_state(shown["chat/chats"], shown["chat/moments"], chat_rng)})
    entities = [e for items in shown.values() for e in items]
    return UserContent(profile.user_id, state, MappingProxyType(contexts),
                       MappingProxyType({e.id: e.label for e in entities}),
                       MappingProxyType({e.id: e.cue for e in entities}), encoder.name)


def _reserved() -> dict[Callable, tuple[set[str], set[str]]]:
    """Per pool: the ids and case-folded labels no personal list may take."""
    blocked: dict[Callable, tuple[set[str], set[str]]] = {}
    for spec in CONTEXTS:
        ids, labels = blocked.setdefault(spec.pool, (set(), set()))
        by_id = {e.id: e for e in spec.pool()}
        ids.update(spec.common)
        labels.update(by_id[i].label.casefold() for i in spec.common)
    return blocked


def _select(ranked: Sequence[Entity], count: int,
            blocked: tuple[set[str], set[str]]) -> tuple[str, ...]:
    """The first ``count`` entities whose id and name are not blocked; blocks them in turn."""
    ids, labels = blocked
    chosen: list[str] = []
    for entity in ranked:
        if len(chosen) == count:
            break
        if entity.id in ids or entity.label.casefold() in labels:
            continue
        chosen.append(entity.id)
        ids.add(entity.id)
        labels.add(entity.label.casefold())
    return tuple(chosen)


def _shuffled(ids: Sequence[str], seed: int, user_id: str, context: str) -> list[str]:
    """``ids`` in an order fixed by (seed, user, context) in every process."""
    permutation = content.rng(seed, f"pair/{user_id}/{context}").permutation(len(ids))
    return [ids[int(i)] for i in permutation]

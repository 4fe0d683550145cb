"""PAIR: user-conditioned phone content built from a user profile (the PAIR study's pipeline).

Every installed app declares its UI contexts (its lists PAIR fills: Liked Songs, the chat
list …, see :mod:`.contexts`). For each, the pipeline keeps the user's active interests
(``interests == 1``) among the PersonaLens domains relevant to the context, ranks the
context's pool by r(e) (exact match = 1, else the best cosine similarity to a preference
value; see :mod:`.ranking`), takes the highest-ranked entities, removes duplicate ids and
names and the reserved common items, adds the context's common items and shuffles the list
with a seeded hash of (seed, user, context). Contexts that share a pool are filled in order
and never repeat an entity, so a personal target belongs to one context only. Each app
then turns its lists into its complete state: same app structure, different content, and
the user's own name (the profile's ``name``) wherever an app shows its owner.

Example:
    >>> from mobileintent_gym.users import build_user_content, resolve_profile
    >>> content = build_user_content(resolve_profile("demo-ana"))
    >>> all(":" in key for key in content.contexts)  # keys are ``<app>:<list>``
    True
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from types import MappingProxyType
from typing import Any

import numpy as np
from gymnasium import logger

from mobileintent_gym.apps import registry
from mobileintent_gym.apps.plugin import DEFAULT_OWNER, StateBuilder
from mobileintent_gym.apps.records import Record
from mobileintent_gym.checks import is_count, is_integer
from mobileintent_gym.errors import InvalidAppError, brief
from mobileintent_gym.phone.lru import LRU
from mobileintent_gym.phone.state import PhoneState
from mobileintent_gym.users import cache
from mobileintent_gym.users.contexts import ContextSpec, Pool, check_record_ids
from mobileintent_gym.users.encoders import Encoder
from mobileintent_gym.users.entities import Entity
from mobileintent_gym.users.profile import UserProfile, resolve_profile
from mobileintent_gym.users.ranking import preference_values, rank_entities
from mobileintent_gym.vocabulary import DOMAINS, domain_hint

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


CONTEXTS: Mapping[str, ContextSpec] = registry.View(registry.contexts)
"""Every installed app's contexts by key, read from the app registry on first use."""


@dataclass(frozen=True)
class PairConfig:
    """How PAIR builds content; hashable, so built content is cached per config.

    Attributes:
        encoder: ``auto``, ``sentence`` or ``lexical`` (see ``make_encoder``), or an Encoder.
        top_k: Items per list, common items included (most lists of the study hold 20),
            for contexts that set no size of their own.
        sizes: Per-context sizes as (context key, size) pairs, over the contexts' own;
            a mapping is accepted too.
        seed: Seed of the shuffle (the study shuffles with a seed-0 hash).
        skip_attributes: Affinity attributes left out of the preference values; ``()``
            uses every value.
    """

    encoder: str | Encoder = "auto"
    top_k: int = 20
    sizes: tuple[tuple[str, int], ...] = ()
    seed: int = 0
    skip_attributes: tuple[str, ...] = LOGISTICS_ATTRIBUTES

    def __post_init__(self) -> None:
        if not is_integer(self.top_k):
            raise ValueError(f"top_k must be an integer, got {self.top_k!r}")
        object.__setattr__(self, "top_k", int(self.top_k))  # NumPy's too: repr keys the cache
        object.__setattr__(self, "sizes", _checked_sizes(self.sizes))
        # Sorted: a set's order differs between processes, and the repr keys the disk cache.
        object.__setattr__(self, "skip_attributes",
                           tuple(sorted(set(_checked_names(self.skip_attributes)))))
        _check_encoder(self.encoder)
        unknown = sorted(set(dict(self.sizes)) - set(CONTEXTS))
        if unknown:
            raise ValueError(f"sizes name unknown contexts {unknown}; known: {list(CONTEXTS)}")
        for spec in CONTEXTS.values():
            if self.size(spec) < len(spec.common):
                raise ValueError(f"{spec.key} needs room for its {len(spec.common)} common "
                                 f"items, got size {self.size(spec)}")
        if not is_count(self.seed, least=0):
            raise ValueError(f"seed must be a non-negative integer, got {self.seed!r}")
        object.__setattr__(self, "seed", int(self.seed))

    def summary(self) -> str:
        """The settings other than ``encoder``, as one line of JSON with its keys sorted.

        A served phone reports it (``cmd mobileintent state``), so that an env can tell
        content built with other settings; the encoder is checked on its own.
        """
        return json.dumps({f.name: getattr(self, f.name) for f in fields(self)
                           if f.name != "encoder"}, sort_keys=True)

    def size(self, context: ContextSpec | str) -> int:
        """The number of items in ``context``'s list (a spec or its key), common included."""
        spec = CONTEXTS[context] if isinstance(context, str) else context
        return dict(self.sizes).get(spec.key, spec.size or self.top_k)


def _checked_sizes(sizes: Any) -> tuple[tuple[str, int], ...]:
    """``sizes`` (a mapping, or (context, size) pairs) as sorted pairs, each checked.

    Raises:
        ValueError: Naming a pair that is not a context key and an integer size.
    """
    try:
        pairs = list(sizes.items() if isinstance(sizes, Mapping) else sizes)
    except TypeError:
        raise ValueError(f"sizes must be (context, size) pairs or a mapping, got "
                         f"{brief(sizes)}") from None
    for pair in pairs:
        if not (isinstance(pair, tuple | list) and len(pair) == 2 and isinstance(pair[0], str)
                and is_integer(pair[1])):
            raise ValueError(f"sizes[...] must be a context key and an integer size, got "
                             f"{brief(pair)}")
    return tuple(sorted((key, int(size)) for key, size in pairs))


def _checked_names(names: Any) -> tuple[str, ...]:
    """``skip_attributes`` as names; a lone string (a name's letters) is refused.

    Raises:
        ValueError: Naming what is not a collection of attribute names.
    """
    given = None if isinstance(names, str) or not isinstance(names, Iterable) else tuple(names)
    if given is None or not all(isinstance(name, str) for name in given):
        raise ValueError(f"skip_attributes must be a collection of attribute names, got "
                         f"{brief(names)}")
    return given


def _check_encoder(encoder: Any) -> None:
    """Raise unless ``encoder`` is a kind or an Encoder the content cache can key.

    Raises:
        ValueError: Naming it.
    """
    if isinstance(encoder, str):
        return  # make_encoder names an unknown kind
    if not (callable(getattr(encoder, "encode", None)) and isinstance(
            getattr(encoder, "name", None), str)):
        raise ValueError(f"encoder must be 'auto', 'sentence', 'lexical' or an Encoder (with "
                         f"encode(texts) and a name), got {brief(encoder)}")
    try:
        hash(encoder)
    except TypeError:
        raise ValueError(f"encoder {brief(encoder)} must be hashable: content built with it "
                         "is cached by its config") from None


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
        state: The phone state: every app with PAIR contexts, filled for this user. Every
            ``build_user_content`` call returns its own copy (app states are immutable).
        contexts: Context key (``<app>:<list>``) → its common and personal entity ids.
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
        InvalidAppError: When two apps' pools share a record id (checked once per process
            that builds content).
    """
    config = config or PairConfig()
    # One encoder per kind and process (make_encoder).
    key = (profile_fingerprint(profile), config)
    built = _CACHE.get(key)
    if built is None:
        _warn_if_unranked(profile, config)
        built = _CACHE.put(key, cache.fetch(
            key[0], config, functools.partial(_build, profile, config), UserContent))
    return replace(built, state=built.state.copy())


def load_user_content(user: str | os.PathLike[str], config: PairConfig | None = None,
                      profiles_dir: str | os.PathLike[str] | None = None) -> UserContent:
    """The content of a user given by profile name or path (see ``resolve_profile``).

    Raises:
        UnknownProfileError: When no profile of that name is found.
        InvalidProfileError: When the profile is not valid.
    """
    return build_user_content(resolve_profile(user, profiles_dir), config)


def _warn_if_unranked(profile: UserProfile, config: PairConfig) -> None:
    """Warn about domains none of :data:`DOMAINS`, and a profile with nothing to rank by.

    Both are valid, but often a typo: a domain of another name (``"music"``,
    ``"Music "``) is ranked only by the all-interests fallback and weighs no routine
    template; a profile without a preference value (no affinity in a domain of interest,
    every interest 0) gets the pools' own order, the same for every such profile.
    """
    for domain in profile.unknown_domains():
        logger.warn(f"profile {profile.user_id!r}: domain {domain!r} is none of the known "
                    f"ones{domain_hint(domain)}; contexts and routines use only "
                    f"{list(DOMAINS)}")
    if not preference_values(profile, profile.active_domains(), config.skip_attributes):
        logger.warn(f"profile {profile.user_id!r} holds no preference value in a domain it "
                    "is interested in (interests 1 with affinities): its content is not "
                    "personal, the same as for every such profile")


def profile_fingerprint(profile: UserProfile) -> str:
    """The profile's key in the content cache (and in a run's record), its order kept.

    Order matters: of values that differ only in case ("Hip-Hop", "hip-hop") the first is
    the one ranked (``preference_values``), so sorting the keys would give two profiles
    with different content one entry.
    """
    return hashlib.blake2b(profile.json_text.encode("utf-8"), digest_size=16).hexdigest()


def _build(profile: UserProfile, config: PairConfig, encoder: Encoder) -> UserContent:
    _check_record_ids()
    def ranked(spec: ContextSpec) -> list[Entity]:
        # A user with no interest in the context's domains is ranked by all their
        # interests: ranking by nothing would give every such user the same list.
        values = (preference_values(profile, spec.domains, config.skip_attributes)
                  or preference_values(profile, profile.active_domains(),
                                       config.skip_attributes))
        return [entity for entity, _ in rank_entities(values, spec.pool.entities(), encoder)]

    contexts = select(CONTEXTS.values(), ranked, config.size)
    shown = _shown(CONTEXTS, contexts, config.seed, profile.user_id)
    state = PhoneState({
        bundle.id: bundle.build_state(
            {c.key: [e.record for e in shown[c.key]] for c in bundle.contexts},
            named_rng(config.seed, f"pair/{profile.user_id}/{bundle.id}"), profile.name)
        for bundle in registry.bundles() if bundle.contexts})
    entities = _by_id(shown)
    return UserContent(profile.user_id, state, MappingProxyType(contexts),
                       MappingProxyType({i: e.label for i, e in entities.items()}),
                       MappingProxyType({i: e.cue for i, e in entities.items()}), encoder.name)


def _by_id(shown: Mapping[str, Sequence[Entity]]) -> dict[str, Entity]:
    """The entities of every list by id, which tasks look labels and cues up by.

    Ids are unique across pools (:func:`_check_record_ids`), so an id shown in two lists
    is one record.
    """
    return {entity.id: entity for items in shown.values() for entity in items}


@functools.cache
def _check_record_ids() -> None:
    """:func:`~mobileintent_gym.users.contexts.check_record_ids` of every context, once."""
    check_record_ids(CONTEXTS.values())


def random_state(contexts: Sequence[ContextSpec], build_state: StateBuilder, app_id: str,
                 seed: int) -> Any:
    """An app's content on a phone without a user (what its ``initial_state`` gives).

    ``build_state`` over :func:`random_lists` of the app's contexts for ``seed``, owned by
    :data:`~mobileintent_gym.apps.plugin.DEFAULT_OWNER`. Kept per app, seed and builder
    while the contexts are the same objects: app states are immutable, so phones share
    them (building the ten apps' took 32 ms of every new phone's 36).
    """
    key = (app_id, seed, build_state)
    held = _RANDOM_STATES.get(key)
    if held is not None and _same(held[0], contexts):
        return held[1]
    state = build_state(random_lists(contexts, seed), named_rng(seed, app_id), DEFAULT_OWNER)
    _RANDOM_STATES.put(key, (tuple(contexts), state))
    return state


def _same(held: Sequence[Any], given: Sequence[Any]) -> bool:
    """Whether two sequences hold the same objects (not equal ones) in the same order."""
    return len(held) == len(given) and all(a is b for a, b in zip(held, given, strict=True))


_RANDOM_STATES: LRU[tuple[tuple[ContextSpec, ...], Any]] = LRU(64)


def random_lists(contexts: Sequence[ContextSpec], seed: int,
                 top_k: int = PairConfig.top_k) -> dict[str, list[Record]]:
    """The lists of a phone without a user: PAIR with a seeded random ranking.

    Each context holds its common records and others drawn at random, without repeats
    across contexts that share a pool, in a seeded order.

    Returns:
        Context key → its records, in the order the screen shows them.
    """
    rng = named_rng(seed, "random/" + "+".join(spec.key for spec in contexts))

    def ranked(spec: ContextSpec) -> list[Entity]:
        pool = spec.pool.entities()
        return [pool[int(i)] for i in rng.permutation(len(pool))]

    chosen = select(contexts, ranked, lambda spec: spec.size or top_k)
    shown = _shown({spec.key: spec for spec in contexts}, chosen, seed, "random")
    return {key: [e.record for e in items] for key, items in shown.items()}


def select(contexts: Iterable[ContextSpec], ranked: Callable[[ContextSpec], Sequence[Entity]],
           size: Callable[[ContextSpec], int]) -> dict[str, ContextItems]:
    """Each context's common ids and the first of its ``ranked`` entities that fit.

    Personal items skip the ids and names of every context's common items and of items
    already taken by an earlier context on the same pool.
    """
    contexts = tuple(contexts)
    blocked = reserved_records(contexts)
    return {spec.key: ContextItems(spec.common, _select(
        ranked(spec), size(spec) - len(spec.common), blocked[spec.pool])) for spec in contexts}


def _shown(specs: Mapping[str, ContextSpec], contexts: Mapping[str, ContextItems], seed: int,
           user_id: str) -> dict[str, list[Entity]]:
    """Each context's entities in the order the screen shows them (a seeded shuffle)."""
    shown = {}
    for key, items in contexts.items():
        by_id = {e.id: e for e in specs[key].pool.entities()}
        order = _shuffled((*items.common, *items.personal), seed, user_id, key)
        shown[key] = [by_id[i] for i in order]
    return shown


def reserved_records(contexts: Iterable[ContextSpec]
                     ) -> dict[Pool, tuple[set[str], set[str]]]:
    """Per pool: the ids and case-folded labels no personal list may take (the common ones).

    Raises:
        InvalidAppError: Naming a context whose common records its pool does not hold.
    """
    blocked: dict[Pool, tuple[set[str], set[str]]] = {}
    for spec in contexts:
        ids, labels = blocked.setdefault(spec.pool, (set(), set()))
        by_id = {e.id: e for e in spec.pool.entities()}
        missing = [i for i in spec.common if i not in by_id]
        if missing:
            raise InvalidAppError(f"context {spec.key!r} reserves common records {missing} "
                                  f"that its pool {spec.pool.name!r} does not hold")
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
    permutation = named_rng(seed, f"pair/{user_id}/{context}").permutation(len(ids))
    return [ids[int(i)] for i in permutation]


def named_rng(seed: int, name: str) -> np.random.Generator:
    """A generator stable for (seed, name) in every process (no global state)."""
    digest = hashlib.blake2s(name.encode("utf-8"), digest_size=8).digest()
    return np.random.default_rng([seed, int.from_bytes(digest, "little")])

"""PAIR's relevance score and ranking (r(e) of the PAIR study).

For a user's preference values u_1..u_n and an entity e::

    r(e) = 1                            if e matches some u_i exactly
           max_i cos(f(u_i), f(e))      otherwise

with f the encoder applied to the entity's descriptive text. An exact match compares
``match_key`` forms (case-folded letters and digits), so ``"Hip-Hop"`` matches a track whose
genre is ``hiphop``. Equal scores (exact matches, mostly) are ordered by the similarity,
then by id. Similarities are rounded to 6 decimals first, so that the order does not hang on
the last bits of a float.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Sequence

import numpy as np

from mobileintent_gym.users.encoders import Encoder, unit_rows
from mobileintent_gym.users.entities import Entity, match_key
from mobileintent_gym.users.profile import UserProfile

SCORE_DECIMALS = 6
TEXT_CACHE_SIZE = 1 << 14
_ROWS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def preference_values(profile: UserProfile, domains: Iterable[str],
                      skip_attributes: Iterable[str] = ()) -> tuple[str, ...]:
    """The user's preference values in the active ones of ``domains``.

    Args:
        profile: The user.
        domains: PersonaLens domains relevant to the context; only those with
            ``interests == 1`` count.
        skip_attributes: Attributes whose values are left out.

    Returns:
        Distinct non-empty values (case-insensitively), in domain, attribute and value order.
    """
    active, skipped = set(profile.active_domains()), set(skip_attributes)
    seen: dict[str, str] = {}
    for domain in domains:
        if domain not in active:
            continue
        for attribute, values in profile.affinities.get(domain, {}).items():
            if attribute in skipped:
                continue
            for value in [values] if isinstance(values, str) else values:
                text = value.strip()
                if text and text.casefold() not in seen:
                    seen[text.casefold()] = text
    return tuple(seen.values())


def entity_rows(encoder: Encoder, entities: Sequence[Entity]) -> np.ndarray:
    """The encoder's rows for the entities' texts."""
    return encode_cached(encoder, [e.text for e in entities])


def encode_cached(encoder: Encoder, texts: Sequence[str]) -> np.ndarray:
    """``encoder.encode(texts)``, asking the encoder only for texts it has not seen yet.

    Rows are kept per encoder (up to ``TEXT_CACHE_SIZE`` texts; a full cache starts
    afresh). An encoder that cannot be weakly referenced is asked every time.
    """
    try:
        cache = _ROWS.setdefault(encoder, {})
    except TypeError:
        return encoder.encode(list(texts))
    rows = {t: row for t in texts if (row := cache.get(t)) is not None}
    missing = list(dict.fromkeys(t for t in texts if t not in rows))
    if missing:
        rows |= zip(missing, encoder.encode(missing), strict=True)
        if len(cache) + len(missing) > TEXT_CACHE_SIZE:
            cache.clear()  # afresh, with this call's texts
        cache.update(rows)
    # From the rows read here: another thread may clear the cache meanwhile.
    return np.stack([rows[t] for t in texts]) if texts else encoder.encode([])


def similarities(values: Sequence[str], entities: Sequence[Entity],
                 encoder: Encoder) -> np.ndarray:
    """max_i cos(f(u_i), f(e)) for every entity, float64 rounded to ``SCORE_DECIMALS``.

    With no preference values every similarity is 0.
    """
    if not values or not len(entities):
        return np.zeros(len(entities))
    rows = _unit(encode_cached(encoder, values)) @ _unit(entity_rows(encoder, entities)).T
    return np.round(rows.max(0).astype(np.float64), SCORE_DECIMALS)


def _unit(rows: np.ndarray) -> np.ndarray:
    """``rows`` as they are when of unit length (within 1e-3), else scaled to it.

    The encoder protocol asks for unit rows; an encoder that ignores it would otherwise
    rank by raw dot products (a row of length 5 beating an exact match), while rows that
    keep it give the scores they always gave, to the last bit.
    """
    norms = np.linalg.norm(rows, axis=1)
    unit = np.isfinite(rows).all() and np.allclose(norms[norms > 0], 1, atol=1e-3)
    return rows if unit else unit_rows(rows)  # which names rows holding NaN


def score_entities(values: Sequence[str], entities: Sequence[Entity],
                   encoder: Encoder) -> np.ndarray:
    """r(e) for every entity: 1 for an exact match, else its similarity (see above)."""
    return _scores(values, entities, encoder)[0]


def rank_entities(values: Sequence[str], entities: Sequence[Entity],
                  encoder: Encoder) -> list[tuple[Entity, float]]:
    """Entities with their scores r(e), best first.

    Equal scores (several exact matches, say) are ordered by similarity, then by id.
    """
    scores, similarity = _scores(values, entities, encoder)
    order = sorted(range(len(entities)),
                   key=lambda i: (-scores[i], -similarity[i], entities[i].id))
    return [(entities[i], float(scores[i])) for i in order]


def _scores(values: Sequence[str], entities: Sequence[Entity],
            encoder: Encoder) -> tuple[np.ndarray, np.ndarray]:
    wanted = {match_key(v) for v in values}
    exact = np.array([not e.keys.isdisjoint(wanted) for e in entities], bool)
    similarity = similarities(values, entities, encoder)
    return np.where(exact, 1.0, similarity), similarity

"""Persona text: a behaviour-derived summary of a user, written from their intention history.

The Act2Intention predictor gets a persona summarised from what the user did, not the
profile they were built from. :func:`persona_text` writes one from intention segments alone
(times, apps, event classes, intention texts): when the user is active, which kinds of
intention dominate, the routines that recur on most days (with their usual time), what
tends to follow what, and the items named most often.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from datetime import timedelta
from itertools import pairwise

from mobileintent_gym.intents.schema import IntentionSegment

_PARTS = (("early morning", 5, 9), ("late morning", 9, 12), ("afternoon", 12, 18),
          ("evening", 18, 22), ("night", 22, 29))
_FOLLOW = timedelta(minutes=15)
_QUOTED = re.compile(r'"([^"]{2,40})"')


def _part(hour: int) -> str:
    hour = hour if hour >= 5 else hour + 24
    return next(name for name, start, end in _PARTS if start <= hour < end)


def _share(counter: Counter, total: int, top: int) -> str:
    return ", ".join(f"{name} ({100 * n // total}%)" for name, n in counter.most_common(top))


def _routines(intentions: Sequence[IntentionSegment], days: int) -> list[str]:
    by_key: dict[str, list[IntentionSegment]] = {}
    for seg in intentions:
        by_key.setdefault(seg.intention, []).append(seg)
    lines = []
    for text, segs in sorted(by_key.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        seen_days = {s.time.date() for s in segs}
        if len(seen_days) < max(2, days // 2 + 1):  # on most days: more than half
            continue
        minutes = sorted(s.time.hour * 60 + s.time.minute for s in segs)
        median = minutes[len(minutes) // 2]
        lines.append(f"on {len(seen_days)} of {days} days, around {median // 60:02d}:"
                     f"{median % 60:02d}: {text.rstrip('.')}")
    return lines[:3]


def _follow_ups(intentions: Sequence[IntentionSegment]) -> list[str]:
    pairs = Counter((a.event, b.event) for a, b in pairwise(intentions)
                    if b.time - a.time <= _FOLLOW and a.event != b.event)
    return [f"{b} often follows {a}" for (a, b), n in pairs.most_common(2) if n >= 3]


def persona_text(history: Sequence[IntentionSegment]) -> str:
    """A persona summarised from ``history`` (needs no profile).

    Each intention counts once, where it ended: noise and the first part of an intention
    another one interrupted are left out, as
    :meth:`~mobileintent_gym.intents.schema.Session.done` leaves them.

    Returns:
        A few sentences; ``"No history yet."`` for an empty history.
    """
    intentions = sorted((s for s in history if s.ends_intention), key=lambda s: s.time)
    if not intentions:
        return "No history yet."
    total = len(intentions)
    days = len({s.time.date() for s in intentions})
    sentences = [
        f"Over {days} day{'s' * (days != 1)} the user had {total} intentions, mostly in the "
        f"{_share(Counter(_part(s.time.hour) for s in intentions), total, 2)}.",
        f"Most frequent: {_share(Counter(s.event for s in intentions), total, 3)}; "
        f"apps: {_share(Counter(s.app for s in intentions), total, 3)}.",
    ]
    routines = _routines(intentions, days)
    if routines:
        sentences.append("Routines: " + "; ".join(routines) + ".")
    follows = _follow_ups(intentions)
    if follows:
        sentences.append("Sequences: " + "; ".join(follows) + ".")
    items = Counter(m for s in intentions for m in _QUOTED.findall(s.intention))
    if items:
        sentences.append("Often named: " + ", ".join(f'"{k}"' for k, _ in items.most_common(3))
                         + ".")
    return " ".join(sentences)

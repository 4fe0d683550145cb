"""Pools, contexts and state of the weather app."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from mobileintent_gym.apps.records import Record
from mobileintent_gym.users.contexts import ContextSpec, Pool
from weather_app.ids import Pair
from weather_app.state import Place, WeatherState


def _describe(r: Record) -> str:
    return f"{r.label}, {r['country']}: a travel destination, {r.cue}"


PLACES = Pool(__package__, "places", _describe, ("label", "country"))
CONTEXTS = (ContextSpec(Pair.SAVED, PLACES, ("Travel",), ("wx00", "wx07"), size=8),)


def build_state(lists: Mapping[str, Sequence[Record]], rng: np.random.Generator,
                owner: str) -> WeatherState:
    saved = lists[Pair.SAVED]
    places = {r.id: Place(r.id, r.label, r["country"], r["condition"], r["temp"],
                          tuple(int(r["temp"] + d) for d in rng.integers(-4, 5, size=5)))
              for r in saved}
    return WeatherState(owner, places, [r.id for r in saved])

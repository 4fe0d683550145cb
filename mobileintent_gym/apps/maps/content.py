"""The maps app's content: its record pools, its PAIR contexts and the state built from them.

Pools: ``data/places.jsonl`` (``pl00``…: points of interest with category, address,
rating, reviews, distance in km, hours, tags, about) and ``data/eateries.jsonl``
(``ea00``…: places to eat and drink, with cuisines, diet, price instead of tags). The
search screen lists each user's recent searches of both pools in two sections.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from types import MappingProxyType

import numpy as np

from mobileintent_gym.apps.maps.ids import Pair
from mobileintent_gym.apps.maps.state import MapsState, Place
from mobileintent_gym.apps.records import Record
from mobileintent_gym.users.contexts import ContextSpec, Pool

SAVED_AT_START = 3  # places the user had saved before, drawn from their searches
TRIPS_AT_START = 2  # destinations they had asked directions to
# PersonaLens domains whose tastes decide where a person goes, and where they eat.
OUTING_DOMAINS = ("Travel", "Events", "Sports", "Shopping", "Movies", "Books", "Hotels",
                  "Music")
FOOD_DOMAINS = ("Restaurants",)


def _describe_place(r: Record) -> str:
    return f"{r.label}, a {r['category'].lower()}: {r['about']} ({', '.join(r['tags'])})"


def _describe_eatery(r: Record) -> str:
    diet = f"; {', '.join(r['diet'])}" if r["diet"] else ""
    return (f"{r.label}, a {r['category'].lower()} serving {', '.join(r['cuisines'])} food: "
            f"{r['about']}{diet}")


PLACES = Pool(__package__, "places", _describe_place, ("label", "category", "tags"))
EATERIES = Pool(__package__, "eateries", _describe_eatery, ("label", "cuisines", "diet"))

CONTEXTS = (
    ContextSpec(Pair.RECENT, PLACES, OUTING_DOMAINS, ("pl03", "pl53")),
    ContextSpec(Pair.FOOD, EATERIES, FOOD_DOMAINS, ("ea02", "ea37")),
)


def build_state(lists: Mapping[str, Sequence[Record]], rng: np.random.Generator,
                owner: str) -> MapsState:
    """A maps state whose recent searches are PAIR's lists, in their order.

    The app can find every place of both pools; a few of the searched ones are saved and
    were destinations of earlier trips.

    Args:
        lists: Recent searches of places and of places to eat and drink.
        rng: Source of which searches were saved and asked directions to.
        owner: Unused: the map shows no account.
    """
    recent, food = lists[Pair.RECENT], lists[Pair.FOOD]
    searched = [r.id for r in (*recent, *food)]
    saved = [searched[int(i)] for i in rng.choice(len(searched), SAVED_AT_START, replace=False)]
    trips = [recent[int(i)].id for i in rng.choice(len(recent), TRIPS_AT_START, replace=False)]
    return MapsState(world(), [r.id for r in recent], [r.id for r in food], saved, trips)


@functools.cache
def world() -> Mapping[str, Place]:
    """Every place of both pools by id (the places search can find), read once."""
    return MappingProxyType({r.id: place(r) for pool in (PLACES, EATERIES)
                             for r in pool.records()})


def place(record: Record) -> Place:
    """The place of a ``places`` or ``eateries`` record."""
    food = "cuisines" in record.attributes
    return Place(record.id, record.label, record["category"], record["address"],
                 float(record["rating"]), int(record["reviews"]), float(record["distance"]),
                 record["hours"], record["about"], food, record.attributes.get("price", ""))

"""The maps app's data: immutable places in an immutable state, and how trips are timed."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from mobileintent_gym.phone.state import frozen_fields

# Travel modes: (key, label, how a trip goes, minutes per km, fixed minutes).
MODES = (("drive", "Drive", "by car", 2.0, 4), ("transit", "Transit", "by transit", 3.0, 8),
         ("walk", "Walk", "on foot", 12.5, 0), ("bike", "Bike", "by bike", 4.0, 1))


@dataclass(frozen=True, slots=True)
class Place:
    """A place the app can show: a point of interest or somewhere to eat and drink.

    Attributes:
        distance: Kilometres by road from where the user is.
        food: Whether it is somewhere to eat or drink (its recent searches are apart).
    """

    id: str
    name: str
    category: str
    address: str
    rating: float
    reviews: int
    distance: float
    hours: str
    about: str
    food: bool = False
    price: str = ""


@dataclass(frozen=True, slots=True)
class MapsState:
    """The maps app's data (lists given as lists are kept as tuples).

    Attributes:
        places: Every place the app can find, place id → place.
        recent: Recently searched places, newest first.
        food: Recently searched places to eat and drink, newest first.
        saved: Saved places, newest first.
        trips: Destinations directions were asked for, newest first.
        navigating: The destination being navigated to, if any.
        mode: The travel mode directions are given for (a key of :data:`MODES`).
    """

    places: Mapping[str, Place]
    recent: tuple[str, ...]
    food: tuple[str, ...]
    saved: tuple[str, ...] = ()
    trips: tuple[str, ...] = ()
    navigating: str | None = None
    mode: str = "drive"

    def __post_init__(self) -> None:
        frozen_fields(self, ("places",), ("recent", "food", "saved", "trips"))


def minutes(place: Place, mode: str) -> int:
    """Minutes from the user to ``place`` by ``mode``."""
    per_km, fixed = next((m[3], m[4]) for m in MODES if m[0] == mode)
    return max(1, math.ceil(fixed + per_km * place.distance))


def duration(total: int) -> str:
    """``total`` minutes as the app shows them: ``18 min``, ``1 h 5 min``."""
    hours, rest = divmod(total, 60)
    return f"{hours} h {rest} min" if hours else f"{rest} min"


def kilometres(distance: float) -> str:
    """A distance as the app shows it: ``800 m`` below one kilometre, else ``2.4 km``."""
    return f"{round(distance * 1000)} m" if distance < 1 else f"{distance:.1f} km"

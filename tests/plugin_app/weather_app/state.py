"""The weather app's data."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from mobileintent_gym.phone.state import frozen_fields


@dataclass(frozen=True, slots=True)
class Place:
    id: str
    name: str
    country: str
    condition: str
    temp: int
    forecast: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class WeatherState:
    owner: str
    places: Mapping[str, Place]
    saved: tuple[str, ...]
    pinned: str | None = None

    def __post_init__(self) -> None:
        frozen_fields(self, ("places",), ("saved",))

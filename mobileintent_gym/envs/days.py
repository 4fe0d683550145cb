"""Which user and day an intention env's episode is about, and checks of env arguments."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from mobileintent_gym.checks import check_integers, check_type, is_finite, reset_options
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.intents.generator import GeneratorConfig, cached_sessions
from mobileintent_gym.intents.schema import Session
from mobileintent_gym.phone.phone import MAX_SIDE
from mobileintent_gym.users.sets import pick_user


class Drawn(NamedTuple):
    """The user and day an episode is about.

    Attributes:
        user: The user as given or drawn (a profile's name or path; ``session.user`` is
            the profile's id, which ``info["user"]`` reports).
        history: Every session before the played day: the ``history_days`` days of
            history and the later days before the played one.
        session: The played day's session.
        day: Its index among the later days.
    """

    user: str
    history: tuple[Session, ...]
    session: Session
    day: int


def draw_day(options: dict[str, Any] | None, rng: np.random.Generator, users: tuple[str, ...],
             history_days: int, later_days: int, seed: int, config: GeneratorConfig) -> Drawn:
    """The user and the later day an episode plays, from options or drawn.

    The user's first ``history_days`` days are history; the episode plays one of the
    ``later_days`` days after them that holds an intention, and the later days before it
    are history too. ``options`` may name ``user`` (a profile, or a set to draw from:
    :func:`~mobileintent_gym.users.sets.pick_user`) and ``day`` (an index among the later
    days).

    Raises:
        MobileIntentError: For options that are no dict or unknown (InvalidOptionsError),
            or a day that is not one of them. Draw inside
            :func:`~mobileintent_gym.users.sets.refusable_reset`, which then takes back
            what was drawn from ``rng``.
    """
    options = reset_options(options, ("day", "user"),
                            below={"day": later_days})  # before the days are generated
    user, day = options.get("user"), options.get("day")
    user = pick_user(user, users, rng, config.profiles_dir)
    sessions = cached_sessions(user, history_days + later_days, seed, config)
    days = [d for d in range(later_days) if sessions[history_days + d].intentions()]
    day = days[rng.integers(len(days))] if day is None and days else day
    if day not in days:
        raise MobileIntentError(f"reset option day must be one of {days} (later days "
                                f"with intentions), got {day!r}")
    played = history_days + int(day)
    return Drawn(user, sessions[:played], sessions[played], int(day))


def check_counts(**counts: Any) -> tuple[int, ...]:
    """The counts (history days, a window …) as ints, in order, each checked to be >= 1.

    NumPy integers are taken, and come back as Python ints (what ``range``, ``deque`` and
    ``timedelta`` need). The counts named ``…days`` are checked together too
    (at most :data:`MAX_DAYS` in all).

    Raises:
        MobileIntentError: Naming each bad count and its value, or days too many in all.
    """
    check_integers(1, **counts)
    checked = {name: int(value) for name, value in counts.items()}
    check_days(**{name: value for name, value in checked.items() if name.endswith("days")})
    return tuple(checked.values())


MAX_DAYS = 3660
"""The most days an intention env generates for a user, history and played days together:
ten years. Every day is generated before the user's first episode (about 0.1 s a day on one
core, six minutes for ten years), so a count mistyped a thousandfold would look like a hang."""


def check_days(**days: int) -> None:
    """Refuse day counts (ints) adding up to more than :data:`MAX_DAYS`.

    Raises:
        MobileIntentError: Naming each count and their sum.
    """
    total = sum(days.values())
    if total > MAX_DAYS:
        named = " + ".join(f"{name}={value}" for name, value in days.items())
        raise MobileIntentError(f"{named}{f' = {total} days' if len(days) > 1 else ''}: at "
                                f"most {MAX_DAYS} (ten years) in all; each day is generated "
                                "before any is used, about 0.1 s a day")


def check_size(name: str, size: Any) -> tuple[int, int]:
    """A ``(width, height)`` argument as two ints, each checked to be from 1 to 3840.

    The bound is a phone's (a frame of tens of megabytes); a larger one would be drawn
    until memory ran out.

    Raises:
        MobileIntentError: Naming the argument and its value.
    """
    if not (isinstance(size, tuple | list) and len(size) == 2):
        raise MobileIntentError(f"{name} must be (width, height), got {size!r}")
    width, height = check_counts(**{f"{name}[0]": size[0], f"{name}[1]": size[1]})
    if max(width, height) > MAX_SIDE:
        raise MobileIntentError(f"{name} must be at most {MAX_SIDE} pixels a side, got "
                                f"{size!r}")
    return width, height


def check_config(config: Any) -> None:
    """Refuse an env's ``config`` that is neither a GeneratorConfig nor ``None``.

    Raises:
        InvalidArgumentError: Naming what it got.
    """
    check_type("config", config, (GeneratorConfig, type(None)), "a GeneratorConfig or None")


def check_number(name: str, value: Any, low: float, high: float) -> None:
    """Raise unless ``value`` is a finite number in [``low``, ``high``].

    Raises:
        MobileIntentError: Naming the argument and its value.
    """
    if not is_finite(value) or not low <= value <= high:
        raise MobileIntentError(f"{name} must be a finite number in [{low}, {high}], got "
                                f"{value!r}")

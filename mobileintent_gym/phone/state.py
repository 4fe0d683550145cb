"""The phone's data: every app's records and the simulated clock, as plain data."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from mobileintent_gym.errors import MobileIntentError

DEFAULT_CLOCK = datetime(2026, 3, 2, 9, 41)


@dataclass(slots=True)
class PhoneState:
    """What a phone holds: per-app state objects and the time its clock starts at.

    Each app state must offer ``copy()`` returning an independent copy (records are
    immutable, so a copy only duplicates the containers and is cheap).

    Attributes:
        apps: App id → that app's state.
        clock: Simulated wall-clock time at reset.
    """

    apps: dict[str, Any] = field(default_factory=dict)
    clock: datetime = DEFAULT_CLOCK

    def copy(self) -> PhoneState:
        """An independent copy; acting on a phone never changes the state it was reset to."""
        return PhoneState({k: v.copy() for k, v in self.apps.items()}, self.clock)

    @classmethod
    def default(cls, apps: Mapping[str, Any], seed: int = 0) -> PhoneState:
        """Every app's built-in content for ``seed``."""
        return cls({app_id: app.initial_state(seed) for app_id, app in apps.items()})

    def check(self, apps: Mapping[str, Any]) -> None:
        """Raise when the state names an app the phone does not have.

        Raises:
            MobileIntentError: Naming the unknown app ids.
        """
        unknown = sorted(set(self.apps) - set(apps))
        if unknown:
            raise MobileIntentError(f"state holds unknown apps {unknown}; phone has {sorted(apps)}")

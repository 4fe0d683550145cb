"""An app plugin: the one object an app package exports and the registry lists.

Also what every app's state builder is given (:class:`StateBuilder`): PAIR's lists, a seeded
generator and the name of the phone's owner, of which apps make their handles
(:func:`user_handle`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from mobileintent_gym.apps.records import Record
from mobileintent_gym.errors import InvalidAppError
from mobileintent_gym.phone.app import App, check_state_type

if TYPE_CHECKING:
    from mobileintent_gym.tasks.spec import TaskTemplate
    from mobileintent_gym.users.contexts import ContextSpec

DEFAULT_OWNER = "Alex Morgan"
"""The owner's name on a phone without a user (random lists: ``App.initial_state``)."""


def user_handle(name: str, joiner: str = "_") -> str:
    """A user name made of a display name: ``Lucía Hernández`` → ``lucia_hernandez``.

    Letters lose their accents and are lower-cased; every run of other characters between
    them becomes ``joiner``. A name without letters or digits gives ``me``.
    """
    plain = "".join(ch for ch in unicodedata.normalize("NFKD", name.lower())
                    if not unicodedata.combining(ch))
    return joiner.join(re.findall(r"[^\W_]+", plain)) or "me"


class StateBuilder(Protocol):
    """Builds an app's complete state for one phone owner."""

    def __call__(self, lists: Mapping[str, Sequence[Record]], rng: np.random.Generator,
                 owner: str) -> Any:
        """The app's state.

        Args:
            lists: PAIR's lists: context key → records, in screen order.
            rng: A seeded generator for what ranking does not decide (times, counts).
            owner: The name of the phone's owner, shown wherever the app shows its user
                (a profile's ``name``, or :data:`DEFAULT_OWNER` without a user).
        """
        ...


@dataclass(frozen=True)
class AppBundle:
    """Everything the gym needs of one app.

    Attributes:
        app: The app: screens, routes, state type, launcher icon, tour steps and sample
            route parameters.
        contexts: Its PAIR contexts (its lists that user content fills).
        build_state: Builds its state from the contexts' lists (required with contexts).
        templates: Its task templates.
    """

    app: App
    contexts: tuple[ContextSpec, ...] = ()
    build_state: StateBuilder | None = None
    templates: tuple[TaskTemplate, ...] = ()

    @property
    def id(self) -> str:
        """The app's id."""
        return self.app.id

    def check(self) -> None:
        """Raise unless the parts fit together.

        Raises:
            InvalidAppError: Naming the part that does not belong to the app: a context
                of another app, a template of another app or for an unknown context or
                route, a state type that is not an immutable dataclass, or contexts
                without ``build_state``.
        """
        check_state_type(self.app)
        keys = {c.key for c in self.contexts}
        if any(c.app != self.id for c in self.contexts):
            raise InvalidAppError(f"app {self.id!r} declares contexts of other apps: {keys}")
        if self.contexts and self.build_state is None:
            raise InvalidAppError(f"app {self.id!r} has contexts but no build_state")
        for t in self.templates:
            if t.app != self.id or t.context not in keys:
                raise InvalidAppError(f"template {t.id} runs in {t.app!r} on {t.context!r}; "
                                      f"app {self.id!r} has contexts {sorted(keys)}")
            unknown = sorted(set(_routes(t)) - set(self.app.routes))
            if unknown:
                raise InvalidAppError(f"template {t.id} names routes {unknown} that app "
                                      f"{self.id!r} does not have")


def _routes(template: TaskTemplate) -> list[str]:
    """Every route a template names: entry screens, oracle screens, outcome screens."""
    outcome = template.outcome
    routes = [r for goal in template.subgoals for r in goal.screens] + list(template.oracle)
    routes += [r for r in (outcome.route, outcome.before and outcome.before.route) if r]
    return routes

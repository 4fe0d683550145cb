"""An app plugin: the one object an app package exports and the registry lists.

Also what every app's state builder is given (:class:`StateBuilder`): PAIR's lists, a seeded
generator and the name of the phone's owner, of which apps make their handles
(:func:`user_handle`).
"""

from __future__ import annotations

import itertools
import re
import string
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from mobileintent_gym.apps.records import Record
from mobileintent_gym.checks import is_count
from mobileintent_gym.errors import InvalidAppError
from mobileintent_gym.metrics.pair import SUBGOAL_CONTEXTS
from mobileintent_gym.phone.app import App, check_app
from mobileintent_gym.vocabulary import DOMAINS, EVENT_CLASSES, domain_hint

if TYPE_CHECKING:
    from mobileintent_gym.tasks.spec import TaskTemplate
    from mobileintent_gym.users.contexts import ContextSpec

DEFAULT_OWNER = "Alex Morgan"
"""The owner's name on a phone without a user (random lists: ``App.initial_state``)."""


# Latin letters that no accent removal makes plain (Unicode gives them no decomposition),
# as the nearest plain Latin letters.
_PLAIN_LATIN = str.maketrans({"ø": "o", "æ": "ae", "œ": "oe", "ß": "ss", "ł": "l", "đ": "d",
                              "ð": "d", "þ": "th", "ı": "i", "ħ": "h", "ŧ": "t", "ŋ": "ng"})


def user_handle(name: str, joiner: str = "_") -> str:
    """A user name made of a display name: ``Lucía Hernández`` → ``lucia_hernandez``.

    Letters lose their accents and are lower-cased (``Sølvi Ødegård`` → ``solvi_odegard``,
    ``Þór`` → ``thor``); letters of other scripts stay as they are. Every run of other
    characters between them becomes ``joiner``. A name without letters or digits gives
    ``me``.
    """
    plain = "".join(ch for ch in unicodedata.normalize("NFKD", name.lower())
                    if not unicodedata.combining(ch)).translate(_PLAIN_LATIN)
    return joiner.join(re.findall(r"[^\W_]+", plain)) or "me"


def since_owner(senders: Sequence[str], other: str) -> int:
    """The messages ``other`` sent in a row at a conversation's end: at most these are unread."""
    return sum(1 for _ in itertools.takewhile(lambda sender: sender == other, senders[::-1]))


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
            InvalidAppError: Naming the part that does not fit: a route not under
                ``<id>/`` or whose screen names no method of the app, a home that is no
                route, a context of another app,
                a context or template declared twice, a template of another app, for an
                unknown context or route, without subgoals, with a placeholder other
                than ``{label}`` and ``{cue}`` or an intent of an unknown event class or
                domain, a state type that is not an immutable dataclass, an app without
                its own ``initial_state``, or contexts without ``build_state``.
        """
        check_app(self.app)
        _check_routes(self.app)
        keys = {c.key: c for c in self.contexts}
        if others := sorted(c.key for c in self.contexts if c.app != self.id):
            raise InvalidAppError(f"app {self.id!r} declares contexts of other apps: {others}")
        if self.contexts and self.build_state is None:
            raise InvalidAppError(f"app {self.id!r} has contexts but no build_state")
        check_unique("context", [(c.key, self.id) for c in self.contexts])
        check_unique("template", [(t.id, self.id) for t in self.templates])
        for t in self.templates:
            _check_template(t, self.id, keys, self.app.routes)
            check_intent(t)


def _check_routes(app: App) -> None:
    """Refuse a route table the phone would fail on only when a screen is first shown."""
    bad = [f"route {r!r} (not under {app.id + '/'!r})" for r in app.routes
           if not isinstance(r, str) or not r.startswith(f"{app.id}/")]
    bad += [f"route {r!r}: build {screen.build!r} (no method of {type(app).__name__})"
            for r, screen in app.routes.items()
            if not callable(getattr(app, str(screen.build), None))]
    if app.home not in app.routes:
        bad.append(f"home {app.home!r} (none of its routes)")
    if bad:
        raise InvalidAppError(f"app {app.id!r}: " + "; ".join(bad))


def check_unique(what: str, declared: Iterable[tuple[str, str]]) -> None:
    """Raise naming each name declared more than once, with the apps declaring it.

    Args:
        what: What the names are (``"template"`` …), for the message.
        declared: ``(name, app id)`` of every declaration.

    Raises:
        InvalidAppError: Naming the repeated names.
    """
    owners: dict[str, list[str]] = {}
    for name, app_id in declared:
        owners.setdefault(name, []).append(app_id)
    repeated = sorted(name for name, apps in owners.items() if len(apps) > 1)
    if repeated:
        raise InvalidAppError(f"{what} declared more than once: " + ", ".join(
            f"{n!r} (by {', '.join(sorted(set(owners[n])))})" for n in repeated))


def _check_template(t: TaskTemplate, app_id: str, contexts: Mapping[str, ContextSpec],
                    routes: Sequence[str]) -> None:
    if t.app != app_id or t.context not in contexts:
        raise InvalidAppError(f"template {t.id} runs in {t.app!r} on {t.context!r}; "
                              f"app {app_id!r} has contexts {sorted(contexts)}")
    roles = ["record", *contexts[t.context].roles]
    if t.act_on not in roles:
        raise InvalidAppError(f"template {t.id} acts on {t.act_on!r}; its context "
                              f"{t.context!r} offers {roles}")
    _check_fields(t)
    unknown = sorted(set(_routes(t)) - set(routes))
    if unknown:
        raise InvalidAppError(f"template {t.id} names routes {unknown} that app {app_id!r} "
                              "does not have")
    if not t.subgoals:
        raise InvalidAppError(f"template {t.id} has no subgoals")
    for kind, wording in (("explicit", t.explicit), ("implicit", t.implicit)):
        try:
            named = {f for _, f, _, _ in string.Formatter().parse(wording) if f is not None}
        except ValueError as err:
            raise InvalidAppError(f"template {t.id}'s {kind} instruction {wording!r} is no "
                                  f"format string: {err}") from None
        fields = sorted(named - {"label", "cue"})
        if fields:
            raise InvalidAppError(f"template {t.id}'s {kind} instruction has placeholders "
                                  f"{fields}; only {{label}} and {{cue}} are filled")


def _check_fields(t: TaskTemplate) -> None:
    """Refuse a field a dataclass would take and the judge or the oracle would misread.

    A context ``"uc"`` was judged as UA, a ``which`` of ``"lsat"`` read as ``"last"``, a
    step limit of 0 truncated every step.
    """
    checks = list(t.outcome.nodes)
    checks += list(t.outcome.before.nodes) if t.outcome.before else []
    bad = [f"subgoal {g.name!r}: context {g.context!r} (UC or UA)" for g in t.subgoals
           if g.context not in SUBGOAL_CONTEXTS]
    bad += [f"node {n.resource_id!r}: which {n.which!r} (first, last or any)" for n in checks
            if n.which not in ("first", "last", "any")]
    bad += [f"oracle move on {route!r}: within {m.within!r} (record or None)"
            for route, m in t.oracle.items() if m.within not in (None, "record")]
    if not is_count(t.step_limit):
        bad.append(f"step_limit {t.step_limit!r} (an integer of at least 1)")
    if bad:
        raise InvalidAppError(f"template {t.id}: " + "; ".join(bad))


def check_intent(template: TaskTemplate) -> None:
    """Raise unless routines can place ``template``'s intent (part of :meth:`AppBundle.check`).

    Raises:
        InvalidAppError: Naming an intent that is no TemplateIntent, an event class that is
            none of :data:`~mobileintent_gym.vocabulary.EVENT_CLASSES`, a domain none of
            :data:`~mobileintent_gym.vocabulary.DOMAINS` (with the closest one), no domains
            or no purpose.
    """
    intent = template.intent  # a TemplateIntent (tasks.spec imports the registry: not here)
    if not all(hasattr(intent, name) for name in ("event", "domains", "purpose")):
        raise InvalidAppError(f"template {template.id}: intent must be a TemplateIntent, "
                              f"got {type(intent).__name__}")
    bad = [] if intent.event in EVENT_CLASSES else [
        f"event {intent.event!r} (one of {list(EVENT_CLASSES)})"]
    if isinstance(intent.domains, str) or not intent.domains:
        bad.append(f"domains {intent.domains!r} (a tuple of one domain or more)")
    else:
        bad += [f"domain {d!r}{domain_hint(d)} (one of {list(DOMAINS)})"
                for d in intent.domains if d not in DOMAINS]
    if not isinstance(intent.purpose, str) or not intent.purpose.strip():
        bad.append(f"purpose {intent.purpose!r} (words that end the intention: 'to ...')")
    if bad:
        raise InvalidAppError(f"template {template.id}'s intent: " + "; ".join(bad))


def _routes(template: TaskTemplate) -> list[str]:
    """Every route a template names: entry screens, oracle screens, outcome screens."""
    outcome = template.outcome
    routes = [r for goal in template.subgoals for r in goal.screens] + list(template.oracle)
    routes += [r for r in (outcome.route, outcome.before and outcome.before.route) if r]
    return routes

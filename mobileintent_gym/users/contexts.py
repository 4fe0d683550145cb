"""What an app declares for PAIR: the pools it ranks and the UI contexts PAIR fills.

A context key names an app and one of its lists, ``<app>:<list>`` (``demo:liked``) — a
syntax apart from routes (``demo/library/liked``), since one list may show on several
screens and one screen may show several lists.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from mobileintent_gym.apps.records import Record, read_records
from mobileintent_gym.errors import InvalidAppError, brief
from mobileintent_gym.users.entities import Entity, keys_of
from mobileintent_gym.vocabulary import DOMAINS, domain_hint

KEY = re.compile(r"[a-z][a-z0-9_]*:[a-z][a-z0-9_]*")

Role = Callable[[str, Any], tuple[str, str]]
"""From a record id and the app's state, the (entity id, label) a task acts on."""


@dataclass(frozen=True)
class Pool:
    """A record pool PAIR ranks: an app's data file and how its records are compared.

    Attributes:
        package: The Python package holding ``data/<name>.jsonl`` (the app's package).
        name: The pool's name, which is its data file's.
        describe: The text the sentence encoder embeds for a record.
        match: Attributes whose values count as an exact preference match; ``"label"``
            is the record's label.
    """

    package: str
    name: str
    describe: Callable[[Record], str]
    match: tuple[str, ...] = ("label",)

    def records(self) -> tuple[Record, ...]:
        """The pool's records, in file order."""
        return read_records(self.package, self.name)

    def entities(self) -> tuple[Entity[Record], ...]:
        """The pool's records as PAIR entities (read and described once)."""
        return _entities(self)


@functools.cache
def _entities(pool: Pool) -> tuple[Entity[Record], ...]:
    return tuple(Entity(r.id, r.label, r.cue, pool.describe(r), keys_of(*_values(r, pool.match)),
                        r) for r in pool.records())


def _values(record: Record, names: tuple[str, ...]) -> list[str]:
    out: list[str] = []
    for name in names:
        value = record.label if name == "label" else record[name]
        out.extend([value] if isinstance(value, str) else value)
    return out


@dataclass(frozen=True)
class ContextSpec:
    """A UI context that PAIR fills: one list of an app.

    Attributes:
        key: ``<app>:<list>``, e.g. ``demo:liked``.
        pool: The pool its records come from.
        domains: PersonaLens domains relevant to it.
        common: Reserved record ids present for every user (the tasks' common targets).
        size: Records in the list, common ones included (``None``: ``PairConfig.top_k``).
        roles: What else than the record itself a task may act on: role name → a
            function of (record id, the app's state) giving (entity id, label), e.g. a
            post's ``author``.

    Raises:
        InvalidAppError: For a key without the ``<app>:<list>`` syntax, a domain that is
            none of the PersonaLens domains (:data:`~mobileintent_gym.vocabulary.DOMAINS`:
            a misspelt one would rank the list by every interest of the user, silently), or
            a size that leaves no room for the common records.
    """

    key: str
    pool: Pool
    domains: tuple[str, ...]
    common: tuple[str, ...]
    size: int | None = None
    roles: Mapping[str, Role] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        if not KEY.fullmatch(self.key):
            raise InvalidAppError(f"context key {self.key!r} is not '<app>:<list>'")
        if not (isinstance(self.domains, tuple)
                and all(isinstance(domain, str) for domain in self.domains)):
            raise InvalidAppError(f"context {self.key}: domains must be a tuple of domain "
                                  f"names, got {brief(self.domains)}")
        for domain in self.domains:
            if domain not in DOMAINS:
                raise InvalidAppError(f"context {self.key}: domain {domain!r} is none of the "
                                      f"PersonaLens domains{domain_hint(domain)}; they are "
                                      f"{list(DOMAINS)}")
        if self.size is not None and self.size < len(self.common):
            raise InvalidAppError(f"{self.key} needs room for its {len(self.common)} common "
                                  f"records, got size {self.size}")
        object.__setattr__(self, "roles", MappingProxyType(dict(self.roles)))

    @property
    def app(self) -> str:
        """The id of the app whose list it is."""
        return self.key.partition(":")[0]


def check_record_ids(specs: Iterable[ContextSpec]) -> None:
    """Refuse pools of ``specs`` whose records share an id, whoever the user.

    Tasks and screens name records by id alone; a clash between two pools would make one
    record's label stand for the other's wherever both are shown.

    Raises:
        InvalidAppError: Naming the id and a context of each pool.
    """
    owner: dict[str, tuple[tuple[str, str], str]] = {}
    for spec in specs:
        pool = (spec.pool.package, spec.pool.name)
        for record in spec.pool.records():
            first, where = owner.setdefault(record.id, (pool, spec.key))
            if first != pool:
                raise InvalidAppError(f"record id {record.id!r} is in the pools of {where!r} "
                                      f"and {spec.key!r}; record ids must be unique across "
                                      "apps")

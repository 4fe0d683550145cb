"""The app registry: the one table that lists the installed apps.

Each line of :data:`APP_PACKAGES` names a package of this folder, whose ``BUNDLE`` is an
:class:`~mobileintent_gym.apps.plugin.AppBundle`. Adding an app is adding its package and
one line here. The phone, the PAIR pipeline, the tasks and the tests loop over
:func:`bundles`; packages are imported on first use, so that importing this module (or
any package that reads it) imports no app.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, TypeVar

from mobileintent_gym.apps.plugin import AppBundle, check_unique
from mobileintent_gym.errors import InvalidAppError, UnknownRouteError

if TYPE_CHECKING:
    from mobileintent_gym.tasks.spec import TaskTemplate
    from mobileintent_gym.users.contexts import ContextSpec

# Launcher order. Each line: a package of mobileintent_gym/apps exporting BUNDLE.
APP_PACKAGES: tuple[str, ...] = (
    "music",  # mirrors Spotify
    "chat",  # mirrors WeChat
    "pay",  # mirrors Alipay
    "video",  # mirrors Bilibili
    "maps",  # mirrors Google Maps
    "notes",  # mirrors RedBook
    "forum",  # mirrors Reddit
    "meeting",  # mirrors Tencent Meeting
    "reader",  # mirrors WeChat Reading
    "social",  # mirrors X
)

V = TypeVar("V")


@functools.cache
def bundles() -> tuple[AppBundle, ...]:
    """Every registered app's bundle, checked, in launcher order.

    Raises:
        InvalidAppError: When a package exports no valid bundle of its own id, or two apps
            share an id, a package name, a context key or a template id.
    """
    found = []
    for name in APP_PACKAGES:
        bundle = getattr(importlib.import_module(f"{__package__}.{name}"), "BUNDLE", None)
        if not isinstance(bundle, AppBundle) or bundle.id != name:
            raise InvalidAppError(f"package apps/{name} must export BUNDLE, an AppBundle "
                                  f"of app {name!r}; got {bundle!r}")
        bundle.check()
        found.append(bundle)
    check_unique("package", [(b.app.package, b.id) for b in found])
    check_unique("context", [(c.key, b.id) for b in found for c in b.contexts])
    check_unique("template", [(t.id, b.id) for b in found for t in b.templates])
    return tuple(found)


def get(app_id: str) -> AppBundle:
    """The bundle of app ``app_id``.

    Raises:
        UnknownRouteError: Naming the unknown app and the registered ones.
    """
    for bundle in bundles():
        if bundle.id == app_id:
            return bundle
    raise UnknownRouteError(f"no app {app_id!r}; apps: {sorted(b.id for b in bundles())}")


def app_package(app_id: str) -> str:
    """The Android package of app ``app_id`` (what a device launches).

    Raises:
        UnknownRouteError: Naming the unknown app and the registered ones.
    """
    return get(app_id).app.package


@functools.cache
def contexts() -> Mapping[str, ContextSpec]:
    """Every app's PAIR contexts by key, in launcher order."""
    return MappingProxyType({c.key: c for b in bundles() for c in b.contexts})


@functools.cache
def templates() -> Mapping[str, TaskTemplate]:
    """Every app's task templates by id, in launcher order."""
    return MappingProxyType({t.id: t for b in bundles() for t in b.templates})


class View(Mapping[str, V]):
    """A read-only mapping over a registry table, read on first use.

    Modules that apps import themselves (the task and PAIR types) can bind a table at
    import time without importing any app.

    Args:
        table: Returns the table, e.g. :func:`templates`.
    """

    def __init__(self, table: Callable[[], Mapping[str, V]]) -> None:
        self._table = table

    def __getitem__(self, key: str) -> V:
        return self._table()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())

    def __repr__(self) -> str:
        return f"View({dict(self._table())!r})"

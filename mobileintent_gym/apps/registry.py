"""The app registry: the apps the phone installs, built in and plugged in.

Each line of :data:`APP_PACKAGES` names a package of this folder, whose ``BUNDLE`` is an
:class:`~mobileintent_gym.apps.plugin.AppBundle`; adding an app to the gym is adding its
package and one line here. An app of another distribution plugs in through the entry-point
group :data:`ENTRY_POINTS` instead (the entry point's name is the app's id, its value the
package exporting ``BUNDLE``), and comes after the built-in apps, in the order of the ids.
The phone, the PAIR pipeline, the tasks and the tests loop over :func:`bundles`; packages
are imported on first use, so that importing this module (or any package that reads it)
imports no app.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import importlib.util
import os
import re
import sysconfig
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, TypeVar

from mobileintent_gym.apps.plugin import AppBundle, check_unique
from mobileintent_gym.errors import InvalidAppError, UnknownRouteError, raised_at

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

ENTRY_POINTS = "mobileintent_gym.apps"
"""The entry-point group of plugged-in apps: ``<app id> = <package exporting BUNDLE>`` (or
``<module>:<bundle>``)."""
APP_ID = re.compile(r"[a-z][a-z0-9_]*")
"""An app's id: it starts its routes (``<id>/…``) and context keys (``<id>:…``)."""


@functools.cache
def bundles() -> tuple[AppBundle, ...]:
    """Every installed app's bundle, checked, in launcher order.

    The built-in apps come first, in the order of :data:`APP_PACKAGES`, then the
    plugged-in ones, by id.

    Raises:
        InvalidAppError: When a package exports no valid bundle of its own id, a plugged-in
            app cannot be imported or has no valid id, or two apps share an id, a package
            name, a context key or a template id.
    """
    found = [_bundle(name, getattr(importlib.import_module(f"{__package__}.{name}"), "BUNDLE",
                                   None), f"package apps/{name}")
             for name in APP_PACKAGES]
    found += [_bundle(point.name, _plugged_in(point), _named(point), point.attr or "BUNDLE")
              for point in _entry_points()]
    check_unique("app", [(b.id, type(b.app).__module__) for b in found])
    check_unique("launcher label", [(b.app.label, b.id) for b in found])
    check_unique("package", [(b.app.package, b.id) for b in found])
    check_unique("context", [(c.key, b.id) for b in found for c in b.contexts])
    check_unique("template", [(t.id, b.id) for b in found for t in b.templates])
    return tuple(found)


def plugged_in_folders() -> tuple[Path, ...]:
    """The folders of the plugged-in apps' sources (see :func:`_sources`), once checked.

    Raises:
        InvalidAppError: As :func:`bundles`.
    """
    bundles()
    return tuple(_sources(point) for point in _entry_points())


@functools.cache
def _entry_points() -> tuple[importlib.metadata.EntryPoint, ...]:
    """The plugged-in apps' entry points, by id.

    Read once per process, as :func:`bundles` reads the apps: finding them reads every
    installed distribution's metadata (2.8 ms on the 2-core VM), and the content cache asks
    for the apps' folders on every fetch.
    """
    return tuple(sorted(importlib.metadata.entry_points(group=ENTRY_POINTS),
                        key=lambda p: p.name))


def _named(point: importlib.metadata.EntryPoint) -> str:
    """How messages name a plugged-in app: its entry point and distribution."""
    of = f" of distribution {point.dist.name!r}" if point.dist is not None else ""
    return f"app {point.name!r} plugged in as {point.value!r} (entry point of {ENTRY_POINTS}{of})"


def _plugged_in(point: importlib.metadata.EntryPoint) -> object:
    """What an app's entry point names: ``package`` (its ``BUNDLE``) or ``module:attribute``.

    Raises:
        InvalidAppError: When the id is none (lower-case letters, digits and underscores,
            from a letter: it starts the app's routes and context keys) or it cannot be
            imported, naming the entry point and where the import failed.
    """
    if not APP_ID.fullmatch(point.name):
        raise InvalidAppError(f"{_named(point)}: the id must be lower-case letters, digits and "
                              "underscores, starting with a letter")
    try:
        module = importlib.import_module(point.module)
    except Exception as err:  # any error of the app's own code on import
        raise InvalidAppError(f"{_named(point)} cannot be imported"
                              f"{_failed_at(err, point.module)}: {err!r} "
                              "(fix or uninstall that distribution)") from err
    _sources(point)
    return getattr(module, point.attr or "BUNDLE", None)


def _failed_at(err: BaseException, module: str) -> str:
    """`` at file:line`` of the innermost frame of ``err`` in the app's own code, if any.

    That is in ``module``'s top-level package (or its file, for a module of its own), else
    anywhere but Python's own library (installed packages count) and the gym.
    """
    own = _own_sources(module)
    found = raised_at(err, lambda filename: filename.startswith(own)) if own else ""
    return found or raised_at(err, _outside_python_and_gym)


def _own_sources(module: str) -> tuple[str, ...]:
    """The folders of ``module``'s top-level package (each ending in a separator), or its file."""
    try:
        spec = importlib.util.find_spec(module.partition(".")[0])
    except (ImportError, ValueError):  # its own import failed, or it is none
        return ()
    if spec is None:
        return ()
    if spec.submodule_search_locations:
        return tuple(f"{folder}{os.sep}" for folder in spec.submodule_search_locations)
    return (spec.origin,) if spec.origin else ()


def _outside_python_and_gym(filename: str) -> bool:
    """Whether ``filename`` is no file of Python's own library nor of the gym.

    Installed packages count as outside, though their folder may lie in the library's.
    """
    paths = sysconfig.get_paths()
    installed = tuple(f"{paths[key]}{os.sep}" for key in ("purelib", "platlib"))
    inside = (f"{paths['stdlib']}{os.sep}", f"{Path(__file__).parents[1]}{os.sep}")
    return not filename.startswith("<") and (  # <frozen …>, <string>: generated
        filename.startswith(installed) or not filename.startswith(inside))


def _sources(point: importlib.metadata.EntryPoint) -> Path:
    """The folder of the outermost regular package on the way to what ``point`` names.

    That is the top-level package (``my_suite`` for ``my_suite.weather``: code and data
    beside the app count), or under namespace packages the first regular one.

    Raises:
        InvalidAppError: When there is none: the app is a one-file module.
    """
    parts = point.module.split(".")
    for depth in range(1, len(parts) + 1):
        spec = importlib.import_module(".".join(parts[:depth])).__spec__
        if spec.submodule_search_locations is not None and spec.origin not in (None,
                                                                                "namespace"):
            return Path(spec.origin).parent
    raise InvalidAppError(f"{_named(point)}: {point.module} is in no regular package; an app "
                          "lives in a package (a folder with an __init__.py) with its data")


def _bundle(app_id: str, bundle: object, where: str, name: str = "BUNDLE") -> AppBundle:
    """``bundle``, checked to be a valid bundle of app ``app_id``, exported as ``name``.

    Raises:
        InvalidAppError: Naming ``where`` it was looked for and what was found instead.
    """
    if not isinstance(bundle, AppBundle):
        found = "nothing" if bundle is None else f"a {type(bundle).__name__}"
        raise InvalidAppError(f"{where} must export {name}, an AppBundle of app {app_id!r}; "
                              f"found {found}")
    if bundle.id != app_id:
        raise InvalidAppError(f"{where} must export {name}, an AppBundle of app {app_id!r}; "
                              f"its app's id is {bundle.id!r}")
    bundle.check()
    return bundle


V = TypeVar("V")


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

"""The app framework: screens on a back stack, routes and intent handlers.

An app is a class with a route table. Each route names the method that builds its screen
from the app's state and the screen's own UI state (an :class:`Entry` on the back stack).
Clicks carry intents as data; generic ones (open a screen, switch tab, go back) are run by
the phone, app-specific ones by the app's ``on_<name>`` method through a
:class:`~mobileintent_gym.phone.backstack.Nav`.

The phone imports no app: the apps it runs are handed to it (see ``SimPhone(apps=...)``).
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

from mobileintent_gym.errors import InvalidAppError, UnknownRouteError, brief
from mobileintent_gym.phone.icons import Glyph
from mobileintent_gym.phone.paint import Color
from mobileintent_gym.phone.ui import Intent, ItemBuilder, Node, Rect, scroll_list
from mobileintent_gym.phone.widgets import Ctx, Theme

if TYPE_CHECKING:
    from mobileintent_gym.phone.backstack import Nav
    from mobileintent_gym.phone.tour import Step

# The apps a phone installs when it is given none: the registry, named rather than imported
# so that the framework depends on no app (``module:function`` returning the bundles).
DEFAULT_APPS = "mobileintent_gym.apps.registry:bundles"


@dataclass(slots=True)
class Entry:
    """One screen on an app's back stack and its UI state.

    Attributes:
        route: The screen's route (a path; parameters are kept apart).
        params: The screen's parameters, e.g. ``(("id", "pl3"),)``.
        scroll: Scroll offset in pixels per scrolling container.
        fields: Text of each text field.
        focus: Key of the focused text field, if any.
        keyboard: Whether the keyboard shows for the focused field (BACK hides it and the
            field keeps its focus, as on Android).
        key_set: The keyboard's key set: ``lower``, ``upper`` or ``symbols``.
        tab: The route of the bottom-navigation tab the screen belongs to: that of the
            screen it was opened from (the root's own route, for a screen opened over a
            stack's root), or for a deep link the tab its route is under; ``""`` for a
            stack's root itself.
    """

    route: str
    params: tuple[tuple[str, Any], ...] = ()
    scroll: dict[str, int] = field(default_factory=dict)
    fields: dict[str, str] = field(default_factory=dict)
    focus: str | None = None
    keyboard: bool = False
    key_set: str = "lower"
    tab: str = ""

    def param(self, name: str, default: Any = None) -> Any:
        """The value of parameter ``name``."""
        return dict(self.params).get(name, default)

    def key(self) -> tuple:
        """A hashable summary of everything the screen's look depends on."""
        return (self.route, self.params, tuple(sorted(self.scroll.items())),
                tuple(sorted(self.fields.items())), self.focus, self.keyboard, self.key_set,
                self.tab)

    def ui_state(self) -> tuple:
        """What actions change in place (scroll, fields, focus, keyboard), to put back."""
        return dict(self.scroll), dict(self.fields), self.focus, self.keyboard, self.key_set

    def set_ui_state(self, state: tuple) -> None:
        """Put back a :meth:`ui_state`."""
        self.scroll, self.fields, self.focus, self.keyboard, self.key_set = state


@dataclass(frozen=True, slots=True)
class Screen:
    """A route's entry in an app's route table.

    Attributes:
        build: Name of the app method that builds the screen.
        overlay: Drawn over the screen below it (menus, sheets, dialogs).
        tab: A bottom-navigation root: opening it replaces the back stack.
        params: Names of the parameters the screen needs (e.g. ``("id",)``).
    """

    build: str
    overlay: bool = False
    tab: bool = False
    params: tuple[str, ...] = ()


class App:
    """Base class of the simulated apps.

    Attributes:
        id: The app id, the first part of its routes (``<id>/...``).
        package: Its Android package name.
        label: The name under its launcher icon.
        icon: Its launcher icon: a painter of :mod:`~mobileintent_gym.phone.icons`.
        color: The launcher icon's background colour.
        theme: The app's colours.
        home: The route it opens at.
        routes: Route → :class:`Screen`.
        state_type: The type of its (immutable) data.
        tour: Named steps of ``mobileintent-gym tour`` inside the app, starting on its
            home screen.
    """

    id: ClassVar[str]
    package: ClassVar[str]
    label: ClassVar[str]
    icon: ClassVar[Glyph]
    color: ClassVar[Color]
    theme: ClassVar[Theme]
    home: ClassVar[str]
    routes: ClassVar[dict[str, Screen]]
    state_type: ClassVar[type]
    tour: ClassVar[tuple[tuple[str, Step], ...]] = ()

    def initial_state(self, seed: int) -> Any:
        """The app's built-in data for ``seed`` (every app overrides it).

        Raises:
            NoInitialStateError: Naming the app that does not.
        """
        raise _no_initial_state(self)

    def moved(self, state: Any, by: timedelta) -> Any:
        """``state`` with every date and time it holds moved by ``by``.

        Apps whose data holds times override it (:meth:`PhoneState.moved_to` calls it);
        times held as ages (``3 h ago``) are relative already and stay as they are.
        """
        return state

    def samples(self, state: Any) -> Mapping[str, Mapping[str, Any]]:
        """Parameters that open each parametrised route on ``state`` (route → params).

        Robustness tests open every route with them.
        """
        return {}

    def screen(self, route: str) -> Screen:
        """The route table entry of ``route``.

        Raises:
            UnknownRouteError: When the app has no such route.
        """
        try:
            return self.routes[route]
        except KeyError:
            raise UnknownRouteError(
                f"app {self.id!r} has no route {route!r}; it has {sorted(self.routes)}"
            ) from None

    def check_params(self, route: str, params: tuple[tuple[str, Any], ...]) -> None:
        """Raise unless ``params`` are exactly the hashable parameters ``route`` needs.

        Whether the values name existing records is checked by building the screen.

        Raises:
            UnknownRouteError: Naming the route and the wrong parameters.
        """
        wanted = set(self.screen(route).params)
        try:
            given = {name for name, _ in params}
        except (TypeError, ValueError):  # no pairs: named below
            given = None
        if given != wanted:  # the form is looked at here only, off the path of every tap
            if not (isinstance(params, tuple) and all(
                    isinstance(pair, tuple) and len(pair) == 2 for pair in params)):
                raise UnknownRouteError(  # a dict's keys were read as pairs of letters
                    f"parameters of {route!r} must be a tuple of (name, value) pairs, such "
                    f"as (('id', 'x'),), got {brief(params)}")
            raise UnknownRouteError(
                f"route {route!r} takes parameters {sorted(wanted)}, got {dict(params)!r}")
        try:
            hash(params)
        except TypeError:
            raise UnknownRouteError(
                f"parameters of {route!r} must be hashable, got {dict(params)!r}") from None

    def build(self, ctx: Ctx, entry: Entry, state: Any) -> Node:
        """Build the screen of ``entry``."""
        return getattr(self, self.screen(entry.route).build)(ctx, entry, state)

    def scroll(self, entry: Entry, rect: Rect, key: str, items: Sequence[tuple[int, ItemBuilder]],
               default: int = 0) -> Node:
        """A scrolling list (resource id ``key``) whose offset lives in ``entry.scroll``."""
        return scroll_list(rect, key, items, entry.scroll.get(key, default),
                           f"{self.package}:id/{key}")

    def handle(self, nav: Nav, intent: Intent) -> None:
        """Run an app-specific intent with its ``on_<name>`` method.

        A handler changes the app's data by giving ``nav`` a new state; the phone compares
        it with the old one afterwards, so handlers report nothing.
        """
        handler = getattr(self, f"on_{intent[0]}", None)
        if handler is None:
            raise UnknownRouteError(f"app {self.id!r} has no handler for intent {intent!r}")
        handler(nav, *intent[1:])


@runtime_checkable
class Installable(Protocol):
    """Anything that carries an app to install on a phone, such as a registry bundle."""

    @property
    def app(self) -> App:
        """The app."""
        ...


def app_of(item: App | Installable) -> App:
    """The app ``item`` is or carries.

    Raises:
        InvalidAppError: When ``item`` is neither.
    """
    if isinstance(item, App):
        return item
    if isinstance(item, Installable) and isinstance(item.app, App):
        return item.app
    registry = DEFAULT_APPS.partition(":")[0]
    hint = f" (an app id? its bundle is {registry}.get({item!r}))" if isinstance(item,
                                                                                str) else ""
    raise InvalidAppError(f"not an app or an app bundle: {brief(item, 60)}{hint}")


def check_state_type(app: App) -> None:
    """Raise unless ``app``'s state type is a frozen dataclass (the phone compares states).

    Raises:
        InvalidAppError: Naming the app and its state type.
    """
    kind = getattr(app, "state_type", None)
    if not (isinstance(kind, type) and dataclasses.is_dataclass(kind)
            and kind.__dataclass_params__.frozen):
        raise InvalidAppError(f"app {app.id!r}: state type {kind!r} must be a frozen "
                              "dataclass, so that the phone can tell when its data changed")


class NoInitialStateError(InvalidAppError, NotImplementedError):
    """An app that does not override :meth:`App.initial_state` (every app must)."""


def _no_initial_state(app: App) -> NoInitialStateError:
    return NoInitialStateError(
        f"app {app.id!r} ({type(app).__name__}) must override initial_state(seed); an "
        "app with PAIR contexts returns random_state(CONTEXTS, build_state, APP, seed)")


def check_app(app: App) -> None:
    """Raise unless ``app`` has a frozen state type and its own ``initial_state``.

    Raises:
        InvalidAppError: Naming the app and its state type.
        NoInitialStateError: Naming the app that does not override ``initial_state`` (an
            :class:`InvalidAppError` and a ``NotImplementedError``).
    """
    check_state_type(app)
    if getattr(app.initial_state, "__func__", None) is App.initial_state:
        raise _no_initial_state(app)


def install(items: Iterable[App | Installable] | None) -> dict[str, App]:
    """App id → app, in the given order (``None``: the bundles named by :data:`DEFAULT_APPS`).

    Raises:
        InvalidAppError: For items that are no list (an app, a text), an item that is not
            an app or bundle, an app whose state type
            is not a frozen dataclass, or a repeated app id.
        NoInitialStateError: For an app that does not override ``initial_state`` (found
            here: a phone builds the built-in states when it first needs them).
    """
    if items is None:
        module, _, function = DEFAULT_APPS.partition(":")
        items = getattr(importlib.import_module(module), function)()
    if isinstance(items, str | bytes | App) or not isinstance(items, Iterable):
        raise InvalidAppError(f"apps must be a list of apps or app bundles, got {brief(items, 60)}")
    apps: dict[str, App] = {}
    for item in items:
        app = app_of(item)
        check_app(app)
        if app.id in apps:
            raise InvalidAppError(f"app id {app.id!r} is installed twice")
        apps[app.id] = app
    return apps

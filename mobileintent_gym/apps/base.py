"""What every simulated app is made of: screens on a back stack, routes, intent handlers.

An app is a class with a route table. Each route names the method that builds its screen
from the app's state and the screen's own UI state (an :class:`Entry` on the back stack).
Clicks carry intents as data; generic ones (open a screen, switch tab, go back) are run by
the phone, app-specific ones by the app's ``on_<name>`` method through a
:class:`~mobileintent_gym.phone.tasks.Nav`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from mobileintent_gym.errors import UnknownRouteError
from mobileintent_gym.phone.paint import Color
from mobileintent_gym.phone.ui import Intent, ItemBuilder, Node, Rect, scroll_list
from mobileintent_gym.phone.widgets import Ctx, Theme

if TYPE_CHECKING:
    from mobileintent_gym.phone.tasks import Nav


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
    """

    route: str
    params: tuple[tuple[str, Any], ...] = ()
    scroll: dict[str, int] = field(default_factory=dict)
    fields: dict[str, str] = field(default_factory=dict)
    focus: str | None = None
    keyboard: bool = False

    def param(self, name: str, default: Any = None) -> Any:
        """The value of parameter ``name``."""
        return dict(self.params).get(name, default)

    def key(self) -> tuple:
        """A hashable summary of everything the screen's look depends on."""
        return (self.route, self.params, tuple(sorted(self.scroll.items())),
                tuple(sorted(self.fields.items())), self.focus, self.keyboard)


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
    """Base class of the simulated apps."""

    id: ClassVar[str]
    package: ClassVar[str]
    label: ClassVar[str]
    glyph: ClassVar[str]
    color: ClassVar[Color]
    theme: ClassVar[Theme]
    home: ClassVar[str]
    routes: ClassVar[dict[str, Screen]]
    state_type: ClassVar[type]

    def initial_state(self, seed: int) -> Any:
        """The app's default data for ``seed``."""
        raise NotImplementedError

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
        given = {name for name, _ in params}
        if given != wanted:
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

        Whether it changed anything is read off the phone's state afterwards, so handlers
        return nothing; they call ``nav.changed()`` when they change the app's data.
        """
        handler = getattr(self, f"on_{intent[0]}", None)
        if handler is None:
            raise UnknownRouteError(f"app {self.id!r} has no handler for intent {intent!r}")
        handler(nav, *intent[1:])

"""The apps' back stacks (what Android calls tasks) and which one is in front."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import TYPE_CHECKING, Any

from mobileintent_gym.errors import InvalidStateError, UnknownRouteError
from mobileintent_gym.phone import launcher
from mobileintent_gym.phone.app import App, Entry

if TYPE_CHECKING:
    from collections.abc import Mapping


class BackStacks:
    """One back stack per started app, the foreground app, and each app's data version.

    The phone gives an app a new version (a number it never gives other data) whenever a
    handler leaves the app with different data, so a screen built from it can be reused
    exactly while the version and the stack entry are unchanged, across resets too.
    """

    def __init__(self, apps: Mapping[str, App]) -> None:
        self.apps = apps
        self.stacks: dict[str, list[Entry]] = {}
        self.foreground: str | None = None
        self.launcher = Entry("launcher")  # the home screen's UI state: page, search
        self.versions = dict.fromkeys(apps, 0)

    def app(self, app_id: str) -> App:
        """The installed app ``app_id``.

        Raises:
            UnknownRouteError: When no such app is installed.
        """
        try:
            return self.apps[app_id]
        except (KeyError, TypeError):  # TypeError: a list, say, is no app id
            raise UnknownRouteError(
                f"no app {app_id!r}; installed: {sorted(self.apps)}") from None

    def top(self) -> Entry | None:
        """The screen in front, or ``None`` on the launcher."""
        return None if self.foreground is None else self.stacks[self.foreground][-1]

    def front(self) -> Entry:
        """The UI state of what is in front: the top screen, or the launcher's."""
        return self.launcher if self.foreground is None else self.stacks[self.foreground][-1]

    def open(self, app_id: str, route: str | None = None, params: tuple = ()) -> None:
        """Start ``app_id`` afresh at ``route`` (a deep link) and bring it to the front.

        The launcher's search closes, as when an app is launched.

        Raises:
            UnknownRouteError: For an unknown app or route or wrong parameters; nothing
                changes.
        """
        app = self.app(app_id)
        route = app.home if route is None else route
        app.check_params(route, params)
        if app.screen(route).tab or route == app.home:
            self.stacks[app_id] = [Entry(route, params)]
        else:  # a deep link, over the home; its tab: the one its route is under, else home
            tab = next((r for r, s in app.routes.items()
                        if s.tab and route.startswith(f"{r}/")), app.home)
            self.stacks[app_id] = [Entry(app.home), Entry(route, params, tab=tab)]
        self.foreground = app_id
        launcher.close_search(self.launcher)

    def snapshot(self) -> tuple:
        """What :meth:`restore` needs to undo changes since (stacks, versions, UI states).

        Actions change the UI state of the foreground app's screens in place: the one in
        front, and one below it that a handler returns to (``nav.pop`` and then its
        scroll set); the launcher's too.
        """
        shown = [self.launcher, *self.stacks.get(self.foreground, ())]
        return ({k: list(v) for k, v in self.stacks.items()}, self.foreground,
                dict(self.versions), [(entry, entry.ui_state()) for entry in shown])

    def restore(self, snapshot: tuple) -> None:
        """Undo changes made since :meth:`snapshot`."""
        self.stacks, self.foreground, self.versions, shown = snapshot
        for entry, ui_state in shown:
            entry.set_ui_state(ui_state)

    def launch(self, app_id: str) -> None:
        """Bring ``app_id`` to the front where it was left (its root if not started).

        The launcher's search closes: HOME comes back to its page.
        """
        app = self.app(app_id)
        if app_id not in self.stacks:
            self.stacks[app_id] = [Entry(app.home)]
        self.foreground = app_id
        launcher.close_search(self.launcher)

    def push(self, app_id: str, route: str, params: tuple = ()) -> None:
        """Open a screen; a bottom-navigation root replaces the whole stack.

        The screen in front is not opened again on top of itself (a post's comment count
        on the post's page, an author on their own profile): nothing changes.
        """
        app = self.app(app_id)
        app.check_params(route, params)
        screen = app.screen(route)
        stack = self.stacks[app_id]
        if screen.tab:
            stack[:] = [Entry(route, params)]
        elif not stack or (stack[-1].route, sorted(stack[-1].params)) != (route, sorted(params)):
            tab = (stack[-1].tab or stack[-1].route) if stack else ""  # the opener's tab
            stack.append(Entry(route, params, tab=tab))

    def replace(self, route: str, params: tuple = ()) -> None:
        """Swap the screen in front for another (a tab or filter switched in place)."""
        self.stacks[self.foreground].pop()
        self.push(self.foreground, route, params)

    def back(self) -> str:
        """The BACK key: hide the keyboard, else close the top screen, else leave the app.

        On the launcher it hides the keyboard, else closes the search.
        """
        front = self.front()
        if front.keyboard:
            front.keyboard = False
            return "keyboard hidden"
        if self.foreground is None:
            return "" if launcher.close_search(self.launcher) else "already home"
        return self.close_top()

    def close_top(self) -> str:
        """Close the screen in front (an in-app up or cancel); the root closes the app."""
        if self.foreground is None:
            return "already home"
        stack = self.stacks[self.foreground]
        stack.pop()
        if not stack:
            del self.stacks[self.foreground]
            self.foreground = None
        return ""

    def stop(self, app_id: str) -> None:
        """Drop ``app_id``'s stack (its data stays): it starts at its root when launched.

        The launcher shows if it was in front.

        Raises:
            UnknownRouteError: When no such app is installed.
        """
        self.app(app_id)
        self.stacks.pop(app_id, None)
        if self.foreground == app_id:
            self.foreground = None

    def home(self) -> str:
        """HOME: show the launcher; apps keep their stacks.

        Pressed on the launcher, it closes the search and goes back to the first page.
        """
        if self.foreground is not None:
            self.foreground = None
            return ""
        closed = launcher.close_search(self.launcher)
        turned = any(self.launcher.scroll.values())
        if turned:
            self.launcher.scroll.clear()
        return "" if closed or turned else "already home"

    def layers(self) -> list[Entry]:
        """The screens drawn in front: the top full screen and the overlays above it."""
        app, stack = self.apps[self.foreground], self.stacks[self.foreground]
        base = len(stack) - 1
        while base > 0 and app.screen(stack[base].route).overlay:
            base -= 1
        return stack[base:]

    def signature(self) -> tuple:
        """Everything an action can change: a different signature means it had an effect.

        Actions change the UI state of the screen in front only, so the screens below count
        by identity (pushed, popped or replaced) and only the top one by its state; the cost
        does not grow with the depth of the stack.
        """
        fg = self.foreground
        if fg is None:
            return (None, self.launcher.key())
        stack = self.stacks[fg]
        return (fg, self.versions[fg], tuple(stack), stack[-1].key())

    def view_key(self) -> tuple | None:
        """What the app window's look depends on (``None`` on the launcher)."""
        fg = self.foreground
        if fg is None:
            return None
        return (fg, self.versions[fg], tuple(e.key() for e in self.layers()))


class Nav:
    """What an app's intent handler may touch: its own back stack and its data.

    App data is immutable; a handler changes it by giving ``state`` a new value (or with
    :meth:`update`). The phone compares the state before and after each handler, so no
    handler has to report a change. UI state (fields, scroll) a handler may change is the
    screen in front's, ``stack[-1]``.

    Attributes:
        clock: The phone's simulated time.
        stack: The app's back stack, top last.
    """

    def __init__(self, stacks: BackStacks, states: dict[str, Any], app_id: str,
                 clock: datetime) -> None:
        self._stacks, self._states, self._app_id = stacks, states, app_id
        self._type = stacks.app(app_id).state_type
        self.clock = clock
        self.stack = stacks.stacks[app_id]

    @property
    def state(self) -> Any:
        """The app's data."""
        return self._states[self._app_id]

    @state.setter
    def state(self, value: Any) -> None:
        if not isinstance(value, self._type):
            raise InvalidStateError(f"state of app {self._app_id!r} must be a "
                                    f"{self._type.__name__}, got {type(value).__name__}")
        self._states[self._app_id] = value

    def update(self, **changes: Any) -> None:
        """Replace fields of the app's data (``dataclasses.replace``)."""
        self.state = dataclasses.replace(self.state, **changes)

    def push(self, route: str, **params: Any) -> None:
        """Open a screen on top of the current one."""
        self._stacks.push(self._app_id, route, tuple(sorted(params.items())))

    def pop(self, count: int = 1) -> None:
        """Close ``count`` screens; the root stays, so a deep-linked flow closes onto it."""
        del self.stack[max(1, len(self.stack) - count):]

"""Weather: home (greeting + pinned place), Saved places, a place's forecast, a menu sheet."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from mobileintent_gym.phone import overlays, ui, widgets
from mobileintent_gym.phone.app import App, Entry, Screen
from mobileintent_gym.phone.backstack import Nav
from mobileintent_gym.phone.paint import Avatar
from mobileintent_gym.phone.ui import Node
from mobileintent_gym.phone.widgets import Ctx, Theme
from mobileintent_gym.users.pair import random_state
from weather_app import icon, tour
from weather_app.content import CONTEXTS, build_state
from weather_app.ids import APP, PACKAGE, Desc, Rid, Route, Text
from weather_app.state import Place, WeatherState

_NAV = (("Today", "home", ("open", Route.HOME), "", Rid.NAV_HOME),
        (Desc.SAVED, "library", ("open", Route.SAVED), "", Rid.NAV_SAVED))
_DAYS = ("Tue", "Wed", "Thu", "Fri", "Sat")


class WeatherApp(App):
    id = APP
    package = PACKAGE
    label = "Weather"
    icon = staticmethod(icon.draw)
    color = (66, 133, 244)
    theme = Theme(background=(240, 246, 255), surface=(255, 255, 255), text=(20, 30, 50),
                  muted=(100, 115, 140), accent=(33, 110, 230), bar=(225, 236, 252),
                  divider=(205, 215, 232))
    home = Route.HOME
    state_type = WeatherState
    routes: ClassVar[dict[str, Screen]] = {
        Route.HOME: Screen("home_screen", tab=True),
        Route.SAVED: Screen("saved_screen", tab=True),
        Route.PLACE: Screen("place_screen", params=("id",)),
        Route.PLACE_MENU: Screen("place_menu", overlay=True, params=("id",)),
    }
    tour = tour.STEPS

    def initial_state(self, seed: int) -> WeatherState:
        return random_state(CONTEXTS, build_state, APP, seed)

    def samples(self, state: WeatherState) -> Mapping[str, Mapping[str, Any]]:
        place = {"id": state.saved[0]}
        return {Route.PLACE: place, Route.PLACE_MENU: place}

    def _frame(self, ctx: Ctx, tab: int) -> tuple[Node, ui.Column]:
        root, col = widgets.page(ctx, "root")
        root.add(widgets.bottom_nav(ctx, col.take_bottom(ctx.dp(64)), _NAV, tab))
        return root, col

    def _row(self, ctx: Ctx, rect, place: Place) -> Node:
        menu = ("open", Route.PLACE_MENU, (("id", place.id),))
        return widgets.list_row(
            ctx, rect, place.name, f"{place.country} • {place.condition}",
            thumb=Avatar(place.id, place.name, ctx.theme.background),
            on_click=("open", Route.PLACE, (("id", place.id),)), on_long_click=menu,
            entity=place.id, rid=Rid.PLACE, meta=f"{place.temp}°",
            trailing=("more", f"More options for {place.name}", menu))

    def home_screen(self, ctx: Ctx, entry: Entry, state: WeatherState) -> Node:
        root, col = self._frame(ctx, 0)
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(64)), "Weather", back=False, large=True))
        first = state.owner.split()[0]
        root.add(widgets.text(ctx, ui.inset(col.take(ctx.dp(40)), ctx.dp(16), 0),
                              f"Good {ctx.daytime}, {first}", 18, rid=Rid.GREETING))
        items = []
        if state.pinned:
            p = state.places[state.pinned]
            items.append((ctx.dp(56), lambda r: widgets.section_header(ctx, r, "Pinned")))
            items.append((ctx.dp(72), lambda r, p=p: self._row(ctx, r, p)))
        items.append((ctx.dp(56), lambda r: widgets.section_header(ctx, r, "Your places")))
        items += [(ctx.dp(72), lambda r, p=state.places[i]: self._row(ctx, r, p))
                  for i in state.saved[:3]]
        root.add(self.scroll(entry, col.rest(), Rid.FEED, items))
        return root

    def saved_screen(self, ctx: Ctx, entry: Entry, state: WeatherState) -> Node:
        root, col = self._frame(ctx, 1)
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(64)), Desc.SAVED, back=False, large=True))
        items = [(ctx.dp(72), lambda r, p=state.places[i]: self._row(ctx, r, p))
                 for i in state.saved]
        root.add(self.scroll(entry, col.rest(), Rid.PLACES, items))
        return root

    def place_screen(self, ctx: Ctx, entry: Entry, state: WeatherState) -> Node:
        place = state.places[entry.param("id")]
        root, col = self._frame(ctx, 1)
        pinned = state.pinned == place.id
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(64)), place.name, entity=place.id))
        root.add(widgets.text(ctx, ui.inset(col.take(ctx.dp(96)), ctx.dp(24), 0),
                              f"{place.temp}°", 56, bold=True, rid=Rid.TEMP))
        root.add(widgets.text(ctx, ui.inset(col.take(ctx.dp(32)), ctx.dp(24), 0),
                              f"{place.condition.capitalize()} in {place.country}", 16,
                              color=ctx.theme.muted, rid=Rid.CONDITION))
        for day, t in zip(_DAYS, place.forecast, strict=True):
            root.add(widgets.list_row(ctx, col.take(ctx.dp(52)), day, meta=f"{t}°",
                                      rid="day"))
        pin = widgets.button(ctx, ui.inset(col.take(ctx.dp(72)), ctx.dp(24), ctx.dp(12)),
                             "Pinned" if pinned else Text.PIN, ("pin", place.id),
                             rid=Rid.PIN, primary=not pinned)
        pin.checkable, pin.checked = True, pinned
        root.add(pin)
        return root

    def place_menu(self, ctx: Ctx, entry: Entry, state: WeatherState) -> Node:
        place = state.places[entry.param("id")]
        return overlays.bottom_sheet(ctx, place.name, [
            (Text.PIN, "plus", ("pin", place.id), Rid.PIN),
            ("Remove", "close", ("remove", place.id), "remove")],
            header=Avatar(place.id, place.name, ctx.theme.surface), entity=place.id)

    def on_pin(self, nav: Nav, place_id: str) -> None:
        nav.update(pinned=place_id)
        if nav.stack[-1].route == Route.PLACE_MENU:
            nav.pop()

    def on_remove(self, nav: Nav, place_id: str) -> None:
        s = nav.state
        nav.update(saved=tuple(p for p in s.saved if p != place_id),
                   pinned=None if s.pinned == place_id else s.pinned)
        nav.pop()

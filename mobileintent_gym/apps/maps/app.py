"""Maps: a map and navigation app that mirrors Google Maps' structure.

Routes (names in :mod:`.ids`): three tabs — ``maps/explore`` (the map with a search bar,
category chips, pins of saved places and, while navigating, a banner to resume),
``maps/go`` (recent trips) and ``maps/saved`` (saved places) — and ``maps/search``
(a search field over the recent searches: places, then food and drink; typing lists the
matches), ``maps/place?id=`` (place details: map, rating, hours, Directions and Save) and
``maps/directions?id=`` (a route preview by travel mode; Start navigates) in
:mod:`.place`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, ClassVar

from mobileintent_gym.apps.maps import glyphs, icon, tour
from mobileintent_gym.apps.maps.content import CONTEXTS, build_state
from mobileintent_gym.apps.maps.ids import APP, PACKAGE, Desc, Rid, Route, Text
from mobileintent_gym.apps.maps.intents import MapsIntents
from mobileintent_gym.apps.maps.mapview import LAND, Mark, grid, map_view
from mobileintent_gym.apps.maps.place import PlaceScreens
from mobileintent_gym.apps.maps.search import SearchScreen
from mobileintent_gym.apps.maps.state import (
    MODES,
    MapsState,
    Place,
    duration,
    kilometres,
    minutes,
)
from mobileintent_gym.phone import ui, widgets
from mobileintent_gym.phone.app import App, Entry, Screen
from mobileintent_gym.phone.paint import Avatar, Icon, Round, text_width
from mobileintent_gym.phone.ui import Column, Node, Rect
from mobileintent_gym.phone.widgets import Ctx, Theme
from mobileintent_gym.users.pair import random_state

_NAV = ((Desc.EXPLORE, "discover", ("open", Route.EXPLORE), "", Rid.NAV_EXPLORE),
        ("Go", glyphs.car, ("open", Route.GO), "", Rid.NAV_GO),
        (Text.SAVED, glyphs.bookmark, ("open", Route.SAVED), "", Rid.NAV_SAVED))
# Category chips: (label, what a tap searches for).
CHIPS = (("Restaurants", "restaurant"), ("Cafés", "café"), ("Museums", "museum"),
         ("Hotels", "hotel"), ("Markets", "market"))
_WHITE = (255, 255, 255)
_SAVED_COLOR, _TRIP_COLOR, _GREEN = (15, 157, 88), (26, 115, 232), (24, 128, 56)
_MODE_GLYPHS = {"drive": glyphs.car, "transit": glyphs.bus, "walk": glyphs.walker,
                "bike": glyphs.bicycle}  # a recent trip's icon: how the user goes there


class MapsApp(MapsIntents, SearchScreen, PlaceScreens, App):
    """The maps app."""

    id = APP
    package = PACKAGE
    label = "Maps"
    icon = staticmethod(icon.draw)
    color = (26, 115, 232)
    theme = Theme(background=(255, 255, 255), surface=(241, 243, 244), text=(32, 33, 36),
                  muted=(95, 99, 104), accent=(26, 115, 232), bar=(255, 255, 255),
                  divider=(218, 220, 224))
    home = Route.EXPLORE
    state_type = MapsState
    routes: ClassVar[dict[str, Screen]] = {
        Route.EXPLORE: Screen("explore_screen", tab=True),
        Route.GO: Screen("go_screen", tab=True),
        Route.SAVED: Screen("saved_screen", tab=True),
        Route.SEARCH: Screen("search_screen"),
        Route.PLACE: Screen("place_screen", params=("id",)),
        Route.DIRECTIONS: Screen("directions_screen", params=("id",)),
    }
    tour = tour.STEPS

    def initial_state(self, seed: int) -> MapsState:
        """Built-in content for ``seed``."""
        return random_state(CONTEXTS, build_state, APP, seed)

    def samples(self, state: MapsState) -> Mapping[str, Mapping[str, Any]]:
        """Parameters that open each parametrised route on ``state``."""
        return {Route.PLACE: {"id": state.recent[0]}, Route.DIRECTIONS: {"id": state.food[0]}}

    def _tab(self, ctx: Ctx, tab: int) -> tuple[Node, Column]:
        root, col = widgets.page(ctx, "root")
        root.add(widgets.bottom_nav(ctx, col.take_bottom(ctx.dp(64)), _NAV, tab))
        return root, col

    def explore_screen(self, ctx: Ctx, entry: Entry, state: MapsState) -> Node:
        """The map around you, a search bar and chips over it, pins of saved places."""
        root, col = self._tab(ctx, 0)
        area = col.rest()
        g = grid(ctx, area, "explore")
        me = (g.cols // 2, g.rows // 2)
        marks = [Mark(me, "me")] + [
            Mark(cell, "pin", state.places[p].name, p, ("open", Route.PLACE, (("id", p),)))
            for cell, p in zip(_spots(g.cols, g.rows, me), state.saved, strict=False)]
        root.add(map_view(ctx, area, "explore", marks))
        over = Column(ui.inset(area, ctx.dp(12), ctx.dp(12)))
        root.add(self._search_bar(ctx, over.take(ctx.dp(52))))
        over.take(ctx.dp(10))
        root.add(self._chips(ctx, entry, over.take(ctx.dp(36))))
        if state.navigating:
            root.add(self._banner(ctx, over.take_bottom(ctx.dp(76)),
                                  state.places[state.navigating], state))
        return root

    def _search_bar(self, ctx: Ctx, rect: Rect) -> Node:
        t = ctx.theme
        bar = Node(ui.LINEAR, rect, resource_id=ctx.rid(Rid.SEARCH_BAR), desc=Text.SEARCH_HINT,
                   on_click=("open", Route.SEARCH),
                   paint=Round(_WHITE, LAND, ctx.dp(26), outline=t.divider))
        glass, label = ui.split_row(ui.inset(rect, ctx.dp(8), ctx.dp(4)), [ctx.dp(40), None])
        return bar.add(Node(ui.IMAGE_VIEW, glass, paint=Icon("search", t.muted, _WHITE,
                                                             ctx.dp(22))),
                       widgets.text(ctx, label, Text.SEARCH_HINT, 16, color=t.muted,
                                    under=_WHITE))

    def _chips(self, ctx: Ctx, entry: Entry, rect: Rect) -> Node:
        """Category chips in a row that scrolls sideways; a tap searches for the category."""
        pad, size, gap = ctx.dp(14), ctx.dp(14), ctx.dp(8)

        def chip(name: str, query: str, frame: Rect) -> Node:
            return Node(ui.BUTTON, (frame[0], frame[1], frame[2] - gap, frame[3]), text=name,
                        resource_id=ctx.rid(Rid.CHIP), on_click=("category", query),
                        paint=Round(_WHITE, LAND, ctx.dp(18), name, ctx.theme.text, size,
                                    outline=ctx.theme.divider))

        items = [(text_width(name, size, True) + 2 * pad + gap,
                  functools.partial(chip, name, query)) for name, query in CHIPS]
        return ui.scroll_list(rect, "chips", items, entry.scroll.get("chips", 0),
                              ctx.rid("chips"), axis=0)

    def _banner(self, ctx: Ctx, rect: Rect, place: Place, state: MapsState) -> Node:
        """While navigating: where to, how long, and Resume."""
        card = Node(ui.LINEAR, rect, resource_id=ctx.rid(Rid.NAV_BANNER), entity=place.id,
                    paint=Round(_GREEN, LAND, ctx.dp(16)))
        body, button = ui.split_row(ui.inset(rect, ctx.dp(16), ctx.dp(10)), [None, ctx.dp(104)])
        lines = Column(body)
        green = _GREEN
        card.add(widgets.text(ctx, lines.take(ctx.dp(30)), f"Navigating to {place.name}", 16,
                              bold=True, color=_WHITE, under=green),
                 widgets.text(ctx, lines.rest(), f"{duration(minutes(place, state.mode))} · "
                              f"{kilometres(place.distance)}", 14, color=_WHITE, under=green))
        resume = widgets.button(ctx, ui.inset(button, 0, ctx.dp(6)), "Resume",
                                ("open", Route.DIRECTIONS, (("id", place.id),)), rid=Rid.RESUME,
                                under=green)
        resume.paint = Round(_WHITE, green, ctx.dp(24), "Resume", green, ctx.dp(15))
        return card.add(resume)

    def go_screen(self, ctx: Ctx, entry: Entry, state: MapsState) -> Node:
        """Recent trips: each destination with its time by the chosen mode."""
        root, col = self._tab(ctx, 1)
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(64)), "Go", back=False, large=True))
        root.add(widgets.section_header(ctx, col.take(ctx.dp(48)), "Recent trips"))
        items = [(ctx.dp(72), lambda r, p=state.places[i]: self._trip_row(ctx, r, p, state))
                 for i in state.trips]
        root.add(self._listing(ctx, entry, col.rest(), Rid.TRIPS, items,
                               "No trips yet. Ask a place for directions and it shows here."))
        return root

    def _trip_row(self, ctx: Ctx, rect: Rect, place: Place, state: MapsState) -> Node:
        how = next(m[2] for m in MODES if m[0] == state.mode)
        row = widgets.list_row(
            ctx, rect, place.name,
            f"{duration(minutes(place, state.mode))} {how} · {place.address}",
            thumb=Avatar("trip", "Trip", ctx.theme.background, glyph=_MODE_GLYPHS[state.mode],
                         color=_TRIP_COLOR),
            on_click=("directions", place.id), entity=place.id, rid=Rid.TRIP,
            highlight=state.navigating == place.id)
        return row.add(widgets.divider(ctx, rect))

    def saved_screen(self, ctx: Ctx, entry: Entry, state: MapsState) -> Node:
        """Saved places, newest first."""
        root, col = self._tab(ctx, 2)
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(64)), Text.SAVED, back=False, large=True))
        count = len(state.saved)
        root.add(widgets.section_header(
            ctx, col.take(ctx.dp(48)), widgets.counted(count, "saved place")))
        items = [(ctx.dp(72), lambda r, p=state.places[i]: self._place_row(
            ctx, r, p, Rid.SAVED_PLACE, Avatar("saved", Text.SAVED, ctx.theme.background,
                                               glyph=glyphs.bookmark, color=_SAVED_COLOR)))
            for i in state.saved]
        root.add(self._listing(ctx, entry, col.rest(), Rid.SAVED_LIST, items,
                               "Nothing saved yet. Tap Save on a place to keep it here."))
        return root

    def _listing(self, ctx: Ctx, entry: Entry, rect: Rect, key: str, items: list,
                 empty: str) -> Node:
        """A scrolling list, or a line saying why it is empty."""
        if items:
            return self.scroll(entry, rect, key, items)
        return widgets.paragraph(ctx, ui.inset(rect, ctx.dp(24), ctx.dp(24)), empty, 15,
                                 color=ctx.theme.muted, rid=Rid.EMPTY)



def _spots(cols: int, rows: int, me: tuple[int, int]) -> list[tuple[int, int]]:
    """Blocks for saved places' pins, one each: four spread around you, then the nearest.

    All below the search bar and chips (from the third row) and above the last row: a
    small screen's grid moves the four inwards (they were dropped, so 320x480 showed one
    pin of three) and a fifth place takes the next block. Rows of their own come first,
    so that no name drawn beside a pin runs into the next pin.
    """
    top = min(2, rows - 1)
    bottom = max(top, rows - 2)

    def inside(c: int, r: int) -> tuple[int, int]:
        return min(max(c, 0), cols - 1), min(max(r, top), bottom)

    spread = [inside(c, r) for c, r in ((0, rows // 2 - 2), (cols - 2, rows // 2 + 1),
                                        (1, rows // 2 + 3), (cols - 1, rows // 2 - 3))]
    near = sorted(((c, r) for r in range(top, bottom + 1) for c in range(cols)),
                  key=lambda cell: (abs(cell[0] - me[0]) + abs(cell[1] - me[1]), cell))
    cells = [cell for cell in dict.fromkeys([*spread, *near]) if cell != me]
    firsts: dict[int, tuple[int, int]] = {}  # row -> its first block, in the order of cells
    for cell in cells:
        firsts.setdefault(cell[1], cell)
    return list(dict.fromkeys([*firsts.values(), *cells]))

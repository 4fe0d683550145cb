"""The maps app's place details and directions screens.

:class:`~mobileintent_gym.apps.maps.app.MapsApp` takes them as a mixin (they use
``App.scroll``). A place shows its map, rating, category, hours, address and what it is
about, with Directions, Save and Share; directions show the route from your location by
each travel mode, as a preview until Start begins navigating.
"""

from __future__ import annotations

from mobileintent_gym.apps.maps import glyphs
from mobileintent_gym.apps.maps.ids import Rid, Text
from mobileintent_gym.apps.maps.mapview import Mark, grid, map_view
from mobileintent_gym.apps.maps.state import MODES, MapsState, Place, duration, kilometres, minutes
from mobileintent_gym.phone import ui, widgets
from mobileintent_gym.phone.app import Entry
from mobileintent_gym.phone.paint import Avatar, Fill, Icon, text_width
from mobileintent_gym.phone.ui import Column, Node, Rect
from mobileintent_gym.phone.widgets import Ctx

_STAR, _NO_STAR, _OPEN = (251, 188, 4), (218, 220, 224), (24, 128, 56)
_ROW_THUMBS = {Rid.ADDRESS: (glyphs.pin, (221, 60, 48)),
               Rid.HOURS: (glyphs.clock, (95, 99, 104))}


class PlaceScreens:
    """Place details and directions (a mixin of the maps app)."""

    def place_screen(self, ctx: Ctx, entry: Entry, state: MapsState) -> Node:
        """A place's details: its map, name, rating, facts, actions and what it is about."""
        place = state.places[entry.param("id")]
        t = ctx.theme
        root, col = widgets.page(ctx, "place")
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(56)), place.name, entity=place.id,
                                 actions=[("share", "Share", ("noop",))]))
        pad = ctx.dp(16)
        saved = place.id in state.saved
        about_h = widgets.text_height(ctx, place.about, 15, ctx.width - 2 * pad) + ctx.dp(24)
        items = [
            (ctx.dp(200), lambda r: self._place_map(ctx, r, place)),
            (ctx.dp(44), lambda r: widgets.text(ctx, ui.inset(r, pad, 0), place.name, 22,
                                                bold=True, rid=Rid.PLACE_NAME, entity=place.id)),
            (ctx.dp(28), lambda r: self._rating(ctx, ui.inset(r, pad, 0), place)),
            (ctx.dp(26), lambda r: widgets.text(
                ctx, ui.inset(r, pad, 0), " · ".join(filter(None, (
                    place.category, kilometres(place.distance), place.price))), 14,
                color=t.muted, rid=Rid.SUBTITLE)),
            (ctx.dp(72), lambda r: self._actions(ctx, ui.inset(r, pad, ctx.dp(12)), place,
                                                 saved)),
            (ctx.dp(72), lambda r: self._fact(ctx, r, place.address, "Address", Rid.ADDRESS)),
            (ctx.dp(72), lambda r: self._fact(ctx, r, place.hours, "Hours", Rid.HOURS)),
            (ctx.dp(48), lambda r: widgets.section_header(ctx, r, "About")),
            (about_h, lambda r: widgets.paragraph(ctx, ui.inset(r, pad, 0), place.about, 15,
                                                  rid=Rid.ABOUT)),
        ]
        root.add(self.scroll(entry, col.rest(), Rid.PLACE_INFO, items))
        return root

    def _place_map(self, ctx: Ctx, rect: Rect, place: Place) -> Node:
        g = grid(ctx, rect, place.id)
        return map_view(ctx, rect, place.id, [Mark((g.cols // 2, g.rows // 2), "pin",
                                                   place.name, place.id)])

    def _rating(self, ctx: Ctx, rect: Rect, place: Place) -> Node:
        """The rating as a number, five stars and the number of reviews."""
        t = ctx.theme
        row = Node(ui.LINEAR, rect, resource_id=ctx.rid(Rid.RATING),
                   desc=f"Rated {place.rating:.1f} of 5 by {place.reviews:,} reviewers")
        score = f"{place.rating:.1f}"
        x = rect[0] + text_width(score, ctx.dp(14)) + ctx.dp(6)
        row.add(widgets.text(ctx, (rect[0], rect[1], x, rect[3]), score, 14))
        side = ctx.dp(16)
        for k in range(5):
            lit = place.rating >= k + 0.75
            row.add(Node(ui.IMAGE_VIEW, (x, rect[1], x + side, rect[3]),
                         paint=Icon(glyphs.star, _STAR if lit else _NO_STAR, t.background,
                                    side)))
            x += side + ctx.dp(1)
        row.add(widgets.text(ctx, (x + ctx.dp(6), rect[1], rect[2], rect[3]),
                             f"({place.reviews:,})", 14, color=t.muted))
        return row

    def _actions(self, ctx: Ctx, rect: Rect, place: Place, saved: bool) -> Node:
        """Directions, Save (Saved once saved) and Share."""
        row = Node(ui.LINEAR, rect)
        cells = ui.split_row(rect, [None, None, None])
        gap = ctx.dp(4)
        save = widgets.button(ctx, ui.inset(cells[1], gap, 0), Text.SAVED if saved else Text.SAVE,
                              ("save", place.id), rid=Rid.SAVE, primary=False)
        save.checkable, save.checked, save.entity = True, saved, place.id
        return row.add(
            widgets.button(ctx, ui.inset(cells[0], gap, 0), Text.DIRECTIONS,
                           ("directions", place.id), rid=Rid.DIRECTIONS),
            save,
            widgets.button(ctx, ui.inset(cells[2], gap, 0), "Share", ("noop",), rid=Rid.SHARE,
                           primary=False))

    def _fact(self, ctx: Ctx, rect: Rect, value: str, what: str, rid: str) -> Node:
        glyph, color = _ROW_THUMBS[rid]
        row = widgets.list_row(ctx, rect, value, what, rid=rid,
                               thumb=Avatar(rid, what, ctx.theme.background, glyph=glyph,
                                            color=color))
        return row.add(widgets.divider(ctx, rect))

    def directions_screen(self, ctx: Ctx, entry: Entry, state: MapsState) -> Node:
        """From your location to the place: travel modes, the route, preview or navigating."""
        place = state.places[entry.param("id")]
        t = ctx.theme
        root, col = widgets.page(ctx, "directions")
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(56)), Text.DIRECTIONS, entity=place.id))
        root.add(widgets.list_row(ctx, col.take(ctx.dp(56)), "Your location", rid=Rid.ORIGIN,
                                  thumb=Avatar("origin", "Me", t.background, glyph=glyphs.dot,
                                               color=t.accent)),
                 widgets.list_row(ctx, col.take(ctx.dp(56)), place.name, place.address,
                                  rid=Rid.DESTINATION, entity=place.id,
                                  thumb=Avatar("destination", "To", t.background,
                                               glyph=glyphs.pin, color=(221, 60, 48))))
        root.add(self._modes(ctx, col.take(ctx.dp(60)), place, state.mode))
        navigating = state.navigating == place.id
        root.add(self._trip_panel(ctx, col.take_bottom(ctx.dp(152)), place, state, navigating))
        area = col.rest()
        g = grid(ctx, area, place.id)
        start, end = (0, max(0, g.rows - 1)), (max(0, g.cols - 1), 0)
        root.add(map_view(ctx, area, place.id, [Mark(start, "me"),
                                                 Mark(end, "pin", place.name, place.id)],
                          route=(start, end)))
        return root

    def _modes(self, ctx: Ctx, rect: Rect, place: Place, mode: str) -> Node:
        """The travel modes with their times; the chosen one underlined."""
        t = ctx.theme
        bar = Node(ui.TAB_LAYOUT, rect, resource_id=ctx.rid(widgets.TABS))
        for cell, (key, label, *_) in zip(ui.split_row(rect, [None] * len(MODES)), MODES,
                                            strict=True):
            chosen = key == mode
            color = t.accent if chosen else t.muted
            tab = Node(ui.LINEAR, cell, resource_id=ctx.rid(Rid.MODE), desc=label,
                       selected=chosen, on_click=("mode", key))
            lines = Column(ui.inset(cell, ctx.dp(4), ctx.dp(6)))
            tab.add(widgets.text(ctx, lines.take(ctx.dp(20)), label, 13, color=color,
                                 align="center"),
                    widgets.text(ctx, lines.take(ctx.dp(24)), duration(minutes(place, key)),
                                 15, bold=True, color=color, align="center"))
            if chosen:
                tab.add(Node(ui.VIEW_GROUP, (cell[0] + ctx.dp(16), cell[3] - ctx.dp(3),
                                             cell[2] - ctx.dp(16), cell[3]),
                             paint=Fill(t.accent)))
            bar.add(tab)
        return bar

    def _trip_panel(self, ctx: Ctx, rect: Rect, place: Place, state: MapsState,
                    navigating: bool) -> Node:
        """How long the trip takes, whether it is a preview or under way, Start or End."""
        t = ctx.theme
        panel = Node(ui.LINEAR, rect)
        lines = Column(ui.inset(rect, ctx.dp(16), ctx.dp(12)))
        took = duration(minutes(place, state.mode))
        panel.add(widgets.text(ctx, lines.take(ctx.dp(34)),
                               f"{took} ({kilometres(place.distance)})", 22, bold=True,
                               color=_OPEN, rid=Rid.ROUTE_SUMMARY),
                  widgets.text(ctx, lines.take(ctx.dp(26)),
                               f"Navigating · arrive in {took}" if navigating
                               else "Route preview · fastest route now", 14, color=t.muted,
                               rid=Rid.ROUTE_STATUS))
        lines.take(ctx.dp(8))
        button = ui.inset(lines.take(ctx.dp(52)), 0, ctx.dp(2))
        panel.add(widgets.button(ctx, button, "End" if navigating else Text.START,
                                 ("end",) if navigating else ("start", place.id),
                                 rid=Rid.END if navigating else Rid.START,
                                 primary=not navigating))
        return panel

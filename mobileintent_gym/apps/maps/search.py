"""The maps app's search screen: a search field over the recent searches.

:class:`~mobileintent_gym.apps.maps.app.MapsApp` takes it as a mixin (it uses
``App.scroll``). With the field empty the screen lists the recent searches, places first
and then food and drink, each section newest first; typing lists the places whose name,
category or address holds the text, and picking one puts it back on top of its section.
"""

from __future__ import annotations

from mobileintent_gym.apps.maps import glyphs
from mobileintent_gym.apps.maps.ids import Rid, Route, Text
from mobileintent_gym.apps.maps.state import MapsState, Place, kilometres
from mobileintent_gym.phone import ui, widgets
from mobileintent_gym.phone.app import Entry
from mobileintent_gym.phone.characters import folded
from mobileintent_gym.phone.paint import Avatar, Fill
from mobileintent_gym.phone.ui import Intent, Node, Rect
from mobileintent_gym.phone.widgets import Ctx

_HISTORY, _PIN = (154, 160, 166), (221, 60, 48)  # a recent search's clock, a result's pin


class SearchScreen:
    """The search screen and the place rows the app's lists share (a mixin)."""

    def _place_row(self, ctx: Ctx, rect: Rect, place: Place, rid: str, thumb: Avatar,
                   intent: Intent | None = None) -> Node:
        """A place: name, category and address, distance; a tap opens its details."""
        row = widgets.list_row(
            ctx, rect, place.name, f"{place.category} · {place.address}", thumb=thumb,
            on_click=intent or ("open", Route.PLACE, (("id", place.id),)), entity=place.id,
            rid=rid, meta=kilometres(place.distance))
        return row.add(widgets.divider(ctx, rect))

    def search_screen(self, ctx: Ctx, entry: Entry, state: MapsState) -> Node:
        """The search field, then recent searches or, once something is typed, matches."""
        t = ctx.theme
        root, col = widgets.page(ctx, "search")
        top = col.take(ctx.dp(72))
        bar = Node(ui.TOOLBAR, top, resource_id=ctx.rid(Rid.TOOLBAR), paint=Fill(t.bar))
        up, field = ui.split_row(top, [ctx.dp(56), None])
        query = entry.fields.get("query", "")
        bar.add(widgets.icon_button(ctx, up, "back", "Navigate up", ("back",), rid="up"),
                widgets.text_field(ctx, ui.inset(field, ctx.dp(4), ctx.dp(10)), "query", query,
                                   Text.SEARCH_HINT, focused=entry.focus == "query",
                                   on_submit=("noop",), rid=Rid.SEARCH_FIELD))
        root.add(bar, widgets.divider(ctx, top))
        row_h = ctx.dp(72)
        needle = folded(query)
        if needle:
            found = [p for p in state.places.values()
                     if any(needle in folded(s) for s in (p.name, p.category, p.address))]
            thumb = Avatar("result", "Place", t.background, glyph=glyphs.pin, color=_PIN)
            items = [(row_h, lambda r, p=p: self._place_row(ctx, r, p, Rid.RESULT, thumb,
                                                            ("pick", p.id))) for p in found]
            if not items:
                items = [(ctx.dp(64), lambda r: widgets.text(
                    ctx, ui.inset(r, ctx.dp(16), 0), f'No places match "{query.strip()}"', 15,
                    color=t.muted, rid=Rid.EMPTY))]
        else:
            items = self._history(ctx, state, row_h)
        root.add(self.scroll(entry, col.rest(), Rid.HISTORY, items))
        return root

    def _history(self, ctx: Ctx, state: MapsState, row_h: int) -> list:
        """Both sections of recent searches, with a header each."""
        items: list = []
        for title, ids in ((Text.RECENT, state.recent), (Text.FOOD, state.food)):
            items.append((ctx.dp(52), lambda r, title=title: widgets.section_header(
                ctx, r, title, rid=Rid.SECTION)))
            items += [(row_h, lambda r, p=state.places[i]: self._place_row(
                ctx, r, p, Rid.RECENT, Avatar("recent", Text.RECENT, ctx.theme.background,
                                              glyph=glyphs.clock, color=_HISTORY)))
                for i in ids]
        return items

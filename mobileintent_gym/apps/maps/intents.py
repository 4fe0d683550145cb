"""What the maps app's controls do to its data: its intent handlers.

:class:`~mobileintent_gym.apps.maps.app.MapsApp` takes them as a mixin. The state is
immutable: each handler gives ``nav`` a new one, and the phone notices the change.
"""

from __future__ import annotations

from mobileintent_gym.apps.maps.ids import Route
from mobileintent_gym.apps.maps.state import MapsState
from mobileintent_gym.phone.backstack import Nav
from mobileintent_gym.phone.state import toggled


def _first(ids: tuple[str, ...], place_id: str) -> tuple[str, ...]:
    """``ids`` with ``place_id`` moved (or added) to the front."""
    return (place_id, *(i for i in ids if i != place_id))


class MapsIntents:
    """The ``on_<intent>`` handlers of the maps app (see :meth:`App.handle`)."""

    def on_category(self, nav: Nav, name: str) -> None:
        """A category chip: search for the category."""
        nav.push(Route.SEARCH)
        nav.stack[-1].fields["query"] = name

    def on_pick(self, nav: Nav, place_id: str) -> None:
        """Open a search result; it goes to the top of its section of recent searches."""
        state: MapsState = nav.state
        if state.places[place_id].food:
            nav.update(food=_first(state.food, place_id))
        else:
            nav.update(recent=_first(state.recent, place_id))
        nav.push(Route.PLACE, id=place_id)

    def on_save(self, nav: Nav, place_id: str) -> None:
        """Save a place (newest first), or unsave a saved one."""
        nav.update(saved=toggled(nav.state.saved, place_id))

    def on_directions(self, nav: Nav, place_id: str) -> None:
        """Ask for directions: the place tops the recent trips and the route opens."""
        nav.update(trips=_first(nav.state.trips, place_id))
        nav.push(Route.DIRECTIONS, id=place_id)

    def on_mode(self, nav: Nav, mode: str) -> None:
        """Choose the travel mode directions are given for."""
        nav.update(mode=mode)

    def on_start(self, nav: Nav, place_id: str) -> None:
        """Start navigating to the place."""
        nav.update(navigating=place_id)

    def on_end(self, nav: Nav) -> None:
        """Stop navigating."""
        nav.update(navigating=None)

    def on_noop(self, nav: Nav) -> None:
        """A control this simulation does not model: it does nothing, as a stub app would."""

"""The maps app's names: routes, resource ids and PAIR context keys.

Its screens and its task templates both import them, so a rename cannot leave one behind.
"""

from __future__ import annotations

from mobileintent_gym.phone import widgets

APP = "maps"
PACKAGE = "com.mobileintent.maps"


class Route:
    """Screen routes."""

    EXPLORE = "maps/explore"
    GO = "maps/go"
    SAVED = "maps/saved"
    SEARCH = "maps/search"
    PLACE = "maps/place"
    DIRECTIONS = "maps/directions"


class Rid:
    """Resource id names (the part after ``:id/``)."""

    NAV_EXPLORE, NAV_GO, NAV_SAVED = "nav_explore", "nav_go", "nav_saved"
    TOOLBAR, TITLE, SUBTITLE, META = widgets.TOOLBAR, widgets.TITLE, widgets.SUBTITLE, widgets.META
    MAP, PIN, MY_LOCATION = "map", "pin", "my_location"
    SEARCH_BAR, CHIP, NAV_BANNER, RESUME = "search_bar", "chip", "nav_banner", "resume"
    SEARCH_FIELD, HISTORY, SECTION, RECENT, RESULT = (
        "search_field", "history", "section", "recent", "result")
    PLACE_NAME, RATING, PLACE_INFO, ADDRESS, HOURS, ABOUT = (
        "place_name", "rating", "place_info", "address", "hours", "about")
    DIRECTIONS, SAVE, SHARE = "directions", "save", "share"
    ORIGIN, DESTINATION, MODE, ROUTE_SUMMARY, ROUTE_STATUS = (
        "origin", "destination", "mode", "route_summary", "route_status")
    START, END = "start", "end_navigation"
    TRIPS, TRIP, SAVED_LIST, SAVED_PLACE, EMPTY = (
        "trips", "trip", "saved_list", "saved_place", "empty")


class Pair:
    """PAIR context keys (``maps:<list>``)."""

    RECENT = "maps:recent"
    FOOD = "maps:food"


class Desc:
    """Content descriptions that tasks address."""

    EXPLORE = "Explore"


class Text:
    """Visible labels of the controls that tasks address."""

    SEARCH_HINT = "Search here"
    RECENT = "Recent"
    FOOD = "Recent food & drink"
    DIRECTIONS = "Directions"
    START = "Start"
    SAVE, SAVED = "Save", "Saved"

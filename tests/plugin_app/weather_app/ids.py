"""The weather app's names."""
from mobileintent_gym.phone import overlays, widgets

APP = "weather"
PACKAGE = "com.example.weather"


class Route:
    HOME = "weather/home"
    SAVED = "weather/saved"
    PLACE = "weather/place"
    PLACE_MENU = "weather/place_menu"


class Rid:
    NAV_HOME, NAV_SAVED = "nav_home", "nav_saved"
    TOOLBAR, TITLE, MORE = widgets.TOOLBAR, widgets.TITLE, widgets.MORE
    SHEET_HEADER = overlays.SHEET_HEADER
    FEED, PLACES, PLACE = "feed", "places", "place"
    GREETING, TEMP, CONDITION, PIN = "greeting", "temp", "condition", "pin"


class Pair:
    SAVED = "weather:saved"


class Desc:
    SAVED = "Saved places"


class Text:
    PIN = "Pin to home"

"""Maps: a map and navigation app that mirrors Google Maps (see :mod:`.app` for its screens).

The study's event class "Check map". Its data is :mod:`.state`, its pools and PAIR
contexts :mod:`.content`, its names :mod:`.ids`, its task templates :mod:`.templates`.
"""

from mobileintent_gym.apps.maps.app import MapsApp
from mobileintent_gym.apps.maps.content import CONTEXTS, build_state
from mobileintent_gym.apps.maps.state import MapsState, Place
from mobileintent_gym.apps.maps.templates import TEMPLATES
from mobileintent_gym.apps.plugin import AppBundle

BUNDLE = AppBundle(MapsApp(), CONTEXTS, build_state, TEMPLATES)

__all__ = ["BUNDLE", "MapsApp", "MapsState", "Place"]

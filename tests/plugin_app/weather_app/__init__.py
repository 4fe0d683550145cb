"""Weather: a third-party app."""
from mobileintent_gym.apps.plugin import AppBundle
from weather_app.app import WeatherApp
from weather_app.content import CONTEXTS, build_state
from weather_app.templates import TEMPLATES

BUNDLE = AppBundle(WeatherApp(), CONTEXTS, build_state, TEMPLATES)

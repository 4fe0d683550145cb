"""Reader: an e-book app that mirrors WeChat Reading (see :mod:`.app` for its screens).

It serves the Act2Intention event class "Read e-books". Its data is :mod:`.state`, its pool
and PAIR contexts :mod:`.content`, its names :mod:`.ids`, its task templates
:mod:`.templates`.
"""

from mobileintent_gym.apps.plugin import AppBundle
from mobileintent_gym.apps.reader.app import ReaderApp
from mobileintent_gym.apps.reader.content import CONTEXTS, build_state
from mobileintent_gym.apps.reader.state import Book, ReaderState
from mobileintent_gym.apps.reader.templates import TEMPLATES

BUNDLE = AppBundle(ReaderApp(), CONTEXTS, build_state, TEMPLATES)

__all__ = ["BUNDLE", "Book", "ReaderApp", "ReaderState"]

"""Notes: a lifestyle notes app that mirrors RedBook (see :mod:`.app` for its screens).

Its data is :mod:`.state`, its pools and PAIR contexts :mod:`.content`, its names
:mod:`.ids`, its task templates :mod:`.templates`. Its notes serve the Act2Intention
event classes Community, E-commerce platform and Take notes.
"""

from mobileintent_gym.apps.notes.app import NotesApp
from mobileintent_gym.apps.notes.content import CONTEXTS, build_state
from mobileintent_gym.apps.notes.state import ME, Note, NotesState
from mobileintent_gym.apps.notes.templates import TEMPLATES
from mobileintent_gym.apps.plugin import AppBundle

BUNDLE = AppBundle(NotesApp(), CONTEXTS, build_state, TEMPLATES)

__all__ = ["BUNDLE", "ME", "Note", "NotesApp", "NotesState"]

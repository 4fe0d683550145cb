"""Forum: a community discussion app that mirrors Reddit (see :mod:`.app` for its screens).

The study's event class "Community". Its data is :mod:`.state`, its pool and PAIR
contexts :mod:`.content`, its names :mod:`.ids`, its task templates :mod:`.templates`.
"""

from mobileintent_gym.apps.forum.app import ForumApp
from mobileintent_gym.apps.forum.content import CONTEXTS, build_state
from mobileintent_gym.apps.forum.state import Comment, ForumState, Post
from mobileintent_gym.apps.forum.templates import TEMPLATES
from mobileintent_gym.apps.plugin import AppBundle

BUNDLE = AppBundle(ForumApp(), CONTEXTS, build_state, TEMPLATES)

__all__ = ["BUNDLE", "Comment", "ForumApp", "ForumState", "Post"]

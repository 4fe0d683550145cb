"""Social: a microblogging app that mirrors X (see :mod:`.app` for its screens).

Its data is :mod:`.state`, its pools and PAIR contexts :mod:`.content`, its names
:mod:`.ids`, its task templates :mod:`.templates`.
"""

from mobileintent_gym.apps.plugin import AppBundle
from mobileintent_gym.apps.social.app import SocialApp
from mobileintent_gym.apps.social.content import CONTEXTS, build_state
from mobileintent_gym.apps.social.state import ME, Account, Post, Reply, SocialState
from mobileintent_gym.apps.social.templates import TEMPLATES

BUNDLE = AppBundle(SocialApp(), CONTEXTS, build_state, TEMPLATES)

__all__ = ["BUNDLE", "ME", "Account", "Post", "Reply", "SocialApp", "SocialState"]

"""Chat: a messenger that mirrors WeChat (see :mod:`.app` for its screens).

Its data is :mod:`.state`, its pools and PAIR contexts :mod:`.content`, its names
:mod:`.ids`, its task templates :mod:`.templates`.
"""

from mobileintent_gym.apps.chat.app import ChatApp
from mobileintent_gym.apps.chat.content import CONTEXTS, build_state
from mobileintent_gym.apps.chat.state import ME, Chat, ChatState, Contact, Message, Moment
from mobileintent_gym.apps.chat.templates import TEMPLATES
from mobileintent_gym.apps.plugin import AppBundle

BUNDLE = AppBundle(ChatApp(), CONTEXTS, build_state, TEMPLATES)

__all__ = ["BUNDLE", "ME", "Chat", "ChatApp", "ChatState", "Contact", "Message", "Moment"]

"""Chat app: see :mod:`.app` for its screens and routes."""

from mobileintent_gym.apps.chat.app import ChatApp
from mobileintent_gym.apps.chat.state import (
    ME,
    Chat,
    ChatState,
    Contact,
    Message,
    Moment,
    default_state,
)

__all__ = ["ME", "Chat", "ChatApp", "ChatState", "Contact", "Message", "Moment", "default_state"]

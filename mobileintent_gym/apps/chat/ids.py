"""The chat app's names: routes, resource ids and PAIR context keys.

Its screens and its task templates both import them, so a rename cannot leave one behind.
"""

from __future__ import annotations

from mobileintent_gym.phone import messenger, widgets

APP = "chat"
PACKAGE = "com.mobileintent.chat"


class Route:
    """Screen routes."""

    CHATS = "chat/chats"
    CONTACTS = "chat/contacts"
    DISCOVER = "chat/discover"
    ME = "chat/me"
    CONVERSATION = "chat/conversation"
    MOMENTS = "chat/moments"
    PROFILE = "chat/profile"


class Rid:
    """Resource id names (the part after ``:id/``)."""

    NAV_CHATS, NAV_CONTACTS, NAV_DISCOVER, NAV_ME = (
        "nav_chats", "nav_contacts", "nav_discover", "nav_me")
    TOOLBAR, TITLE, BADGE = widgets.TOOLBAR, widgets.TITLE, widgets.BADGE
    CHATS, CHAT, CONTACTS, CONTACT = "chats", "chat", "contacts", "contact"
    MESSAGE_LIST, MESSAGE_IN, MESSAGE_OUT = (
        messenger.MESSAGE_LIST, messenger.MESSAGE_IN, messenger.MESSAGE_OUT)
    INPUT, SEND = messenger.INPUT, messenger.SEND
    MOMENTS_ENTRY, FEED, MOMENT = "moments", "feed", "moment"
    AVATAR, AUTHOR, CONTENT = "avatar", "author", "content"
    PROFILE_HEADER, MESSAGES, ME = "profile_header", "messages", "me"


class Pair:
    """PAIR context keys (``chat:<list>``)."""

    CHATS = "chat:chats"
    MOMENTS = "chat:moments"


class Desc:
    """Content descriptions that tasks address."""

    DISCOVER = "Discover"


class Text:
    """Visible labels of the controls that tasks address."""

    MOMENTS = "Moments"

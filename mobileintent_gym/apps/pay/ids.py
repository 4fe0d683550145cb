"""The pay app's names: routes, resource ids and PAIR context keys.

Its screens and its task templates both import them, so a rename cannot leave one behind.
"""

from __future__ import annotations

from mobileintent_gym.phone import messenger, widgets

APP = "pay"
PACKAGE = "com.mobileintent.pay"


class Route:
    """Screen routes."""

    HOME = "pay/home"
    MESSAGES = "pay/messages"
    ME = "pay/me"
    BILLS = "pay/bills"
    BILL = "pay/bill"
    CONVERSATION = "pay/conversation"


class Rid:
    """Resource id names (the part after ``:id/``)."""

    NAV_HOME, NAV_MESSAGES, NAV_ME = "nav_home", "nav_messages", "nav_me"
    TOOLBAR, TITLE, SUBTITLE = widgets.TOOLBAR, widgets.TITLE, widgets.SUBTITLE
    SEARCH, QUICK_ACTION, SERVICE, FEED = "search", "quick_action", "service", "feed"
    CONVERSATIONS, CONVERSATION = "conversations", "conversation"
    MESSAGE_LIST, MESSAGE_IN, MESSAGE_OUT, INPUT, SEND = (
        messenger.MESSAGE_LIST, messenger.MESSAGE_IN, messenger.MESSAGE_OUT, messenger.INPUT,
        messenger.SEND)
    ACCOUNT, BILLS, ASSET, SPENDING = "account", "bills", "asset", "spending"
    OFFER = "offer"
    BILL_LIST, MONTH, BILL, AMOUNT = "bill_list", "month", "bill", "amount"
    BILL_HEADER, DETAIL = "bill_header", "detail"


class Pair:
    """PAIR context keys (``pay:<list>``)."""

    BILLS = "pay:bills"
    MESSAGES = "pay:messages"


class Desc:
    """Content descriptions that tasks address (the bottom navigation's labels)."""

    HOME = "Home"
    MESSAGES = "Messages"
    ME = "My"


class Text:
    """Visible labels of the controls that tasks address."""

    BILLS = "Bills"

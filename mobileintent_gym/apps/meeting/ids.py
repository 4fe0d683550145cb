"""The meeting app's names: routes, resource ids and PAIR context keys.

Its screens and its task templates both import them, so a rename cannot leave one behind.
"""

from __future__ import annotations

from mobileintent_gym.phone import widgets

APP = "meeting"
PACKAGE = "com.mobileintent.meeting"


class Route:
    """Screen routes."""

    HOME = "meeting/home"
    ME = "meeting/me"
    HISTORY = "meeting/history"
    DETAILS = "meeting/details"
    ROOM = "meeting/room"


class Rid:
    """Resource id names (the part after ``:id/``)."""

    NAV_MEETINGS, NAV_ME = "nav_meetings", "nav_me"
    TOOLBAR, TITLE, SUBTITLE, META = widgets.TOOLBAR, widgets.TITLE, widgets.SUBTITLE, widgets.META
    ACTION, HISTORY, SCHEDULE_LIST, DAY, SCHEDULED = (
        "action", "history", "schedule_list", "day", "scheduled")
    TIME, REMINDER, IN_MEETING = "time", "reminder", "in_meeting"
    HISTORY_LIST, MEETING = "history_list", "meeting"
    MEETING_HEADER, STATUS, DETAIL, JOIN, REMIND, RECORDING = (
        "meeting_header", "status", "detail", "join", "remind", "recording")
    ROOM_TITLE, TILE, MIC, CAMERA, PARTICIPANTS, LEAVE = (
        "room_title", "tile", "mic", "camera", "participants", "leave")
    ACCOUNT, STATS = "account", "stats"


class Pair:
    """PAIR context keys (``meeting:<list>``)."""

    HISTORY = "meeting:history"
    WEBINARS = "meeting:webinars"
    SCHEDULED = "meeting:scheduled"


class Desc:
    """Content descriptions that tasks address (the bottom navigation's labels)."""

    MEETINGS = "Meetings"
    ME = "Me"


class Text:
    """Visible labels of the controls that tasks address."""

    HISTORY = "Meeting history"
    JOIN = "Join meeting"

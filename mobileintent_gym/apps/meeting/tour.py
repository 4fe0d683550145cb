"""The meeting app's part of ``mobileintent-gym tour``: the history, then a meeting joined."""

from __future__ import annotations

from mobileintent_gym.actions import Action
from mobileintent_gym.apps.meeting.ids import Rid
from mobileintent_gym.phone.tour import fixed, tap

STEPS = (
    ("history", tap(resource_id=Rid.HISTORY)),
    ("history_scrolled", fixed(Action.swipe("UP"))),
    ("webinar", tap(resource_id=Rid.META, text="Webinar")),
    ("history_again", fixed(Action.press("BACK"))),
    ("home_again", fixed(Action.press("BACK"))),
    ("scheduled", tap(resource_id=Rid.SCHEDULED)),
    ("reminder", tap(resource_id=Rid.REMIND)),
    ("room", tap(resource_id=Rid.JOIN)),
    ("unmuted", tap(resource_id=Rid.MIC)),
    ("camera_on", tap(resource_id=Rid.CAMERA)),
    ("details_in_meeting", fixed(Action.press("BACK"))),
    ("home_in_meeting", fixed(Action.press("BACK"))),
    ("room_again", tap(resource_id=Rid.IN_MEETING)),
    ("left", tap(resource_id=Rid.LEAVE)),
    ("me", tap(resource_id=Rid.NAV_ME)),
    ("history_attended", tap(resource_id=Rid.HISTORY)),
)

"""Meeting: a video-meeting app that mirrors Tencent Meeting (see :mod:`.app` for its screens).

Its data is :mod:`.state`, its pools and PAIR contexts :mod:`.content`, its names
:mod:`.ids`, its task templates :mod:`.templates`.
"""

from mobileintent_gym.apps.meeting.app import MeetingApp
from mobileintent_gym.apps.meeting.content import CONTEXTS, build_state
from mobileintent_gym.apps.meeting.state import Meeting, MeetingState
from mobileintent_gym.apps.meeting.templates import TEMPLATES
from mobileintent_gym.apps.plugin import AppBundle

BUNDLE = AppBundle(MeetingApp(), CONTEXTS, build_state, TEMPLATES)

__all__ = ["BUNDLE", "Meeting", "MeetingApp", "MeetingState"]

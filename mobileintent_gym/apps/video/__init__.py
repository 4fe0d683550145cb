"""Video: a video-sharing app that mirrors Bilibili (see :mod:`.app` for its screens).

Its data is :mod:`.state`, its pool and PAIR contexts :mod:`.content`, its names
:mod:`.ids`, its task templates :mod:`.templates`. Its videos serve the Act2Intention
event classes Knowledge acquisition, Gaming community and Watch news.
"""

from mobileintent_gym.apps.plugin import AppBundle
from mobileintent_gym.apps.video.app import VideoApp
from mobileintent_gym.apps.video.content import CONTEXTS, build_state
from mobileintent_gym.apps.video.state import Video, VideoState
from mobileintent_gym.apps.video.templates import TEMPLATES

BUNDLE = AppBundle(VideoApp(), CONTEXTS, build_state, TEMPLATES)

__all__ = ["BUNDLE", "Video", "VideoApp", "VideoState"]

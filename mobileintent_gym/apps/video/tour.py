"""The video app's part of ``mobileintent-gym tour``: like a followed video, open a liked one."""

from __future__ import annotations

from mobileintent_gym.actions import Action
from mobileintent_gym.apps.video.ids import Rid
from mobileintent_gym.phone.tour import fixed, tap

STEPS = (
    ("following", tap(resource_id=Rid.NAV_FOLLOWING)),
    ("following_videos", tap(resource_id=Rid.TAB_VIDEOS)),
    ("video", tap(resource_id=Rid.VIDEO)),
    ("liked", tap(resource_id=Rid.LIKE)),
    ("unfollowed", tap(resource_id=Rid.FOLLOW)),
    ("back", fixed(Action.press("BACK"))),
    ("me", tap(resource_id=Rid.NAV_ME)),
    ("space", tap(resource_id=Rid.SPACE)),
    ("liked_list", tap(resource_id=Rid.LIKED_VIDEOS)),
    ("liked_video", tap(resource_id=Rid.VIDEO)),
)

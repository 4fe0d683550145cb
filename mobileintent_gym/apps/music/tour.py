"""The music app's part of ``mobileintent-gym tour``: add a liked song to a new playlist."""

from __future__ import annotations

from mobileintent_gym.actions import Action
from mobileintent_gym.apps.music.ids import Desc, Rid
from mobileintent_gym.phone.tour import fixed, tap, tap_whole

STEPS = (
    ("library", tap(desc=Desc.LIBRARY)),
    ("recent_expanded", tap(resource_id=Rid.RECENTLY_PLAYED)),
    ("liked", tap(resource_id=Rid.LIKED_SONGS)),
    ("liked_scrolled", fixed(Action.swipe("UP"))),
    ("track_menu", tap_whole(resource_id=Rid.MORE)),
    ("add_to_playlist", tap(resource_id=Rid.ADD_TO_PLAYLIST)),
    ("new_playlist", tap(resource_id=Rid.NEW_PLAYLIST)),
    ("name_focused", tap(resource_id=Rid.PLAYLIST_NAME)),
    ("name_typed", fixed(Action.type_text("Rainy Night"))),
    ("created", tap(resource_id=Rid.CREATE)),
    ("playing", tap(resource_id=Rid.TRACK)),
)

"""The social app's part of ``mobileintent-gym tour``: like, reply, follow, search, bookmarks."""

from __future__ import annotations

from mobileintent_gym.actions import Action
from mobileintent_gym.apps.social.ids import Rid
from mobileintent_gym.phone.tour import fixed, tap, tap_first

STEPS = (
    ("liked", tap_first({"resource_id": Rid.LIKE, "desc": "Like"}, {"resource_id": Rid.LIKE})),
    ("post", tap(resource_id=Rid.POST)),
    ("reply_focused", tap(resource_id=Rid.REPLY_INPUT)),
    ("reply_typed", fixed(Action.type_text("Great point"))),
    ("replied", tap(resource_id=Rid.REPLY_SEND)),
    ("keyboard_hidden", fixed(Action.press("BACK"))),
    ("profile", tap(resource_id=Rid.AVATAR)),
    ("unfollowed", tap_first({"resource_id": Rid.FOLLOW, "text": "Following"},
                             {"resource_id": Rid.FOLLOW})),
    ("followed", tap_first({"resource_id": Rid.FOLLOW, "text": "Follow"},
                           {"resource_id": Rid.FOLLOW})),
    ("post_again", fixed(Action.press("BACK"))),
    ("timeline_again", fixed(Action.press("BACK"))),
    ("timeline_scrolled", fixed(Action.swipe("UP"))),
    ("following", tap(desc="Following")),
    ("explore", tap(desc="Explore")),
    ("trend_searched", tap(resource_id=Rid.TREND)),
    ("bookmarks", tap(desc="Bookmarks")),
    ("me", tap(desc="Me")),
)

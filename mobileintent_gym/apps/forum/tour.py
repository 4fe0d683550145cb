"""The forum app's part of ``mobileintent-gym tour``: vote, comment, save, join."""

from __future__ import annotations

from mobileintent_gym.actions import Action
from mobileintent_gym.apps.forum.ids import Desc, Rid
from mobileintent_gym.phone.tour import fixed, tap

STEPS = (
    ("upvoted", tap(resource_id=Rid.UPVOTE)),
    ("feed_scrolled", fixed(Action.swipe("UP"))),
    ("post", tap(resource_id=Rid.POST_TITLE)),
    ("box_focused", tap(resource_id=Rid.COMMENT_INPUT)),
    ("typed", fixed(Action.type_text("Thank you"))),
    ("commented", tap(resource_id=Rid.SUBMIT)),
    ("keyboard_hidden", fixed(Action.press("BACK"))),
    ("saved", tap(resource_id=Rid.SAVE)),
    ("back_to_feed", fixed(Action.press("BACK"))),
    ("communities", tap(desc="Communities")),
    ("community", tap(resource_id=Rid.COMMUNITY)),
    ("left", tap(resource_id=Rid.JOIN)),
    ("joined", tap(resource_id=Rid.JOIN)),
    ("back_to_communities", fixed(Action.press("BACK"))),
    ("you", tap(desc="You")),
    ("you_saved", tap(desc="Saved")),
    ("feed", tap(desc=Desc.HOME)),
)

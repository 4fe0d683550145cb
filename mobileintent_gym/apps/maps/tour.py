"""The maps app's part of ``mobileintent-gym tour``: search, a place, directions, navigate."""

from __future__ import annotations

from mobileintent_gym.actions import Action
from mobileintent_gym.apps.maps.ids import Desc, Rid, Text
from mobileintent_gym.phone.tour import fixed, tap

STEPS = (
    ("search", tap(resource_id=Rid.SEARCH_BAR)),
    ("search_scrolled", fixed(Action.swipe("UP"))),
    ("place", tap(resource_id=Rid.RECENT)),
    ("saved", tap(resource_id=Rid.SAVE)),
    ("directions", tap(resource_id=Rid.DIRECTIONS)),
    ("walking", tap(desc="Walk")),
    ("navigating", tap(text=Text.START)),
    ("back_to_place", fixed(Action.press("BACK"))),
    ("back_to_search", fixed(Action.press("BACK"))),
    ("field", tap(resource_id=Rid.SEARCH_FIELD)),
    ("typed", fixed(Action.type_text("museum"))),
    ("keyboard_hidden", fixed(Action.press("BACK"))),
    ("explore_navigating", fixed(Action.press("BACK"))),
    ("go", tap(desc="Go")),
    ("saved_tab", tap(desc=Text.SAVED)),
    ("explore", tap(desc=Desc.EXPLORE)),
)

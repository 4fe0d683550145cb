"""The reader app's part of ``mobileintent-gym tour``: open a book, then add one to the list."""

from __future__ import annotations

from mobileintent_gym.actions import Action
from mobileintent_gym.apps.reader.ids import Desc, Rid
from mobileintent_gym.phone.tour import fixed, tap, tap_whole

STEPS = (
    ("book", tap(resource_id=Rid.SHELF_BOOK)),
    ("read", tap(resource_id=Rid.READ)),
    ("reading_again", fixed(Action.press("BACK"))),
    ("discover", tap(desc=Desc.DISCOVER)),
    ("discover_scrolled", fixed(Action.swipe("UP"))),
    ("recommended_book", tap_whole(resource_id=Rid.RECOMMENDED_BOOK)),
    ("discover_again", fixed(Action.press("BACK"))),
    ("me", tap(desc=Desc.ME)),
    ("book_list", tap(resource_id=Rid.BOOK_LIST_ENTRY)),
    ("list_editor", tap(resource_id=Rid.EDIT_LIST)),
    ("add_favorite", tap(resource_id=Rid.ADD_FAVORITE)),
    ("confirm", tap(resource_id=Rid.CANDIDATE)),
    ("added", tap(resource_id=Rid.CONFIRM)),
    ("list_again", fixed(Action.press("BACK"))),
)

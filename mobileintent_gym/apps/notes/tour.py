"""The notes app's part of ``mobileintent-gym tour``: save, like, comment, then Me's tabs."""

from __future__ import annotations

from mobileintent_gym.actions import Action
from mobileintent_gym.apps.notes.ids import Rid
from mobileintent_gym.phone.tour import fixed, tap

STEPS = (
    ("note", tap(resource_id=Rid.NOTE_CARD)),
    ("saved_it", tap(resource_id=Rid.SAVE)),
    ("liked_it", tap(resource_id=Rid.LIKE)),
    ("comment_box", tap(resource_id=Rid.COMMENT_BOX)),
    ("typed", fixed(Action.type_text("Saving this for my next trip"))),
    ("commented", tap(resource_id=Rid.SEND)),
    ("back", fixed(Action.press("BACK"))),
    ("me", tap(resource_id=Rid.NAV_ME)),
    ("me_saved", tap(resource_id=Rid.TAB_SAVED)),
    ("me_liked", tap(resource_id=Rid.TAB_LIKED)),
    ("liked_note", tap(resource_id=Rid.NOTE_CARD)),
)

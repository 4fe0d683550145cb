"""The pay app's part of ``mobileintent-gym tour``: a transaction, then a reply."""

from __future__ import annotations

from mobileintent_gym.actions import Action
from mobileintent_gym.apps.pay.ids import Rid
from mobileintent_gym.phone.tour import fixed, tap, tap_whole

STEPS = (
    ("my", tap(resource_id=Rid.NAV_ME)),
    ("bills", tap(resource_id=Rid.BILLS)),
    ("bills_scrolled", fixed(Action.swipe("UP"))),
    ("bill", tap_whole(resource_id=Rid.BILL)),
    ("back", fixed(Action.press("BACK"))),
    ("my_again", fixed(Action.press("BACK"))),
    ("messages", tap(resource_id=Rid.NAV_MESSAGES)),
    ("conversation", tap(resource_id=Rid.CONVERSATION)),
    ("input_focused", tap(resource_id=Rid.INPUT)),
    ("typed", fixed(Action.type_text("Understood"))),
    ("sent", tap(resource_id=Rid.SEND)),
    ("keyboard_hidden", fixed(Action.press("BACK"))),
    ("list_again", fixed(Action.press("BACK"))),
)

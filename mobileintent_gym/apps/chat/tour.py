"""The chat app's part of ``mobileintent-gym tour``: reply in a chat, then visit Moments."""

from __future__ import annotations

from mobileintent_gym.actions import Action
from mobileintent_gym.apps.chat.ids import Desc, Rid
from mobileintent_gym.phone.tour import fixed, tap

STEPS = (
    ("conversation", tap(resource_id=Rid.CHAT)),
    ("input_focused", tap(resource_id=Rid.INPUT)),
    ("typed", fixed(Action.type_text("Understood"))),
    ("sent", tap(resource_id=Rid.SEND)),
    ("back", fixed(Action.press("BACK"))),
    ("list_again", fixed(Action.press("BACK"))),
    ("discover", tap(desc=Desc.DISCOVER)),
    ("moments", tap(resource_id=Rid.MOMENTS_ENTRY)),
    ("profile", tap(resource_id=Rid.AUTHOR)),
)

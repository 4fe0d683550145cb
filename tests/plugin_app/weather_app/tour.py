"""The weather app's tour."""
from mobileintent_gym.actions import Action
from mobileintent_gym.phone.tour import fixed, tap
from weather_app.ids import Rid

STEPS = (
    ("saved", tap(resource_id=Rid.NAV_SAVED)),
    ("place", tap(resource_id=Rid.PLACE)),
    ("pinned", tap(resource_id=Rid.PIN)),
    ("back", fixed(Action.press("BACK"))),
    ("menu", tap(resource_id=Rid.MORE)),
)

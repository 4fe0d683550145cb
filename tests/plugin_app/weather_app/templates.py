"""The weather app's task templates."""
from __future__ import annotations

from types import MappingProxyType

from mobileintent_gym.tasks.spec import (
    Click,
    Move,
    NodeCheck,
    Outcome,
    Subgoal,
    TaskTemplate,
    TemplateIntent,
)
from weather_app.ids import APP, Desc, Pair, Rid, Route, Text

_TO_SAVED = Move(Rid.NAV_SAVED)

WTH_01 = TaskTemplate(
    id="G-WTH-01", app=APP, context=Pair.SAVED, text="open the saved place's forecast",
    intent=TemplateIntent("Check map", ("Travel",), "to see the weather there"),
    subgoals=(
        Subgoal("open Saved places", (Route.HOME,), "UA", (Click(Rid.NAV_SAVED, Desc.SAVED),)),
        Subgoal("open the place", (Route.SAVED,), "UC"),
    ),
    outcome=Outcome(Route.PLACE, (NodeCheck(Rid.TOOLBAR, target=True),)),
    explicit='In Weather, open the forecast for "{label}" from your saved places.',
    implicit="In Weather, open the forecast for {cue} from your saved places.",
    picks=(Rid.PLACE, Rid.MORE),
    oracle=MappingProxyType({Route.HOME: _TO_SAVED,
                             Route.SAVED: Move(Rid.PLACE, target=True)}),
)

WTH_02 = TaskTemplate(
    id="G-WTH-02", app=APP, context=Pair.SAVED, text="pin the saved place to home",
    intent=TemplateIntent("Check map", ("Travel",), "to see its weather first"),
    subgoals=(
        Subgoal("open Saved places", (Route.HOME,), "UA", (Click(Rid.NAV_SAVED, Desc.SAVED),)),
        Subgoal("open the place", (Route.SAVED,), "UC",
                (Click(Rid.PLACE, target=True, long=False),)),
        Subgoal("pin it", (Route.PLACE,), "UA"),
    ),
    outcome=Outcome(Route.PLACE, (NodeCheck(Rid.PIN, checked=True),
                                  NodeCheck(Rid.TOOLBAR, target=True)),
                    via=(Click(Rid.PIN, Text.PIN),)),
    explicit='In Weather, pin "{label}" from your saved places to the home screen.',
    implicit="In Weather, pin {cue} from your saved places to the home screen.",
    picks=(Rid.PLACE, Rid.MORE),
    oracle=MappingProxyType({Route.HOME: _TO_SAVED,
                             Route.SAVED: Move(Rid.PLACE, target=True),
                             Route.PLACE: Move(Rid.PIN)}),
)

TEMPLATES = (WTH_01, WTH_02)

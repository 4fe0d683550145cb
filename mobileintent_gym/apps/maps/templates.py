"""The PAIR study's Maps templates G-MAP-01..03, run in the maps app.

Subgoal names, order and UC/UA labels follow the study's table; screens, controls and
contexts are the app's own names (:mod:`.ids`). G-MAP-01 and G-MAP-02 draw their target
from the recent searches of places; G-MAP-03, the same task by another target rule, from
the recent searches of places to eat and drink (the search screen's second section).
"""

from __future__ import annotations

from types import MappingProxyType

from mobileintent_gym.apps.maps.ids import APP, Desc, Pair, Rid, Route, Text
from mobileintent_gym.tasks.spec import (
    Click,
    Move,
    NodeCheck,
    Outcome,
    Subgoal,
    TaskTemplate,
    TemplateIntent,
)

_OPEN_SEARCH = Subgoal("open search", (Route.EXPLORE,), "UA",
                       (Click(Rid.SEARCH_BAR, Text.SEARCH_HINT),))
_TO_EXPLORE = Move(desc=Desc.EXPLORE)
_TO_SEARCH = MappingProxyType({Route.GO: _TO_EXPLORE, Route.SAVED: _TO_EXPLORE,
                               Route.EXPLORE: Move(Rid.SEARCH_BAR)})
_PLACE_OPEN = Outcome(Route.PLACE, (NodeCheck(Rid.TOOLBAR, target=True),
                                    NodeCheck(Rid.PLACE_NAME, target=True)))
_DETAILS_ORACLE = MappingProxyType({**_TO_SEARCH, Route.SEARCH: Move(Rid.RECENT, target=True)})

MAP_01 = TaskTemplate(
    id="G-MAP-01", app=APP, context=Pair.RECENT,
    intent=TemplateIntent("Check map", ("Travel", "Restaurants"), "to look the place up again"),
    text="open place details from recent searches",
    subgoals=(_OPEN_SEARCH, Subgoal("open the place details", (Route.SEARCH,), "UC")),
    outcome=_PLACE_OPEN,
    explicit='In Maps, open the details of "{label}" from your recent searches.',
    implicit="In Maps, open the details of {cue}, which you searched for recently.",
    picks=(Rid.RECENT,),
    oracle=_DETAILS_ORACLE,
)

MAP_02 = TaskTemplate(
    id="G-MAP-02", app=APP, context=Pair.RECENT,
    intent=TemplateIntent("Check map", ("Travel", "Restaurants"), "to find the way there"),
    text="get directions to the place in recent searches",
    subgoals=(
        _OPEN_SEARCH,
        Subgoal("select the place", (Route.SEARCH,), "UC", (Click(Rid.RECENT, target=True),)),
        Subgoal("open directions", (Route.PLACE,), "UA"),
    ),
    # Directions open on the place's route: the destination row shows the target.
    outcome=Outcome(Route.DIRECTIONS, (NodeCheck(Rid.DESTINATION, target=True),)),
    explicit='In Maps, get directions to "{label}" from your recent searches.',
    implicit="In Maps, get directions to {cue}, which you searched for recently.",
    picks=(Rid.RECENT,),
    oracle=MappingProxyType({**_DETAILS_ORACLE, Route.PLACE: Move(Rid.DIRECTIONS)}),
)

MAP_03 = TaskTemplate(
    id="G-MAP-03", app=APP, context=Pair.FOOD,
    intent=TemplateIntent("Check map", ("Travel", "Restaurants"),
                          "to check the place's details"),
    text="open place details from recent searches (food and drink)",
    subgoals=(_OPEN_SEARCH, Subgoal("open the place details", (Route.SEARCH,), "UC")),
    outcome=_PLACE_OPEN,
    explicit='In Maps, open the details of "{label}" from your recent food and drink searches.',
    implicit="In Maps, open the details of {cue}, a place to eat you searched for recently.",
    picks=(Rid.RECENT,),
    oracle=_DETAILS_ORACLE,
)

TEMPLATES = (MAP_01, MAP_02, MAP_03)

"""The PAIR study's Tencent Meeting templates G-MTG-01..03, run in the meeting app.

Subgoal names, order and UC/UA labels follow the study's table; screens, controls and
contexts are the app's own names (:mod:`.ids`). G-MTG-01 draws its target from the
meetings of the history; G-MTG-03, the same task by another target rule, from the
webinars the user attended (the history holds both).
"""

from __future__ import annotations

from types import MappingProxyType

from mobileintent_gym.apps.meeting.ids import APP, Desc, Pair, Rid, Route, Text
from mobileintent_gym.tasks.spec import (
    Click,
    Move,
    NodeCheck,
    Outcome,
    Subgoal,
    TaskTemplate,
    TemplateIntent,
)

_TABS = (Route.HOME, Route.ME)  # both tabs lead to the meeting history
_OPEN_HISTORY = Subgoal("open meeting history", _TABS, "UA", (Click(Rid.HISTORY, Text.HISTORY),))
_OPEN_PAST = Subgoal("open the meeting", (Route.HISTORY,), "UC")
_DETAILS = Outcome(Route.DETAILS, (NodeCheck(Rid.MEETING_HEADER, target=True),))
_HISTORY_ORACLE = MappingProxyType({**{route: Move(Rid.HISTORY) for route in _TABS},
                                    Route.HISTORY: Move(Rid.MEETING, target=True)})

MTG_01 = TaskTemplate(
    id="G-MTG-01", app=APP, context=Pair.HISTORY,
    intent=TemplateIntent("Office chat", ("Calendar", "Messaging"), "to review a past meeting"),
    text="open the meeting in history",
    subgoals=(_OPEN_HISTORY, _OPEN_PAST),
    outcome=_DETAILS,
    explicit='In Meeting, open the meeting "{label}" in your meeting history.',
    implicit="In Meeting, open {cue} in your meeting history.",
    picks=(Rid.MEETING,),
    oracle=_HISTORY_ORACLE,
)

MTG_02 = TaskTemplate(
    id="G-MTG-02", app=APP, context=Pair.SCHEDULED,
    intent=TemplateIntent("Office chat", ("Calendar", "Messaging"), "to prepare for the meeting"),
    text="open the scheduled meeting",
    subgoals=(Subgoal("open the scheduled meeting", (Route.HOME,), "UC"),),
    outcome=_DETAILS,
    explicit='In Meeting, open the scheduled meeting "{label}".',
    implicit="In Meeting, open {cue}, one of your scheduled meetings.",
    picks=(Rid.SCHEDULED,),
    oracle=MappingProxyType({Route.ME: Move(desc=Desc.MEETINGS),
                             Route.HOME: Move(Rid.SCHEDULED, target=True)}),
)

MTG_03 = TaskTemplate(
    id="G-MTG-03", app=APP, context=Pair.WEBINARS,
    intent=TemplateIntent("Office chat", ("Calendar", "Messaging"), "to look up the meeting notes"),
    text="open the meeting in history (webinars)",
    subgoals=(_OPEN_HISTORY, _OPEN_PAST),
    outcome=_DETAILS,
    explicit='In Meeting, open the webinar "{label}" in your meeting history.',
    implicit="In Meeting, open {cue}, a webinar in your meeting history.",
    picks=(Rid.MEETING,),
    oracle=_HISTORY_ORACLE,
)

TEMPLATES = (MTG_01, MTG_02, MTG_03)

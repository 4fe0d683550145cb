"""The PAIR study's RedBook templates G-RBK-01..03, run in the notes app.

Subgoal names, order and UC/UA labels follow the study's table; screens, controls and
contexts are the app's own names (:mod:`.ids`).
"""

from __future__ import annotations

from types import MappingProxyType

from mobileintent_gym.apps.notes.ids import APP, Pair, Rid, Route
from mobileintent_gym.tasks.spec import (
    Click,
    Move,
    NodeCheck,
    Outcome,
    Subgoal,
    TaskTemplate,
    TemplateIntent,
)

# The page of the target note: its toolbar (which never scrolls away) names it.
_ABOUT_TARGET = NodeCheck(Rid.TOOLBAR, target=True)
_TO_ME = Move(Rid.NAV_ME)


_COMMUNITY = ("Shopping", "Restaurants", "Travel")


def _from_me(template_id: str, list_name: str, context: str, tab: str, route: str,
             other: str, purpose: str) -> TaskTemplate:
    """G-RBK-01/02: open Me, open the tab of ``list_name`` notes, open the note."""
    return TaskTemplate(
        id=template_id, app=APP, context=context,
        intent=TemplateIntent("Community", _COMMUNITY, purpose),
        text=f"open the {list_name} note",
        subgoals=(
            Subgoal("open Me", (Route.DISCOVER,), "UA", (Click(Rid.NAV_ME),)),
            Subgoal(f"open {list_name} tab", (Route.ME, other), "UA", (Click(tab),)),
            Subgoal("open the note", (route,), "UC"),
        ),
        outcome=Outcome(Route.NOTE, (_ABOUT_TARGET,)),
        explicit=f'In Notes, open the note "{{label}}" from your {list_name} notes on Me.',
        implicit=f"In Notes, open {{cue}} among your {list_name} notes.",
        picks=(Rid.NOTE_CARD,),
        oracle=MappingProxyType({Route.DISCOVER: _TO_ME, Route.ME: Move(tab), other: Move(tab),
                                 route: Move(Rid.NOTE_CARD, target=True)}),
    )


RBK_01 = _from_me("G-RBK-01", "saved", Pair.SAVED, Rid.TAB_SAVED, Route.ME_SAVED,
                  Route.ME_LIKED, "to revisit a saved idea")
RBK_02 = _from_me("G-RBK-02", "liked", Pair.LIKED, Rid.TAB_LIKED, Route.ME_LIKED,
                  Route.ME_SAVED, "to look at it again")

RBK_03 = TaskTemplate(
    id="G-RBK-03", app=APP, context=Pair.DISCOVER,
    intent=TemplateIntent("Community", _COMMUNITY, "to keep it for later"),
    text="open the discover-feed note and save it",
    subgoals=(
        Subgoal("open the note", (Route.DISCOVER,), "UC", (Click(Rid.NOTE_CARD, target=True),)),
        Subgoal("save it", (Route.NOTE,), "UA"),
    ),
    # Saving is the deciding click: the target's page then shows the save button on. A
    # save left from an earlier episode does not count, and a second click takes it back.
    outcome=Outcome(Route.NOTE, (_ABOUT_TARGET, NodeCheck(Rid.SAVE, checked=True)),
                    via=(Click(Rid.SAVE),)),
    explicit='In Notes, open the note "{label}" from the Discover feed and save it.',
    implicit="In Notes, find {cue} in the Discover feed and save it.",
    picks=(Rid.NOTE_CARD,),
    oracle=MappingProxyType({
        **{route: Move(Rid.NAV_HOME) for route in (Route.ME, Route.ME_SAVED, Route.ME_LIKED)},
        Route.DISCOVER: Move(Rid.NOTE_CARD, target=True),
        Route.NOTE: Move(Rid.SAVE, target=True),
    }),
)

TEMPLATES = (RBK_01, RBK_02, RBK_03)

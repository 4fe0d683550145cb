"""The PAIR study's Reddit templates G-RDT-01..03, run in the forum app.

Subgoal names, order and UC/UA labels follow the study's table; screens, controls and
contexts are the app's own names (:mod:`.ids`). G-RDT-01 and G-RDT-02 draw their target
from the posts of followed communities; G-RDT-03, the same task by another target rule,
from the posts the feed suggests (marked "Suggested for you").
"""

from __future__ import annotations

from types import MappingProxyType

from mobileintent_gym.apps.forum.ids import APP, Desc, Pair, Rid, Route
from mobileintent_gym.tasks.spec import (
    Click,
    Move,
    NodeCheck,
    Outcome,
    ScreenCheck,
    Subgoal,
    TaskTemplate,
    TemplateIntent,
)

_TO_HOME = Move(desc=Desc.HOME)
_OPEN_POST = MappingProxyType({Route.COMMUNITIES: _TO_HOME, Route.PROFILE: _TO_HOME,
                               Route.SAVED: _TO_HOME, Route.HOME: Move(Rid.POST, target=True)})
# The target's page: its toolbar (which never scrolls away, as the post's title does
# once a comment is sent) names the post.
_ABOUT_TARGET = NodeCheck(Rid.TOOLBAR, target=True)
_POST_OPEN = Outcome(Route.POST, (_ABOUT_TARGET,))

RDT_01 = TaskTemplate(
    id="G-RDT-01", app=APP, context=Pair.HOME,
    intent=TemplateIntent("Community", ("Games", "Sports", "Media"),
                          "to catch up on the discussion"),
    text="open the home-feed post",
    subgoals=(Subgoal("open the post", (Route.HOME,), "UC"),),
    outcome=_POST_OPEN,
    explicit='In Forum, open the post "{label}" in your home feed.',
    implicit="In Forum, open {cue} in your home feed.",
    picks=(Rid.POST,),
    oracle=_OPEN_POST,
)

RDT_02 = TaskTemplate(
    id="G-RDT-02", app=APP, context=Pair.HOME,
    intent=TemplateIntent("Community", ("Games", "Sports", "Media"), "to thank the poster"),
    text='open the post; comment exactly "Thank you"',
    subgoals=(
        Subgoal("open the post", (Route.HOME,), "UC", (Click(Rid.POST, target=True),)),
        Subgoal("enter and submit the comment", (Route.POST,), "UA"),
    ),
    # Posting the draft "Thank you" under the target is the deciding step (by Post, ENTER
    # or the keyboard): the box is empty and the thread ends with the comment. A comment
    # left from an earlier episode does not count.
    outcome=Outcome(Route.POST,
                    (_ABOUT_TARGET,
                     NodeCheck(Rid.COMMENT_TEXT, "Thank you", which="last"),
                     NodeCheck(Rid.COMMENT_INPUT, "Add a comment")),
                    before=ScreenCheck(Route.POST,
                                       (_ABOUT_TARGET,
                                        NodeCheck(Rid.COMMENT_INPUT, "Thank you", draft=True)))),
    explicit='In Forum, open the post "{label}" in your home feed and comment exactly '
             '"Thank you".',
    implicit='In Forum, open {cue} in your home feed and comment exactly "Thank you".',
    picks=(Rid.POST,),
    oracle=MappingProxyType({**_OPEN_POST,
                             Route.POST: Move(Rid.SUBMIT, fill=(Rid.COMMENT_INPUT, "Thank you"))}),
)

RDT_03 = TaskTemplate(
    id="G-RDT-03", app=APP, context=Pair.SUGGESTED,
    intent=TemplateIntent("Community", ("Games", "Sports", "Media"), "to read the thread"),
    text="open the home-feed post (suggested for you)",
    subgoals=(Subgoal("open the post", (Route.HOME,), "UC"),),
    outcome=_POST_OPEN,
    explicit='In Forum, open the post "{label}" suggested for you in your home feed.',
    implicit="In Forum, open {cue}, suggested for you in your home feed.",
    picks=(Rid.POST,),
    oracle=_OPEN_POST,
)

TEMPLATES = (RDT_01, RDT_02, RDT_03)

"""The PAIR study's X templates G-X-01..03, run in the social app.

The three open a post of the For you timeline, each by its own target rule: a post of
the user's interests, a news post, a post of a topic the user follows. Each rule is a
PAIR context of its own, and the timeline interleaves the three: 60 posts, three times
another list's length, so the three have the longer tasks' step limit (30). A target
can be the last post, and on a phone as short as the sizes allow (1.5 times as high as
wide) reaching it takes 21 steps. Subgoal names, order and
UC/UA labels follow the study's table; screens, controls and contexts are the app's own
names (:mod:`.ids`).
"""

from __future__ import annotations

from types import MappingProxyType

from mobileintent_gym.apps.social.ids import APP, Desc, Pair, Rid, Route
from mobileintent_gym.tasks.spec import (
    Move,
    NodeCheck,
    Outcome,
    Subgoal,
    TaskTemplate,
    TemplateIntent,
)

_OPEN = (Subgoal("open the post", (Route.HOME,), "UC"),)
# The post's page: its own text is the target's (its label, in a dump without entity ids,
# is the text's first words). Replies and other posts on the page have texts of their own
# id, so a reply quoting the target does not make the page the target's.
_POST_OPEN = Outcome(Route.POST, (NodeCheck(Rid.POST_TEXT, target=True),))
_TO_HOME = Move(desc=Desc.HOME)
_ORACLE = MappingProxyType({
    Route.FOLLOWING: Move(desc=Desc.FOR_YOU),
    Route.EXPLORE: _TO_HOME,
    Route.BOOKMARKS: _TO_HOME,
    Route.ME: _TO_HOME,
    Route.HOME: Move(Rid.POST, target=True),
})


def _template(number: int, context: str, rule: str, intent: TemplateIntent, explicit: str,
              implicit: str) -> TaskTemplate:
    return TaskTemplate(
        id=f"G-X-0{number}", app=APP, context=context, intent=intent,
        text=f"open the For You post ({rule})", subgoals=_OPEN, outcome=_POST_OPEN,
        explicit=explicit, implicit=implicit, step_limit=30, picks=(Rid.POST,),
        oracle=_ORACLE)


X_01 = _template(1, Pair.INTERESTS, "interest",
                 TemplateIntent("Community", ("Sports", "Events", "Media"),
                                "to follow an interest"),
                 'In Social, open the post "{label}" in your For you timeline.',
                 "In Social, open {cue} in your For you timeline.")
X_02 = _template(2, Pair.NEWS, "news",
                 TemplateIntent("Watch news", ("Events", "Media"), "to keep up with the news"),
                 'In Social, open the news post "{label}" in your For you timeline.',
                 "In Social, open the news about {cue} in your For you timeline.")
X_03 = _template(3, Pair.TOPICS, "topic",
                 TemplateIntent("Knowledge acquisition", ("Books", "Media"),
                                "to learn about the topic"),
                 'In Social, open the post "{label}" from a topic you follow in your For you '
                 "timeline.",
                 "In Social, open {cue}, from a topic you follow, in your For you timeline.")

TEMPLATES = (X_01, X_02, X_03)

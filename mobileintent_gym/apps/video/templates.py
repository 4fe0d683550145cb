"""The PAIR study's Bilibili templates G-BIL-01..03, run in the video app.

Subgoal names, order and UC/UA labels follow the study's table; screens, controls and
contexts are the app's own names (:mod:`.ids`).
"""

from __future__ import annotations

from types import MappingProxyType

from mobileintent_gym.apps.video.ids import APP, Pair, Rid, Route
from mobileintent_gym.tasks.spec import (
    Click,
    Move,
    NodeCheck,
    Outcome,
    Subgoal,
    TaskTemplate,
    TemplateIntent,
)

_SHOWS_TARGET = NodeCheck(Rid.VIDEO_TITLE, target=True)  # the video page of the target

BIL_01 = TaskTemplate(
    id="G-BIL-01", app=APP, context=Pair.FOLLOWING,
    intent=TemplateIntent("Gaming community", ("Games", "Media", "Movies"),
                          "to support the creator"),
    text="open the subscription video and like it",
    subgoals=(
        Subgoal("open Following", (Route.HOME, Route.ME), "UA", (Click(Rid.NAV_FOLLOWING),)),
        Subgoal("switch to video tab", (Route.FOLLOWING,), "UA", (Click(Rid.TAB_VIDEOS),)),
        Subgoal("open the video", (Route.FOLLOWING_VIDEOS,), "UC",
                (Click(Rid.VIDEO, target=True),)),
        Subgoal("like it", (Route.VIDEO,), "UA"),
    ),
    # Liking is the deciding click: the target's page then shows the like button on. A
    # like left from an earlier episode does not count, and a second click takes it back.
    outcome=Outcome(Route.VIDEO, (_SHOWS_TARGET, NodeCheck(Rid.LIKE, checked=True)),
                    via=(Click(Rid.LIKE),)),
    explicit='In Video, open "{label}" from the Videos tab of Following and like it.',
    implicit="In Video, find {cue} among the videos of the uploaders you follow, and like it.",
    picks=(Rid.VIDEO,),
    oracle=MappingProxyType({
        Route.HOME: Move(Rid.NAV_FOLLOWING),
        Route.ME: Move(Rid.NAV_FOLLOWING),
        Route.FOLLOWING: Move(Rid.TAB_VIDEOS),
        Route.FOLLOWING_VIDEOS: Move(Rid.VIDEO, target=True),
        Route.VIDEO: Move(Rid.LIKE, target=True),
    }),
)

BIL_02 = TaskTemplate(
    id="G-BIL-02", app=APP, context=Pair.HOME,
    intent=TemplateIntent("Gaming community", ("Games", "Media", "Movies"),
                          "to watch something new"),
    text="open the home recommendation video",
    subgoals=(Subgoal("open the video from the home feed", (Route.HOME,), "UC"),),
    outcome=Outcome(Route.VIDEO, (_SHOWS_TARGET,)),
    explicit='In Video, open "{label}" from the recommendations on the home screen.',
    implicit="In Video, open {cue}, recommended on the home screen.",
    picks=(Rid.VIDEO_CARD,),
    oracle=MappingProxyType({
        Route.HOME: Move(Rid.VIDEO_CARD, target=True),
        Route.FOLLOWING: Move(Rid.NAV_HOME),
        Route.FOLLOWING_VIDEOS: Move(Rid.NAV_HOME),
        Route.ME: Move(Rid.NAV_HOME),
    }),
)

BIL_03 = TaskTemplate(
    id="G-BIL-03", app=APP, context=Pair.LIKED,
    intent=TemplateIntent("Gaming community", ("Games", "Media", "Movies"), "to watch it again"),
    text="open the video in Liked Videos",
    subgoals=(
        Subgoal("open Me", (Route.HOME, Route.FOLLOWING, Route.FOLLOWING_VIDEOS), "UA",
                (Click(Rid.NAV_ME),)),
        Subgoal("open personal space", (Route.ME,), "UA",
                (Click(Rid.SPACE), Click(Rid.PROFILE), Click(Rid.SPACE_MORE))),
        Subgoal("open liked list", (Route.SPACE,), "UA",
                (Click(Rid.LIKED_VIDEOS), Click(Rid.LIKED_MORE))),
        Subgoal("open the video", (Route.LIKED,), "UC"),
    ),
    outcome=Outcome(Route.VIDEO, (_SHOWS_TARGET,)),
    explicit='In Video, open "{label}" from the liked videos in your space.',
    implicit="In Video, open {cue}, which you liked before, from your space.",
    picks=(Rid.VIDEO,),
    oracle=MappingProxyType({
        Route.HOME: Move(Rid.NAV_ME),
        Route.FOLLOWING: Move(Rid.NAV_ME),
        Route.FOLLOWING_VIDEOS: Move(Rid.NAV_ME),
        Route.ME: Move(Rid.SPACE),
        Route.SPACE: Move(Rid.LIKED_VIDEOS),
        Route.LIKED: Move(Rid.VIDEO, target=True),
    }),
)

TEMPLATES = (BIL_01, BIL_02, BIL_03)

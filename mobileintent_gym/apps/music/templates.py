"""The PAIR study's Spotify templates G-SPT-01..03, run in the music app.

Subgoal names, order and UC/UA labels follow the study's table; screens, controls and
contexts are the app's own names (:mod:`.ids`).
"""

from __future__ import annotations

from types import MappingProxyType

from mobileintent_gym.apps.music.ids import APP, Desc, Pair, Rid, Route, Text
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

_TABS = (Route.HOME, Route.SEARCH)
_LIBRARY = (Route.LIBRARY, Route.RECENT)
_TO_LIBRARY = Move(desc=Desc.LIBRARY)

SPT_01 = TaskTemplate(
    id="G-SPT-01", app=APP, context=Pair.LIKED,
    intent=TemplateIntent("Listen music", ("Music",), "to keep it for rainy evenings"),
    text='add the liked song to a new "Rainy Night" playlist',
    subgoals=(
        Subgoal("open library", _TABS, "UA", (Click(Rid.NAV_LIBRARY, Desc.LIBRARY),)),
        Subgoal("open Liked Songs", _LIBRARY, "UA", (Click(Rid.LIKED_SONGS, Text.LIKED_SONGS),)),
        Subgoal("open the track's menu", (Route.LIKED,), "UC",
                (Click(Rid.MORE, target=True), Click(Rid.TRACK, target=True, long=True))),
        Subgoal("choose Add to playlist", (Route.TRACK_MENU,), "UA",
                (Click(Rid.ADD_TO_PLAYLIST, Text.ADD_TO_PLAYLIST),)),
        Subgoal("choose new playlist", (Route.ADD_TO_PLAYLIST,), "UA",
                (Click(Rid.NEW_PLAYLIST, Text.NEW_PLAYLIST),)),
        Subgoal('create "Rainy Night" and finish adding', (Route.NEW_PLAYLIST,), "UA"),
    ),
    # Taken on the name dialog holding "Rainy Night", the step opens the new playlist:
    # titled exactly so, holding the target.
    outcome=Outcome(Route.PLAYLIST,
                    (NodeCheck(Rid.TITLE, "Rainy Night", which="first"),
                     NodeCheck(Rid.TRACK, target=True)),
                    before=ScreenCheck(Route.NEW_PLAYLIST,
                                       (NodeCheck(Rid.PLAYLIST_NAME, "Rainy Night", draft=True),))),
    explicit='In Music, add the liked song "{label}" to a new playlist named "Rainy Night".',
    implicit='In Music, add {cue} from your Liked Songs to a new playlist named "Rainy Night".',
    step_limit=30, picks=(Rid.MORE, Rid.TRACK),
    oracle=MappingProxyType({
        Route.HOME: _TO_LIBRARY,
        Route.SEARCH: _TO_LIBRARY,
        Route.LIBRARY: Move(Rid.LIKED_SONGS),
        Route.RECENT: Move(Rid.LIKED_SONGS),
        Route.LIKED: Move(Rid.MORE, target=True),
        Route.TRACK_MENU: Move(Rid.ADD_TO_PLAYLIST),
        Route.ADD_TO_PLAYLIST: Move(Rid.NEW_PLAYLIST),
        Route.NEW_PLAYLIST: Move(Rid.CREATE, fill=(Rid.PLAYLIST_NAME, "Rainy Night")),
    }),
)

SPT_02 = TaskTemplate(
    id="G-SPT-02", app=APP, context=Pair.RECENT,
    intent=TemplateIntent("Listen music", ("Music",), "to hear it again"),
    text="play the recently played song",
    subgoals=(
        Subgoal("open library", _TABS, "UA", (Click(Rid.NAV_LIBRARY, Desc.LIBRARY),)),
        Subgoal("expand recent plays", (Route.LIBRARY,), "UA",
                (Click(Rid.RECENTLY_PLAYED, Text.RECENTLY_PLAYED),)),
        Subgoal("play the track", (Route.RECENT,), "UC"),
    ),
    # Playing is the deciding tap (from any list): the mini player then shows the target.
    # A long press opens the track's menu, which plays nothing; a tap on the track already
    # playing (a day's phone carries what it played) changes nothing and still plays it.
    outcome=Outcome(nodes=(NodeCheck(Rid.MINI_PLAYER, target=True),),
                    via=(Click(Rid.TRACK, target=True, long=False),), effect=False),
    explicit='In Music, play "{label}" from your recently played songs.',
    implicit="In Music, play {cue} that you listened to recently.",
    picks=(Rid.TRACK, Rid.MORE),
    oracle=MappingProxyType({
        Route.HOME: _TO_LIBRARY,
        Route.SEARCH: _TO_LIBRARY,
        Route.LIBRARY: Move(Rid.RECENTLY_PLAYED),
        Route.RECENT: Move(Rid.TRACK, target=True),
    }),
)

SPT_03 = TaskTemplate(
    id="G-SPT-03", app=APP, context=Pair.HOME,
    intent=TemplateIntent("Listen music", ("Music",), "to pick music for the moment"),
    text="open the home-screen playlist",
    subgoals=(Subgoal("open the playlist", (Route.HOME,), "UC"),),
    outcome=Outcome(Route.PLAYLIST, (NodeCheck(Rid.TOOLBAR, target=True),)),
    explicit='In Music, open the playlist "{label}" on the home screen.',
    implicit="In Music, open {cue} from the home screen.",
    picks=(Rid.PLAYLIST_CARD,),
    oracle=MappingProxyType({Route.HOME: Move(Rid.PLAYLIST_CARD, target=True)}),
)

TEMPLATES = (SPT_01, SPT_02, SPT_03)

"""The PAIR study's task templates for the apps this gym simulates.

Spotify's G-SPT-01..03 run in the ``music`` app and WeChat's G-WCT-01..03 in ``chat``;
the other apps' templates arrive with their apps. Subgoal names, order and UC/UA labels
follow the study's table; entry screens are this gym's routes.
"""

from __future__ import annotations

from types import MappingProxyType

from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.tasks.spec import (
    Click,
    Move,
    NodeCheck,
    Outcome,
    ScreenCheck,
    Subgoal,
    TaskTemplate,
)

_MUSIC_TABS = ("music/home", "music/search")
_LIBRARY = ("music/library", "music/library/recent")
_OPEN_LIBRARY = (Click("nav_your_library", "Your Library"),)

SPT_01 = TaskTemplate(
    id="G-SPT-01", app="music", context="music/liked",
    text='add the liked song to a new "Rainy Night" playlist',
    subgoals=(
        Subgoal("open library", _MUSIC_TABS, "UA", _OPEN_LIBRARY),
        Subgoal("open Liked Songs", _LIBRARY, "UA", (Click("liked_songs", "Liked Songs"),)),
        Subgoal("open the track's menu", ("music/library/liked",), "UC",
                (Click("more", target=True), Click(target=True, long=True))),
        Subgoal("choose Add to playlist", ("music/track_menu",), "UA",
                (Click("add_to_playlist", "Add to playlist"),)),
        Subgoal("choose new playlist", ("music/add_to_playlist",), "UA",
                (Click("new_playlist", "New playlist"),)),
        Subgoal('create "Rainy Night" and finish adding', ("music/new_playlist",), "UA"),
    ),
    # Taken on the name dialog holding "Rainy Night", the step opens the new playlist:
    # titled exactly so, holding the target.
    outcome=Outcome("music/playlist",
                    (NodeCheck("title", "Rainy Night", which="first"),
                     NodeCheck("track", target=True)),
                    before=ScreenCheck("music/new_playlist",
                                  (NodeCheck("playlist_name", "Rainy Night"),))),
    explicit='In Music, add the liked song "{label}" to a new playlist named "Rainy Night".',
    implicit='In Music, add {cue} from your Liked Songs to a new playlist named "Rainy Night".',
    step_limit=30, picks=("more", "track"),
    oracle=MappingProxyType({
        "music/home": Move(desc="Your Library"),
        "music/search": Move(desc="Your Library"),
        "music/library": Move("liked_songs"),
        "music/library/recent": Move("liked_songs"),
        "music/library/liked": Move("more", target=True),
        "music/track_menu": Move("add_to_playlist"),
        "music/add_to_playlist": Move("new_playlist"),
        "music/new_playlist": Move("create", fill=("playlist_name", "Rainy Night")),
    }),
)

SPT_02 = TaskTemplate(
    id="G-SPT-02", app="music", context="music/recent",
    text="play the recently played song",
    subgoals=(
        Subgoal("open library", _MUSIC_TABS, "UA", _OPEN_LIBRARY),
        Subgoal("expand recent plays", ("music/library",), "UA",
                (Click("recently_played", "Recently played"),)),
        Subgoal("play the track", ("music/library/recent",), "UC"),
    ),
    # Playing is the deciding click (from any list): the mini player then shows the target.
    outcome=Outcome(nodes=(NodeCheck("mini_player", target=True),),
                    via=(Click("track", target=True),)),
    explicit='In Music, play "{label}" from your recently played songs.',
    implicit="In Music, play {cue} that you listened to recently.",
    picks=("track", "more"),
    oracle=MappingProxyType({
        "music/home": Move(desc="Your Library"),
        "music/search": Move(desc="Your Library"),
        "music/library": Move("recently_played"),
        "music/library/recent": Move("track", target=True),
    }),
)

SPT_03 = TaskTemplate(
    id="G-SPT-03", app="music", context="music/home",
    text="open the home-screen playlist",
    subgoals=(Subgoal("open the playlist", ("music/home",), "UC"),),
    outcome=Outcome("music/playlist", (NodeCheck("toolbar", target=True),)),
    explicit='In Music, open the playlist "{label}" on the home screen.',
    implicit="In Music, open {cue} from the home screen.",
    picks=("playlist_card",),
    oracle=MappingProxyType({"music/home": Move("playlist_card", target=True)}),
)

WCT_01 = TaskTemplate(
    id="G-WCT-01", app="chat", context="chat/chats",
    text="open the chat",
    subgoals=(Subgoal("open the conversation", ("chat/chats",), "UC"),),
    outcome=Outcome("chat/conversation", (NodeCheck("toolbar", target=True),)),
    explicit="In Chat, open the conversation with {label}.",
    implicit="In Chat, open {cue}.",
    picks=("chat",),
    oracle=MappingProxyType({"chat/chats": Move("chat", target=True)}),
)

WCT_02 = TaskTemplate(
    id="G-WCT-02", app="chat", context="chat/chats",
    text='open the chat; reply exactly "Understood"',
    subgoals=(
        Subgoal("open the conversation", ("chat/chats",), "UC", (Click("chat", target=True),)),
        Subgoal("enter and send", ("chat/conversation",), "UA"),
    ),
    # Sending the draft "Understood" is the deciding step (by Send, ENTER or the keyboard):
    # the draft is gone and the last bubble sent says it. A reply left from an earlier
    # episode does not count.
    outcome=Outcome("chat/conversation",
                    (NodeCheck("toolbar", target=True),
                     NodeCheck("message_out", "Understood", which="last"),
                     NodeCheck("input", "Understood", present=False)),
                    before=ScreenCheck("chat/conversation", (NodeCheck("toolbar", target=True),
                                                        NodeCheck("input", "Understood")))),
    explicit='In Chat, open the conversation with {label} and reply exactly "Understood".',
    implicit='In Chat, open {cue} and reply exactly "Understood".',
    picks=("chat",),
    oracle=MappingProxyType({
        "chat/chats": Move("chat", target=True),
        "chat/conversation": Move("send", fill=("input", "Understood")),
    }),
)

WCT_03 = TaskTemplate(
    id="G-WCT-03", app="chat", context="chat/moments", act_on="author",
    text="open the author's profile from Moments",
    subgoals=(
        Subgoal("open Discover", ("chat/chats", "chat/contacts", "chat/me"), "UA",
                (Click("nav_discover", "Discover"),)),
        Subgoal("open Moments", ("chat/discover",), "UA", (Click("moments", "Moments"),)),
        Subgoal("open the author's profile", ("chat/moments",), "UC"),
    ),
    outcome=Outcome("chat/profile", (NodeCheck("profile_header", target=True),)),
    explicit='In Chat, open the profile of the person who posted "{label}" in Moments.',
    implicit="In Chat, open the profile of whoever posted {cue} in Moments.",
    picks=("author", "avatar"),
    oracle=MappingProxyType({
        "chat/chats": Move(desc="Discover"),
        "chat/contacts": Move(desc="Discover"),
        "chat/me": Move(desc="Discover"),
        "chat/discover": Move("moments"),
        "chat/moments": Move("author", target=True, within="record"),
    }),
)

TEMPLATES: MappingProxyType[str, TaskTemplate] = MappingProxyType(
    {t.id: t for t in (SPT_01, SPT_02, SPT_03, WCT_01, WCT_02, WCT_03)})


def get_template(template_id: str) -> TaskTemplate:
    """The template with id ``template_id``.

    Raises:
        MobileIntentError: Naming the unknown id and the known ones.
    """
    try:
        return TEMPLATES[template_id]
    except KeyError:
        raise MobileIntentError(
            f"unknown task template {template_id!r}; known: {sorted(TEMPLATES)}") from None

"""The PAIR study's WeChat templates G-WCT-01..03, run in the chat app.

Subgoal names, order and UC/UA labels follow the study's table; screens, controls and
contexts are the app's own names (:mod:`.ids`).
"""

from __future__ import annotations

from types import MappingProxyType

from mobileintent_gym.apps.chat.ids import APP, Desc, Pair, Rid, Route, Text
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

_TABS = (Route.CHATS, Route.CONTACTS, Route.ME)  # the tabs Discover is opened from

WCT_01 = TaskTemplate(
    id="G-WCT-01", app=APP, context=Pair.CHATS,
    intent=TemplateIntent("Chatting", ("Messaging",), "to read the latest messages"),
    text="open the chat",
    subgoals=(Subgoal("open the conversation", (Route.CHATS,), "UC"),),
    outcome=Outcome(Route.CONVERSATION, (NodeCheck(Rid.TOOLBAR, target=True),)),
    explicit="In Chat, open the conversation with {label}.",
    implicit="In Chat, open {cue}.",
    picks=(Rid.CHAT,),
    oracle=MappingProxyType({Route.CHATS: Move(Rid.CHAT, target=True)}),
)

WCT_02 = TaskTemplate(
    id="G-WCT-02", app=APP, context=Pair.CHATS,
    intent=TemplateIntent("Chatting", ("Messaging",), "to confirm the message"),
    text='open the chat; reply exactly "Understood"',
    subgoals=(
        Subgoal("open the conversation", (Route.CHATS,), "UC", (Click(Rid.CHAT, target=True),)),
        Subgoal("enter and send", (Route.CONVERSATION,), "UA"),
    ),
    # Sending the draft "Understood" is the deciding step (by Send, ENTER or the keyboard):
    # the draft is gone and the last bubble sent says it. A reply left from an earlier
    # episode does not count.
    outcome=Outcome(Route.CONVERSATION,
                    (NodeCheck(Rid.TOOLBAR, target=True),
                     NodeCheck(Rid.MESSAGE_OUT, "Understood", which="last"),
                     NodeCheck(Rid.INPUT, "")),
                    before=ScreenCheck(Route.CONVERSATION,
                                       (NodeCheck(Rid.TOOLBAR, target=True),
                                        NodeCheck(Rid.INPUT, "Understood", draft=True)))),
    explicit='In Chat, open the conversation with {label} and reply exactly "Understood".',
    implicit='In Chat, open {cue} and reply exactly "Understood".',
    picks=(Rid.CHAT,),
    oracle=MappingProxyType({
        Route.CHATS: Move(Rid.CHAT, target=True),
        Route.CONVERSATION: Move(Rid.SEND, fill=(Rid.INPUT, "Understood")),
    }),
)

WCT_03 = TaskTemplate(
    id="G-WCT-03", app=APP, context=Pair.MOMENTS, act_on="author",
    intent=TemplateIntent("Community", ("Events", "Movies", "Restaurants", "Travel"),
                          "to see who shared the post"),
    text="open the author's profile from Moments",
    subgoals=(
        Subgoal("open Discover", _TABS, "UA", (Click(Rid.NAV_DISCOVER, Desc.DISCOVER),)),
        Subgoal("open Moments", (Route.DISCOVER,), "UA",
                (Click(Rid.MOMENTS_ENTRY, Text.MOMENTS),)),
        Subgoal("open the author's profile", (Route.MOMENTS,), "UC"),
    ),
    outcome=Outcome(Route.PROFILE, (NodeCheck(Rid.PROFILE_HEADER, target=True),)),
    explicit='In Chat, open the profile of the person who posted "{label}" in Moments.',
    implicit="In Chat, open the profile of whoever posted {cue} in Moments.",
    picks=(Rid.AUTHOR, Rid.AVATAR),
    oracle=MappingProxyType({
        **{route: Move(desc=Desc.DISCOVER) for route in _TABS},
        Route.DISCOVER: Move(Rid.MOMENTS_ENTRY),
        Route.MOMENTS: Move(Rid.AUTHOR, target=True, within="record"),
    }),
)

TEMPLATES = (WCT_01, WCT_02, WCT_03)

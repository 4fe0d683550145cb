"""The PAIR study's Alipay templates G-ALI-01..03, run in the pay app.

Subgoal names, order and UC/UA labels follow the study's table; screens, controls and
contexts are the app's own names (:mod:`.ids`).
"""

from __future__ import annotations

from types import MappingProxyType

from mobileintent_gym.apps.pay.ids import APP, Desc, Pair, Rid, Route, Text
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

_TO_ME = (Route.HOME, Route.MESSAGES)  # the tabs My is opened from
_TO_MESSAGES = (Route.HOME, Route.ME)  # the tabs the message list is opened from
_OPEN_MESSAGES = Subgoal("open message list", _TO_MESSAGES, "UA",
                         (Click(Rid.NAV_MESSAGES, Desc.MESSAGES),))
_MESSAGE_MOVES = {**{route: Move(Rid.NAV_MESSAGES) for route in _TO_MESSAGES},
                  Route.MESSAGES: Move(Rid.CONVERSATION, target=True)}

ALI_01 = TaskTemplate(
    id="G-ALI-01", app=APP, context=Pair.BILLS,
    intent=TemplateIntent("Financial management", ("Finance", "Shopping"),
                          "to check what was paid"),
    text="open the transaction in billing history",
    subgoals=(
        # The tab's label "My" is part of too many words to be matched by label.
        Subgoal("open My", _TO_ME, "UA", (Click(Rid.NAV_ME),)),
        Subgoal("open billing history", (Route.ME,), "UA", (Click(Rid.BILLS, Text.BILLS),)),
        Subgoal("open the transaction", (Route.BILLS,), "UC"),
    ),
    outcome=Outcome(Route.BILL, (NodeCheck(Rid.BILL_HEADER, target=True),)),
    explicit='In Pay, open the "{label}" transaction in your billing history.',
    implicit="In Pay, open the transaction for {cue} in your billing history.",
    picks=(Rid.BILL,),
    oracle=MappingProxyType({
        **{route: Move(Rid.NAV_ME) for route in _TO_ME},
        Route.ME: Move(Rid.BILLS),
        Route.BILLS: Move(Rid.BILL, target=True),
    }),
)

ALI_02 = TaskTemplate(
    id="G-ALI-02", app=APP, context=Pair.MESSAGES,
    intent=TemplateIntent("Message", ("Finance", "Messaging"), "to read the latest notice"),
    text="open the conversation in the message list",
    subgoals=(_OPEN_MESSAGES, Subgoal("open the conversation", (Route.MESSAGES,), "UC")),
    outcome=Outcome(Route.CONVERSATION, (NodeCheck(Rid.TOOLBAR, target=True),)),
    explicit="In Pay, open the conversation with {label} in your messages.",
    implicit="In Pay, open the conversation with {cue} in your messages.",
    picks=(Rid.CONVERSATION,),
    oracle=MappingProxyType(_MESSAGE_MOVES),
)

ALI_03 = TaskTemplate(
    id="G-ALI-03", app=APP, context=Pair.MESSAGES,
    intent=TemplateIntent("Message", ("Finance", "Messaging"), "to confirm it was read"),
    text='open the conversation; reply exactly "Understood"',
    subgoals=(
        _OPEN_MESSAGES,
        Subgoal("open the conversation", (Route.MESSAGES,), "UC",
                (Click(Rid.CONVERSATION, target=True),)),
        Subgoal("enter and send", (Route.CONVERSATION,), "UA"),
    ),
    # Sending the draft "Understood" is the deciding step (by Send, ENTER or the keyboard):
    # the draft is gone and the last message sent says it. A reply left from an earlier
    # episode does not count.
    outcome=Outcome(Route.CONVERSATION,
                    (NodeCheck(Rid.TOOLBAR, target=True),
                     NodeCheck(Rid.MESSAGE_OUT, "Understood", which="last"),
                     NodeCheck(Rid.INPUT, "Send a message")),
                    before=ScreenCheck(Route.CONVERSATION,
                                       (NodeCheck(Rid.TOOLBAR, target=True),
                                        NodeCheck(Rid.INPUT, "Understood", draft=True)))),
    explicit='In Pay, open the conversation with {label} and reply exactly "Understood".',
    implicit='In Pay, open the conversation with {cue} and reply exactly "Understood".',
    picks=(Rid.CONVERSATION,),
    oracle=MappingProxyType({
        **_MESSAGE_MOVES,
        Route.CONVERSATION: Move(Rid.SEND, fill=(Rid.INPUT, "Understood")),
    }),
)

TEMPLATES = (ALI_01, ALI_02, ALI_03)

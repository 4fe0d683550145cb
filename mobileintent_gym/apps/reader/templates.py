"""The PAIR study's WeChat Reading templates G-WRE-01..03, run in the reader app.

Subgoal names, order and UC/UA labels follow the study's table; screens, controls and
contexts are the app's own names (:mod:`.ids`).
"""

from __future__ import annotations

from types import MappingProxyType

from mobileintent_gym.apps.reader.ids import APP, Desc, Pair, Rid, Route, Text
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

_TABS = (Route.HOME, Route.DISCOVER)  # the tabs Me is opened from
_BOOK_PAGE = Outcome(Route.BOOK, (NodeCheck(Rid.BOOK_HEADER, target=True),))

WRE_01 = TaskTemplate(
    id="G-WRE-01", app=APP, context=Pair.READING,
    intent=TemplateIntent("Read e-books", ("Books",), "to continue reading"),
    text="open the book in the home reading list",
    subgoals=(Subgoal("open the book", (Route.HOME,), "UC"),),
    outcome=_BOOK_PAGE,
    explicit='In Reader, open "{label}" from your reading list.',
    implicit="In Reader, open {cue} from your reading list.",
    picks=(Rid.SHELF_BOOK,),
    oracle=MappingProxyType({Route.HOME: Move(Rid.SHELF_BOOK, target=True)}),
)

WRE_02 = TaskTemplate(
    id="G-WRE-02", app=APP, context=Pair.FAVORITES,
    intent=TemplateIntent("Read e-books", ("Books",), "to keep the book in the list"),
    text="add the book using Add Favorite Book",
    subgoals=(
        Subgoal("open Me", _TABS, "UA", (Click(Rid.NAV_ME, Desc.ME),)),
        Subgoal("open book list", (Route.ME,), "UA",
                (Click(Rid.BOOK_LIST_ENTRY, Text.BOOK_LIST),)),
        Subgoal("open list editor", (Route.BOOK_LIST,), "UA",
                (Click(Rid.EDIT_LIST, Text.EDIT_LIST),)),
        Subgoal("open Add Favorite Book", (Route.LIST_EDITOR,), "UA",
                (Click(Rid.ADD_FAVORITE, Text.ADD_FAVORITE),)),
        Subgoal("select the book and confirm", (Route.ADD_BOOK,), "UC"),
    ),
    # Add on the dialog asking about the target is the deciding step: the editor then
    # lists the book. A book left in the list by an earlier episode cannot be asked about.
    outcome=Outcome(Route.LIST_EDITOR, (NodeCheck(Rid.LIST_BOOK, target=True),),
                    before=ScreenCheck(Route.CONFIRM_ADD,
                                       (NodeCheck(Rid.CONFIRM_BOOK, target=True),))),
    explicit='In Reader, add "{label}" to your book list with Add Favorite Book.',
    implicit="In Reader, add {cue} to your book list with Add Favorite Book.",
    picks=(Rid.CANDIDATE, Rid.MORE),
    oracle=MappingProxyType({
        **{route: Move(Rid.NAV_ME) for route in _TABS},
        Route.ME: Move(Rid.BOOK_LIST_ENTRY),
        Route.BOOK_LIST: Move(Rid.EDIT_LIST),
        Route.LIST_EDITOR: Move(Rid.ADD_FAVORITE),
        Route.ADD_BOOK: Move(Rid.CANDIDATE, target=True),
        Route.CONFIRM_ADD: Move(Rid.CONFIRM),
    }),
)

WRE_03 = TaskTemplate(
    id="G-WRE-03", app=APP, context=Pair.RECOMMENDED,
    intent=TemplateIntent("Read e-books", ("Books",), "to try a recommended book"),
    text="open the recommended book",
    subgoals=(Subgoal("open the book", (Route.DISCOVER,), "UC"),),
    outcome=_BOOK_PAGE,
    explicit='In Reader, open the recommended book "{label}".',
    implicit="In Reader, open {cue} from your recommendations.",
    picks=(Rid.RECOMMENDED_BOOK,),
    oracle=MappingProxyType({
        Route.HOME: Move(Rid.NAV_DISCOVER),
        Route.ME: Move(Rid.NAV_DISCOVER),
        Route.DISCOVER: Move(Rid.RECOMMENDED_BOOK, target=True),
    }),
)

TEMPLATES = (WRE_01, WRE_02, WRE_03)

"""The reader app's names: routes, resource ids and PAIR context keys.

Its screens and its task templates both import them, so a rename cannot leave one behind.
"""

from __future__ import annotations

from mobileintent_gym.phone import widgets

APP = "reader"
PACKAGE = "com.mobileintent.reader"


class Route:
    """Screen routes."""

    HOME = "reader/home"  # the reading list
    DISCOVER = "reader/discover"  # recommendations
    ME = "reader/me"
    BOOK = "reader/book"
    BOOK_LIST = "reader/book_list"
    LIST_EDITOR = "reader/list_editor"
    ADD_BOOK = "reader/add_book"  # Add Favorite Book
    CONFIRM_ADD = "reader/confirm_add"


class Rid:
    """Resource id names (the part after ``:id/``)."""

    NAV_READING, NAV_DISCOVER, NAV_ME = "nav_reading", "nav_discover", "nav_me"
    TOOLBAR, TITLE, SUBTITLE, MORE = widgets.TOOLBAR, widgets.TITLE, widgets.SUBTITLE, widgets.MORE
    READING, SHELF_BOOK = "reading", "shelf_book"
    RECOMMENDED, RECOMMENDED_BOOK = "recommended", "recommended_book"
    COVER, BLURB, PROGRESS = "cover", "blurb", "progress"
    BOOK_PAGE, BOOK_HEADER, FACTS, READ = "book_page", "book_header", "facts", "read"
    ABOUT, TOPICS, SIMILAR_BOOK = "about", "topics", "similar_book"
    PROFILE, BOOK_LIST_ENTRY = "profile", "book_list_entry"
    LIST_HEADER, LIST_NAME, EDIT_LIST, LIST_BOOKS, LIST_BOOK = (
        "list_header", "list_name", "edit_list", "list_books", "list_book")
    ADD_FAVORITE, REMOVE = "add_favorite", "remove"
    CANDIDATES, CANDIDATE, CONFIRM_BOOK, CANCEL, CONFIRM = (
        "candidates", "candidate", "confirm_book", "cancel", "confirm")


class Pair:
    """PAIR context keys (``reader:<list>``)."""

    READING = "reader:reading"
    FAVORITES = "reader:favorites"  # the books Add Favorite Book offers
    RECOMMENDED = "reader:recommended"


class Desc:
    """Content descriptions that tasks address."""

    DISCOVER = "Discover"
    ME = "Me"


class Text:
    """Visible labels of the controls that tasks address."""

    BOOK_LIST = "My Book List"
    EDIT_LIST = "Edit list"
    ADD_FAVORITE = "Add Favorite Book"
    CONFIRM = "Add"

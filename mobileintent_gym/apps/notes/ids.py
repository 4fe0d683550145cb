"""The notes app's names: routes, resource ids and PAIR context keys.

Its screens and its task templates both import them, so a rename cannot leave one behind.
"""

from __future__ import annotations

from mobileintent_gym.phone import widgets

APP = "notes"
PACKAGE = "com.mobileintent.notes"
COMMENT_FIELD = "comment"  # the key of the note page's comment box


class Route:
    """Screen routes."""

    DISCOVER = "notes/discover"
    NOTE = "notes/note"
    ME = "notes/me"  # Me with its Notes tab: the user's own notes
    ME_SAVED = "notes/me/saved"
    ME_LIKED = "notes/me/liked"


class Rid:
    """Resource id names (the part after ``:id/``)."""

    NAV_HOME, NAV_POST, NAV_ME = "nav_home", "nav_post", "nav_me"
    TOOLBAR, TITLE = widgets.TOOLBAR, widgets.TITLE
    FEED, NOTE_CARD, AUTHOR, LIKES = "feed", "note_card", "author", "likes"
    NOTE_CONTENT, COVER, NOTE_TITLE = "note_content", "cover", "note_title"
    BODY, TAGS = "body", "tags"
    FOLLOW, COMMENT_BOX, LIKE, SAVE, COMMENT = "follow", "comment_box", "like", "save", "comment"
    SEND, MY_COMMENT = "send", "my_comment"
    PROFILE_HEADER, NOTES = "profile_header", "notes"
    TAB_NOTES, TAB_SAVED, TAB_LIKED = "tab_notes", "tab_saved", "tab_liked"


class Pair:
    """PAIR context keys (``notes:<list>``)."""

    SAVED = "notes:saved"
    LIKED = "notes:liked"
    DISCOVER = "notes:discover"


class Text:
    """Visible labels of the controls that tasks address."""

    NOTES = "Notes"
    SAVED = "Saved"
    LIKED = "Liked"
    ME = "Me"

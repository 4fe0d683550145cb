"""The forum app's names: routes, resource ids and PAIR context keys.

Its screens and its task templates both import them, so a rename cannot leave one behind.
"""

from __future__ import annotations

from mobileintent_gym.phone import widgets

APP = "forum"
PACKAGE = "com.mobileintent.forum"


class Route:
    """Screen routes."""

    HOME = "forum/home"
    COMMUNITIES = "forum/communities"
    PROFILE = "forum/profile"  # your comments
    SAVED = "forum/profile/saved"
    POST = "forum/post"
    COMMUNITY = "forum/community"


class Rid:
    """Resource id names (the part after ``:id/``)."""

    NAV_HOME, NAV_COMMUNITIES, NAV_PROFILE = "nav_home", "nav_communities", "nav_profile"
    TOOLBAR, TITLE, SUBTITLE, TABS = widgets.TOOLBAR, widgets.TITLE, widgets.SUBTITLE, widgets.TABS
    FEED, POST, POST_META, SUGGESTED = "feed", "post", "post_meta", "suggested"
    POST_TITLE, POST_BODY = "post_title", "post_body"
    UPVOTE, SCORE, COMMENTS, SAVE, SHARE = "upvote", "score", "comments", "save", "share"
    THREAD, COMMENT, COMMENT_AUTHOR, COMMENT_TEXT = (
        "thread", "comment", "comment_author", "comment_text")
    COMMENT_INPUT, SUBMIT = "comment_input", "submit"
    COMMUNITY_LIST, COMMUNITY = "community_list", "community"
    COMMUNITY_HEADER, COMMUNITY_NAME, JOIN = "community_header", "community_name", "join"
    PROFILE_HEADER, MY_COMMENTS, MY_COMMENT, EMPTY = (
        "profile_header", "my_comments", "my_comment", "empty")


class Pair:
    """PAIR context keys (``forum:<list>``)."""

    HOME = "forum:home"
    SUGGESTED = "forum:suggested"


class Desc:
    """Content descriptions that tasks address."""

    HOME = "Home"


class Text:
    """Visible labels of the controls that tasks address."""

    SUGGESTED = "Suggested for you"
    COMMENT_HINT = "Add a comment"
    SUBMIT = "Post"

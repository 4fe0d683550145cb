"""The social app's names: routes, resource ids and PAIR context keys.

Its screens and its task templates both import them, so a rename cannot leave one behind.
"""

from __future__ import annotations

from mobileintent_gym.phone import widgets

APP = "social"
PACKAGE = "com.mobileintent.social"


class Route:
    """Screen routes."""

    HOME = "social/home"  # the For you timeline
    FOLLOWING = "social/home/following"  # the timeline of followed accounts
    EXPLORE = "social/explore"
    BOOKMARKS = "social/bookmarks"
    ME = "social/me"
    POST = "social/post"
    PROFILE = "social/profile"


class Rid:
    """Resource id names (the part after ``:id/``)."""

    NAV_HOME, NAV_EXPLORE, NAV_BOOKMARKS, NAV_ME = (
        "nav_home", "nav_explore", "nav_bookmarks", "nav_me")
    TOOLBAR, TITLE, TABS = widgets.TOOLBAR, widgets.TITLE, widgets.TABS
    FEED, POST, CONTEXT, AVATAR, AUTHOR, META, TEXT = (
        "feed", "post", "context", "avatar", "author", "meta", "text")
    REPLY, REPOST, LIKE, BOOKMARK, COUNT = "reply", "repost", "like", "bookmark", "count"
    THREAD, POST_HEADER, STATS, REPLY_ROW = "thread", "post_header", "stats", "reply_row"
    POST_TEXT = "post_text"  # the text of the post a page is about (replies' is TEXT)
    REPLY_INPUT, REPLY_SEND = "reply_input", "reply_send"
    PROFILE_HEADER, NAME, HANDLE, BIO, FOLLOW, POSTS = (
        "profile_header", "name", "handle", "bio", "follow", "posts")
    SEARCH_FIELD, TRENDS, TREND, RESULTS = "search_src_text", "trends", "trend", "results"
    EMPTY = "empty"


class Pair:
    """PAIR context keys (``social:<list>``): the three lists the For you timeline mixes."""

    INTERESTS = "social:interests"  # posts by people about what the user is into
    NEWS = "social:news"  # news from outlets
    TOPICS = "social:topics"  # posts of topics the user follows


class Desc:
    """Content descriptions that tasks address."""

    HOME = "Home"
    FOR_YOU = "For you"

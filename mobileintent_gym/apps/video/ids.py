"""The video app's names: routes, resource ids and PAIR context keys.

Its screens and its task templates both import them, so a rename cannot leave one behind.
"""

from __future__ import annotations

from mobileintent_gym.phone import widgets

APP = "video"
PACKAGE = "com.mobileintent.video"


class Route:
    """Screen routes."""

    HOME = "video/home"
    FOLLOWING = "video/following"  # the All tab: updates of the uploaders you follow
    FOLLOWING_VIDEOS = "video/following/videos"  # the Videos tab: their videos only
    ME = "video/me"
    SPACE = "video/space"
    LIKED = "video/space/liked"
    VIDEO = "video/video"


class Rid:
    """Resource id names (the part after ``:id/``)."""

    NAV_HOME, NAV_FOLLOWING, NAV_ME = "nav_home", "nav_following", "nav_me"
    TOOLBAR, TITLE, MORE = widgets.TOOLBAR, widgets.TITLE, widgets.MORE
    TAB_ALL, TAB_VIDEOS = "tab_all", "tab_videos"
    FEED, VIDEO_CARD, VIDEO, UPDATES, UPDATE = "feed", "video_card", "video", "updates", "update"
    UPLOADERS, UPLOADER = "uploaders", "uploader"
    PLAYER, VIDEO_TITLE, STATS, DESCRIPTION = "player", "video_title", "stats", "description"
    LIKE, COIN, FAVORITE, SHARE, FOLLOW = "like", "coin", "favorite", "share", "follow"
    RELATED = "related"
    PROFILE, SPACE, SPACE_HEADER = "profile", "space", "space_header"
    LIKED_VIDEOS, LIKED_LIST = "liked_videos", "liked_list"
    # The chevrons of the rows that open your space (on Me) and your liked videos.
    SPACE_MORE, LIKED_MORE = "space_more", "liked_more"


class Pair:
    """PAIR context keys (``video:<list>``)."""

    FOLLOWING = "video:following"
    HOME = "video:home"
    LIKED = "video:liked"


class Text:
    """Visible labels of the controls that tasks address."""

    FOLLOWING = "Following"
    ALL = "All"
    VIDEOS = "Videos"
    ME = "Me"
    SPACE = "My space"
    LIKED_VIDEOS = "Liked videos"

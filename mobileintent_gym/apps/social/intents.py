"""What the social app's controls do to its data: its intent handlers.

:class:`~mobileintent_gym.apps.social.app.SocialApp` takes them as a mixin. The state is
immutable: each handler gives ``nav`` a new one, and the phone notices the change.
"""

from __future__ import annotations

from dataclasses import replace

from mobileintent_gym.apps.social.ids import Rid
from mobileintent_gym.apps.social.state import ME, Reply, SocialState
from mobileintent_gym.phone.backstack import Nav
from mobileintent_gym.phone.state import MINUTE_FORMAT, toggled


class SocialIntents:
    """The ``on_<intent>`` handlers of the social app (see :meth:`App.handle`)."""

    def on_like(self, nav: Nav, post_id: str) -> None:
        """Like a post, or take the like back."""
        nav.update(liked=toggled(nav.state.liked, post_id))

    def on_repost(self, nav: Nav, post_id: str) -> None:
        """Repost a post, or undo the repost."""
        nav.update(reposted=toggled(nav.state.reposted, post_id))

    def on_bookmark(self, nav: Nav, post_id: str) -> None:
        """Bookmark a post, or remove the bookmark."""
        nav.update(bookmarks=toggled(nav.state.bookmarks, post_id))

    def on_follow(self, nav: Nav, account_id: str) -> None:
        """Follow an account, or unfollow it."""
        nav.update(following=toggled(nav.state.following, account_id))

    def on_reply(self, nav: Nav, post_id: str) -> None:
        """Post the draft as the newest reply (it shows first) and empty the box."""
        state: SocialState = nav.state
        entry = nav.stack[-1]
        text = entry.fields.get("reply", "").strip()
        if not text:
            return
        post = state.posts[post_id]
        mine = Reply(ME, text, "now", nav.clock.strftime(MINUTE_FORMAT))
        replied = replace(post, replies=(mine, *post.replies))
        nav.update(posts={**state.posts, post_id: replied})
        entry.fields["reply"] = ""
        entry.scroll.pop(Rid.THREAD, None)

    def on_search(self, nav: Nav, query: str) -> None:
        """Search for a trend: it fills the search field."""
        nav.stack[-1].fields["query"] = query

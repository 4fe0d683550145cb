"""What the forum app's controls do to its data: its intent handlers.

:class:`~mobileintent_gym.apps.forum.app.ForumApp` takes them as a mixin. The state is
immutable: each handler gives ``nav`` a new one, and the phone notices the change.
"""

from __future__ import annotations

from dataclasses import replace

from mobileintent_gym.apps.forum.ids import Rid
from mobileintent_gym.apps.forum.state import Comment, ForumState
from mobileintent_gym.phone.backstack import Nav
from mobileintent_gym.phone.state import MINUTE_FORMAT, toggled


class ForumIntents:
    """The ``on_<intent>`` handlers of the forum app (see :meth:`App.handle`)."""

    def on_vote(self, nav: Nav, post_id: str) -> None:
        """Upvote a post, or take the upvote back."""
        nav.update(upvoted=toggled(nav.state.upvoted, post_id))

    def on_save(self, nav: Nav, post_id: str) -> None:
        """Save a post (newest first), or unsave it."""
        nav.update(saved=toggled(nav.state.saved, post_id))

    def on_join(self, nav: Nav, community: str) -> None:
        """Join a community (newest first), or leave it."""
        nav.update(joined=toggled(nav.state.joined, community))

    def on_comment(self, nav: Nav, post_id: str) -> None:
        """Post the draft under the post: it ends the thread, shown, and the box empties."""
        state: ForumState = nav.state
        entry = nav.stack[-1]
        text = entry.fields.get("comment", "").strip()
        if not text:
            return
        post = state.posts[post_id]
        mine = Comment(state.me, text, "now", 1, nav.clock.strftime(MINUTE_FORMAT))
        added = replace(post, comments=(*post.comments, mine))
        nav.update(posts={**state.posts, post_id: added}, mine=((post_id, text), *state.mine))
        entry.fields["comment"] = ""
        entry.scroll[Rid.THREAD] = 1 << 30  # the end of the thread: the new comment

    def on_noop(self, nav: Nav) -> None:
        """A control this simulation does not model: it does nothing, as a stub app would."""

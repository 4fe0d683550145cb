"""What the video app's controls do to its data: its intent handlers.

:class:`~mobileintent_gym.apps.video.app.VideoApp` takes them as a mixin. The state is
immutable: each handler gives ``nav`` a new one, and the phone notices the change.
"""

from __future__ import annotations

from mobileintent_gym.apps.video.state import VideoState
from mobileintent_gym.phone.backstack import Nav
from mobileintent_gym.phone.state import toggled


class VideoIntents:
    """The ``on_<intent>`` handlers of the video app (see :meth:`App.handle`)."""

    def on_toggle(self, nav: Nav, toggle: str, video_id: str) -> None:
        """Like, coin or favourite a video, or take it back (``toggle``: a field of TOGGLES)."""
        state: VideoState = nav.state
        nav.update(**{toggle: toggled(getattr(state, toggle), video_id)})

    def on_follow(self, nav: Nav, uploader: str) -> None:
        """Follow an uploader, or unfollow one: their videos join or leave the Following feed."""
        nav.update(follows=toggled(nav.state.follows, uploader))

    def on_noop(self, nav: Nav) -> None:
        """A control this simulation does not model: it does nothing, as a stub app would."""

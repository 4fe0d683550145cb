"""What the meeting app's controls do to its data: its intent handlers.

:class:`~mobileintent_gym.apps.meeting.app.MeetingApp` takes them as a mixin. The state is
immutable: each handler gives ``nav`` a new one, and the phone notices the change.
"""

from __future__ import annotations

from dataclasses import replace

from mobileintent_gym.apps.meeting.ids import Route
from mobileintent_gym.apps.meeting.state import TIME_FORMAT, MeetingState, at
from mobileintent_gym.phone.backstack import Nav


class MeetingIntents:
    """The ``on_<intent>`` handlers of the meeting app (see :meth:`App.handle`)."""

    def on_join(self, nav: Nav, meeting_id: str) -> None:
        """Join a scheduled meeting, muted with the camera off: its room opens.

        Joining another meeting leaves the one the user is in first.
        """
        state: MeetingState = nav.state
        state.meeting(meeting_id)
        if state.joined != meeting_id:
            self._leave(nav)
            nav.update(joined=meeting_id, joined_at=nav.clock.strftime(TIME_FORMAT),
                       muted=True, camera=False)
        nav.push(Route.ROOM)

    def on_leave(self, nav: Nav) -> None:
        """Leave the meeting and its room; it tops the meeting history."""
        self._leave(nav)
        nav.pop()

    @staticmethod
    def _leave(nav: Nav) -> None:
        """Record the meeting the user is in (if any) as attended, for as long as they stayed."""
        state: MeetingState = nav.state
        if state.joined is None:
            return
        stayed = int((nav.clock - at(state.joined_at)).total_seconds() // 60)
        # Each attendance its own entry: two of one meeting within a minute were merged.
        number = f"{state.joined}-{len(state.history) + 1}"  # the history only grows
        attended = replace(state.meeting(state.joined), id=number, start=state.joined_at,
                           minutes=max(1, stayed), recorded=False)
        nav.update(joined=None, joined_at="", history=(attended, *state.history))

    def on_remind(self, nav: Nav, meeting_id: str) -> None:
        """Turn a scheduled meeting's reminder on or off."""
        reminders = nav.state.reminders
        nav.update(reminders=tuple(r for r in reminders if r != meeting_id)
                   if meeting_id in reminders else (*reminders, meeting_id))

    def on_toggle_mic(self, nav: Nav) -> None:
        """Mute or unmute the user in the meeting."""
        nav.update(muted=not nav.state.muted)

    def on_toggle_camera(self, nav: Nav) -> None:
        """Turn the user's camera on or off in the meeting."""
        nav.update(camera=not nav.state.camera)

    def on_noop(self, nav: Nav) -> None:
        """A control this simulation does not model."""

"""The meeting app's room: the meeting the user is in.

:class:`~mobileintent_gym.apps.meeting.app.MeetingApp` takes this screen as a mixin.
"""

from __future__ import annotations

from mobileintent_gym.apps.meeting import icon
from mobileintent_gym.apps.meeting.ids import Rid
from mobileintent_gym.apps.meeting.state import Meeting, MeetingState
from mobileintent_gym.phone import ui, widgets
from mobileintent_gym.phone.app import Entry
from mobileintent_gym.phone.icons import Glyph
from mobileintent_gym.phone.paint import Avatar, Color, Fill, Icon, Round
from mobileintent_gym.phone.ui import Column, Node, Rect
from mobileintent_gym.phone.widgets import Ctx

_DARK, _TILE, _BAR = (24, 24, 27), (48, 48, 54), (36, 36, 40)
_LIGHT, _DIM, _RED = (244, 244, 245), (161, 161, 170), (220, 38, 38)


class RoomScreen:
    """The meeting room (a mixin of the meeting app)."""

    def room_screen(self, ctx: Ctx, entry: Entry, state: MeetingState) -> Node:
        """The meeting's title and ID, a tile per person, and the controls with Leave."""
        root, col = widgets.page(ctx, "room", _DARK)
        if state.joined is None:
            root.add(widgets.text(ctx, col.take(ctx.dp(120)), "You are not in a meeting", 17,
                                  color=_DIM, under=_DARK, align="center"))
            return root
        meeting = state.meeting(state.joined)
        head = Column(ui.inset(col.take(ctx.dp(76)), ctx.dp(20), ctx.dp(12)))
        root.add(widgets.text(ctx, head.take(ctx.dp(30)), meeting.title, 18, bold=True,
                              color=_LIGHT, under=_DARK, align="center", rid=Rid.ROOM_TITLE,
                              entity=meeting.id),
                 widgets.text(ctx, head.rest(), f"Meeting ID {meeting.code}", 13, color=_DIM,
                              under=_DARK, align="center"))
        root.add(self._controls(ctx, col.take_bottom(ctx.dp(84)), state, meeting))
        others = max(0, meeting.people - 2)
        people = [(Avatar(meeting.host, meeting.host, _TILE), meeting.host, False, True),
                  (Avatar("me", state.me, _TILE), "You", state.muted, state.camera)]
        if others:
            people.append((Avatar("others", "Others", _TILE, glyph="contacts", color=_DIM),
                           widgets.counted(others, "other"), False, False))
        grid = Column(ui.inset(col.rest(), ctx.dp(12), ctx.dp(8)))
        rows = (people[:2], people[2:]) if others else (people,)
        height = (grid.bottom - grid.top) // len(rows)
        for cells in rows:
            for cell, person in zip(ui.split_row(grid.take(height), [None] * len(cells)),
                                    cells, strict=True):
                root.add(self._tile(ctx, ui.inset(cell, ctx.dp(4)), *person))
        return root

    @staticmethod
    def _tile(ctx: Ctx, rect: Rect, face: Avatar, label: str, muted: bool,
              camera: bool) -> Node:
        """A person's tile: their face and name, a struck microphone when muted.

        It has a green frame while the person's camera is on.
        """
        tile = Node(ui.LINEAR, rect, desc=label, resource_id=ctx.rid(Rid.TILE),
                    paint=Round(_TILE, _DARK, ctx.dp(12),
                                outline=(34, 197, 94) if camera else None))
        side = min(ctx.dp(88), (rect[3] - rect[1]) // 2)
        left, top = (rect[0] + rect[2] - side) // 2, (rect[1] + rect[3] - side) // 2
        tile.add(Node(ui.IMAGE_VIEW, (left, top, left + side, top + side), paint=face))
        foot = (rect[0] + ctx.dp(12), rect[3] - ctx.dp(32), rect[2] - ctx.dp(12),
                rect[3] - ctx.dp(8))
        name_cell, mic = ui.split_row(foot, [None, ctx.dp(24)])
        tile.add(widgets.text(ctx, name_cell, label, 13, color=_LIGHT, under=_TILE))
        if muted:
            tile.add(Node(ui.IMAGE_VIEW, mic, desc="Muted",
                          paint=Icon(icon.mic_off, _RED, _TILE, ctx.dp(18))))
        return tile

    def _controls(self, ctx: Ctx, rect: Rect, state: MeetingState, meeting: Meeting) -> Node:
        """Microphone, camera, participants and Leave, each an icon over its name."""
        bar = Node(ui.LINEAR, rect, paint=Fill(_BAR))
        controls = (
            ("Unmute" if state.muted else "Mute", icon.mic_off if state.muted else "mic",
             ("toggle_mic",), Rid.MIC, _LIGHT),
            ("Start video" if not state.camera else "Stop video",
             icon.camera_off if not state.camera else icon.draw, ("toggle_camera",),
             Rid.CAMERA, _LIGHT),
            (f"Participants ({meeting.people})", "contacts", ("noop",), Rid.PARTICIPANTS,
             _LIGHT),
            ("Leave", icon.leave, ("leave",), Rid.LEAVE, _RED))
        for cell, control in zip(ui.split_row(rect, [None] * len(controls)), controls,
                                 strict=True):
            bar.add(self._control(ctx, cell, *control))
        return bar

    @staticmethod
    def _control(ctx: Ctx, rect: Rect, label: str, glyph: Glyph, intent: tuple, rid: str,
                 color: Color) -> Node:
        button = Node(ui.LINEAR, rect, desc=label, resource_id=ctx.rid(rid), on_click=intent)
        col = Column(ui.inset(rect, 0, ctx.dp(10)))
        return button.add(
            Node(ui.IMAGE_VIEW, col.take(ctx.dp(34)), paint=Icon(glyph, color, _BAR,
                                                                ctx.dp(28))),
            widgets.text(ctx, col.rest(), label, 12, color=color, under=_BAR, align="center"))

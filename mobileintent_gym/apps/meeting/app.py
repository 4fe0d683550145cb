"""Meeting: a video-meeting app that mirrors Tencent Meeting's structure.

Routes (names in :mod:`.ids`): two tabs — ``meeting/home`` (Join, Quick meeting and
Schedule, the way to the meeting history, and the scheduled meetings by day, each at its
next weekly occurrence) and
``meeting/me`` (the account, the meeting history, recordings) — then ``meeting/history``
(past meetings and webinars by day), ``meeting/details?id=`` (a meeting's details: Join
and a reminder for a scheduled one, its recording for a past one) and ``meeting/room``
(the meeting the user is in: tiles, microphone, camera, Leave). The history and the
details are in :mod:`.details`, the room in :mod:`.room`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from itertools import groupby
from typing import Any, ClassVar

from mobileintent_gym.apps.meeting import icon, tour
from mobileintent_gym.apps.meeting.content import CONTEXTS, build_state
from mobileintent_gym.apps.meeting.details import DetailScreens, day_row
from mobileintent_gym.apps.meeting.ids import APP, PACKAGE, Desc, Rid, Route, Text
from mobileintent_gym.apps.meeting.intents import MeetingIntents
from mobileintent_gym.apps.meeting.room import RoomScreen
from mobileintent_gym.apps.meeting.state import Meeting, MeetingState, at, day, moved_state
from mobileintent_gym.phone import ui, widgets
from mobileintent_gym.phone.app import App, Entry, Screen
from mobileintent_gym.phone.icons import Glyph
from mobileintent_gym.phone.paint import Avatar, Fill, Icon
from mobileintent_gym.phone.ui import Column, Node, Rect
from mobileintent_gym.phone.widgets import Ctx, Theme
from mobileintent_gym.users.pair import random_state

_ACCENT = (79, 70, 229)
_LIVE = (22, 163, 74)  # the banner of the meeting the user is in
_ACTIONS = (("Join", icon.join), ("Quick meeting", icon.draw), ("Schedule", icon.calendar))


class MeetingApp(MeetingIntents, DetailScreens, RoomScreen, App):
    """The meeting app."""

    id = APP
    package = PACKAGE
    label = "Meeting"
    icon = staticmethod(icon.draw)
    color = _ACCENT
    theme = Theme(background=(255, 255, 255), surface=(243, 244, 246), text=(24, 24, 27),
                  muted=(113, 113, 122), accent=_ACCENT, bar=(255, 255, 255),
                  divider=(228, 228, 231))
    home = Route.HOME
    state_type = MeetingState
    routes: ClassVar[dict[str, Screen]] = {
        Route.HOME: Screen("home_screen", tab=True),
        Route.ME: Screen("me_screen", tab=True),
        Route.HISTORY: Screen("history_screen"),
        Route.DETAILS: Screen("details_screen", params=("id",)),
        Route.ROOM: Screen("room_screen"),
    }
    tour = tour.STEPS

    def initial_state(self, seed: int) -> MeetingState:
        """Built-in content for ``seed``."""
        return random_state(CONTEXTS, build_state, APP, seed)

    def moved(self, state: MeetingState, by: timedelta) -> MeetingState:
        """``state`` with its meetings' times moved by ``by``."""
        return moved_state(state, by)

    def samples(self, state: MeetingState) -> Mapping[str, Mapping[str, Any]]:
        """Parameters that open each parametrised route on ``state``."""
        return {Route.DETAILS: {"id": state.history[0].id}}

    def _tab_root(self, ctx: Ctx, tab: int) -> tuple[Node, Column]:
        root, col = widgets.page(ctx, "root", ctx.theme.surface)
        items = [(Desc.MEETINGS, icon.draw, ("open", Route.HOME), "", Rid.NAV_MEETINGS),
                 (Desc.ME, "person", ("open", Route.ME), "", Rid.NAV_ME)]
        root.add(widgets.bottom_nav(ctx, col.take_bottom(ctx.dp(60)), items, tab))
        return root, col

    def home_screen(self, ctx: Ctx, entry: Entry, state: MeetingState) -> Node:
        """Join, Quick meeting, Schedule; the meeting history; the scheduled meetings."""
        t = ctx.theme
        root, col = self._tab_root(ctx, 0)
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(56)), "Meetings", back=False,
                                 actions=[("plus", "New meeting", ("noop",))]))
        actions = Node(ui.LINEAR, col.take(ctx.dp(104)), paint=Fill(t.background))
        for cell, (label, glyph) in zip(ui.split_row(actions.frame, [None] * len(_ACTIONS)),
                                        _ACTIONS, strict=True):
            actions.add(self._action(ctx, cell, label, glyph))
        root.add(actions)
        if state.joined:
            root.add(self._live_banner(ctx, col.take(ctx.dp(56)), state.meeting(state.joined)))
        col.take(ctx.dp(8))
        root.add(self._history_row(ctx, col.take(ctx.dp(56))))
        col.take(ctx.dp(8))
        items = []
        for heading, meetings in groupby(state.agenda(ctx.today),
                                         key=lambda m: day(m.start, ctx.today)):
            items.append((ctx.dp(44), lambda r, h=heading: day_row(ctx, r, h)))
            items += [(ctx.dp(76), lambda r, m=m: self._scheduled_row(
                ctx, r, m, m.id in state.reminders)) for m in meetings]
        root.add(self.scroll(entry, col.rest(), Rid.SCHEDULE_LIST, items))
        return root

    @staticmethod
    def _action(ctx: Ctx, rect: Rect, label: str, glyph: Glyph) -> Node:
        """One of the big actions: its icon on the accent colour over its name."""
        t = ctx.theme
        tile = Node(ui.LINEAR, rect, desc=label, resource_id=ctx.rid(Rid.ACTION),
                    on_click=("noop",))
        side, top = ctx.dp(52), rect[1] + ctx.dp(12)
        left = (rect[0] + rect[2] - side) // 2
        return tile.add(
            Node(ui.IMAGE_VIEW, (left, top, left + side, top + side),
                 paint=Avatar(label, label, t.background, glyph=glyph, color=t.accent)),
            widgets.text(ctx, (rect[0], top + side + ctx.dp(6), rect[2], rect[3]), label, 13,
                         align="center"))

    @staticmethod
    def _live_banner(ctx: Ctx, rect: Rect, meeting: Meeting) -> Node:
        """The meeting the user is in; a tap returns to its room."""
        white = (255, 255, 255)
        banner = Node(ui.LINEAR, rect, resource_id=ctx.rid(Rid.IN_MEETING), entity=meeting.id,
                      on_click=("open", Route.ROOM), paint=Fill(_LIVE))
        text, back = ui.split_row(ui.inset(rect, ctx.dp(16), 0), [None, ctx.dp(72)])
        return banner.add(
            widgets.text(ctx, text, f"In meeting · {meeting.title}", 15, bold=True,
                         color=white, under=_LIVE),
            widgets.text(ctx, back, "Return", 15, color=white, under=_LIVE, align="right"))

    @staticmethod
    def _history_row(ctx: Ctx, rect: Rect) -> Node:
        """The way to the meeting history."""
        t = ctx.theme
        intent = ("open", Route.HISTORY)
        return widgets.list_row(ctx, rect, Text.HISTORY, thumb=Avatar(
            "history", Text.HISTORY, t.background, glyph=icon.clock, color=(245, 158, 11)),
            on_click=intent, rid=Rid.HISTORY,
            trailing=("chevron_right", f"Open {Text.HISTORY}", intent))

    @staticmethod
    def _scheduled_row(ctx: Ctx, rect: Rect, meeting: Meeting, reminder: bool) -> Node:
        """A scheduled meeting: start and end, title, meeting ID and host, reminder bell."""
        t = ctx.theme
        row = Node(ui.VIEW_GROUP, rect, resource_id=ctx.rid(Rid.SCHEDULED),
                   paint=Fill(t.background), entity=meeting.id,
                   on_click=("open", Route.DETAILS, (("id", meeting.id),)))
        times, body, bell = ui.split_row(ui.inset(rect, ctx.dp(16), ctx.dp(12)),
                                         [ctx.dp(56), None, ctx.dp(32)])
        start = at(meeting.start)
        clock = Column(times)
        row.add(widgets.text(ctx, clock.take(ctx.dp(26)), f"{start:%H:%M}", 16, bold=True,
                             rid=Rid.TIME),
                widgets.text(ctx, clock.rest(), f"{meeting.minutes} min", 12.5, color=t.muted))
        lines = Column(ui.inset(body, ctx.dp(8), 0))
        row.add(widgets.text(ctx, lines.take(ctx.dp(26)), meeting.title, 16, rid=Rid.TITLE),
                widgets.text(ctx, lines.rest(), f"{meeting.code} · {meeting.host}", 13,
                             color=t.muted, rid=Rid.SUBTITLE))
        if reminder:
            side = ctx.dp(20)
            top = (bell[1] + bell[3] - side) // 2
            row.add(Node(ui.IMAGE_VIEW, (bell[2] - side, top, bell[2], top + side),
                         desc="Reminder on", resource_id=ctx.rid(Rid.REMINDER),
                         paint=Icon("bell", t.accent, t.background, side)))
        return row.add(widgets.divider(ctx, (rect[0] + ctx.dp(80), *rect[1:])))

    @staticmethod
    def _stats(ctx: Ctx, rect: Rect, state: MeetingState) -> Node:
        """What the meeting history adds up to: meetings, webinars and hours."""
        t = ctx.theme
        webinars = sum(m.kind == "webinar" for m in state.history)
        hours = sum(m.minutes for m in state.history) // 60
        figures = ((len(state.history) - webinars, "Meetings"), (webinars, "Webinars"),
                   (hours, "Hours"))
        stats = Node(ui.LINEAR, rect, resource_id=ctx.rid(Rid.STATS), paint=Fill(t.background))
        for cell, (figure, label) in zip(ui.split_row(rect, [None] * len(figures)), figures,
                                         strict=True):
            lines = Column(ui.inset(cell, 0, ctx.dp(10)))
            stats.add(widgets.text(ctx, lines.take(ctx.dp(36)), str(figure), 24, bold=True,
                                   align="center"),
                      widgets.text(ctx, lines.rest(), label, 13, color=t.muted, align="center"))
        return stats

    def me_screen(self, ctx: Ctx, entry: Entry, state: MeetingState) -> Node:
        """Me: the account card, the meeting history, recordings and settings."""
        t = ctx.theme
        root, col = self._tab_root(ctx, 1)
        card = Node(ui.LINEAR, col.take(ctx.dp(112)), resource_id=ctx.rid(Rid.ACCOUNT),
                    paint=Fill(t.background))
        face, body = ui.split_row(ui.inset(card.frame, ctx.dp(20), ctx.dp(24)),
                                  [ctx.dp(64), None])
        card.add(Node(ui.IMAGE_VIEW, face, desc=state.me, paint=Avatar("me", state.me,
                                                                        t.background)))
        lines = Column(ui.inset(body, ctx.dp(16), 0))
        card.add(widgets.text(ctx, lines.take(ctx.dp(34)), state.me, 21, bold=True,
                              rid=Rid.TITLE),
                 widgets.text(ctx, lines.rest(), state.account, 14, color=t.muted,
                              rid=Rid.SUBTITLE))
        root.add(card, self._stats(ctx, col.take(ctx.dp(84)), state))
        col.take(ctx.dp(10))
        root.add(self._history_row(ctx, col.take(ctx.dp(64))))
        recorded = sum(m.recorded for m in state.history)
        for label, glyph, color, value in (
                ("Recordings", icon.draw, (239, 68, 68), f"{recorded} in the cloud"),
                ("Personal meeting room", icon.join, (14, 165, 233), "Always open"),
                ("Settings", "settings", (113, 113, 122), "")):
            row = widgets.list_row(ctx, col.take(ctx.dp(64)), label, value, thumb=Avatar(
                label, label, t.background, glyph=glyph, color=color), on_click=("noop",),
                rid=label.split()[0].lower(), trailing=("chevron_right", label, ("noop",)))
            root.add(row.add(widgets.divider(ctx, row.frame)))
        return root

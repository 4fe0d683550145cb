"""The meeting app's history and details: past meetings and webinars by day, one meeting.

:class:`~mobileintent_gym.apps.meeting.app.MeetingApp` takes these screens as a mixin (they
use ``App.scroll``).
"""

from __future__ import annotations

from dataclasses import replace
from itertools import groupby

from mobileintent_gym.apps.meeting import icon
from mobileintent_gym.apps.meeting.ids import Rid, Route, Text
from mobileintent_gym.apps.meeting.state import (
    Meeting,
    MeetingState,
    day,
    duration,
    next_start,
    span,
)
from mobileintent_gym.phone import ui, widgets
from mobileintent_gym.phone.app import Entry
from mobileintent_gym.phone.paint import Avatar, Color, Fill, Round
from mobileintent_gym.phone.ui import Column, Node, Rect
from mobileintent_gym.phone.widgets import Ctx

_WEBINAR = (234, 88, 12)  # webinars wear a board on orange; meetings their initials
_STATUS = {"Upcoming": (79, 70, 229), "In meeting": (22, 163, 74), "Ended": (113, 113, 122)}


def art(meeting: Meeting, under: Color) -> Avatar:
    """A meeting's picture: its initials, or a presentation board for a webinar."""
    if meeting.kind == "webinar":
        return Avatar(meeting.id, meeting.title, under, glyph=icon.webinar, color=_WEBINAR)
    return Avatar(meeting.id, meeting.title, under)


def day_row(ctx: Ctx, rect: Rect, heading: str) -> Node:
    """A day's heading in a list of meetings."""
    t = ctx.theme
    head = Node(ui.LINEAR, rect, resource_id=ctx.rid(Rid.DAY), paint=Fill(t.surface))
    return head.add(widgets.text(ctx, ui.inset(rect, ctx.dp(16), 0), heading, 14, bold=True,
                                 color=t.muted, under=t.surface))


class DetailScreens:
    """The meeting history and a meeting's details (a mixin of the meeting app)."""

    def history_screen(self, ctx: Ctx, entry: Entry, state: MeetingState) -> Node:
        """Past meetings and webinars, newest first, under a heading per day."""
        root, col = widgets.page(ctx, Rid.HISTORY, ctx.theme.surface)
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(56)), Text.HISTORY,
                                 actions=[("search", "Search meetings", ("noop",))]))
        items = []
        for heading, meetings in groupby(state.history, key=lambda m: day(m.start, ctx.today)):
            items.append((ctx.dp(44), lambda r, h=heading: day_row(ctx, r, h)))
            items += [(ctx.dp(72), lambda r, m=m: self._past_row(ctx, r, m)) for m in meetings]
        root.add(self.scroll(entry, col.rest(), Rid.HISTORY_LIST, items))
        return root

    @staticmethod
    def _past_row(ctx: Ctx, rect: Rect, meeting: Meeting) -> Node:
        """A past meeting: its picture, title, when and who hosted; ``Webinar`` for one."""
        row = widgets.list_row(ctx, rect, meeting.title, f"{span(meeting)} · {meeting.host}",
                               thumb=art(meeting, ctx.theme.background), entity=meeting.id,
                               on_click=("open", Route.DETAILS, (("id", meeting.id),)),
                               rid=Rid.MEETING,
                               meta="Webinar" if meeting.kind == "webinar" else "")
        return row.add(widgets.divider(ctx, (rect[0] + ctx.dp(72), *rect[1:])))

    def details_screen(self, ctx: Ctx, entry: Entry, state: MeetingState) -> Node:
        """A meeting: title, status, time and topic; its ID, host, type, length and people.

        Then the reminder and Join for a scheduled meeting, the recording for a past one.
        """
        t = ctx.theme
        meeting = state.meeting(entry.param("id"))
        upcoming = state.upcoming(meeting.id)
        if upcoming:
            meeting = replace(meeting, start=next_start(meeting.start, ctx.today))
        root, col = widgets.page(ctx, "details", t.surface)
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(56)), "Meeting details",
                                 entity=meeting.id,
                                 actions=[("share", "Share invitation", ("noop",))]))
        status = ("In meeting" if state.joined == meeting.id else
                  "Upcoming" if upcoming else "Ended")
        root.add(self._header(ctx, col, meeting, status))
        col.take(ctx.dp(10))
        people = f"{meeting.people} {'invited' if upcoming else 'took part'}"
        for key, value in (("Meeting ID", meeting.code), ("Host", meeting.host),
                           ("Type", meeting.kind.capitalize()),
                           ("Length", duration(meeting.minutes)), ("Participants", people)):
            root.add(widgets.detail_row(ctx, col.take(ctx.dp(52)), key, value, key_dp=120,
                                        rid=Rid.DETAIL))
        col.take(ctx.dp(10))
        if upcoming:
            root.add(self._reminder(ctx, col.take(ctx.dp(56)), meeting,
                                    meeting.id in state.reminders))
            joined = state.joined == meeting.id
            label, intent = (("Return to meeting", ("open", Route.ROOM)) if joined
                             else (Text.JOIN, ("join", meeting.id)))
            root.add(widgets.button(ctx, ui.inset(col.take(ctx.dp(76)), ctx.dp(20), ctx.dp(12)),
                                    label, intent, rid=Rid.JOIN, under=t.surface))
        else:
            recording = (f"Cloud recording · {duration(meeting.minutes)}" if meeting.recorded
                         else "No recording")
            row = widgets.list_row(ctx, col.take(ctx.dp(56)), recording, on_click=(
                ("noop",) if meeting.recorded else None), rid=Rid.RECORDING)
            root.add(row)
        return root

    @staticmethod
    def _header(ctx: Ctx, col: Column, meeting: Meeting, status: str) -> Node:
        """The meeting's title (wrapping), its status pill, when it runs and its topic."""
        t = ctx.theme
        inner = ctx.width - 2 * ctx.dp(20)
        title_h = widgets.text_height(ctx, meeting.title, 22, inner, lines=2, bold=True)
        topic_h = widgets.text_height(ctx, meeting.topic, 14, inner, lines=3)
        head = Node(ui.LINEAR, col.take(title_h + topic_h + ctx.dp(88)),
                    resource_id=ctx.rid(Rid.MEETING_HEADER), entity=meeting.id,
                    paint=Fill(t.background))
        lines = Column(ui.inset(head.frame, ctx.dp(20), ctx.dp(18)))
        title = widgets.paragraph(ctx, lines.take(title_h), meeting.title, 22, lines=2,
                                  bold=True, rid=Rid.TITLE)
        when, pill = ui.split_row(lines.take(ctx.dp(40)), [None, ctx.dp(104)])
        pill = ui.inset(pill, 0, ctx.dp(8))
        lines.take(ctx.dp(8))
        return head.add(
            title,
            widgets.text(ctx, when, f"{day(meeting.start, ctx.today)} · {span(meeting)}", 15,
                         rid=Rid.TIME),
            Node(ui.TEXT_VIEW, pill, text=status, resource_id=ctx.rid(Rid.STATUS),
                 paint=Round(_STATUS[status], t.background, ctx.dp(12), status,
                             (255, 255, 255), ctx.dp(12.5))),
            widgets.paragraph(ctx, lines.rest(), meeting.topic, 14, lines=3, color=t.muted,
                              rid=Rid.SUBTITLE))

    @staticmethod
    def _reminder(ctx: Ctx, rect: Rect, meeting: Meeting, on: bool) -> Node:
        """The reminder switch of a scheduled meeting: a tap turns it on or off."""
        t = ctx.theme
        row = Node(ui.LINEAR, rect, resource_id=ctx.rid(Rid.REMIND), paint=Fill(t.background),
                   on_click=("remind", meeting.id), checkable=True, checked=on)
        name, value = ui.split_row(ui.inset(rect, ctx.dp(20), 0), [None, ctx.dp(120)])
        return row.add(widgets.text(ctx, name, "Remind me 15 min before", 15),
                       widgets.text(ctx, value, "On" if on else "Off", 15, bold=on,
                                    color=t.accent if on else t.muted, align="right"))

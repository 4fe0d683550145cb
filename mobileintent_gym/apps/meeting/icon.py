"""The meeting app's launcher icon and the glyphs of its own controls (24-unit grid)."""

from __future__ import annotations

from mobileintent_gym.phone.icons import Pen


def draw(p: Pen) -> None:
    """A video camera: the launcher icon, and the camera control in a meeting."""
    p.rect(2, 6, 16, 18, radius=2.5)
    p.poly(16, 10.5, 22, 6.5, 22, 17.5, 16, 13.5)


def camera_off(p: Pen) -> None:
    """The video camera struck through: the camera is off."""
    draw(p)
    p.d.line(p.p(3, 3, 21, 21), fill=p.under, width=3 * p.w)
    p.line(3, 3, 21, 21)


def mic_off(p: Pen) -> None:
    """A microphone struck through: the user is muted."""
    p.rect(9, 2, 15, 15, radius=3)
    p.arc(12, 10, 7, 0, 180)
    p.line(12, 17, 12, 22)
    p.d.line(p.p(4, 3, 20, 21), fill=p.under, width=3 * p.w)
    p.line(4, 3, 20, 21)


def join(p: Pen) -> None:
    """An arrow entering a door: join a meeting by its ID."""
    p.line(13, 3, 20, 3, 20, 21, 13, 21)
    p.line(3, 12, 14, 12)
    p.line(10, 7.5, 14.5, 12, 10, 16.5)


def calendar(p: Pen) -> None:
    """A calendar page: schedule a meeting."""
    p.rect(3, 5, 21, 21, radius=2)
    p.rect(5, 10, 19, 19, hole=True)
    p.rect(7, 2.5, 9, 7, radius=1)
    p.rect(15, 2.5, 17, 7, radius=1)
    p.rect(7, 12, 10, 15)


def clock(p: Pen) -> None:
    """A clock face: the meeting history."""
    p.circle(12, 12, 9.5, fill=False)
    p.line(12, 6.5, 12, 12, 16, 14)


def webinar(p: Pen) -> None:
    """A presentation board on a stand: a webinar."""
    p.rect(3, 3, 21, 15, radius=1.5)
    p.rect(5, 5, 19, 13, hole=True)
    p.line(7, 11, 10, 8, 13, 10, 17, 6.5)
    p.line(12, 15, 12, 19)
    p.line(8, 22, 12, 18, 16, 22)


def leave(p: Pen) -> None:
    """A telephone handset lying down: hang up."""
    p.d.chord(p.box(2, 7, 22, 21), 180, 360, fill=p.color)
    p.rect(2, 13, 7.5, 16.5, radius=1.2)
    p.rect(16.5, 13, 22, 16.5, radius=1.2)
    p.d.chord(p.box(6.5, 10.5, 17.5, 21), 180, 360, fill=p.under)

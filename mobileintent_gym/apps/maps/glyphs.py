"""The maps app's own icons.

Painters on the 24-unit grid of a :class:`~mobileintent_gym.phone.icons.Pen`.
"""

from __future__ import annotations

from mobileintent_gym.phone.icons import Pen


def pin(p: Pen) -> None:
    """A map pin: a round head over a point, with a hole in the head."""
    p.circle(12, 9, 7)
    p.poly(6.2, 12.5, 12, 23, 17.8, 12.5)
    p.circle(12, 9, 2.8, hole=True)


def dot(p: Pen) -> None:
    """Your location: a disc in a white ring."""
    p.d.ellipse(p.box(1, 1, 23, 23), fill=(255, 255, 255))
    p.circle(12, 12, 8)


def clock(p: Pen) -> None:
    """A clock face (a recent search)."""
    p.circle(12, 12, 9, fill=False)
    p.line(12, 7, 12, 12, 16, 14)


def star(p: Pen) -> None:
    """A filled five-pointed star."""
    p.poly(12, 2, 14.9, 8.6, 22, 9.2, 16.6, 13.9, 18.2, 21, 12, 17.3, 5.8, 21, 7.4, 13.9,
           2, 9.2, 9.1, 8.6)


def bookmark(p: Pen) -> None:
    """A saved place: a filled bookmark."""
    p.poly(6, 3, 18, 3, 18, 21, 12, 16, 6, 21)


def car(p: Pen) -> None:
    """Go: a car seen from the front."""
    p.rect(3, 10, 21, 18, radius=2)
    p.poly(5.5, 10.5, 8, 4.5, 16, 4.5, 18.5, 10.5)
    p.poly(7.8, 9.5, 9.3, 6.3, 14.7, 6.3, 16.2, 9.5, hole=True)
    p.circle(7, 14, 1.6, hole=True)
    p.circle(17, 14, 1.6, hole=True)
    p.rect(4.5, 18, 7.5, 21)
    p.rect(16.5, 18, 19.5, 21)


def bus(p: Pen) -> None:
    """A transit trip: a bus seen from the front."""
    p.rect(4, 2, 20, 19, radius=3)
    p.rect(6, 5, 18, 11, hole=True)
    p.circle(8, 15, 1.5, hole=True)
    p.circle(16, 15, 1.5, hole=True)
    p.rect(5.5, 19, 8.5, 22)
    p.rect(15.5, 19, 18.5, 22)


def walker(p: Pen) -> None:
    """A trip on foot: a person mid-stride."""
    p.circle(13.5, 3.5, 2.3)
    p.poly(11, 7, 15, 7.5, 14, 14, 10.5, 13.5)  # the body, leaning forward
    p.line(11.5, 8.5, 8, 12)  # the arms
    p.line(14.5, 8.5, 17.5, 11.5)
    p.line(11.5, 13.5, 9, 18, 6.5, 22)  # the legs
    p.line(13.5, 13.5, 15.5, 17.5, 18, 22)


def bicycle(p: Pen) -> None:
    """A trip by bike: two wheels and a frame."""
    p.circle(5.5, 16, 4.2, fill=False)
    p.circle(18.5, 16, 4.2, fill=False)
    p.line(5.5, 16, 10, 9, 16, 9, 18.5, 16)
    p.line(10, 9, 12, 16, 16, 9)
    p.line(8.5, 6.5, 11.5, 6.5)  # the saddle
    p.line(15, 6, 16, 9)  # the handlebar's stem

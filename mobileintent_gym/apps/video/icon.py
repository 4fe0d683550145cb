"""The video app's launcher icon and the glyphs of its action buttons."""

from __future__ import annotations

import math

from mobileintent_gym.phone.icons import Pen


def draw(p: Pen) -> None:
    """A television with two antennae and a smiling screen (the app's mascot)."""
    p.line(7.5, 2.5, 10.5, 6)
    p.line(16.5, 2.5, 13.5, 6)
    p.rect(2, 6, 22, 21, radius=4)
    p.rect(4.5, 8.5, 19.5, 18.5, hole=True, radius=2)
    p.circle(9, 12.5, 1.3)
    p.circle(15, 12.5, 1.3)
    p.arc(12, 13.5, 2.5, 30, 150)


def thumb_up(p: Pen) -> None:
    """A raised thumb: the like button."""
    p.rect(2, 10, 6, 21, radius=1)
    p.poly(7.5, 10, 11, 3, 13, 3.2, 13.8, 5, 13, 9, 20, 9, 21.8, 11, 19.8, 19.5, 18, 21, 7.5, 21)


def coin(p: Pen) -> None:
    """A coin: the button that gives the uploader one."""
    p.circle(12, 12, 10)
    p.circle(12, 12, 8, hole=True)
    p.circle(12, 12, 6.2)
    p.rect(11, 8.5, 13, 15.5, hole=True, radius=1)


def star(p: Pen) -> None:
    """A five-pointed star: the favourite button."""
    points = []
    for k in range(10):
        radius = 10.5 if k % 2 == 0 else 4.6
        angle = math.radians(-90 + 36 * k)
        points += [12 + radius * math.cos(angle), 12.6 + radius * math.sin(angle)]
    p.poly(*points)

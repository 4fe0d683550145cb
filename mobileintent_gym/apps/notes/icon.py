"""The notes app's launcher icon and the glyph of its save button."""

from __future__ import annotations

from mobileintent_gym.phone.icons import Pen


def draw(p: Pen) -> None:
    """A notebook page with a folded corner, three lines of text and a small heart."""
    p.poly(4, 2, 15, 2, 20, 7, 20, 22, 4, 22)
    p.poly(15, 2, 15, 7, 20, 7, hole=True)
    for y in (10, 13.5):
        p.rect(7, y, 17, y + 1.6, hole=True, radius=0.8)
    p.circle(9.6, 17.2, 1.5, hole=True)
    p.circle(12.4, 17.2, 1.5, hole=True)
    p.poly(8.2, 17.8, 13.8, 17.8, 11, 20.4, hole=True)


def bookmark(p: Pen) -> None:
    """A ribbon bookmark: the save button."""
    p.poly(5.5, 2.5, 18.5, 2.5, 18.5, 21.5, 12, 16.5, 5.5, 21.5)

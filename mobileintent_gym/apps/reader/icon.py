"""The reader app's launcher icon."""

from __future__ import annotations

from mobileintent_gym.phone.icons import Pen


def draw(p: Pen) -> None:
    """An open book: two pages bent down to the spine, with lines of text."""
    p.poly(12, 6.5, 3, 4, 2, 4.5, 2, 18.5, 12, 21)
    p.poly(12, 6.5, 21, 4, 22, 4.5, 22, 18.5, 12, 21)
    p.line(12, 7, 12, 20.5)
    for y in (9, 12, 15):
        p.d.line(p.p(4.5, y - 1.6, 9.5, y), fill=p.under, width=max(1, round(p.s)))
        p.d.line(p.p(14.5, y, 19.5, y - 1.6), fill=p.under, width=max(1, round(p.s)))

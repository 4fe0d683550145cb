"""The social app's launcher icon."""

from __future__ import annotations

from mobileintent_gym.phone.icons import Pen


def draw(p: Pen) -> None:
    """A speech bubble holding a hash sign."""
    p.d.ellipse(p.box(2, 2.5, 22, 19.5), fill=p.color)
    p.poly(5, 16, 3.5, 22, 10, 18.5)
    for x in (9.5, 14):
        p.d.line(p.p(x + 0.8, 6.5, x - 0.8, 15.5), fill=p.under, width=max(1, round(1.6 * p.s)))
    for y in (9, 13):
        p.d.line(p.p(6.5, y, 17.5, y), fill=p.under, width=max(1, round(1.6 * p.s)))

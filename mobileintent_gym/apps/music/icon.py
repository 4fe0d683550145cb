"""The music app's launcher icon."""

from __future__ import annotations

from mobileintent_gym.phone.icons import Pen


def draw(p: Pen) -> None:
    """Three curved sound waves on a disc."""
    p.circle(12, 12, 10)
    width = max(1, round(1.9 * p.s))
    for radius in (11.5, 9, 6.5):
        box = p.box(12 - radius, 21 - radius, 12 + radius, 21 + radius)
        p.d.arc(box, 235, 305, fill=p.under, width=width)

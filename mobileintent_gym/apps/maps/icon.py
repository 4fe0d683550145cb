"""The maps app's launcher icon."""

from __future__ import annotations

from mobileintent_gym.phone.icons import Pen


def draw(p: Pen) -> None:
    """A folded map with a pin standing on it."""
    p.poly(2, 8, 8, 5.5, 16, 8, 22, 5.5, 22, 20, 16, 22.5, 8, 20, 2, 22.5)
    p.poly(8, 7.2, 8.9, 7.5, 8.9, 20.6, 8, 20.3, hole=True)
    p.poly(15.1, 8.3, 16, 8.6, 16, 21.6, 15.1, 21.3, hole=True)
    p.circle(12, 7, 5.6, hole=True)
    p.poly(7.8, 9.6, 12, 17.5, 16.2, 9.6, hole=True)
    p.circle(12, 7, 4.2)
    p.poly(8.9, 9.2, 12, 15.4, 15.1, 9.2)
    p.circle(12, 7, 1.7, hole=True)

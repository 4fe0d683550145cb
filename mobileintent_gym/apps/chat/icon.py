"""The chat app's launcher icon (also its Chats tab)."""

from __future__ import annotations

from mobileintent_gym.phone.icons import Pen


def draw(p: Pen) -> None:
    """Two speech bubbles, the front one over the back one, with dots for eyes."""
    p.d.ellipse(p.box(1.5, 3, 16.5, 15), fill=p.color)
    p.poly(4, 13, 3.5, 17.5, 8, 14.5)
    p.d.ellipse(p.box(9, 9.5, 22.5, 20), fill=p.under)
    p.d.ellipse(p.box(10, 10.5, 21.5, 19), fill=p.color)
    p.poly(19, 18, 20.5, 21.5, 16, 18.5)
    for cx, cy in ((6, 8), (11.5, 8)):
        p.circle(cx, cy, 1.1, hole=True)
    for cx, cy in ((13.8, 14.5), (17.8, 14.5)):
        p.circle(cx, cy, 0.9, hole=True)

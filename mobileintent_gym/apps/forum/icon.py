"""The forum app's launcher icon."""

from __future__ import annotations

from mobileintent_gym.phone.icons import Pen


def draw(p: Pen) -> None:
    """A speech bubble holding an upvote arrow."""
    p.rect(2, 3, 22, 18, radius=5)
    p.poly(6, 17, 5, 22.5, 11.5, 17)
    p.poly(12, 5.5, 17.5, 11, 14.3, 11, 14.3, 15.5, 9.7, 15.5, 9.7, 11, 6.5, 11, hole=True)

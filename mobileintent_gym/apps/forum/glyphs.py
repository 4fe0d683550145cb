"""The forum app's own icons.

Painters on the 24-unit grid of a :class:`~mobileintent_gym.phone.icons.Pen`.
"""

from __future__ import annotations

from mobileintent_gym.phone.icons import Pen


def upvoted(p: Pen) -> None:
    """An upvote given: a filled arrow pointing up."""
    p.poly(12, 2.5, 21.5, 12.5, 15.5, 12.5, 15.5, 21, 8.5, 21, 8.5, 12.5, 2.5, 12.5)


def upvote(p: Pen) -> None:
    """Upvote: an arrow pointing up, in outline."""
    upvoted(p)
    p.poly(12, 5.6, 17.8, 11.2, 13.9, 11.2, 13.9, 19.4, 10.1, 19.4, 10.1, 11.2, 6.2, 11.2,
           hole=True)


def bookmark(p: Pen) -> None:
    """Saved posts: a filled bookmark."""
    p.poly(6, 3, 18, 3, 18, 21, 12, 16, 6, 21)

"""The social app's own action icons (painters on :mod:`~mobileintent_gym.phone.icons`' grid)."""

from __future__ import annotations

from mobileintent_gym.phone.icons import Pen

_RIBBON = (6, 3, 18, 3, 18, 21, 12, 16.5, 6, 21)


def repost(p: Pen) -> None:
    """Two arrows chasing each other round a square."""
    p.line(15, 6, 5, 6, 5, 15)
    p.poly(2, 14, 8, 14, 5, 18)
    p.line(9, 18, 19, 18, 19, 9)
    p.poly(16, 10, 22, 10, 19, 6)


def bookmark(p: Pen) -> None:
    """An outlined ribbon."""
    p.d.polygon(p.p(*_RIBBON), outline=p.color, width=p.w)


def bookmarked(p: Pen) -> None:
    """A filled ribbon."""
    p.poly(*_RIBBON)

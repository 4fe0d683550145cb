"""The pay app's launcher icon and the glyphs of its own controls (24-unit grid)."""

from __future__ import annotations

from mobileintent_gym.phone.icons import Pen


def draw(p: Pen) -> None:
    """A wallet with a clasp: the launcher icon."""
    p.rect(3, 6, 21, 20, radius=2.5)
    p.rect(5, 3.5, 18, 7, radius=1.5)
    p.rect(14, 10.5, 22, 15.5, radius=1.5, hole=True)
    p.circle(17, 13, 1.3)


def scan(p: Pen) -> None:
    """Four frame corners around a scan line."""
    for x, y, dx, dy in ((3, 3, 1, 1), (21, 3, -1, 1), (3, 21, 1, -1), (21, 21, -1, -1)):
        p.line(x, y + 5 * dy, x, y, x + 5 * dx, y)
    p.line(5, 12, 19, 12)


def receive(p: Pen) -> None:
    """A code of three squares and dots: pay or be paid by code."""
    for x, y in ((3, 3), (14, 3), (3, 14)):
        p.rect(x, y, x + 7, y + 7, fill=False, radius=1)
        p.rect(x + 2.5, y + 2.5, x + 4.5, y + 4.5)
    for x, y in ((14, 14), (18, 14), (14, 18), (18, 18)):
        p.rect(x, y, x + 2.5, y + 2.5)


def card(p: Pen) -> None:
    """A bank card with a stripe."""
    p.rect(2, 5, 22, 19, radius=2.5)
    p.rect(2, 8.5, 22, 11, hole=True)
    p.rect(5, 14, 10, 16, hole=True)


def receipt(p: Pen) -> None:
    """A receipt with a torn edge and three lines: bills."""
    p.poly(5, 2, 19, 2, 19, 22, 16.5, 20, 14, 22, 12, 20, 10, 22, 7.5, 20, 5, 22)
    for y in (7, 11, 15):
        p.rect(8, y, 16, y + 1.6, hole=True)


def transfer(p: Pen) -> None:
    """Two arrows passing each other: send money."""
    p.line(4, 8, 19, 8)
    p.line(15, 4, 19, 8, 15, 12)
    p.line(20, 16, 5, 16)
    p.line(9, 12, 5, 16, 9, 20)


def coins(p: Pen) -> None:
    """A stack of coins: savings and wealth."""
    for y in (16, 11.5, 7):
        p.d.ellipse(p.box(4, y - 3, 20, y + 3), fill=p.color, outline=p.under,
                    width=max(1, round(p.s)))


def shield(p: Pen) -> None:
    """A shield with a check: insurance and security."""
    p.poly(12, 2, 20, 5, 20, 11, 12, 22, 4, 11, 4, 5)
    p.d.line(p.p(8, 12, 11, 15, 16, 9), fill=p.under, width=p.w)


def bolt(p: Pen) -> None:
    """A lightning bolt: utilities."""
    p.poly(13, 2, 5, 13, 11, 13, 10, 22, 19, 10, 13, 10, 15, 2)


def bus(p: Pen) -> None:
    """A bus from the front: transit."""
    p.rect(4, 3, 20, 19, radius=3)
    p.rect(6, 6, 18, 11, hole=True)
    p.circle(8, 15, 1.4, hole=True)
    p.circle(16, 15, 1.4, hole=True)
    p.rect(5, 19, 8, 22)
    p.rect(16, 19, 19, 22)


def phone(p: Pen) -> None:
    """A handset: mobile top-up."""
    p.rect(6, 2, 18, 22, radius=2.5)
    p.rect(8, 5, 16, 17, hole=True)
    p.circle(12, 19.5, 1, hole=True)


def bowl(p: Pen) -> None:
    """A bowl with steam: food delivery."""
    p.d.pieslice(p.box(3, 4, 21, 22), 0, 180, fill=p.color)
    p.rect(2, 12.5, 22, 14)
    for x in (8, 12, 16):
        p.line(x, 4, x, 9)


def grid(p: Pen) -> None:
    """Four squares: more services."""
    for x, y in ((3, 3), (13, 3), (3, 13), (13, 13)):
        p.rect(x, y, x + 8, y + 8, radius=2)

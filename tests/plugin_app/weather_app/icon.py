"""The weather app's launcher icon: a sun behind a cloud."""
from mobileintent_gym.phone.icons import Pen


def draw(p: Pen) -> None:
    p.circle(9, 9, 5)
    p.circle(13, 15, 4.5)
    p.circle(17, 14, 3.5)
    p.rect(9, 14, 20, 19)

"""A GIF of one episode for slides: each screen with its action drawn on it, then the last."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PIL import Image

from mobileintent_gym.report.images import save_image
from mobileintent_gym.report.marks import draw_marks, marks
from mobileintent_gym.report.page import thumbnail
from mobileintent_gym.report.screens import Screens

STEP_MS = 900
LAST_MS = 2500


def episode_images(episode: dict[str, Any], screens: Screens, size: tuple[int, int],
                   width: int = 360) -> list[Image.Image]:
    """Each screen of ``episode`` scaled to ``width``, with its step's action drawn on it."""
    steps = episode["steps"]
    images = []
    for n, frame in enumerate(screens.frames):
        shapes = (marks(steps[n]["action"], *size, steps[n].get("invalid"))
                  if n < len(steps) else [])
        images.append(draw_marks(thumbnail(frame, width), shapes, size[0]))
    return images


def write_gif(episode: dict[str, Any], screens: Screens, size: tuple[int, int],
              path: str | Path, width: int = 360) -> Path:
    """Write ``episode`` as an endlessly looping GIF; returns its path.

    Raises:
        ValueError: When there is no screen to show.
    """
    images = episode_images(episode, screens, size, width)
    if not images:
        raise ValueError(f"episode {episode['index']} has no screens: {screens.problem}")
    path = Path(path)
    durations = [STEP_MS] * (len(images) - 1) + [LAST_MS]
    save_image(images[0], path, save_all=True, append_images=images[1:], duration=durations,
               loop=0)
    return path

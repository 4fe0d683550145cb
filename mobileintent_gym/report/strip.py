"""An Assist episode as a strip of frames: who acted, what they did, what was proposed.

Each frame is the screen one step was taken on, scaled down, with the step's action drawn
on it (:mod:`.marks`) and a band above it: the step's number and actor — the user, or the
assistant executing an accepted intention (framed in blue) — and, when the agent proposed
an intention at that step, the proposal on green (the user accepted) or red (rejected).
Frames run left to right in rows of ``columns``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gymnasium as gym
from PIL import Image, ImageDraw

from mobileintent_gym.envs.assist import EXECUTE
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.phone.paint import font
from mobileintent_gym.report.marks import draw_marks, marks
from mobileintent_gym.report.page import thumbnail

ACCEPTED = (46, 125, 50)  # the band's green: a proposal the user accepted
REJECTED = (198, 40, 40)  # the band's red: a proposal the user rejected
PLAIN = (238, 238, 238)  # the band without a proposal
ASSISTANT = (21, 101, 192)  # the frame around the assistant's steps
BAND_LINES = 3
GAP = 6


@dataclass(frozen=True, slots=True)
class StripFrame:
    """One step of an Assist episode, as the strip shows it.

    Attributes:
        screen: The screen the step was taken on, already scaled down.
        actor: ``user`` or ``assistant``.
        action: The action taken on it (``None``: the user handed the phone over).
        proposal: The intention proposed at this step, if any.
        accepted: Whether the user accepted it (``None`` without a proposal).
        invalid: Why the env refused the assistant's action, if it did.
    """

    screen: Image.Image
    actor: str
    action: str | None
    proposal: str | None = None
    accepted: bool | None = None
    invalid: str | None = None


def record_assist(env: gym.Env, agent: Any, width: int, seed: int = 0,
                  options: dict[str, Any] | None = None) -> tuple[list[StripFrame], dict]:
    """Play one Assist episode with ``agent``; its frames (``width`` wide) and scores.

    Raises:
        MobileIntentError: When the env's step limit cut the day before it ended (it then
            gives no day scores).
    """
    obs, info = env.reset(seed=seed, options=options)
    frames, done = [], False
    while not done:
        screen, mode = thumbnail(obs["screenshot"], width), obs["mode"]
        act = agent.act(obs, info)
        obs, _, terminated, truncated, info = env.step(act)
        done = terminated or truncated
        if mode == EXECUTE:
            event = info.get("event")
            frames.append(StripFrame(screen, "assistant", event.action if event else str(act),
                                     invalid=info.get("invalid_action")))
        else:
            frames.append(StripFrame(screen, "user", info["user_action"], info["proposal"],
                                     info.get("accepted")))
    if not terminated:
        raise MobileIntentError(f"the env's step limit cut the Assist day after {len(frames)} "
                                "steps, before it ended: it has no day scores")
    return frames, info["day_scores"]


def _band(frame: StripFrame, number: int, width: int, line: int) -> Image.Image:
    """The text band of one frame: number and actor, then the proposal, if any."""
    fill = PLAIN if frame.accepted is None else ACCEPTED if frame.accepted else REJECTED
    band = Image.new("RGB", (width, BAND_LINES * line + 4), fill)
    draw, face = ImageDraw.Draw(band), font(round(line * 0.8))
    ink = (33, 33, 33) if frame.accepted is None else (255, 255, 255)
    who = "user: hands over" if frame.action is None else frame.actor
    texts = _wrap(f"{number} {who}", face, width - 8, 1)
    if frame.proposal is not None:
        verdict = "accepted" if frame.accepted else "rejected"
        texts += _wrap(f"{verdict}: {frame.proposal}", face, width - 8, BAND_LINES - 1)
    for row, text in enumerate(texts):
        draw.text((4, 2 + row * line), text, font=face, fill=ink)
    return band


def _wrap(text: str, face: Any, width: int, lines: int) -> list[str]:
    """``text`` in at most ``lines`` lines of ``width`` pixels (the last cut with …)."""
    out, current = [], ""
    for word in text.split():
        trial = f"{current} {word}".strip()
        if face.getlength(trial) <= width:
            current = trial
            continue
        if current:
            out.append(current)
        current = word
    out.append(current)
    if len(out) > lines:
        last = out[lines - 1]
        while last and face.getlength(last + "…") > width:
            last = last[:-1]
        out = [*out[:lines - 1], last + "…"]
    return out


def _tile(frame: StripFrame, number: int, screen_width: int, screen_height: int
          ) -> Image.Image:
    shapes = [] if frame.action is None else marks(frame.action, screen_width, screen_height,
                                                   frame.invalid)
    screen = draw_marks(frame.screen, shapes, screen_width)
    line = max(12, screen.width // 12)
    band = _band(frame, number, screen.width, line)
    tile = Image.new("RGB", (screen.width, band.height + screen.height), PLAIN)
    tile.paste(band, (0, 0))
    tile.paste(screen, (0, band.height))
    if frame.actor == "assistant":
        ImageDraw.Draw(tile).rectangle((0, 0, tile.width - 1, tile.height - 1),
                                       outline=ASSISTANT, width=4)
    return tile


def draw_strip(frames: list[StripFrame], screen_size: tuple[int, int], columns: int = 10,
               first: int = 1) -> Image.Image:
    """The frames as rows of ``columns`` tiles, numbered from ``first``.

    Raises:
        ValueError: When there is no frame or ``columns`` is below 1.
    """
    if not frames or columns < 1:
        raise ValueError(f"a strip needs frames and columns >= 1, got {len(frames)} frames "
                         f"and {columns} columns")
    tiles = [_tile(f, first + n, *screen_size) for n, f in enumerate(frames)]
    width, height = tiles[0].width + GAP, tiles[0].height + GAP
    rows = -(-len(tiles) // columns)
    strip = Image.new("RGB", (min(columns, len(tiles)) * width + GAP, rows * height + GAP),
                      (255, 255, 255))
    for n, tile in enumerate(tiles):
        strip.paste(tile, (GAP + (n % columns) * width, GAP + (n // columns) * height))
    return strip

"""Act2Intention's execution score: step success rate (SSR), teacher-forced.

Definitions: docs/scores.md, "Execution". The agent's action at each step of the reference
trajectory is compared with the reference action of that same step, taken from the
reference's screen (:func:`action_matches`); a functionally equivalent other path counts as
a mismatch, as in the study. SSR = mean over tasks of matched steps / reference steps
(:func:`step_success_rate`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mobileintent_gym.actions import Action
from mobileintent_gym.metrics.text import normalised
from mobileintent_gym.phone.touch import ScreenDump

# Where the reference click hit no element of the dump (the on-screen keyboard is not in
# it), a click matches within this share of the screen's width and height of the reference
CLICK_TOLERANCE = 0.14


def action_matches(predicted: Action, reference: Action, screen: ScreenDump | None,
                   size: tuple[int, int]) -> bool:
    """Whether a predicted action matches the reference action of the same step.

    Args:
        predicted: The agent's action.
        reference: The reference action.
        screen: The dump of the screen both actions are taken on, if there is one.
        size: Screen (width, height) in pixels.

    Returns:
        Same type and: a click (or long click) that reaches the very element the
        reference reaches on ``screen`` (by the phone's touch rule), or lands within
        :data:`CLICK_TOLERANCE` of the reference point where that hits no element; the
        same text after whitespace and case normalisation; the same direction or key.
    """
    if predicted.type is not reference.type:
        return False
    if predicted.x is not None:
        hit = screen.hit_at(reference.x, reference.y) if screen is not None else None
        if hit is not None:
            return screen.hit_at(predicted.x, predicted.y) == hit
        return (abs(predicted.x - reference.x) <= CLICK_TOLERANCE * size[0]
                and abs(predicted.y - reference.y) <= CLICK_TOLERANCE * size[1])
    if predicted.text is not None:
        return normalised(predicted.text) == normalised(reference.text)
    return (predicted.direction, predicted.key) == (reference.direction, reference.key)




def step_success_rate(matches: Sequence[Sequence[bool]]) -> float | None:
    """SSR = (1/T) Σ_i matched_i / steps_i over every task i.

    ``matches[i][t]`` says whether the agent's action at step t of task i matched the
    reference (teacher-forced: every step starts from the reference trajectory's screen).
    A task whose reference has no step (its goal already holds at the start) counts, and
    scores 1.0: there is no reference step the agent could miss.

    Returns:
        The mean in [0, 1], or ``None`` for no tasks (the rate is undefined).
    """
    rates = [sum(m) / len(m) if len(m) else 1.0 for m in matches]
    return float(np.mean(rates)) if rates else None

"""Act2Intention's execution score: step success rate (SSR), teacher-forced.

Definitions: docs/scores.md, "Execution". The agent's action at each step of the reference
trajectory is compared with the reference action of that same step, taken from the
reference's screen (:func:`action_matches`); a functionally equivalent other path counts as
a mismatch, as in the study. SSR = mean over tasks of matched steps / reference steps
(:func:`step_success_rate`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence

from mobileintent_gym.actions import Action
from mobileintent_gym.checks import check_collection, check_items, is_flag
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
        same text, :func:`typed` (exact but for spaces around it and Unicode's composed
        and decomposed forms: a reply of "understood" where "Understood" is asked fails
        the task, so it is no match); the same direction or key.
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
        return typed(predicted.text) == typed(reference.text)
    return (predicted.direction, predicted.key) == (reference.direction, reference.key)




def typed(text: str) -> str:
    """``text`` as a TYPE step's is compared: NFC, without the spaces around it."""
    return unicodedata.normalize("NFC", text).strip()


def step_success_rate(matches: Sequence[Sequence[bool]]) -> float | None:
    """SSR = (1/T) Σ_i matched_i / steps_i over every task i.

    ``matches[i][t]`` says whether the agent's action at step t of task i matched the
    reference (teacher-forced: every step starts from the reference trajectory's screen).
    A task whose reference has no step (its goal already holds at the start) counts, and
    scores 1.0: there is no reference step the agent could miss.

    Returns:
        The mean in [0, 1], or ``None`` for no tasks (the rate is undefined).

    Raises:
        InvalidArgumentError: Naming a task's matches that are no sequence of True or
            False (a count of 2 would score more than every step).
    """
    return StepTally(matches).rate()


class StepTally:
    """SSR kept one task at a time, as :func:`step_success_rate` defines it.

    A run under way adds each task as it finishes and reads the rate at the cost of one
    task, not of the whole run.

    Args:
        matches: Tasks' step matches to start with.

    Raises:
        InvalidArgumentError: As :func:`step_success_rate` does.
    """

    def __init__(self, matches: Iterable[Sequence[bool]] = ()) -> None:
        check_collection("matches", matches, "a task's step matches", Iterable)
        self.tasks, self._total = 0, 0.0
        for index, task in enumerate(matches):
            self.add(task, f"task {index}'s step matches")

    def add(self, matches: Sequence[bool], name: str = "a task's step matches") -> None:
        """Count one more task: its matched steps over its reference steps (1.0: none).

        Raises:
            InvalidArgumentError: When ``matches`` is no sequence of True or False, naming
                it as ``name`` does.
        """
        check_items(name, matches, is_flag, "True or False")
        self.tasks += 1
        self._total += sum(matches) / len(matches) if len(matches) else 1.0

    def rate(self) -> float | None:
        """SSR of the tasks added; ``None`` for none."""
        return self._total / self.tasks if self.tasks else None

"""The PAIR study's cross-user scores: Task SR, all-success and SAR.

Definitions: docs/scores.md, "Cross-user scores". Each function takes
:class:`EpisodeResult` records, one per evaluated rollout.

SAR is the study's "subgoal achievement over reached contexts": achieved subgoals divided
by the subgoals whose entry context the rollout reached (its entry screen was observed
before an action). The ratio over every subgoal, reached or not, is kept as
``denominator="all"`` (reported as ``sar_all_subgoals``); it mixes how far an agent got
with how well it did where it got.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from mobileintent_gym.checks import is_flag, is_fraction
from mobileintent_gym.errors import brief

SUBGOAL_CONTEXTS = frozenset({"UC", "UA"})  # a subgoal's UI context (docs/scores.md)
TARGET_TYPES = ("common", "personal")  # a task's target: shared, or the user's own


@dataclass(frozen=True, slots=True)
class EpisodeResult:
    """What the scores need of one rollout.

    Attributes:
        task: Task id ``<template>:<target type>:<instruction type>``.
        user: The user whose phone it ran on.
        success: The task judge's verdict.
        rewards: Per-subgoal rewards r_k, from 0 to 1 (the envs give 0 or 1).
        contexts: Per-subgoal UI context, ``UC`` or ``UA``.
        reached: Per subgoal, whether the rollout reached its entry context.
    """

    task: str
    user: str
    success: bool
    rewards: tuple[float, ...]
    contexts: tuple[str, ...]
    reached: tuple[bool, ...]

    def __post_init__(self) -> None:
        """Refuse a record the scores would misread, naming its task and user.

        Raises:
            ValueError: For a task id without a target type, a user that is no text, a
                verdict that is no bool, rewards, contexts or reached flags that are no
                list, tuple or 1-D array, a reward that is no number from 0 to 1, a
                reached flag that is no bool, a context other than ``UC`` or ``UA``,
                rewards, contexts and reached flags of different lengths, a reward
                earned on a subgoal never reached (an unreached subgoal earns 0), or on
                the terminal subgoal of a failed task (it earns the verdict). NumPy
                scalars are kept as Python's (the record goes to JSON).
        """
        parts = self.task.split(":") if isinstance(self.task, str) else ()
        name = f"the result of {self.task!r} for {self.user!r}"
        if len(parts) != 3 or parts[1] not in TARGET_TYPES:
            raise ValueError(f"{name}: a task id is <template>:<common|personal>:"
                             "<instruction type>")
        if not isinstance(self.user, str):
            raise ValueError(f"{name}: the user must be a text")
        if not is_flag(self.success):
            raise ValueError(f"{name}: success must be true or false, got {self.success!r}")
        object.__setattr__(self, "success", bool(self.success))
        for part in ("rewards", "contexts", "reached"):
            value = getattr(self, part)
            if not (isinstance(value, tuple | list)
                    or (isinstance(value, np.ndarray) and value.ndim == 1)):
                raise ValueError(f"{name}: {part} must be a list, one per subgoal, got "
                                 f"{brief(value, 60)}")
            # Kept as a tuple of Python values: the record compares, hashes and goes to JSON.
            object.__setattr__(self, part, tuple(v.item() if isinstance(v, np.generic) else v
                                                 for v in value))
        if not all(map(is_fraction, self.rewards)):
            raise ValueError(f"{name}: rewards are numbers from 0 to 1, got {self.rewards!r}")
        if not all(map(is_flag, self.reached)):
            raise ValueError(f"{name}: reached flags are true or false, got {self.reached!r}")
        sizes = len(self.rewards), len(self.contexts), len(self.reached)
        if len(set(sizes)) != 1:
            raise ValueError(f"{name}: {sizes[0]} rewards, {sizes[1]} contexts and "
                             f"{sizes[2]} reached flags; each subgoal has one of each")
        if not all(isinstance(c, str) and c in SUBGOAL_CONTEXTS for c in self.contexts):
            raise ValueError(f"{name}: contexts are UC or UA, got {self.contexts!r}")
        earned = [k + 1 for k, (r, seen) in enumerate(zip(self.rewards, self.reached,
                                                           strict=True)) if r and not seen]
        if earned:
            raise ValueError(f"{name}: subgoal(s) {earned} earn a reward but were never "
                             "reached; an unreached subgoal earns 0")
        if self.rewards and self.rewards[-1] and not self.success:
            raise ValueError(f"{name}: the terminal subgoal earns {self.rewards[-1]!r} for a "
                             "failed task; it earns the verdict (0 on a failure)")

    @property
    def target_type(self) -> str:
        """``common`` or ``personal``."""
        return self.task.split(":")[1]


def task_success_rate(results: Sequence[EpisodeResult]) -> float | None:
    """Task SR = successes / tasks (``None`` for no tasks: the rate is undefined)."""
    return sum(r.success for r in results) / len(results) if results else None


def all_success(results: Iterable[EpisodeResult],
                users: Collection[str] | None = None) -> float | None:
    """Share of (template, target type, instruction type) groups where every user succeeds.

    all-success = |{g : ∀ users u, success(g, u)}| / |groups|; a task id is exactly such a
    group. Where a user has several rollouts of a group (a RePAIR group's), every one
    must succeed.

    Args:
        results: The rollouts.
        users: The users every group must have a rollout of (default: every user that
            appears in ``results``).

    Raises:
        ValueError: Naming a group and the users it has no rollout of (a group is never
            counted on a partial set of users), or rollouts of users not in ``users``.
    """
    results = list(results)
    present = {r.user for r in results}
    users = set(users) if users is not None else present
    if present - users:
        raise ValueError(f"all-success: rollouts of user(s) {sorted(present - users)} not "
                         "among the users given")
    groups: dict[str, bool] = defaultdict(lambda: True)
    seen: dict[str, set[str]] = defaultdict(set)
    for r in results:
        groups[r.task] = groups[r.task] and r.success
        seen[r.task].add(r.user)
    for task, present in seen.items():
        if users - present:
            raise ValueError(f"all-success: group {task!r} has no rollout for user(s) "
                             f"{sorted(users - present)}")
    return sum(groups.values()) / len(groups) if groups else None


def subgoal_achievement_rate(results: Iterable[EpisodeResult], context: str | None = None,
                             target_type: str | None = None,
                             denominator: Literal["reached", "all"] = "reached"
                             ) -> float | None:
    """SAR = achieved subgoals / subgoals whose context was reached.

    Args:
        results: The rollouts.
        context: Count only subgoals of this UI context (``UC`` or ``UA``).
        target_type: Count only rollouts with this target type (``common``/``personal``).
        denominator: ``reached`` (the study's SAR) or ``all`` (every subgoal, reached or
            not: Σ r_ik / |{(i, k)}|).

    Returns:
        Σ r_ik / Σ reached_ik over the selected subgoals (or over all of them); ``None``
        when the denominator is 0, as the rate is then undefined.

    Raises:
        ValueError: For a ``context``, ``target_type`` or ``denominator`` not listed.
    """
    if denominator not in ("reached", "all"):
        raise ValueError(f"denominator must be 'reached' or 'all', got {denominator!r}")
    if context is not None and context not in SUBGOAL_CONTEXTS:
        raise ValueError(f"context must be 'UC', 'UA' or None, got {context!r}")
    if target_type is not None and target_type not in TARGET_TYPES:
        raise ValueError(f"target_type must be 'common', 'personal' or None, got "
                         f"{target_type!r}")
    achieved = evaluated = 0.0
    for r in results:
        got, counted = _counted(r, context, target_type, denominator)
        achieved, evaluated = achieved + got, evaluated + counted
    return achieved / evaluated if evaluated else None


def _counted(result: EpisodeResult, context: str | None, target_type: str | None,
             denominator: str) -> tuple[float, int]:
    """The achieved and the counted subgoals of one rollout for a SAR (see above)."""
    if target_type is not None and result.target_type != target_type:
        return 0.0, 0
    achieved, counted = 0.0, 0
    for reward, ctx, reached in zip(result.rewards, result.contexts, result.reached,
                                    strict=True):
        if (context is None or ctx == context) and (reached or denominator == "all"):
            achieved += reward
            counted += 1
    return achieved, counted


# Each SAR that pair_scores reports: (context, target type, denominator).
SARS: dict[str, tuple[str | None, str | None, str]] = {
    "sar": (None, None, "reached"),
    "sar_uc": ("UC", None, "reached"),
    "sar_ua": ("UA", None, "reached"),
    "sar_uc_common": ("UC", "common", "reached"),
    "sar_uc_personal": ("UC", "personal", "reached"),
    "sar_all_subgoals": (None, None, "all"),
}


class PairTally:
    """Task SR and the SARs of :func:`pair_scores`, kept one rollout at a time.

    A run under way adds each rollout as it finishes and reads the scores at the cost of
    one rollout, not of the whole run (the envs' rewards are 0 or 1: their sums are exact).

    Args:
        results: Rollouts to start with.
    """

    def __init__(self, results: Iterable[EpisodeResult] = ()) -> None:
        self.tasks = self.successes = 0
        self._sums = {name: [0.0, 0] for name in SARS}
        for result in results:
            self.add(result)

    def add(self, result: EpisodeResult) -> None:
        """Count one more rollout."""
        self.tasks += 1
        self.successes += bool(result.success)
        for name, selection in SARS.items():
            got, counted = _counted(result, *selection)
            self._sums[name][0] += got
            self._sums[name][1] += counted

    def scores(self, all_success: float | None = None) -> dict[str, float | None]:
        """The scores of :func:`pair_scores`, with ``all_success`` as given."""
        rates = {name: got / counted if counted else None
                 for name, (got, counted) in self._sums.items()}
        return {"task_sr": self.successes / self.tasks if self.tasks else None,
                "all_success": all_success, **rates}


def pair_scores(results: Iterable[EpisodeResult], users: Collection[str] | None = None,
                finished: bool = True) -> dict[str, float | None]:
    """Every PAIR score.

    Task SR, all-success, SAR (over reached contexts) overall and for UC and UA contexts,
    SAR of UC contexts for common and for personal targets (as the study compares them),
    and the all-subgoals ratio under its own name.

    Args:
        results: The rollouts.
        users: The users of every group (see :func:`all_success`).
        finished: ``False`` reports all-success as ``None`` (a run still under way, whose
            groups miss users by design).
    """
    results = list(results)  # read twice: an iterator would be spent by the first
    return PairTally(results).scores(all_success(results, users) if finished else None)

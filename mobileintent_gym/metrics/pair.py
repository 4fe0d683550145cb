"""The PAIR study's cross-user scores: Task SR, all-success and SAR (SPEC.md, section B).

Each function takes :class:`EpisodeResult` records, one per evaluated rollout.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class EpisodeResult:
    """What the scores need of one rollout.

    Attributes:
        task: Task id ``<template>:<target type>:<instruction type>``.
        user: The user whose phone it ran on.
        success: The task judge's verdict.
        rewards: Per-subgoal rewards r_k (0 or 1).
        contexts: Per-subgoal UI context, ``UC`` or ``UA``.
    """

    task: str
    user: str
    success: bool
    rewards: tuple[float, ...]
    contexts: tuple[str, ...]

    @property
    def target_type(self) -> str:
        """``common`` or ``personal``."""
        return self.task.split(":")[1]


def task_success_rate(results: Sequence[EpisodeResult]) -> float | None:
    """Task SR = successes / tasks (``None`` for no tasks: the rate is undefined)."""
    return sum(r.success for r in results) / len(results) if results else None


def all_success(results: Iterable[EpisodeResult]) -> float | None:
    """Share of (template, target type, instruction type) groups where every user succeeds.

    all-success = |{g : ∀ rollouts i ∈ g, success_i}| / |groups|; a task id is exactly
    such a group, and its rollouts are those of every evaluated user.
    """
    groups: dict[str, bool] = defaultdict(lambda: True)
    for r in results:
        groups[r.task] = groups[r.task] and r.success
    return sum(groups.values()) / len(groups) if groups else None


def subgoal_achievement_rate(results: Iterable[EpisodeResult], context: str | None = None,
                             target_type: str | None = None) -> float | None:
    """SAR = achieved subgoals / evaluated subgoals, optionally of one context or target type.

    Args:
        results: The rollouts.
        context: Count only subgoals of this UI context (``UC`` or ``UA``).
        target_type: Count only rollouts with this target type (``common``/``personal``).

    Returns:
        Σ r_ik / |{(i, k)}| over the selected subgoals; ``None`` when none is selected
        (e.g. UA subgoals of tasks that have none), as the rate is then undefined.
    """
    achieved = evaluated = 0.0
    for r in results:
        if target_type is not None and r.target_type != target_type:
            continue
        for reward, ctx in zip(r.rewards, r.contexts, strict=True):
            if context is None or ctx == context:
                achieved += reward
                evaluated += 1
    return achieved / evaluated if evaluated else None


def pair_scores(results: Sequence[EpisodeResult]) -> dict[str, float | None]:
    """Every PAIR score: Task SR, all-success, SAR overall, by context and by target type."""
    return {
        "task_sr": task_success_rate(results),
        "all_success": all_success(results),
        "sar": subgoal_achievement_rate(results),
        "sar_uc": subgoal_achievement_rate(results, context="UC"),
        "sar_ua": subgoal_achievement_rate(results, context="UA"),
        "sar_common": subgoal_achievement_rate(results, target_type="common"),
        "sar_personal": subgoal_achievement_rate(results, target_type="personal"),
    }

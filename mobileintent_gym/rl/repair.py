"""RePAIR's group advantages over user-conditioned subgoals (docs/scores.md).

A group holds G rollouts of one task specification from different users (the study: two
from user p, two from user q). For each UC subgoal k the rewards are normalised across the
group,

    a_ik = (r_ik − μ_k) / sqrt(σ²_k + 1e-8),   σ² the population variance,

a subgoal every rollout achieved or missed alike (σ_k = 0) contributes 0, and a rollout's
advantage is the mean over the UC subgoals, A_i = (1/|UC|) Σ_{k ∈ UC} a_ik (0 without UC
subgoals). UA subgoals are left out: shared navigation says nothing about personalisation.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mobileintent_gym.errors import brief
from mobileintent_gym.metrics.pair import SUBGOAL_CONTEXTS

EPSILON = 1e-8


def group_advantages(rewards: np.ndarray | Sequence[Sequence[float]],
                     contexts: Sequence[str]) -> np.ndarray:
    """The advantage A_i of each rollout of a group.

    Args:
        rewards: G × K subgoal rewards, one row per rollout.
        contexts: The K subgoals' contexts, ``UC`` or ``UA``.

    Returns:
        A float64 array of G advantages.

    Raises:
        ValueError: When the rewards are not G x K finite numbers (G >= 1), or a context is
            neither UC nor UA.
    """
    r = _reward_table(rewards, len(contexts))
    bad = sorted(set(contexts) - SUBGOAL_CONTEXTS)
    if bad:
        raise ValueError(f"contexts must be 'UC' or 'UA', got {bad}")
    uc = np.array([c == "UC" for c in contexts])
    if not uc.any():
        return np.zeros(r.shape[0])
    block = r[:, uc]
    sigma = block.std(axis=0)  # population standard deviation
    normalised = (block - block.mean(axis=0)) / np.sqrt(sigma ** 2 + EPSILON)
    normalised[:, sigma == 0] = 0.0
    return normalised.mean(axis=1)


def _reward_table(rewards: np.ndarray | Sequence[Sequence[float]], k: int) -> np.ndarray:
    """``rewards`` as a G x ``k`` float64 array of finite numbers, G >= 1."""
    try:
        r = np.asarray(rewards, dtype=np.float64)
    except (TypeError, ValueError) as err:  # ragged rows, text
        raise ValueError(f"rewards must be G x {k} numbers (one row per rollout), got "
                         f"{brief(rewards)}: {err}") from err
    if r.ndim != 2 or r.shape[1] != k or r.shape[0] == 0:
        raise ValueError(f"rewards must be G x {k} (one column per subgoal, a row per "
                         f"rollout), got shape {r.shape}")
    if not np.isfinite(r).all():
        row = int(np.argwhere(~np.isfinite(r))[0][0])
        raise ValueError(f"rewards must be finite, rollout {row} has {r[row].tolist()}")
    return r

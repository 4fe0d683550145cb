"""PIRA-Bench's per-turn scores of proactive intent recommendation; formulas in each function.

Each turn has a gold label — ``None`` for noise, else an intent — and a prediction, ``None``
for "no action" or an intent. With ``same(p, g)`` deciding whether two intents agree:

* tp: the prediction is an intent and equals the gold intent;
* fp: the prediction is an intent that differs from gold (a wrong intent, or any intent
  on a noise turn);
* fn: the prediction is "no action" but gold is an intent.

Precision = tp / (tp + fp), Recall = tp / (tp + fn), F1 their harmonic mean (0 when
undefined); FPS_norm = 1 − fp / max(1, noise turns); **S_final = F1 × FPS_norm**, which
punishes over-proactivity: high recall bought with pushes on idle or noisy stretches.
Taken literally, as here, fp also counts wrong intents on signal turns, so FPS_norm (and
S_final) go below 0 when false pushes outnumber the noise turns.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass


def same_intent(predicted: str, gold: str) -> bool:
    """Intents agree when equal after case folding and whitespace normalisation."""
    return " ".join(predicted.casefold().split()) == " ".join(gold.casefold().split())


@dataclass(frozen=True, slots=True)
class PiraScores:
    """Counts and scores of a trajectory's turns (fields as in the module docstring)."""

    tp: int
    fp: int
    fn: int
    noise: int
    precision: float
    recall: float
    f1: float
    fps_norm: float
    s_final: float


def pira_scores(predictions: Sequence[str | None], gold: Sequence[str | None],
                same: Callable[[str, str], bool] = same_intent) -> PiraScores:
    """Score predictions against gold labels turn by turn.

    Args:
        predictions: Per turn, the predicted intent or ``None`` for "no action".
        gold: Per turn, the gold intent or ``None`` for noise.
        same: Whether a predicted intent equals a gold one (e.g. an LLM judge).

    Raises:
        ValueError: When the sequences differ in length.
    """
    if len(predictions) != len(gold):
        raise ValueError(f"{len(predictions)} predictions for {len(gold)} gold labels")
    tp = fp = fn = 0
    for p, g in zip(predictions, gold, strict=True):
        if p is None:
            fn += g is not None
        elif g is not None and same(p, g):
            tp += 1
        else:
            fp += 1
    noise = sum(g is None for g in gold)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    fps_norm = 1 - fp / max(1, noise)
    return PiraScores(tp, fp, fn, noise, precision, recall, f1, fps_norm, f1 * fps_norm)

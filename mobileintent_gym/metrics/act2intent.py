"""Act2Intention scores of understanding, prediction and execution; formulas in each function.

Understanding: Acc-G, Acc-S, BLEU-4; prediction: Acc-C, Acc-S, BLEU-4 with the confidence
fallback; execution: SSR.

A segmentation maps each intention's text to the indices (from 1) of the actions behind it,
``{"Order a latte": [1, 2, 3], "Reply to Mum": [4, 5]}``; a segment's span is
(min index, max index).

* Acc-G = |{true intentions whose span is also a predicted span}| / |true intentions|.
* Acc-S and BLEU-4 compare each true intention's text with the text of the predicted
  intention whose span overlaps it most (the earlier-starting one on a tie); a true
  intention that no prediction overlaps scores 0 on both.

Execution's SSR compares the agent's action at each step with the reference action of the
same step, teacher-forced (:func:`action_matches`, :func:`step_success_rate`); a
functionally equivalent other path counts as a mismatch, as in the study.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from mobileintent_gym.actions import Action
from mobileintent_gym.metrics.text import (
    Tokens,
    bleu4,
    mean_bleu4,
    pair_similarities,
    semantic_similarity,
)
from mobileintent_gym.phone.touch import ScreenDump
from mobileintent_gym.users.encoders import Encoder

Segmentation = Mapping[str, Sequence[int]]


def spans(segmentation: Segmentation) -> list[tuple[str, int, int]]:
    """``(text, first index, last index)`` of every segment, in the given order.

    Raises:
        ValueError: Naming a segment whose indices are not positive integers.
    """
    out = []
    for text, indices in segmentation.items():
        if not indices or any(isinstance(i, bool) or not isinstance(i, int) or i < 1
                              for i in indices):
            raise ValueError(f"segment {text!r} needs step indices >= 1, got {indices!r}")
        out.append((text, min(indices), max(indices)))
    return out


def goal_accuracy(predicted: Segmentation, truth: Segmentation) -> float:
    """Acc-G: share of true intentions whose start and end indices a prediction matches."""
    found = {(start, end) for _, start, end in spans(predicted)}
    true = spans(truth)
    return sum((start, end) in found for _, start, end in true) / len(true) if true else 0.0


def _overlap(a: tuple[str, int, int], b: tuple[str, int, int]) -> int:
    return max(0, min(a[2], b[2]) - max(a[1], b[1]) + 1)


def aligned_texts(predicted: Segmentation, truth: Segmentation) -> list[tuple[str | None, str]]:
    """(predicted text or ``None``, true text) for each true intention, by largest overlap."""
    pred = spans(predicted)
    pairs = []
    for true in spans(truth):
        best = max(pred, key=lambda p: (_overlap(p, true), -p[1]), default=None)
        pairs.append((best[0] if best and _overlap(best, true) else None, true[0]))
    return pairs


def understanding_scores(predicted: Segmentation, truth: Segmentation, encoder: Encoder,
                         tokens: Tokens = "chars") -> dict[str, float]:
    """Acc-G, Acc-S and BLEU-4 of one window's predicted segmentation."""
    pairs = aligned_texts(predicted, truth)
    hits = [i for i, (p, _) in enumerate(pairs) if p is not None]
    similarity = np.zeros(len(pairs))
    similarity[hits] = pair_similarities([pairs[i][0] for i in hits],
                                         [pairs[i][1] for i in hits], encoder)
    bleu = [bleu4(p, t, tokens) if p is not None else 0.0 for p, t in pairs]
    return {"acc_g": goal_accuracy(predicted, truth),
            "acc_s": float(similarity.mean()) if pairs else 0.0,
            "bleu4": float(np.mean(bleu)) if pairs else 0.0}


# Where the reference click hit no element of the dump (the on-screen keyboard is not in
# it), a click matches within this share of the screen's width and height of the reference
# point (the tolerance of the AITW-style action matching the study adapts).
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
        return " ".join(predicted.text.casefold().split()) == " ".join(
            reference.text.casefold().split())
    return (predicted.direction, predicted.key) == (reference.direction, reference.key)


def step_success_rate(matches: Sequence[Sequence[bool]]) -> float:
    """SSR = mean over tasks of (matched steps / reference steps); 0.0 for no tasks.

    ``matches[i][t]`` says whether the agent's action at step t of task i matched the
    reference (teacher-forced: every step starts from the reference trajectory's screen).
    """
    rates = [sum(m) / len(m) for m in matches if len(m)]
    return float(np.mean(rates)) if rates else 0.0


# The event classes of the study's prediction task.
EVENT_CLASSES = (
    "E-commerce platform", "Community", "Message", "Take photo", "Chatting", "Watch news",
    "Check weather", "Edit media", "Read e-books", "Set Alarm", "Office chat", "Listen music",
    "Check map", "Knowledge acquisition", "Financial management", "Gaming community",
    "Audiobook", "Order takeout", "Buy ticket", "Take notes")
PUSH_THRESHOLD = 0.60  # the confidence fallback's default; 0.80 is the strict setting


@dataclass(frozen=True, slots=True)
class Prediction:
    """A predicted next intention: ``{"Event": <class>, "Behaviour": <text>}`` and a confidence.

    Attributes:
        event: The event class.
        behaviour: The predicted behaviour, in words.
        confidence: An evaluator's confidence in it, in [0, 1].
    """

    event: str
    behaviour: str
    confidence: float = 1.0


def parse_prediction(text: str, confidence: float = 1.0) -> Prediction:
    """A :class:`Prediction` from a model's JSON answer.

    Raises:
        ValueError: Naming what is missing or malformed in ``text``.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"prediction is not JSON ({err.msg}): {text[:80]!r}") from None
    if not isinstance(data, dict) or not all(
            isinstance(data.get(k), str) for k in ("Event", "Behaviour")):
        raise ValueError(f'prediction needs string "Event" and "Behaviour", got {text[:80]!r}')
    return Prediction(data["Event"], data["Behaviour"], confidence)


def prediction_scores(predicted: Sequence[Prediction], truth: Sequence[Prediction],
                      encoder: Encoder, threshold: float | None = None,
                      tokens: Tokens = "chars") -> dict[str, float]:
    """Acc-C, Acc-S and BLEU-4 of predictions, with the confidence fallback.

    With ``threshold`` (the study: 0.60, or 0.80 strict) only predictions whose confidence
    reaches it are pushed; the scores are over the pushed cases and ``push_rate`` is their
    share. Acc-C is the share whose event class equals the truth's exactly; Acc-S and BLEU-4
    compare behaviours.

    Raises:
        ValueError: When the sequences differ in length.
    """
    if len(predicted) != len(truth):
        raise ValueError(f"{len(predicted)} predictions for {len(truth)} true intentions")
    pushed = [(p, t) for p, t in zip(predicted, truth, strict=True)
              if threshold is None or p.confidence >= threshold]
    scores = {"push_rate": len(pushed) / len(truth) if truth else 0.0,
              "acc_c": 0.0, "acc_s": 0.0, "bleu4": 0.0}
    if pushed:
        scores["acc_c"] = float(np.mean([p.event == t.event for p, t in pushed]))
        said = [p.behaviour for p, _ in pushed]
        meant = [t.behaviour for _, t in pushed]
        scores["acc_s"] = semantic_similarity(said, meant, encoder)
        scores["bleu4"] = mean_bleu4(said, meant, tokens)
    return scores

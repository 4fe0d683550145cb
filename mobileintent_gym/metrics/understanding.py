"""Act2Intention's understanding scores: Acc-G, Acc-S and BLEU-4 of a segmentation.

Definitions: docs/scores.md, "Understanding". A segmentation maps each intention's text to
the indices (from 1) of the actions behind it, ``{"Order a latte": [1, 2, 3], "Reply to
Mum": [4, 5]}``, in order; a segment's span is (min index, max index). Where one text
stands for two intentions, give the segmentation as ``(text, indices)`` pairs.

The i-th predicted intention is compared with the i-th true one (``pairing="position"``,
the default and the study's rule): with N true intentions,

* Acc-G = |{i ≤ N : span(pred_i) = span(true_i)}| / N;
* Acc-S = (1/N) Σ_i cos(f(pred_i), f(true_i)), BLEU-4 = (1/N) Σ_i BLEU-4(pred_i, true_i),
  where a true intention without an i-th prediction scores 0.

So one extra segment predicted at the front shifts every pair and scores Acc-G 0.
``pairing="overlap"`` is a lenient variant kept as an option: Acc-G counts true spans that
any predicted span equals, and each true intention's text is compared with the prediction
overlapping it most (the earlier-starting one on a tie; 0 when none overlaps).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from mobileintent_gym.checks import is_count, is_digits
from mobileintent_gym.metrics.prediction import JsonPairs, first_json_pairs, no_object_reason
from mobileintent_gym.metrics.text import Tokens, pair_scores
from mobileintent_gym.users.encoders import Encoder

Segmentation = Mapping[str, Sequence[int]] | Sequence[tuple[str, Sequence[int]]]
Pairing = Literal["position", "overlap"]
Span = tuple[str, int, int]


def read_segmentation(answer: Any) -> list[tuple[str, list]]:
    """The segmentation in a model's answer, as ``(text, indices)`` pairs in order.

    The first JSON object is found as :func:`~mobileintent_gym.metrics.prediction.
    first_json_object` finds it (prose, code fences, single quotes and a trailing comma
    around it are fine); an intention written twice is kept twice, and indices written as
    numeric strings (``"3"``) or whole numbers with a point (``3.0``) are read as integers.
    The indices are not judged here:
    :func:`spans` and the scores name bad ones.

    Raises:
        ValueError: Naming what is wrong with ``answer``.
    """
    pairs = first_json_pairs(answer)
    if pairs is None:
        reason = no_object_reason(answer)
        raise ValueError(f"{reason}: {answer[:80]!r}" if isinstance(answer, str) else reason)
    if not pairs:
        raise ValueError(f"the answer's first JSON object is empty: {answer[:80]!r}")
    for key, indices in pairs:
        if not isinstance(indices, list) or isinstance(indices, JsonPairs):
            raise ValueError(f"intention {key!r} needs a list of step indices, got {indices!r}")
    return [(str(key), [_index(i) for i in indices]) for key, indices in pairs]


def _index(value: Any) -> Any:
    """A numeric string or a whole float as its integer; anything else as it is.

    (:func:`spans` judges what is left.) Only plain ASCII numbers of up to 18 digits are
    read from a string: ``int()`` raises on 4,300.
    """
    if isinstance(value, str) and is_digits(value.strip()):
        return int(value)
    return int(value) if isinstance(value, float) and value.is_integer() else value


def spans(segmentation: Segmentation) -> list[Span]:
    """``(text, first index, last index)`` of every segment, in the given order.

    Raises:
        ValueError: Naming a segment whose indices are not positive integers, a segment
            that is no ``(text, indices)`` pair, or answer text given in place of a
            segmentation (read it with :func:`read_segmentation`).
    """
    if isinstance(segmentation, (str, bytes)):
        raise ValueError(f"a segmentation is a mapping or (text, indices) pairs, not text "
                         f"({segmentation[:40]!r}); read an answer with read_segmentation")
    if not isinstance(segmentation, Iterable):
        raise ValueError(f"a segmentation is a mapping or (text, indices) pairs, got "
                         f"{type(segmentation).__name__} {segmentation!r:.40}")
    out = []
    pairs = segmentation.items() if isinstance(segmentation, Mapping) else segmentation
    for pair in pairs:
        if not (isinstance(pair, Sequence) and len(pair) == 2 and isinstance(pair[0], str)):
            raise ValueError(f"a segment must be a (text, indices) pair, got {pair!r}")
        text, given = pair
        indices = list(given) if isinstance(given, Iterable) else []  # a NumPy array too
        if not indices or not all(map(is_count, indices)):
            raise ValueError(f"segment {text!r} needs step indices >= 1, got {given!r}")
        out.append((text, min(indices), max(indices)))
    return out


def _check(pairing: str) -> None:
    if pairing not in ("position", "overlap"):
        raise ValueError(f"pairing must be 'position' or 'overlap', got {pairing!r}")


def goal_accuracy(predicted: Segmentation, truth: Segmentation,
                  pairing: Pairing = "position") -> float:
    """Acc-G: share of true intentions whose start and end indices the prediction matches.

    Args:
        predicted: The predicted segmentation.
        truth: The true segmentation.
        pairing: ``position`` (the i-th prediction against the i-th truth) or ``overlap``
            (any predicted span may match).

    Returns:
        The share in [0, 1]; 0.0 for an empty truth.

    Raises:
        ValueError: For a malformed segmentation (see :func:`spans`; the Understand env
            scores such an answer 0 on all three instead) or an unknown ``pairing``.
    """
    _check(pairing)
    pred, true = spans(predicted), spans(truth)
    if not true:
        return 0.0
    if pairing == "position":
        return sum(p[1:] == t[1:] for p, t in zip(pred, true, strict=False)) / len(true)
    found = {p[1:] for p in pred}
    return sum(t[1:] in found for t in true) / len(true)


def _overlap(a: Span, b: Span) -> int:
    return max(0, min(a[2], b[2]) - max(a[1], b[1]) + 1)


def aligned_texts(predicted: Segmentation, truth: Segmentation,
                  pairing: Pairing = "position") -> list[tuple[str | None, str]]:
    """(predicted text or ``None``, true text) for each true intention, in order.

    Raises:
        ValueError: As :func:`goal_accuracy` does.
    """
    _check(pairing)
    pred, true = spans(predicted), spans(truth)
    if pairing == "position":
        return [(pred[i][0] if i < len(pred) else None, t[0]) for i, t in enumerate(true)]
    pairs = []
    for t in true:
        best = max(pred, key=lambda p: (_overlap(p, t), -p[1]), default=None)
        pairs.append((best[0] if best and _overlap(best, t) else None, t[0]))
    return pairs


def understanding_scores(predicted: Segmentation, truth: Segmentation, encoder: Encoder,
                         tokens: Tokens = "chars",
                         pairing: Pairing = "position") -> dict[str, float]:
    """Acc-G, Acc-S and BLEU-4 of one window's predicted segmentation.

    Args:
        predicted: The predicted segmentation.
        truth: The true segmentation.
        encoder: The sentence encoder of Acc-S (the study: all-MiniLM-L6-v2).
        tokens: BLEU-4 on ``chars`` (the study's evaluation code) or ``words``.
        pairing: How predicted and true intentions are paired (module notes).

    Returns:
        ``acc_g``, ``acc_s`` and ``bleu4``, each averaged over the true intentions.

    Raises:
        ValueError: As :func:`goal_accuracy` does.
    """
    pairs = aligned_texts(predicted, truth, pairing)
    similarity, bleu = pair_scores(pairs, encoder, tokens)
    return {"acc_g": goal_accuracy(predicted, truth, pairing),
            "acc_s": float(similarity.mean()) if pairs else 0.0,
            "bleu4": float(bleu.mean()) if pairs else 0.0}

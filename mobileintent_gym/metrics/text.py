"""Text similarity scores of the Act2Intention study: BLEU-4 and Acc-S (docs/scores.md).

BLEU-4 (Papineni et al., 2002) with uniform weights and brevity penalty:

    BLEU = BP · exp(Σ_{n=1..4} ¼ · log p_n),   BP = 1 if c > r else exp(1 − r / c)

where p_n is the clipped n-gram precision of the candidate against the reference, c and r
their lengths. The study's public evaluation code computes it on characters with NLTK's
smoothing method 3 (a precision with no match becomes 1 / (2^k · its n-gram count), k
counting such orders from 1), which is this module's default; ``tokens="words"`` gives the
word-level score. A candidate without a single matching unigram scores 0, as in NLTK.

Acc-S is the cosine similarity of the sentence embeddings (all-MiniLM-L6-v2) of predicted
and true texts, averaged over pairs.
"""

from __future__ import annotations

import math
import unicodedata
from collections import Counter
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from mobileintent_gym.checks import check_items, check_type
from mobileintent_gym.phone.characters import folded
from mobileintent_gym.users.encoders import Encoder, unit_rows

Tokens = Literal["chars", "words"]
ACC_S_MAX_TOKENS = 256
"""The token limit of a text Acc-S embeds (the rest of a longer one is cut)."""


def normalised(text: str) -> str:
    """``text`` as answers are compared: NFC, case-folded, whitespace runs as one space.

    NFC first: a composed and a decomposed accent (``é``, ``e`` + U+0301) are one text.

    Raises:
        InvalidArgumentError: When ``text`` is no ``str``.
    """
    check_type("a text to compare", text, str, "a str")
    return folded(text)


def _tokens(text: str, tokens: Tokens) -> list[str]:
    check_type("a text of BLEU-4", text, str, "a str")
    text = unicodedata.normalize("NFC", text)
    if tokens == "chars":
        return list(text)
    if tokens == "words":
        return text.split()
    raise ValueError(f"tokens must be 'chars' or 'words', got {tokens!r}")


def _ngrams(seq: list[str], n: int) -> Counter:
    return Counter(tuple(seq[i:i + n]) for i in range(len(seq) - n + 1))


def bleu4(candidate: str, reference: str, tokens: Tokens = "chars") -> float:
    """Sentence BLEU-4 of ``candidate`` against one ``reference``, smoothed by method 3.

    Args:
        candidate: The predicted text.
        reference: The true text.
        tokens: ``chars`` (the study's evaluation) or ``words``.

    Returns:
        The score in [0, 1].
    """
    cand, ref = _tokens(candidate, tokens), _tokens(reference, tokens)
    precisions, zeros = [], 0
    for n in range(1, 5):
        counts, available = _ngrams(cand, n), _ngrams(ref, n)
        matched = sum(min(c, available[g]) for g, c in counts.items())
        total = max(1, sum(counts.values()))
        if n == 1 and matched == 0:
            return 0.0
        if matched == 0:
            zeros += 1
            precisions.append(1 / (2 ** zeros * total))
        else:
            precisions.append(matched / total)
    c, r = len(cand), len(ref)
    penalty = 1.0 if c > r else math.exp(1 - r / c)
    return penalty * math.exp(math.fsum(0.25 * math.log(p) for p in precisions))


def mean_bleu4(candidates: Sequence[str], references: Sequence[str],
               tokens: Tokens = "chars") -> float:
    """The mean of :func:`bleu4` over aligned pairs (0.0 for no pairs).

    Raises:
        ValueError: When the sequences differ in length.
        InvalidArgumentError: When either is no sequence of texts (one text is not).
    """
    _check_texts(candidates=candidates, references=references)
    if len(candidates) != len(references):
        raise ValueError(f"{len(candidates)} candidates for {len(references)} references")
    scores = [bleu4(c, r, tokens) for c, r in zip(candidates, references, strict=True)]
    return float(np.mean(scores)) if scores else 0.0


def pair_similarities(predicted: Sequence[str], truth: Sequence[str],
                      encoder: Encoder) -> np.ndarray:
    """Cosine similarity of the embeddings of each aligned (predicted, true) pair.

    The embeddings are L2-normalised here, so the result is a cosine whatever scale the
    encoder returns (a zero embedding has similarity 0 with anything). A predicted text
    that is empty or only spaces says nothing and has similarity 0 (the encoder would
    embed it as it embeds any text: all-MiniLM-L6-v2 put "" at -0.04 to 0.13 of the 25
    known intentions of one of demo-ana's days, median 0.05), and is not embedded.

    Raises:
        ValueError: When the sequences differ in length.
        InvalidArgumentError: When either is no sequence of texts (one text is not).
    """
    _check_texts(predicted=predicted, truth=truth)
    if len(predicted) != len(truth):
        raise ValueError(f"{len(predicted)} predicted texts for {len(truth)} true ones")
    if not truth:
        return np.zeros(0)
    said = np.array([bool(text.strip()) for text in predicted])
    scores = np.zeros(len(truth))
    if said.any():
        a, b = (unit_rows(encoder.encode([t for t, s in zip(texts, said, strict=True) if s]))
                for texts in (predicted, truth))
        scores[said] = np.clip(np.sum(a * b, axis=1), -1.0, 1.0)  # rounding gave 1 + 2e-16
    return scores


def _check_texts(**texts: Any) -> None:
    """Refuse any of ``texts`` (argument name → value) that is no sequence of ``str``."""
    for name, value in texts.items():
        check_items(name, value, lambda text: isinstance(text, str), "a str")


def pair_scores(pairs: Sequence[tuple[str | None, str]], encoder: Encoder,
                tokens: Tokens = "chars") -> tuple[np.ndarray, np.ndarray]:
    """Per (predicted or ``None``, true) pair: cosine similarity and BLEU-4.

    A pair without a predicted text scores 0 on both.
    """
    said = [i for i, (p, _) in enumerate(pairs) if p is not None]
    similarity, bleu = np.zeros(len(pairs)), np.zeros(len(pairs))
    similarity[said] = pair_similarities([pairs[i][0] for i in said],
                                         [pairs[i][1] for i in said], encoder)
    bleu[said] = [bleu4(pairs[i][0], pairs[i][1], tokens) for i in said]
    return similarity, bleu


def semantic_similarity(predicted: Sequence[str], truth: Sequence[str],
                        encoder: Encoder) -> float:
    """Acc-S: mean cosine similarity of aligned predicted and true texts (0.0 for none).

    Raises:
        ValueError: When the sequences differ in length.
        InvalidArgumentError: When either is no sequence of texts (one text is not).
    """
    scores = pair_similarities(predicted, truth, encoder)
    return float(scores.mean()) if len(scores) else 0.0


def acc_s_encoder() -> Encoder:
    """The encoder of Acc-S: all-MiniLM-L6-v2 (packaged weights when offline; ``[embed]``)."""
    from mobileintent_gym.users.encoders import PACKAGED_MODEL, SentenceEncoder

    return SentenceEncoder(PACKAGED_MODEL, max_seq_length=ACC_S_MAX_TOKENS)

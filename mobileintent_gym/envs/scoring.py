"""The sentence encoder the intention envs score with, caching each text's embedding.

Acc-S and the Session env's guidance compare texts by the cosine of their
all-MiniLM-L6-v2 embeddings. Intention texts recur a lot (habits repeat, baselines repeat
themselves), so each text is embedded once per process.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mobileintent_gym.checks import check_type
from mobileintent_gym.metrics.text import acc_s_encoder
from mobileintent_gym.once import once
from mobileintent_gym.phone.lru import LRU
from mobileintent_gym.users.encoders import Encoder

CACHE_SIZE = 1 << 14


class CachedEncoder:
    """An encoder that embeds each distinct text once (bounded LRU).

    Args:
        encoder: The encoder to ask for texts not seen yet.
        size: How many embeddings are kept.
    """

    def __init__(self, encoder: Encoder, size: int = CACHE_SIZE) -> None:
        self.encoder, self.name = encoder, encoder.name
        self._rows: LRU[np.ndarray] = LRU(size)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text: the wrapped encoder's row for that text alone.

        Rows are normalised where the wrapped encoder's are, as the Encoder protocol asks.
        Each text is embedded on its own, because a batch pads its texts to the longest
        and so moves their rows in the last bits: a score must not depend on what the
        process embedded before it.
        """
        rows = [self._row(text) for text in texts]
        return np.stack(rows) if rows else self.encoder.encode([])

    def _row(self, text: str) -> np.ndarray:
        row = self._rows.get(text)
        if row is None:
            row = self.encoder.encode([text])[0]
            self._rows.put(text, row)
        return row


@once
def score_encoder() -> CachedEncoder:
    """The process's Acc-S encoder (all-MiniLM-L6-v2; extra ``[embed]``), cached."""
    return CachedEncoder(acc_s_encoder())


def scoring_encoder(encoder: Encoder | None) -> Encoder:
    """``encoder`` behind an embedding cache, or :func:`score_encoder` when ``None``.

    Raises:
        InvalidArgumentError: When ``encoder`` is neither an Encoder nor ``None``.
    """
    check_type("encoder", encoder, (Encoder, type(None)),
               "an Encoder (with name and encode(texts)) or None")
    return score_encoder() if encoder is None else CachedEncoder(encoder)

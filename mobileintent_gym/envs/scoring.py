"""The sentence encoder the intention envs score with, caching each text's embedding.

Acc-S and the Session env's guidance compare texts by the cosine of their
all-MiniLM-L6-v2 embeddings. Intention texts recur a lot (habits repeat, baselines repeat
themselves), so each text is embedded once per process.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from mobileintent_gym.metrics.text import acc_s_encoder
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
        """One L2-normalised row per text, as the wrapped encoder gives it."""
        missing = list(dict.fromkeys(t for t in texts if self._rows.get(t) is None))
        if missing:
            for text, row in zip(missing, self.encoder.encode(missing), strict=True):
                self._rows.put(text, row)
        rows = [self._rows.get(t) for t in texts]
        if any(row is None for row in rows):  # evicted while filling: ask again in one go
            return self.encoder.encode(list(texts))
        return np.stack(rows) if rows else self.encoder.encode([])


@functools.cache
def score_encoder() -> CachedEncoder:
    """The process's Acc-S encoder (all-MiniLM-L6-v2; extra ``[embed]``), cached."""
    return CachedEncoder(acc_s_encoder())


def scoring_encoder(encoder: Encoder | None) -> Encoder:
    """``encoder`` behind an embedding cache, or :func:`score_encoder` when ``None``."""
    return score_encoder() if encoder is None else CachedEncoder(encoder)

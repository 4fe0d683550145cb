"""The sentence encoder the intention envs score with, caching each text's embedding.

Acc-S and the Session env's guidance compare texts by the cosine of their
all-MiniLM-L6-v2 embeddings. Intention texts recur a lot (habits repeat, baselines repeat
themselves), so each text is embedded once per process.

The texts an env knows before any agent speaks (the known intentions a proposal is matched
against, the true ones a segmentation or a prediction is compared with) are also kept on
disk, in ``rows`` beside the user content cache (see :mod:`mobileintent_gym.users.cache`),
one file per text and encoder. The default encoder is loaded when a text comes that
neither holds: an env whose known texts were embedded before (by any process) and whose
agent answers with them (an RL policy choosing among the candidates, a baseline replaying
the history) never imports torch or the sentence model.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from gymnasium import logger

from mobileintent_gym.checks import check_type
from mobileintent_gym.errors import InvalidArgumentError
from mobileintent_gym.files import one_at_a_time, sealed, unsealed, write_atomic
from mobileintent_gym.metrics.text import ACC_S_MAX_TOKENS, acc_s_encoder
from mobileintent_gym.once import once
from mobileintent_gym.phone.lru import LRU
from mobileintent_gym.users import cache
from mobileintent_gym.users.encoders import PACKAGED_MODEL, Encoder

CACHE_SIZE = 1 << 14
ROWS_FORMAT = 1  # bump when how a text is embedded (or a row file's layout) changes
USED = ".used"
"""The file in a store's folder whose time says when a process last began to use it."""


class RowStore:
    """The rows one model gave texts on disk (each alone, as Acc-S embeds them).

    A file per text, written whole: a digest of the text and the row, then the row's
    float32 bytes, so that a file damaged, cut short or (however unlikely) another text's
    reads as missing.

    Args:
        folder: The encoder's folder.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @classmethod
    def of(cls, identity: str) -> RowStore | None:
        """The store of the encoder ``identity`` names; ``None`` with the cache ``off``.

        A process's first use of a store marks it used and removes the stores of other
        models (another version of a library embeds as another model) unused for
        :data:`~mobileintent_gym.users.cache.MAX_AGE` seconds: without it they would stay.
        """
        root = cache.cache_root()
        if root is None:
            return None
        key = hashlib.blake2b(f"{identity}/{ACC_S_MAX_TOKENS}/{ROWS_FORMAT}".encode(),
                              digest_size=16)
        store = cls(root / "rows" / key.hexdigest())
        _used(store.folder)
        return store

    def get(self, text: str) -> np.ndarray | None:
        """The row kept for ``text``, or ``None``."""
        try:
            data = self._path(text).read_bytes()
        except OSError:
            return None
        row = unsealed(data, _utf8(text) + b"\0")
        if row is None or len(row) % 4:
            return None
        return np.frombuffer(row, np.float32)

    def put(self, text: str, row: np.ndarray) -> None:
        """Keep ``row`` for ``text``; a folder that cannot be written is said once."""
        data = np.ascontiguousarray(row, np.float32).tobytes()
        try:
            write_atomic(self._path(text), sealed(data, _utf8(text) + b"\0"),
                         replace_folder=True)
        except OSError as err:
            _unwritable(self.folder, str(err))

    def embedding(self, texts: Sequence[str]) -> contextlib.AbstractContextManager[None]:
        """The lock of embedding ``texts``, held while the block runs.

        One process at a time embeds a set of texts, the others wait and then read them:
        workers starting together would each load the model for the same texts.
        """
        key = hashlib.blake2b("\0".join(sorted(texts)).encode("utf-8", "surrogatepass"),
                              digest_size=16)
        with contextlib.suppress(OSError):
            self.folder.mkdir(parents=True, exist_ok=True)
        return one_at_a_time(self.folder / f"{key.hexdigest()}.lock")

    def _path(self, text: str) -> Path:
        name = hashlib.blake2b(_utf8(text), digest_size=16).hexdigest()
        return self.folder / name[:2] / name


@functools.cache
def _used(folder: Path) -> None:
    """Mark ``folder`` used (its ``.used`` file's time), and prune its neighbours."""
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / USED).touch()
    now = time.time()
    with contextlib.suppress(OSError):
        for other in folder.parent.iterdir():
            if other != folder and _unused(other, now):
                shutil.rmtree(other, ignore_errors=True)


def _unused(folder: Path, now: float) -> bool:
    """Whether ``folder`` and its mark (a stopped first use leaves none) are MAX_AGE old."""
    times = []
    for path in (folder, folder / USED):
        with contextlib.suppress(OSError):
            times.append(path.stat().st_mtime)
    return bool(times) and now - max(times) > cache.MAX_AGE


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")  # a lone surrogate is a text too


_UNWRITABLE: set[Path] = set()  # folders said to be unwritable (the reason names a file)


def _unwritable(folder: Path, reason: str) -> None:
    if folder not in _UNWRITABLE:
        _UNWRITABLE.add(folder)
        logger.warn(f"embeddings cannot be kept in {folder} ({reason}); they are kept in "
                    "this process only")


class CachedEncoder:
    """An encoder that embeds each distinct text once (bounded LRU).

    Args:
        encoder: The encoder to ask for texts not seen yet, or a function loading it, called
            when the first such text comes (then ``name`` is needed).
        size: How many embeddings are kept in memory.
        name: The name of the encoder ``encoder`` loads (default: ``encoder.name``).
        identity: The identity of that encoder's model in the cache
            (:func:`~mobileintent_gym.users.cache.loaded_identity`), under which the rows
            of known texts (:meth:`encode_known`) are kept between processes; ``None``: in
            this process only. Once loaded, the encoder's own identity is used (a model
            that had to fall back to another is another).

    Attributes:
        name: The encoder's name (``Encoder.name``).
        store: Where the rows of known texts are kept; ``None`` for nowhere.
    """

    def __init__(self, encoder: Encoder | Callable[[], Encoder], size: int = CACHE_SIZE,
                 name: str | None = None, identity: str | None = None) -> None:
        loaded = isinstance(encoder, Encoder)
        if not (loaded or name):
            raise InvalidArgumentError("a CachedEncoder given a function loading its encoder "
                                       "needs the encoder's name")
        self._encoder: Encoder | None = encoder if loaded else None
        self._load = None if loaded else encoder
        self.name: str = encoder.name if loaded else name
        self._identity = identity
        self.store = RowStore.of(identity) if identity else None
        self._rows: LRU[np.ndarray] = LRU(size)

    @property
    def encoder(self) -> Encoder:
        """The encoder asked for texts not seen yet (loaded on first use)."""
        if self._encoder is None:
            encoder = self._load()
            identity = self._identity and cache.loaded_identity(encoder)
            if identity != self._identity:  # not the model its rows were read for
                logger.warn(f"the scoring encoder loaded is {identity or encoder.name}, not "
                            f"the one expected ({self._identity}); rows read are dropped")
                self._identity, self._rows = identity, LRU(self._rows.size)
                self.store = RowStore.of(identity) if identity else None
            self._encoder = encoder
        return self._encoder

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text: the wrapped encoder's row for that text alone.

        Rows are normalised where the wrapped encoder's are, as the Encoder protocol asks.
        Each text is embedded on its own, because a batch pads its texts to the longest
        and so moves their rows in the last bits: a score must not depend on what the
        process embedded before it.
        """
        return self._stacked([self._row(text) for text in texts])

    def keep_known(self, texts: Sequence[str]) -> None:
        """Have the rows of ``texts`` in memory and in the store (nothing without a store).

        For texts known before any agent answers (an env's own), not an agent's: what an
        agent says is seldom said again, and would fill the disk. Rows the store holds are
        read; texts it lacks are embedded by one process at a time
        (:meth:`RowStore.embedding`) and kept.
        """
        if self.store is None:
            return
        missing = self._read(texts)
        if missing:
            with self.store.embedding(missing):
                for text in self._read(missing):  # those no other process wrote meanwhile
                    self.store.put(text, self._row(text))

    def encode_known(self, texts: Sequence[str]) -> np.ndarray:
        """:meth:`encode` of texts known before any agent answers (:meth:`keep_known`)."""
        self.keep_known(texts)
        return self.encode(texts)

    def _read(self, texts: Sequence[str]) -> list[str]:
        """Put the store's rows of ``texts`` in memory; the texts neither holds."""
        missing = []
        for text in dict.fromkeys(texts):
            if self._rows.get(text) is None:
                row = self.store.get(text)
                if row is None:
                    missing.append(text)
                else:
                    self._rows.put(text, row)
        return missing

    def _stacked(self, rows: list[np.ndarray]) -> np.ndarray:
        return np.stack(rows) if rows else self.encoder.encode([])

    def _row(self, text: str) -> np.ndarray:
        row = self._rows.get(text)
        if row is None:
            row = self._rows.put(text, self.encoder.encode([text])[0])
        return row


@once
def score_encoder() -> CachedEncoder:
    """The process's Acc-S encoder (all-MiniLM-L6-v2; extra ``[embed]``), cached.

    Its model is loaded when first needed, and its known texts' rows are kept on disk,
    where which model it loads can be told without loading it (see
    :func:`~mobileintent_gym.users.cache.sentence_choice`); otherwise it is loaded now, and
    its rows kept by the identity of the model loaded.
    """
    choice = cache.sentence_choice(PACKAGED_MODEL)
    if choice is None:  # only loading can tell
        encoder = acc_s_encoder()
        return CachedEncoder(encoder, identity=cache.loaded_identity(encoder))
    return CachedEncoder(acc_s_encoder, name=choice.name, identity=choice.identity)


def scoring_encoder(encoder: Encoder | None) -> CachedEncoder:
    """``encoder`` behind an embedding cache, or :func:`score_encoder` when ``None``.

    Raises:
        InvalidArgumentError: When ``encoder`` is neither an Encoder nor ``None``.
    """
    check_type("encoder", encoder, (Encoder, type(None)),
               "an Encoder (with name and encode(texts)) or None")
    return score_encoder() if encoder is None else CachedEncoder(encoder)

"""Built user content on disk, so that a process whose users were built before stays lean.

Ranking a user's content with the sentence encoder costs importing torch and the model
(seconds and hundreds of MB per process). Built content is therefore kept in files that
every process reads: an env worker, a vector env's worker or a Ray actor whose users were
built before loads them without importing torch or sentence-transformers.

Location: ``$MOBILEINTENT_GYM_CACHE/content`` when the variable is set (``off`` turns the
cache off), else ``mobileintent-gym/content`` in the platform's cache folder
(``$XDG_CACHE_HOME`` or ``~/.cache`` on Linux, ``~/Library/Caches`` on macOS,
``%LOCALAPPDATA%`` on Windows). Entries are pickles: the folder must be as trusted as the
code that reads it.

An entry's name is a hash of everything the content depends on, so a change of any of them
leads to a new entry, never to stale content: the profile's content, the ``PairConfig``
(its encoder kind aside), the encoder model actually used (a sentence model's id and the
names, sizes and times of its files; the lexical encoder's settings), every file of this
package (:func:`source_fingerprint`: the record pools, how each app builds its state, how
PAIR ranks), the package version and ``FORMAT``. Which model an encoder kind loads is told
without loading it (:func:`encoder_identity`); when only loading can tell (the hub may be
asked), the model is loaded. Files are written to a temporary name
and moved into place with ``os.replace``, so concurrent processes never read a partial
entry, and one process at a time builds an entry (holding a lock file beside it) while
the others wait and then read it: the workers of a vector env started on an empty cache
build each user once, not once each. An entry carries a digest of its pickled bytes, checked
before they are unpickled: one that cannot be read (damaged on disk, even where its bytes
would still unpickle, or written by another version of the code) is rebuilt. The digest
finds damage, not tampering: anyone who can write the folder can write a valid entry. A
process stores nothing once a file of the package is newer than its import of it (a file
edited, a branch checked out): it builds with the code it loaded, which the files'
fingerprint no longer describes.
Encoders given as objects rather than kinds have no identity on disk: their content is
cached per process only. Entries unused for 30 days are removed when one is stored
(:func:`prune`).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import importlib.util
import json
import os
import pickle
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

from gymnasium import logger

from mobileintent_gym import stamp
from mobileintent_gym.apps import registry
from mobileintent_gym.errors import MobileIntentError, require
from mobileintent_gym.files import (
    lock_file,
    partial_of,
    remove_lock_file,
    sealed,
    unlock,
    unsealed,
    write_atomic,
)
from mobileintent_gym.users import encoders
from mobileintent_gym.users.encoders import Encoder, LexicalEncoder, SentenceEncoder, make_encoder

CACHE_ENV = "MOBILEINTENT_GYM_CACHE"
FORMAT = 4  # bump when the pickled layout of UserContent (its app states included) changes
EMBEDDING_LIBRARIES = ("sentence-transformers", "transformers", "tokenizers", "torch")
"""Whose versions are part of a sentence encoder's identity in the cache."""
_HEADER = b"mobileintent-gym content entry\n"  # then files.sealed(the pickle)
_OFF = {"0", "off", "no", "false", "none"}
# A Transformer module's weights: one of these (the index of shards for large models).
MAX_AGE = 30 * 24 * 3600
"""Seconds an entry is kept after it was last read or written."""
LEFTOVER_AGE = 3600
"""Seconds a lock file without its entry, or a stopped write's file, is kept."""
WEIGHTS = ("model.safetensors", "pytorch_model.bin", "model.safetensors.index.json",
           "pytorch_model.bin.index.json")
TOKENIZER_FILES = ("tokenizer.json", "vocab.txt", "vocab.json", "sentencepiece.bpe.model",
                   "spiece.model", "tokenizer.model")
T = TypeVar("T")
_SENTENCE_MODULES = ("sentence_transformers", "transformers", "torch")
"""What the sentence encoder imports; one missing makes ``auto`` the lexical encoder."""
_REQUIREMENT_NAME = re.compile(r"[A-Za-z0-9._-]+")


class CacheError(MobileIntentError):
    """The content cache folder cannot be used; the message names it."""


def cache_root() -> Path | None:
    """The folder of everything the gym keeps between processes; ``None`` when it is ``off``.

    ``$MOBILEINTENT_GYM_CACHE``, else ``mobileintent-gym`` in the platform's cache folder.
    """
    chosen = os.environ.get(CACHE_ENV, "").strip()
    if chosen.casefold() in _OFF:
        return None
    if chosen:
        return Path(chosen).expanduser()
    if sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    elif sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "mobileintent-gym"


def content_dir() -> Path | None:
    """The folder of cached content, or ``None`` when ``$MOBILEINTENT_GYM_CACHE`` is ``off``."""
    root = cache_root()
    return None if root is None else root / "content"


def fetch(profile_key: str, config: Any, build: Callable[[Encoder], T],
          expected: type[T]) -> T:
    """The content of a user: read from disk when it was built before, else built and stored.

    Args:
        profile_key: A hash of the profile's content.
        config: The ``PairConfig``; its ``encoder`` is a kind or an Encoder object.
        build: Builds the content with an encoder.
        expected: The type of the content; an entry of another type is rebuilt.

    Raises:
        CacheError: When the folder that ``$MOBILEINTENT_GYM_CACHE`` names cannot be
            created or written (the default folder only warns).
    """
    folder = content_dir()
    if not isinstance(config.encoder, str) or folder is None or _code_changed():
        return build(_encoder(config.encoder))
    choice = predict_encoder(config.encoder)
    predicted = None if choice is None else choice.identity
    if predicted is not None:
        entry = _entry(folder, profile_key, config, predicted)
        found = _read(entry)
        if isinstance(found, expected):
            if config.encoder == "auto" and choice.name == LexicalEncoder.name:
                encoders.warn_lexical(choice.fallback_reason)  # as building it would
            return found
    _prepare(folder)  # an unusable folder is named before seconds go into building
    if predicted is None:  # which entry only loading the encoder tells: no lock to take
        return _build(folder, profile_key, config, build, expected)
    with _building(entry):  # another process may have built it while this one waited
        found = _read(entry)
        return found if isinstance(found, expected) else _build(folder, profile_key,
                                                                config, build, expected)


def _build(folder: Path, profile_key: str, config: Any, build: Callable[[Encoder], T],
           expected: type) -> T:
    """Build the content with ``config``'s encoder; store it under the loaded encoder's id.

    The entry of the loaded encoder is read first: it may be another model than the one
    predicted (a snapshot whose weights are damaged falls back when it loads).
    """
    encoder = make_encoder(config.encoder)
    identity = loaded_identity(encoder)
    entry = None if identity is None else _entry(folder, profile_key, config, identity)
    found = None if entry is None else _read(entry)
    if isinstance(found, expected):
        return found
    content = build(encoder)
    if entry is not None:
        _store(entry, content)
    return content


def _prepare(folder: Path) -> None:
    """Create ``folder`` if need be.

    Raises:
        CacheError: When it is the folder that ``$MOBILEINTENT_GYM_CACHE`` names and it
            cannot be written (the default folder only costs ``_store``'s warning).
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if not os.access(folder, os.W_OK):
            raise _refusal(folder)
    except OSError as err:
        if _named():
            raise _unwritable(folder, err) from err


def _refusal(folder: Path) -> OSError:
    """Why ``folder``, which exists, cannot be written: a read-only file system, or its mode."""
    if hasattr(os, "statvfs") and os.statvfs(folder).f_flag & os.ST_RDONLY:
        return OSError(errno.EROFS, os.strerror(errno.EROFS), str(folder))
    return PermissionError(errno.EACCES, "not writable", str(folder))


@contextlib.contextmanager
def _building(entry: Path) -> Iterator[None]:
    """Hold ``entry``'s lock file: one process at a time builds it, the others wait for it.

    Where no lock can be taken (see :func:`~mobileintent_gym.files.lock_file`), processes
    build side by side.
    """
    descriptor = lock_file(entry.with_suffix(".lock"))
    try:
        yield
    finally:
        unlock(descriptor)


def _store(path: Path, content: Any) -> None:
    """Write an entry; one that cannot be written costs a warning, not the content built.

    A folder that cannot be written at all was named before the build (``_prepare``);
    what fails here (a disk full, a quota) keeps the content in this process.
    """
    if _code_changed():  # while it built
        return
    try:
        _write(path, content)
    except CacheError as err:
        logger.warn(f"{err}; built user content stays in this process only")
        return
    prune(path.parent)


def prune(folder: Path, now: float | None = None) -> None:
    """Remove from ``folder`` what no process will read any more.

    That is: entries unused for :data:`MAX_AGE` seconds (a read refreshes an entry's time)
    and their lock files; lock files without an entry, and partial files left by a stopped
    write, an hour old. A lock file a process holds stays (it is building that entry).
    Every change of the package's files names new entries (:func:`source_fingerprint`):
    without this the folder only grows.
    """
    now = time.time() if now is None else now
    try:
        files = list(folder.iterdir())
    except OSError:
        return
    for file in files:
        if not _stale(file, now):
            continue
        if file.suffix == ".lock":
            remove_lock_file(file)
            continue
        with contextlib.suppress(OSError):
            file.unlink()
            if file.suffix == ".pkl":
                remove_lock_file(file.with_suffix(".lock"))


def _stale(file: Path, now: float) -> bool:
    """Whether :func:`prune` removes ``file`` (see there); not one gone meanwhile."""
    try:
        age = now - file.stat().st_mtime
    except OSError:
        return False
    if file.suffix == ".pkl":
        return age > MAX_AGE
    orphan = file.suffix == ".lock" and not file.with_suffix(".pkl").exists()
    return age > LEFTOVER_AGE and (orphan or partial_of(file.name) is not None)


def _code_changed() -> bool:
    """Whether the package's files changed since this process imported them (warned so).

    Its content then neither comes from the cache nor goes into it: entries are filed
    under the fingerprint of the files on disk, which is not the code this process runs.
    """
    if not _edited_since_import():
        return False
    logger.warn("files of mobileintent_gym changed after this process imported it: user "
                "content is built by the code it loaded, and neither read from the cache "
                "nor stored in it")
    return True


def _edited_since_import() -> bool:
    """Whether a file of the package (bytecode aside) was written since this process's import.

    A file dated in the future (a clock skewed on another machine, a tarball's dates) was
    not written since: only times up to now count. A file gone by the time it is looked at
    does not count either.
    """
    now = time.time()
    for path in (p for folder in _source_folders() for p in _source_files(folder)):
        try:
            found = path.stat()
        except OSError:
            continue
        # The change time too: a copy that keeps a file's old date (cp -p, rsync -a, tar)
        # sets its modification time back, not its change time.
        if stamp.IMPORTED_AT < max(found.st_mtime, found.st_ctime) <= now:
            return True
    return False


def _source_folders() -> tuple[Path, ...]:
    """The package's folder and those of the plugged-in apps (see :mod:`~.apps.registry`)."""
    return Path(__file__).parents[1], *registry.plugged_in_folders()


def _source_files(folder: Path) -> list[Path]:
    """The files under ``folder`` that built content depends on, sorted.

    Linked folders are followed (an app's package may be a link to where it is written),
    each folder once (a link back up the tree is not walked again). Only regular files
    count (not a broken link, a pipe or a socket); bytecode is left out, and so are hidden
    files and folders and editors' and patches' leftovers (``.x.py.swp``, ``x.py~``,
    ``#x.py#``, ``x.py.orig``), which no code reads.
    """
    found, walked = [], set()
    for root, folders, names in os.walk(folder, followlinks=True):
        here = os.stat(root)
        if (here.st_dev, here.st_ino) in walked:
            folders.clear()
            continue
        walked.add((here.st_dev, here.st_ino))
        folders[:] = sorted(f for f in folders  # sorted: one order whatever the file system
                            if f != "__pycache__" and not f.startswith((".", "#")))
        found += [Path(root, name) for name in names if not name.startswith((".", "#"))
                  and not name.endswith(("~", ".orig", ".rej", ".bak"))
                  and Path(root, name).is_file()]
    return sorted(found)


@functools.cache
def source_fingerprint() -> str:
    """A hash of every file of the package, on which built content depends.

    Apps' record pools and the code that turns ranked records into their states, PAIR and
    its ranking, and what those use (the phone's state and clock, record readers …), and
    the packages of plugged-in apps: editing any file, or registering another app, leads to
    new entries. Hashing the whole package (3.4 MB: 15-22 ms, 61 ms with the files out of
    the page cache, on the 2-core VM) is cheaper than a list of what matters, which would
    go stale.
    """
    return folder_fingerprint(_source_folders())


def folder_fingerprint(folders: Sequence[Path]) -> str:
    """A hash of the names and bytes of the files under ``folders`` (:func:`_source_files`)."""
    digest = hashlib.blake2b(digest_size=16)
    for folder in folders:
        for path in _source_files(folder):
            digest.update(f"{path.relative_to(folder.parent)}\0".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


@dataclass(frozen=True, slots=True)
class EncoderChoice:
    """The model an encoder kind ranks with, as its encoder would name it.

    Attributes:
        name: The model's id (``lexical`` for the lexical encoder), as ``Encoder.name``.
        fallback_reason: ``None`` for the kind's preferred model; else why not it.
        identity: Its key in the cache (:func:`encoder_identity`); ``None`` for a model
            loaded from the hub and not in the local cache.
    """

    name: str
    fallback_reason: str | None = None
    identity: str | None = None

    @classmethod
    def of(cls, encoder: Encoder) -> EncoderChoice:
        """The choice of a loaded encoder."""
        return cls(encoder.name, getattr(encoder, "fallback_reason", None),
                   loaded_identity(encoder))


def predict_encoder(kind: str) -> EncoderChoice | None:
    """Which model ``make_encoder(kind)`` ranks with, told without importing it.

    It follows ``SentenceEncoder``'s loading order: the study's model in the local
    Hugging Face cache, the hub, the packaged fallback; ``auto`` without
    sentence-transformers, transformers or torch, a distribution the first two require
    (by their metadata) or the fallback is the lexical encoder. Weights complete on disk
    but damaged, or a dependency installed but broken (a torch whose native libraries
    fail to load), are found only when they load (and fall back then).

    Returns:
        The choice, or ``None`` when only loading the encoder can tell: the hub would be
        tried (``HF_HUB_OFFLINE`` unset and the hub answering within its bound), or the
        kind cannot be loaded at all.
    """
    lexical = LexicalEncoder()
    if kind == "lexical":
        return EncoderChoice(lexical.name, identity=_lexical_identity(lexical))
    if kind not in ("auto", "sentence"):
        return None
    try:
        return sentence_choice(encoders.STUDY_MODEL)
    except MobileIntentError as err:  # DependencyNotInstalled included
        return None if kind == "sentence" else EncoderChoice(
            lexical.name, encoders.no_sentence_encoder(err), _lexical_identity(lexical))


def sentence_choice(model_id: str) -> EncoderChoice | None:
    """Which model ``SentenceEncoder(model_id)`` loads (packaged fallback), told unloaded.

    ``model_id`` from the local Hugging Face cache, else — unless the hub would be tried,
    when only loading can tell (``None``) — the packaged weights.

    Raises:
        DependencyNotInstalled: Naming the ``[embed]`` extra, when what embeds is missing.
        MobileIntentError: When the packaged fallback holds no model.
    """
    if (any(importlib.util.find_spec(name) is None for name in _SENTENCE_MODULES)
            or _missing_requirement() is not None):
        require("sentence_transformers", "embed")  # raises, naming what failed
    folder = _cached_snapshot(model_id)
    if folder is not None:
        return EncoderChoice(model_id, identity=_model_identity(model_id, folder))
    if encoders.hub_allowed(model_id):
        return None
    folder = Path(encoders.fallback_path(encoders.PACKAGED_FALLBACK))
    reason = encoders.not_loaded(model_id, [
        "the cache: no complete snapshot of it there", encoders.HUB_SKIPPED])
    return EncoderChoice(encoders.PACKAGED_MODEL, reason,
                         _model_identity(encoders.PACKAGED_MODEL, folder))


@functools.cache
def _missing_requirement() -> str | None:
    """A distribution that sentence-transformers or transformers needs and is not installed.

    Read from their metadata (about 13 ms, once per process), not by importing them; a
    requirement with a marker (an extra's, or one for some Python versions or systems) is
    left to loading.
    """
    import importlib.metadata  # here: a core install never asks (-X importtime: 7 ms)

    for distribution in _SENTENCE_MODULES[:2]:
        try:
            requirements = importlib.metadata.requires(distribution.replace("_", "-")) or []
        except importlib.metadata.PackageNotFoundError:
            continue
        for requirement in requirements:
            name = _REQUIREMENT_NAME.match(requirement)
            if name is None or ";" in requirement:  # an extra's, or one for other systems
                continue
            try:
                importlib.metadata.version(name.group())
            except importlib.metadata.PackageNotFoundError:
                return name.group()
    return None


def encoder_identity(kind: str) -> str | None:
    """The cache key of the model ``make_encoder(kind)`` ranks with.

    ``None`` when only loading the encoder can tell (see :func:`predict_encoder`).
    """
    choice = predict_encoder(kind)
    return None if choice is None else choice.identity


def loaded_identity(encoder: Encoder) -> str | None:
    """The identity of an encoder that is loaded (``None`` for other encoder types)."""
    if isinstance(encoder, LexicalEncoder):
        return _lexical_identity(encoder)
    if not isinstance(encoder, SentenceEncoder):
        return None
    if encoder.source in ("cache", "hub"):
        folder = _cached_snapshot(encoder.name)
        return None if folder is None else _model_identity(encoder.name, folder)
    return _model_identity(encoder.name, Path(encoder.source))


def _encoder(kind: str | Encoder) -> Encoder:
    return make_encoder(kind) if isinstance(kind, str) else kind


def _lexical_identity(encoder: LexicalEncoder) -> str:
    return f"lexical/{encoder.dim}/{encoder.ngram}"


def _cached_snapshot(model_id: str) -> Path | None:
    """:func:`cached_snapshot` of a sentence model (``SENTENCE_TRANSFORMERS_HOME`` if set)."""
    home = os.environ.get("SENTENCE_TRANSFORMERS_HOME")
    return cached_snapshot(model_id, Path(home) if home else None)


def cached_snapshot(model_id: str, root: Path | None = None) -> Path | None:
    """The folder of ``model_id``'s ``main`` snapshot in a local Hugging Face cache.

    ``None`` unless the snapshot is complete (:func:`_complete`). ``root`` is the cache
    folder; default the hub's (``HF_HUB_CACHE``). Read from the cache's documented layout
    (``models--<org>--<name>/refs/main`` names the snapshot), which is much cheaper than
    importing huggingface_hub's downloader.
    """
    from huggingface_hub import constants

    repo = (root or Path(constants.HF_HUB_CACHE)) / f"models--{model_id.replace('/', '--')}"
    try:
        revision = (repo / "refs" / "main").read_text().strip()
    except OSError:
        return None
    folder = repo / "snapshots" / revision
    return folder if _complete(folder) else None


def _complete(snapshot: Path) -> bool:
    """Whether a model snapshot holds its modules, weights and tokenizer.

    A download cut short leaves some files out; loading such a snapshot fails (or, without
    its tokenizer, gives one that knows no word: :func:`encoders.check_tokenizer` refuses
    it) and falls back to another model, so predicting it would name an entry never written.
    A snapshot without ``modules.json`` (a plain transformers model, as ``AutoModel``
    downloads it) is loaded by sentence-transformers as its transformer, mean-pooled.
    """
    try:
        modules = json.loads((snapshot / "modules.json").read_text())
        paths = [m["path"] for m in modules if str(m["type"]).endswith(".Transformer")]
    except FileNotFoundError:
        paths = [""]
    except (OSError, ValueError, TypeError, KeyError):
        return False
    return bool(paths) and all(
        (snapshot / path / "config.json").is_file()
        and any((snapshot / path / name).is_file() for name in WEIGHTS)
        and any((snapshot / path / name).is_file() for name in TOKENIZER_FILES)
        for path in paths)


def _model_identity(name: str, folder: Path) -> str:
    """A model's id, the names, sizes and times of its files, and the libraries running it.

    An upgraded torch, tokenizer or sentence-transformers may embed a little differently,
    and near ties of the ranking then fall the other way: their versions are part of the
    identity.
    """
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    stats = [(str(p.relative_to(folder)), p.stat().st_size, p.stat().st_mtime_ns)
             for p in files]
    key = repr((stats, _library_versions())).encode()
    return f"{name}@{hashlib.blake2b(key, digest_size=16).hexdigest()}"


@functools.cache
def _library_versions() -> tuple[str | None, ...]:
    """The installed versions of what embeds text (``None`` for one not installed)."""
    return tuple(_version(name) for name in EMBEDDING_LIBRARIES)


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def _entry(folder: Path, profile_key: str, config: Any, identity: str) -> Path:
    from mobileintent_gym import __version__

    parts = (FORMAT, __version__, profile_key, repr(replace(config, encoder="")), identity,
             source_fingerprint())
    return folder / f"{hashlib.blake2b(repr(parts).encode(), digest_size=20).hexdigest()}.pkl"


def _read(path: Path) -> Any:
    """The entry at ``path``, or ``None`` when it is missing, damaged or unreadable.

    Its pickle is unpickled only when its digest matches. An entry read has its time
    refreshed (where the folder allows): :func:`prune` keeps it.
    """
    try:
        raw = path.read_bytes()
        data = unsealed(raw.removeprefix(_HEADER)) if raw.startswith(_HEADER) else None
        if data is None:
            return None
        found = pickle.loads(data)
    except Exception:  # damaged bytes raise almost anything (MemoryError, OverflowError …)
        return None
    with contextlib.suppress(OSError):
        os.utime(path)
    return found


def _write(path: Path, value: Any) -> None:
    """Store ``value`` at ``path`` atomically: readers see the old file or the whole new one.

    Raises:
        CacheError: When the folder cannot be created or written; no partial file is left.
    """
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    try:
        write_atomic(path, _HEADER + sealed(data), replace_folder=True)
    except OSError as err:
        raise _unwritable(path, err) from err


def _named() -> bool:
    """Whether ``$MOBILEINTENT_GYM_CACHE`` names the folder (an unusable one is an error)."""
    return bool(os.environ.get(CACHE_ENV, "").strip())


def _unwritable(path: Path, err: OSError) -> CacheError:
    return CacheError(f"cannot write the content cache at {str(path)!r} ({err}); set "
                      f"{CACHE_ENV} to a writable folder, or to 'off'")



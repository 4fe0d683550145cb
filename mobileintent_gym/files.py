"""Writing files and folders so that readers see the old version or the whole new one."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import itertools
import os
import re
import shutil
import stat
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mobileintent_gym.errors import MobileIntentError

try:
    import fcntl
except ImportError:  # Windows: no locks; lock_file holds its file without one
    fcntl = None

_PARTIAL = re.compile(r"\.(.+)-[0-9a-f]{32}")  # write_atomic's temporary name for a file


def write_atomic(path: str | Path, data: bytes, replace_folder: bool = False) -> None:
    """Write ``data`` to ``path`` through a temporary file beside it, then rename it.

    Concurrent readers see the old file or the whole new one, never a part. A ``path``
    that is a symbolic link stays one: the file it points to is written, as ``open``
    would write it; a file replaced keeps its permissions (one made private stays so).
    With ``replace_folder`` (a cache's entry, which nothing else may hold) a folder at
    ``path`` itself is removed first, where the rename would fail on it every time.

    Raises:
        OSError: When the folder cannot be created or written; no temporary file is left.
    """
    if replace_folder and Path(path).is_dir() and not Path(path).is_symlink():
        shutil.rmtree(path)
    path = Path(os.path.realpath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    # A unique name opened exclusively (not mkstemp, whose files are private to their
    # owner): the file gets the umask's permissions, as a plain write would give it.
    temporary = path.with_name(f".{path.name}-{uuid.uuid4().hex}")  # as partial_of reads
    try:
        with open(temporary, "xb") as file:
            file.write(data)
        with contextlib.suppress(FileNotFoundError):  # a new file keeps the umask's
            os.chmod(temporary, stat.S_IMODE(path.stat().st_mode))
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


SEAL_SIZE = 32
"""Bytes of the digest :func:`sealed` puts before the data."""


def sealed(data: bytes, context: bytes = b"") -> bytes:
    """``data`` behind a digest of ``context`` and ``data``, as a cache file keeps it.

    :func:`unsealed` then tells a file damaged, cut short or written for another
    ``context`` (another key) from a whole one.
    """
    return _seal(context, data) + data


def unsealed(raw: bytes, context: bytes = b"") -> bytes | None:
    """The data :func:`sealed` wrapped in ``raw``, or ``None`` when its digest does not match."""
    data = raw[SEAL_SIZE:]
    return data if raw[:SEAL_SIZE] == _seal(context, data) else None


def _seal(context: bytes, data: bytes) -> bytes:
    return hashlib.blake2b(context + data, digest_size=SEAL_SIZE).digest()


def hash_file(digest: Any, path: str | Path) -> None:
    """Feed the bytes of ``path`` to ``digest`` (a ``hashlib`` hash), a MiB at a time.

    ``hashlib.file_digest`` does this from Python 3.11 on.
    """
    with Path(path).open("rb") as file:
        for chunk in iter(lambda: file.read(1 << 20), b""):
            digest.update(chunk)


@contextlib.contextmanager
def trial_folder(folder: Path) -> Iterator[None]:
    """Make ``folder`` and write a file in it, to learn before a command runs whether it can.

    The block may try more there (open the file the command will append to). The file and
    the folders made are removed when it ends; the command makes them again when it
    writes. Asking for permission would not do: it says yes to root wherever a file
    system still refuses (``/proc``, a read-only mount).

    Raises:
        NotADirectoryError: When the nearest part of the path that exists is a file (its
            ``filename``).
        OSError: When the folder cannot be made or written.
    """
    made = _missing(folder)
    there = (folder, *folder.parents)[len(made)]  # the nearest part that exists
    if not there.is_dir():  # mkdir would say "File exists"
        raise NotADirectoryError(errno.ENOTDIR, "is a file", str(there))
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
        yield
    finally:
        _remove_empty(made)


def _missing(folder: Path) -> list[Path]:
    """``folder`` and the folders above it that do not exist, deepest first."""
    return list(itertools.takewhile(lambda p: not p.exists(), (folder, *folder.parents)))


def _remove_empty(folders: list[Path]) -> None:
    """Remove those of ``folders`` (deepest first) that nothing was written into."""
    for each in folders:
        with contextlib.suppress(OSError):
            each.rmdir()


def partial_of(name: str) -> str | None:
    """The file whose :func:`write_atomic` left the temporary ``name``, or ``None``.

    Such a file stays when the write was stopped before its rename.
    """
    match = _PARTIAL.fullmatch(name)
    return match[1] if match else None


@contextlib.contextmanager
def atomic_folder(target: str | Path, keep_existing: bool = False) -> Iterator[Path]:
    """A temporary folder beside ``target`` that becomes ``target`` when the block ends.

    Written under a hidden temporary name and renamed when complete, so an interrupted
    write (a crash, a killed job) leaves no partial ``target``: it is whole or absent. A
    ``target`` already there is replaced, or with ``keep_existing`` kept and the new
    folder dropped (another process wrote the same content first; an empty folder is
    replaced all the same). A ``target`` that is a symbolic link stays one: the folder it
    points to is replaced (as :func:`write_atomic` treats a link to a file); a file there
    is replaced by the folder.
    """
    target = Path(os.path.realpath(target))
    target.parent.mkdir(parents=True, exist_ok=True)
    # mkdir, not tempfile.mkdtemp: the folder gets the umask's permissions, as any other
    # the run writes (mkdtemp's 0700 would hide checkpoints from the rest of a team).
    partial = target.parent / f".{target.name}-{uuid.uuid4().hex}"
    partial.mkdir()
    try:
        yield partial
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    if keep_existing:
        try:
            partial.rename(target)  # refused once another writer's target is there
        except OSError:
            shutil.rmtree(partial, ignore_errors=True)
            if not target.exists():
                raise
    elif target.exists():
        old = partial.with_name(partial.name + "-old")
        target.rename(old)
        partial.rename(target)
        if old.is_dir():
            shutil.rmtree(old)
        else:
            old.unlink()
    else:
        partial.rename(target)


_STAGE_PREFIX = ".staged-"  # staged_into's folders: this and a uuid4's 32 hex digits
_STAGE = re.compile(re.escape(_STAGE_PREFIX) + "[0-9a-f]{32}")


def drop_stale_stages(folder: str | Path) -> None:
    """Remove what runs killed outright (SIGKILL) left staged in ``folder`` (see below).

    Call it holding the folder's :func:`sole_writer`: no other run stages there then.
    """
    with contextlib.suppress(OSError):  # a folder not there yet holds none
        for entry in Path(folder).iterdir():
            if _STAGE.fullmatch(entry.name) and entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)


@contextlib.contextmanager
def staged_into(folder: str | Path) -> Iterator[Path]:
    """A hidden folder inside ``folder`` whose entries move into ``folder`` when the block ends.

    What a block that raised (or was interrupted) wrote is removed, so ``folder`` gets a
    run's files whole or not at all, where files written in place would leave the run's
    first part, and a file cut short, passed off as the run; the folders made for it are
    removed then too. Only the moves at the end (a rename per entry, in name order) are
    not one step. ``folder`` itself is never renamed (it may be the current folder); an
    entry of the same name there is replaced (a folder only when empty). A process killed
    outright leaves its staging folder: :func:`drop_stale_stages` removes it.
    """
    folder = Path(folder)
    made = _missing(folder)
    folder.mkdir(parents=True, exist_ok=True)
    staging = folder / f"{_STAGE_PREFIX}{uuid.uuid4().hex}"
    staging.mkdir()
    try:
        yield staging
        for entry in sorted(staging.iterdir()):
            os.replace(entry, folder / entry.name)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        _remove_empty(made)
        raise
    staging.rmdir()


_LOCKS: set[int] = set()
"""The lock files' descriptors this process holds now (see :func:`lock_file`)."""
_UNLOCKED: set[int] = set()
"""Those of them held without a lock (no ``flock`` where they are)."""


def lock_file(path: str | Path, wait: bool = True, shared: bool = False) -> int | None:
    """Open ``path`` (made if need be) and take its exclusive lock; the descriptor holds it.

    Let go with :func:`unlock`. The OS releases the lock of a process that dies, and a
    forked child closes its copies at once (a child holding one would keep the lock past
    its parent's release). The file is opened read-only (a lock needs no more), so a folder
    shared between users works.

    Args:
        path: The lock file.
        wait: Wait for another holder to let go; else raise at once.
        shared: Take a shared lock (any number may hold one, but no exclusive one meanwhile).

    Returns:
        The descriptor; ``None`` when the file cannot be made. Where there are no locks
        (Windows; file systems without ``flock``, as some network mounts) it is held
        without one.

    A lock file removed (by :func:`remove_lock_file`) while this waited for it is locked
    no more: this locks the file at ``path`` now, so that two processes never hold locks of
    one path.

    Raises:
        BlockingIOError: Without ``wait``, when another open file holds the lock.
    """
    while True:
        descriptor = _open_locked(path, wait, shared)
        if descriptor is None or _still_at(path, descriptor):
            return descriptor
        unlock(descriptor)


@contextlib.contextmanager
def sole_writer(target: str | Path) -> Iterator[None]:
    """Refuse a second process writing ``target`` (a run's file or folder) meanwhile.

    Holds the lock of ``<target>.lock`` beside it (``target`` resolved: one lock however
    its path is written, through a link or as ``.``) while the block runs, then removes
    that file and the folders made for it that stay empty. Another process writing the
    same run is refused at once, where it would have replaced this one's file or mixed its
    rows with this one's. Where there are no locks (see :func:`lock_file`), or the lock
    file cannot be made, nothing is refused.

    Raises:
        MobileIntentError: Naming ``target`` when another process holds it.
    """
    real = Path(os.path.realpath(target))
    path = real.with_name(f"{real.name}.lock") if real.name else real / ".lock"  # "/"
    made = _missing(path.parent)
    with contextlib.suppress(OSError):  # a folder that cannot be made is named by its user
        path.parent.mkdir(parents=True, exist_ok=True)
    try:
        descriptor = lock_file(path, wait=False)
    except BlockingIOError:  # the holder made the folders: none to remove
        raise MobileIntentError(f"another process is writing {target} now; wait until it "
                                "ends, or write elsewhere") from None
    try:
        yield
    finally:
        _remove_held(path, descriptor)
        _remove_empty(made)


@contextlib.contextmanager
def one_at_a_time(path: str | Path) -> Iterator[None]:
    """Hold the lock file ``path`` (after any other holder) while the block runs; remove it.

    Where there are no locks (see :func:`lock_file`) blocks run side by side.
    """
    descriptor = lock_file(path)
    try:
        yield
    finally:
        _remove_held(path, descriptor)


def _remove_held(path: str | Path, descriptor: int | None) -> None:
    """Remove the lock file ``path`` and let go of its lock ``descriptor``.

    Removed while locked, so that no other process locks it meanwhile; where there are no
    locks (Windows) only once closed, as a file open there cannot be removed.
    """
    held = is_locked(descriptor)
    if held:
        with contextlib.suppress(OSError):
            os.unlink(path)
    unlock(descriptor)
    if not held and descriptor is not None:
        with contextlib.suppress(OSError):
            os.unlink(path)


def remove_lock_file(path: str | Path) -> None:
    """Remove the lock file ``path`` unless a process holds its lock (then it stays).

    A missing file stays missing (locking it would make it, to remove it again).
    """
    if not os.path.lexists(path):
        return
    try:
        descriptor = lock_file(path, wait=False)
    except BlockingIOError:
        return
    _remove_held(path, descriptor)


def _still_at(path: str | Path, descriptor: int) -> bool:
    """Whether ``descriptor`` is of the file at ``path`` (not of one removed from there)."""
    try:
        there = os.stat(path)
    except OSError:
        return False
    held = os.fstat(descriptor)
    return (there.st_dev, there.st_ino) == (held.st_dev, held.st_ino)


def _open_locked(path: str | Path, wait: bool, shared: bool) -> int | None:
    """:func:`lock_file` of the file at ``path`` when it is opened."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_CREAT, 0o666)
    except OSError:
        return None
    try:
        if fcntl is None:
            raise OSError("no flock here")
        kind = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
        fcntl.flock(descriptor, kind | (0 if wait else fcntl.LOCK_NB))
    except BlockingIOError:
        os.close(descriptor)
        raise
    except OSError:  # Windows, or a file system without locks
        _UNLOCKED.add(descriptor)
    _LOCKS.add(descriptor)
    return descriptor


def is_locked(descriptor: int | None) -> bool:
    """Whether the OS holds a lock for a :func:`lock_file` descriptor (not where it has none)."""
    return descriptor in _LOCKS and descriptor not in _UNLOCKED


def unlock(descriptor: int | None) -> None:
    """Let go of a :func:`lock_file` lock (nothing for ``None``, or in a forked child)."""
    if descriptor in _LOCKS:
        _LOCKS.discard(descriptor)
        _UNLOCKED.discard(descriptor)
        os.close(descriptor)


def _let_go_of_locks() -> None:
    """In a forked child: close the lock descriptors its parent held."""
    for descriptor in _LOCKS:
        os.close(descriptor)
    _LOCKS.clear()
    _UNLOCKED.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_let_go_of_locks)

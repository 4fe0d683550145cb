"""The virtual device's in-memory file system: where screenshots and dumps land.

Paths are POSIX and resolved against ``/``. Only the shared-storage roots are writable, as
for the ``shell`` user on a real device; total size is bounded so that a client cannot
exhaust the server's memory with ``adb push``. A file still arriving holds a
:class:`Reservation` for every byte received so far, so parallel pushes cannot together
go past the capacity. Every operation holds the file system's lock: commands running on
several threads and the transfers on the event loop may share it.
"""

from __future__ import annotations

import functools
import posixpath
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from mobileintent_gym.errors import MobileIntentError

EMULATED = "/storage/emulated/0"
WRITABLE_ROOTS = ("/sdcard", "/data/local/tmp", EMULATED)
BUILTIN_DIRS = ("/", "/sdcard", "/data", "/data/local", "/data/local/tmp", "/storage",
                "/storage/emulated", "/storage/emulated/0", "/system", "/dev")
DEFAULT_CAPACITY = 256 * 1024 * 1024


T = TypeVar("T")


class FileSystemError(MobileIntentError, OSError):
    """A file operation that fails; the message reads like the device's (path: reason)."""


def _locked(method: Callable[..., T]) -> Callable[..., T]:
    @functools.wraps(method)
    def locked(self: MemoryFileSystem, *args: object, **kwargs: object) -> T:
        with self._lock:
            return method(self, *args, **kwargs)

    return locked


@dataclass
class FileEntry:
    """One regular file."""

    data: bytes
    mode: int = stat.S_IFREG | 0o660
    mtime: int = 0


class MemoryFileSystem:
    """Regular files in a dict; directories are the built-ins and every file's parents.

    Args:
        capacity: Most bytes all files together may hold.
    """

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self._files: dict[str, FileEntry] = {}
        self._dirs: set[str] = set(BUILTIN_DIRS)
        self._capacity = capacity
        self._used = 0
        self._reserved = 0
        self._lock = threading.RLock()

    @staticmethod
    def resolve(path: str) -> str:
        """Normalise ``path`` to an absolute path without ``.``/``..`` parts.

        ``/storage/emulated/0`` is ``/sdcard``, as on a phone (where one links to the other).
        """
        path = posixpath.normpath(posixpath.join("/", path)).replace("//", "/")
        if path == EMULATED or path.startswith(EMULATED + "/"):
            return "/sdcard" + path[len(EMULATED):]
        return path

    @_locked
    def is_dir(self, path: str) -> bool:
        """Whether ``path`` is a directory."""
        return self.resolve(path) in self._dirs

    @_locked
    def exists(self, path: str) -> bool:
        """Whether ``path`` is a file or directory."""
        path = self.resolve(path)
        return path in self._files or path in self._dirs

    @_locked
    def stat(self, path: str) -> tuple[int, int, int] | None:
        """``(mode, size, mtime)`` of ``path``, or ``None`` when it does not exist."""
        path = self.resolve(path)
        if path in self._dirs:
            return stat.S_IFDIR | 0o771, 4096, 0
        entry = self._files.get(path)
        return None if entry is None else (entry.mode, len(entry.data), entry.mtime)

    @_locked
    def read(self, path: str) -> bytes:
        """The bytes of a regular file.

        Raises:
            FileSystemError: When it is missing or a directory.
        """
        path = self.resolve(path)
        if path in self._dirs:
            raise FileSystemError(f"{path}: Is a directory")
        if path not in self._files:
            raise FileSystemError(f"{path}: No such file or directory")
        return self._files[path].data

    @_locked
    def write(self, path: str, data: bytes, mode: int = 0o660, mtime: int | None = None,
              parents: bool = False) -> None:
        """Create or replace a regular file.

        Its folder must exist, as for a phone's shell and tools; ``parents`` makes missing
        ones first, as ``adb push`` does.

        Raises:
            FileSystemError: Outside the writable roots, onto a directory, into a missing
                folder (without ``parents``), or when full.
        """
        path = self._file_path(path)
        entry = self._files.get(path)
        old = len(entry.data) if entry is not None else 0
        if len(data) - old > self.free():
            raise FileSystemError(f"{path}: No space left on device")
        missing = self._missing_parents(path)
        if missing and not parents:
            raise FileSystemError(f"{path}: No such file or directory")
        self._dirs.update(missing)
        stamp = int(time.time()) if mtime is None else mtime
        self._files[path] = FileEntry(bytes(data), stat.S_IFREG | (mode & 0o777), stamp)
        self._used += len(data) - old

    @_locked
    def append(self, path: str, data: bytes) -> None:
        """Add ``data`` at the end of a file, creating it when missing.

        Raises:
            FileSystemError: As :meth:`write`; a full device is noticed before any copy.
        """
        path = self._file_path(path)
        if len(data) > self.free():
            raise FileSystemError(f"{path}: No space left on device")
        entry = self._files.get(path)
        if entry is None:
            self.write(path, data)
        else:
            self.write(path, entry.data + data, entry.mode, entry.mtime)

    @_locked
    def reserve(self, path: str) -> Reservation:
        """Start receiving ``path``: a reservation that holds room as the data arrives.

        Raises:
            FileSystemError: When ``path`` cannot be written.
        """
        return Reservation(self, self._file_path(path))

    @_locked
    def remove(self, path: str, recursive: bool = False) -> None:
        """Delete a file, or with ``recursive`` a directory tree (built-ins stay).

        Raises:
            FileSystemError: When it is missing, or a directory without ``recursive``.
        """
        path = self.resolve(path)
        if path in self._files:
            self._used -= len(self._files.pop(path).data)
        elif path in self._dirs and recursive:
            prefix = path.rstrip("/") + "/"
            for name in [f for f in self._files if f.startswith(prefix)]:
                self._used -= len(self._files.pop(name).data)
            self._dirs -= {d for d in self._dirs
                           if (d == path or d.startswith(prefix)) and d not in BUILTIN_DIRS}
        elif path in self._dirs:
            raise FileSystemError(f"{path}: Is a directory")
        else:
            raise FileSystemError(f"{path}: No such file or directory")

    @_locked
    def make_dir(self, path: str) -> None:
        """Create a directory and its parents (under the writable roots)."""
        path = self.resolve(path)
        if not _writable(path):
            raise FileSystemError(f"{path}: Permission denied")
        self._dirs.update(self._missing_parents(path + "/x"))

    def entries(self, path: str) -> list[tuple[str, tuple[int, int, int]]]:
        """``(name, (mode, size, mtime))`` of each entry directly inside a directory, sorted.

        Names and stats are read in one hold of the lock: an entry another client removes
        meanwhile is listed whole or not at all (listed apart, its stat was ``None``).

        Raises:
            FileSystemError: When ``path`` is not a directory.
        """
        with self._lock:
            folder = self.resolve(path).rstrip("/")
            return [(name, self.stat(f"{folder}/{name}")) for name in self.list_dir(path)]

    @_locked
    def list_dir(self, path: str) -> list[str]:
        """Names directly inside a directory, sorted.

        Raises:
            FileSystemError: When ``path`` is not a directory.
        """
        path = self.resolve(path)
        if path not in self._dirs:
            raise FileSystemError(f"{path}: Not a directory" if path in self._files
                                  else f"{path}: No such file or directory")
        prefix = path.rstrip("/") + "/"
        names = {p[len(prefix):].split("/")[0] for p in (*self._files, *self._dirs)
                 if p.startswith(prefix) and p != prefix}
        return sorted(names)

    def free(self) -> int:
        """Bytes that can still be written or reserved."""
        return self._capacity - self._used - self._reserved

    def _file_path(self, path: str) -> str:
        """``path`` resolved, when a file may be written there."""
        path = self.resolve(path)
        if not _writable(path) or path in self._dirs:
            raise FileSystemError(f"{path}: Permission denied")
        return path

    def _missing_parents(self, path: str) -> list[str]:
        """The folders above ``path`` that do not exist, deepest first.

        Raises:
            FileSystemError: When one of them is a file (found before any folder is made).
        """
        missing, parent = [], posixpath.dirname(path)
        while parent not in self._dirs:
            if parent in self._files:
                raise FileSystemError(f"{parent}: Not a directory")
            missing.append(parent)
            parent = posixpath.dirname(parent)
        return missing


def _writable(path: str) -> bool:
    return any(path == root or path.startswith(root + "/") for root in WRITABLE_ROOTS)


class Reservation:
    """Room held in a :class:`MemoryFileSystem` for a file that is still arriving.

    :meth:`grow` holds room for the next bytes before they are accepted, :meth:`commit`
    stores the file in the room held, and leaving the ``with`` block without committing
    gives the room back. Room held counts against the capacity even when the file will
    replace one of the same name.
    """

    def __init__(self, fs: MemoryFileSystem, path: str) -> None:
        self.fs = fs
        self.path = path
        self.size = 0

    def grow(self, size: int) -> None:
        """Hold ``size`` more bytes.

        Raises:
            FileSystemError: When they do not fit (the room held so far stays held).
        """
        with self.fs._lock:
            if size > self.fs.free():
                raise FileSystemError(f"{self.path}: No space left on device")
            self.fs._reserved += size
            self.size += size

    def commit(self, data: bytes, mode: int, mtime: int) -> None:
        """Store the file (``len(data)`` must not exceed the room held) and end the hold."""
        with self.fs._lock:
            self.release()
            self.fs.write(self.path, data, mode, mtime, parents=True)

    def release(self) -> None:
        """Give back the room held."""
        with self.fs._lock:
            self.fs._reserved -= self.size
            self.size = 0

    def __enter__(self) -> Reservation:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()

"""The virtual device's in-memory file system: where screenshots and dumps land.

Paths are POSIX and resolved against ``/``. Only the shared-storage roots are writable, as
for the ``shell`` user on a real device; total size is bounded so that a client cannot
exhaust the server's memory with ``adb push``.
"""

from __future__ import annotations

import posixpath
import stat
import time
from dataclasses import dataclass

from mobileintent_gym.errors import MobileIntentError

WRITABLE_ROOTS = ("/sdcard", "/data/local/tmp", "/storage/emulated/0")
BUILTIN_DIRS = ("/", "/sdcard", "/data", "/data/local", "/data/local/tmp", "/storage",
                "/storage/emulated", "/storage/emulated/0", "/system", "/dev")
DEFAULT_CAPACITY = 256 * 1024 * 1024


class FileSystemError(MobileIntentError, OSError):
    """A file operation that fails; the message reads like the device's (path: reason)."""


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

    @staticmethod
    def resolve(path: str) -> str:
        """Normalise ``path`` to an absolute path without ``.``/``..`` parts."""
        return posixpath.normpath(posixpath.join("/", path)).replace("//", "/")

    def is_dir(self, path: str) -> bool:
        """Whether ``path`` is a directory."""
        return self.resolve(path) in self._dirs

    def exists(self, path: str) -> bool:
        """Whether ``path`` is a file or directory."""
        path = self.resolve(path)
        return path in self._files or path in self._dirs

    def stat(self, path: str) -> tuple[int, int, int] | None:
        """``(mode, size, mtime)`` of ``path``, or ``None`` when it does not exist."""
        path = self.resolve(path)
        if path in self._dirs:
            return stat.S_IFDIR | 0o771, 4096, 0
        entry = self._files.get(path)
        return None if entry is None else (entry.mode, len(entry.data), entry.mtime)

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

    def write(self, path: str, data: bytes, mode: int = 0o660, mtime: int | None = None) -> None:
        """Create or replace a regular file (parents are created as needed).

        Raises:
            FileSystemError: Outside the writable roots, onto a directory, or when full.
        """
        path = self.resolve(path)
        if not _writable(path) or path in self._dirs:
            raise FileSystemError(f"{path}: Permission denied")
        old = len(self._files[path].data) if path in self._files else 0
        if len(data) - old > self.free():
            raise FileSystemError(f"{path}: No space left on device")
        self._make_parents(path)
        stamp = int(time.time()) if mtime is None else mtime
        self._files[path] = FileEntry(bytes(data), stat.S_IFREG | (mode & 0o777), stamp)

    def remove(self, path: str, recursive: bool = False) -> None:
        """Delete a file, or with ``recursive`` a directory tree (built-ins stay).

        Raises:
            FileSystemError: When it is missing, or a directory without ``recursive``.
        """
        path = self.resolve(path)
        if path in self._files:
            del self._files[path]
        elif path in self._dirs and recursive:
            prefix = path.rstrip("/") + "/"
            for name in [f for f in self._files if f.startswith(prefix)]:
                del self._files[name]
            self._dirs -= {d for d in self._dirs if d.startswith(prefix) and d not in BUILTIN_DIRS}
        elif path in self._dirs:
            raise FileSystemError(f"{path}: Is a directory")
        else:
            raise FileSystemError(f"{path}: No such file or directory")

    def make_dir(self, path: str) -> None:
        """Create a directory and its parents (under the writable roots)."""
        path = self.resolve(path)
        if not _writable(path):
            raise FileSystemError(f"{path}: Permission denied")
        self._make_parents(path + "/x")

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

    def used(self) -> int:
        """Bytes held by all files."""
        return sum(len(entry.data) for entry in self._files.values())

    def free(self) -> int:
        """Bytes that can still be written."""
        return self._capacity - self.used()

    def _make_parents(self, path: str) -> None:
        parent = posixpath.dirname(path)
        while parent not in self._dirs:
            if parent in self._files:
                raise FileSystemError(f"{parent}: Not a directory")
            self._dirs.add(parent)
            parent = posixpath.dirname(parent)


def _writable(path: str) -> bool:
    return any(path == root or path.startswith(root + "/") for root in WRITABLE_ROOTS)

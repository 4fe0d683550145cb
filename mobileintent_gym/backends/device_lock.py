"""One driver per real device: a lock file per device, held while an env drives it.

Two envs stepping one phone (``gym.make_vec`` of an ``adb:`` device, two notebooks) each
see the other's taps as their own and score nonsense without an error. A lock file per
device, taken without waiting, turns that into an error naming the device. The OS lets go
of the lock of a process that dies, so a killed run leaves nothing to clean up.

An adb server an env started is shared the same way: every env using it holds a shared
lock on it, and the last to let go stops it (:func:`last_use`), in whichever process, so a
worker that closes first does not stop the server under the others. A server whose
starter has ended, or where there are no locks, is left running, as adb leaves its own.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from mobileintent_gym.errors import DeviceError
from mobileintent_gym.files import is_locked, lock_file, unlock


class DeviceBusyError(DeviceError):
    """Another env on this machine drives the device; the message names it."""


def lock_folder() -> Path:
    """Where the lock files are: a folder of this user's in the system's temporary folder."""
    user = os.getuid() if hasattr(os, "getuid") else "user"
    return Path(tempfile.gettempdir()) / f"mobileintent-gym-devices-{user}"


def use_server(key: str) -> int | None:
    """Take a shared lock that says an env of this user uses the adb server ``key`` names.

    Held from before the server is looked for until the env lets it go (see
    :func:`last_use`); the descriptor, or ``None`` when the lock file cannot be made.
    """
    return _lock(_server_lock(key), shared=True)


def mark_started(key: str) -> None:
    """Note that this process started the adb server ``key`` names (its pid, in a file)."""
    with suppress(OSError):
        _started(key).write_text(str(os.getpid()))


@contextmanager
def last_use(key: str, descriptor: int | None) -> Iterator[bool]:
    """Let go of a :func:`use_server` lock; whether that was the last use to stop the server.

    True when a process that is still running started the server and no env of any
    process uses it any more; the server's lock is then held for the block, so that none
    starts using it while the caller stops it (and the note that it was started is
    removed). A server is left running where no lock tells whether others use it, and
    where the process that started it has ended (its note may then be stale: the server
    killed and another one started since).
    """
    unlock(descriptor)
    try:
        alone = _lock(_server_lock(key), wait=False)
    except BlockingIOError:  # another env uses it
        alone = None
    if not (is_locked(alone) and _starter_runs(key)):
        unlock(alone)
        yield False
        return
    try:
        yield True
        with suppress(OSError):
            _started(key).unlink()
    finally:
        unlock(alone)


def _server_lock(key: str) -> str:
    """The name of the lock file of the adb server ``key`` names."""
    return f"server-{_digest(key)}.lock"


def _started(key: str) -> Path:
    """The note that a process of this user started that server (it holds the pid)."""
    return lock_folder() / f"server-{_digest(key)}.started"


def _starter_runs(key: str) -> bool:
    """Whether the process that noted it started the server still runs (a stale note goes)."""
    try:
        pid = int(_started(key).read_text())
        os.kill(pid, 0)  # only on POSIX: where there is flock
    except ProcessLookupError:
        with suppress(OSError):
            _started(key).unlink()
        return False
    except (OSError, ValueError):  # no note (or an unreadable one): not ours
        return False
    return True


_ADB_FIX = "e.g. one `mobileintent-gym serve-adb --port P` each"


def hold(key: str, name: str, fix: str = _ADB_FIX) -> int | None:
    """Take the lock of the device ``key`` names; the descriptor holds it until ``unlock``.

    Args:
        key: Names the device wherever it is reached from (its adb server and serial).
        name: The device as messages name it.
        fix: How to give each env a phone of its own, as the message says it.

    Returns:
        The lock's descriptor (see :func:`~mobileintent_gym.files.lock_file`); ``None``
        when the lock file cannot be made.

    Raises:
        DeviceBusyError: When another env (of any process of this user) holds it.
    """
    try:
        return _lock(f"{_digest(key)}.lock", wait=False)
    except BlockingIOError:
        raise DeviceBusyError(
            f"device {name} is driven by another env on this machine: one phone takes one "
            f"env at a time (give each env a phone of its own, {fix})") from None


def _digest(key: str) -> str:
    return hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def _lock(name: str, wait: bool = True, shared: bool = False) -> int | None:
    """:func:`~mobileintent_gym.files.lock_file` of ``name`` in :func:`lock_folder`."""
    folder = lock_folder()
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        return None
    return lock_file(folder / name, wait=wait, shared=shared)

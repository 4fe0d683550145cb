"""One driver per real device: a lock file per device, held while an env drives it.

Two envs stepping one phone (``gym.make_vec`` of an ``adb:`` device, two notebooks) each
see the other's taps as their own and score nonsense without an error. A lock file per
device, taken without waiting, turns that into an error naming the device. The OS lets go
of the lock of a process that dies, so a killed run leaves nothing to clean up.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from pathlib import Path
from typing import IO

try:
    import fcntl
except ImportError:  # Windows: devices are not locked
    fcntl = None

from mobileintent_gym.errors import DeviceError


class DeviceBusyError(DeviceError):
    """Another env on this machine drives the device; the message names it."""


def lock_folder() -> Path:
    """Where the lock files are: a folder of this user's in the system's temporary folder."""
    return Path(tempfile.gettempdir()) / f"mobileintent-gym-devices-{os.getuid()}"


def hold(key: str, name: str) -> IO[str] | None:
    """Take the lock of the device ``key`` names; the returned file holds it until closed.

    Args:
        key: Names the device wherever it is reached from (its adb server and serial).
        name: The device as messages name it.

    Returns:
        The open lock file, or ``None`` where no lock can be taken (no ``fcntl``, a
        temporary folder that cannot be written, a file system without locks).

    Raises:
        DeviceBusyError: When another env (of any process of this user) holds it.
    """
    if fcntl is None:
        return None
    digest = hashlib.blake2b(key.encode(), digest_size=12).hexdigest()
    try:
        folder = lock_folder()
        folder.mkdir(mode=0o700, exist_ok=True)
        file = open(folder / f"{digest}.lock", "a+", encoding="utf-8")  # noqa: SIM115
    except OSError:
        return None
    try:
        fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        file.close()
        raise DeviceBusyError(
            f"device {name} is driven by another env on this machine: one phone takes one "
            "env at a time (give each env a phone of its own, e.g. one `mobileintent-gym "
            "serve-adb --port P` each)") from None
    except OSError:  # a file system without locks
        with contextlib.suppress(OSError):
            file.close()
        return None
    return file

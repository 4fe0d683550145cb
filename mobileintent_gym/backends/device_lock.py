"""One driver per real device: a lock file per device, held while an env drives it.

Two envs stepping one phone (``gym.make_vec`` of an ``adb:`` device, two notebooks) each
see the other's taps as their own and score nonsense without an error. A lock file per
device, taken without waiting, turns that into an error naming the device. The OS lets go
of the lock of a process that dies, so a killed run leaves nothing to clean up.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from mobileintent_gym.errors import DeviceError
from mobileintent_gym.files import lock_file


class DeviceBusyError(DeviceError):
    """Another env on this machine drives the device; the message names it."""


def lock_folder() -> Path:
    """Where the lock files are: a folder of this user's in the system's temporary folder."""
    user = os.getuid() if hasattr(os, "getuid") else "user"
    return Path(tempfile.gettempdir()) / f"mobileintent-gym-devices-{user}"


def hold(key: str, name: str) -> int | None:
    """Take the lock of the device ``key`` names; the descriptor holds it until ``unlock``.

    Args:
        key: Names the device wherever it is reached from (its adb server and serial).
        name: The device as messages name it.

    Returns:
        The lock's descriptor (see :func:`~mobileintent_gym.files.lock_file`); ``None``
        when the lock file cannot be made.

    Raises:
        DeviceBusyError: When another env (of any process of this user) holds it.
    """
    folder = lock_folder()
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        return None
    digest = hashlib.blake2b(key.encode(), digest_size=12).hexdigest()
    try:
        return lock_file(folder / f"{digest}.lock", wait=False)
    except BlockingIOError:
        raise DeviceBusyError(
            f"device {name} is driven by another env on this machine: one phone takes one "
            "env at a time (give each env a phone of its own, e.g. one `mobileintent-gym "
            "serve-adb --port P` each)") from None

"""A virtual adb device: serves a SimPhone to any adb client over the adb wire protocol.

Modules: :mod:`.packet` (framing, checksums), :mod:`.auth` (RSA AUTH), :mod:`.connection`
and :mod:`.stream` (handshake, streams, flow control), :mod:`.services` and :mod:`.sync`
(shell v1/v2, exec, sync), :mod:`.runner` (command lines on worker threads),
:mod:`.shellparse`/:mod:`.shell` (the command language), :mod:`.limits` (time and output
per command line), :mod:`.commands`, :mod:`.android`, :mod:`.dumpsys` (the commands),
:mod:`.regex_pool`/:mod:`.regex_child` (grep's killable matching), :mod:`.filesystem`,
:mod:`.device`, :mod:`.server`, :mod:`.command` (the ``serve-adb`` CLI), :mod:`.client` (a
raw adb client) and :mod:`.harness` (adb servers and ``serve-adb`` processes for tests).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mobileintent_gym.adbd.device import VirtualDevice
    from mobileintent_gym.adbd.limits import ShellLimits
    from mobileintent_gym.adbd.server import AdbServer, ServerConfig, ServerThread

_HOMES = {"AdbServer": "server", "ServerConfig": "server", "ServerThread": "server",
          "ShellLimits": "limits", "VirtualDevice": "device"}
"""The module of each name exported here."""

__all__ = ["AdbServer", "ServerConfig", "ServerThread", "ShellLimits", "VirtualDevice"]


def __getattr__(name: str) -> Any:
    """Import the server and device only when asked for.

    A simulated env imports one constant of :mod:`.conventions`; importing the package used to
    import the server, its asyncio and the device too: 0.06 s of an env's 0.6 s cold start
    (medians of 12 starts on the 2-core VM).
    """
    if name in _HOMES:
        return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """The package's names, those imported when asked for included."""
    return sorted({*globals(), *__all__})

"""A virtual adb device: serves a SimPhone to any adb client over the adb wire protocol.

Modules: :mod:`.packet` (framing, checksums), :mod:`.auth` (RSA AUTH), :mod:`.connection`
and :mod:`.stream` (handshake, streams, flow control), :mod:`.services` and :mod:`.sync`
(shell v1/v2, exec, sync), :mod:`.shellparse`/:mod:`.shell` (the command language),
:mod:`.commands`, :mod:`.android`, :mod:`.dumpsys` (the commands), :mod:`.filesystem`,
:mod:`.device`, :mod:`.server` and :mod:`.command` (the ``serve-adb`` CLI).
"""

from mobileintent_gym.adbd.device import VirtualDevice
from mobileintent_gym.adbd.server import AdbServer, ServerConfig, ServerThread

__all__ = ["AdbServer", "ServerConfig", "ServerThread", "VirtualDevice"]

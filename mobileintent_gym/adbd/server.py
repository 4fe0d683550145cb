"""The virtual adb device's TCP server (asyncio), and a thread runner for tests and tools.

It binds 127.0.0.1 by default. Any other address needs ``allow_remote=True`` *and* an
allow-list of adb public keys, so that a phone (and its user's personal data) is never
reachable without the RSA AUTH exchange.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from mobileintent_gym.adbd.auth import PublicKey
from mobileintent_gym.adbd.connection import Connection, ConnectionPolicy
from mobileintent_gym.adbd.device import VirtualDevice
from mobileintent_gym.adbd.runner import CommandRunner
from mobileintent_gym.adbd.services import can_open, run_service
from mobileintent_gym.checks import positive_integer
from mobileintent_gym.errors import MobileIntentError

log = logging.getLogger(__name__)
T = TypeVar("T")


class BindRefusedError(MobileIntentError, ValueError):
    """A non-loopback address without the explicit flag and a key allow-list."""


@dataclass(frozen=True)
class ServerConfig:
    """Where and how the virtual device listens.

    Attributes:
        host: Address to bind; loopback unless ``allow_remote``.
        port: TCP port (0 picks a free one); keep clear of 5555–5585, which adb scans.
        allow_remote: Permit a non-loopback ``host`` (requires ``keys``).
        keys: adb public keys allowed to connect; non-empty turns RSA AUTH on.
        handshake_timeout: Seconds a client has to finish CNXN/AUTH.
        packet_timeout: Seconds a started packet has to arrive in full.
        max_connections: Connections served at once (16); one more is closed as soon as
            it is accepted, so that the memory clients can make the server hold stays
            bounded (each connection's streams and buffers have their own bounds). An adb
            server keeps one connection to a device, whatever its clients run.
    """

    host: str = "127.0.0.1"
    port: int = 15555
    allow_remote: bool = False
    keys: tuple[PublicKey, ...] = field(default=(), repr=False)
    handshake_timeout: float = 10.0
    packet_timeout: float = 10.0
    max_connections: int = 16

    def __post_init__(self) -> None:
        positive_integer("max_connections", self.max_connections)

    def check(self) -> None:
        """Raise :class:`BindRefusedError` unless the bind address is allowed."""
        if _is_loopback(self.host):
            return
        if not self.allow_remote:
            raise BindRefusedError(
                f"refusing to bind {self.host!r}: only loopback is allowed without allow_remote")
        if not self.keys:
            raise BindRefusedError(
                f"refusing to bind {self.host!r}: remote access needs an allow-list of adb keys")


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class AdbServer:
    """Serves one :class:`VirtualDevice` to any number of adb hosts.

    Packets are handled on the event loop; command lines run on worker threads
    (:mod:`.runner`), within the device's limits, so that a slow command of one client
    never holds up another's.

    Attributes:
        port: The bound port (after :meth:`start`).
        protocol_errors: Connections closed for breaking the protocol.
        recent_reasons: Why the latest connections ended (newest last).
    """

    def __init__(self, device: VirtualDevice, config: ServerConfig | None = None) -> None:
        self.device = device
        self.config = config or ServerConfig()
        self.config.check()
        self.port = self.config.port
        self.protocol_errors = 0
        self.recent_reasons: deque[str] = deque(maxlen=100)
        self._policy = ConnectionPolicy(device.banner(), self.config.keys,
                                        self.config.handshake_timeout,
                                        self.config.packet_timeout)
        self._runner = CommandRunner(device)
        self._server: asyncio.base_events.Server | None = None
        self._clients: dict[asyncio.Task, Connection] = {}

    async def start(self) -> None:
        """Bind and start accepting clients."""
        self._server = await asyncio.start_server(self._client, self.config.host,
                                                  self.config.port)
        self.port = self._server.sockets[0].getsockname()[1]
        log.info("virtual adb device on %s:%d (auth %s)", self.config.host, self.port,
                 "on" if self.config.keys else "off")

    async def serve_forever(self) -> None:
        """Start (if needed) and serve until cancelled."""
        if self._server is None:
            await self.start()
        async with self._server:
            await self._server.serve_forever()

    async def stop(self) -> None:
        """Stop accepting clients, drop the connected ones and close the listening socket."""
        if self._server is not None:
            self._server.close()
        for connection in self._clients.values():
            connection.close()
        await asyncio.gather(*self._clients, return_exceptions=True)
        self._runner.close()
        if self._server is not None:
            await self._server.wait_closed()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        if len(self._clients) >= self.config.max_connections:
            await self._refuse(peer, writer)
            return
        session = self._runner.session()
        connection = Connection(reader, writer, self._policy, can_open,
                                lambda name, stream: run_service(session, name, stream))
        task = asyncio.current_task()
        self._clients[task] = connection
        try:
            reason, violation = await connection.serve()
        finally:  # its place is free before its reason is told
            del self._clients[task]
        self.recent_reasons.append(reason)
        if violation:
            self.protocol_errors += 1
            log.warning("closed connection from %s: %s", peer, reason)
        else:
            log.debug("connection from %s ended: %s", peer, reason)

    async def _refuse(self, peer: object, writer: asyncio.StreamWriter) -> None:
        """Close a connection over ``max_connections`` before reading anything from it."""
        reason = (f"refused: {len(self._clients)} connections open, the most "
                  f"max_connections={self.config.max_connections} allows")
        self.recent_reasons.append(reason)
        log.warning("refused a connection from %s: %s", peer, reason)
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


class ServerThread:
    """Runs an :class:`AdbServer` on its own event loop in a daemon thread.

    Use as a context manager; ``port`` is valid inside it::

        with ServerThread(AdbServer(VirtualDevice(SimPhone()), ServerConfig(port=0))) as run:
            subprocess.run(["adb", "connect", f"127.0.0.1:{run.port}"])
    """

    def __init__(self, server: AdbServer) -> None:
        self.server = server
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True,
                                        name="virtual-adbd")

    @property
    def port(self) -> int:
        """The port the server listens on."""
        return self.server.port

    def call(self, function: Callable[..., T], *args: object) -> T:
        """Run ``function(*args)`` holding the device's lock, and return its result.

        Commands that touch the (not thread-safe) phone hold that lock too; touch the
        phone or its device only through this while the server runs.
        """
        with self.server.device.lock:
            return function(*args)

    def __enter__(self) -> ServerThread:
        self._thread.start()
        try:
            asyncio.run_coroutine_threadsafe(self.server.start(), self._loop).result(timeout=10)
        except BaseException:  # a port in use: the loop's thread must not outlive the failure
            self.stop()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop the server, its connections and the thread (again: no-op)."""
        if self._loop.is_closed():
            return
        asyncio.run_coroutine_threadsafe(self.server.stop(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

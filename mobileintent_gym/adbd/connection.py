"""One host connection to the virtual device: handshake, AUTH, and the stream table.

A connection is a loop over packets. Anything that breaks the protocol — bad magic, an
unknown command, a payload over maxdata, a wrong checksum, a truncated packet, an OPEN
before the handshake — raises :class:`ProtocolError`; the connection then closes and the
reason is logged and counted, while the server keeps serving everyone else.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from mobileintent_gym.adbd.auth import KeyFormatError, PublicKey, parse_public_key
from mobileintent_gym.adbd.packet import (
    A_AUTH,
    A_CLSE,
    A_CNXN,
    A_OKAY,
    A_OPEN,
    A_VERSION,
    A_VERSION_MIN,
    A_VERSION_SKIP_CHECKSUM,
    A_WRTE,
    AUTH_RSAPUBLICKEY,
    AUTH_SIGNATURE,
    AUTH_TOKEN,
    HEADER_SIZE,
    MAX_PAYLOAD,
    MIN_PAYLOAD,
    Packet,
    ProtocolError,
    decode_header,
    verify_payload,
)
from mobileintent_gym.adbd.stream import Stream

log = logging.getLogger(__name__)

# A service runner: given the service name and the opened stream, serve it to the end.
ServiceRunner = Callable[[str, Stream], Awaitable[None]]
# Answers whether a service name can be opened, before any OKAY is sent.
ServiceCheck = Callable[[str], bool]


CONTROL_ROOM = 1 << 20
"""Bytes of the loop's own answers that may wait to be sent beyond the streams' data."""
BULK_WRITES = 4
"""Pulls of one connection that may build or hand over a WRTE of file data at once."""


@dataclass(frozen=True)
class ConnectionPolicy:
    """What a connection needs to know about its server.

    Attributes:
        banner: The CNXN payload, ``device::ro.product.name=...;features=...``.
        keys: Allow-listed host keys; empty means no AUTH (loopback only).
        handshake_timeout: Seconds a client has to finish CNXN (and AUTH).
        packet_timeout: Seconds a started packet has to arrive in full.
        max_auth_attempts: Signatures a host may try before it is refused.
        max_streams: Services one connection may run at once (their streams open, or
            closed by the host while the service finishes); further OPENs are refused.
    """

    banner: bytes
    keys: tuple[PublicKey, ...] = ()
    handshake_timeout: float = 10.0
    packet_timeout: float = 10.0
    max_auth_attempts: int = 10
    max_streams: int = 64


class Connection:
    """Serves one TCP client speaking the adb protocol."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        policy: ConnectionPolicy,
        can_open: ServiceCheck,
        run_service: ServiceRunner,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._policy = policy
        self._can_open = can_open
        self._run_service = run_service
        self._version = A_VERSION_MIN
        self._max_payload = MAX_PAYLOAD
        self._online = False
        self._token = b""
        self._auth_attempts = 0
        self._refused = ""  # why the host's key was refused, while it is held unauthorized
        self._streams: dict[int, Stream] = {}
        # Pulls that may build or hand over file data at once (see Stream's ``bulk``).
        self._bulk = asyncio.Semaphore(BULK_WRITES)
        self._tasks: set[asyncio.Task] = set()
        self._next_id = 1

    async def serve(self) -> tuple[str, bool]:
        """Run until the client leaves or breaks the protocol.

        Returns:
            Why the connection ended, and whether that was a protocol violation.
        """
        try:
            await asyncio.wait_for(self._handshake(), self._policy.handshake_timeout)
            while True:
                self._dispatch(await self._read_packet())
                await self._held_back()
        except ProtocolError as err:
            return str(err), True
        except asyncio.IncompleteReadError:
            # Only the first byte of a packet is read outside _read_rest: a clean end.
            by_us = self._writer.is_closing()
            return ("closed by the server" if by_us else "closed by peer"), False
        except (TimeoutError, asyncio.TimeoutError):
            if self._refused:  # held unauthorized for the handshake's time: its reason
                return self._refused, True
            return ("timed out in the handshake, inside a packet or waiting for the client "
                    "to read"), True
        except ConnectionError as err:
            return f"connection error: {err}", False
        finally:
            await self._shutdown()

    def close(self) -> None:
        """Drop the connection from this side at once; :meth:`serve` then returns.

        Aborted, not closed: a close waits for the unsent data of a client that reads
        nothing, for ever.
        """
        self._writer.transport.abort()

    async def _held_back(self) -> None:
        """Stop reading while more is waiting to be sent than the streams may have out.

        Streams send under the client's flow control (one unacknowledged write each), so
        their data is bounded; what the loop answers itself (OKAY, CLSE) is not, and a
        client that sends without reading would have it pile up. Past that bound, reading
        waits for the client to read (TCP then holds it back); a client that reads nothing
        for ``packet_timeout`` seconds is dropped.

        Raises:
            TimeoutError: When the client read nothing meanwhile.
        """
        bound = self._policy.max_streams * self._max_payload + CONTROL_ROOM
        if self._writer.transport.get_write_buffer_size() > bound:
            await asyncio.wait_for(self._writer.drain(), self._policy.packet_timeout)

    async def _handshake(self) -> None:
        while not self._online:
            packet = await self._read_packet()
            if packet.command == A_CNXN:
                self._on_connect(packet)
            elif packet.command == A_AUTH and self._token:
                self._on_auth(packet)
            else:
                raise ProtocolError(f"{packet.name} before the CNXN/AUTH handshake finished")

    def _on_connect(self, packet: Packet) -> None:
        if packet.arg0 < A_VERSION_MIN:
            raise ProtocolError(f"CNXN with unsupported version 0x{packet.arg0:08x}")
        if packet.arg1 < MIN_PAYLOAD:
            raise ProtocolError(f"CNXN with maxdata {packet.arg1} below {MIN_PAYLOAD}")
        if not packet.payload.startswith(b"host:"):
            raise ProtocolError(f"CNXN banner is not a host banner: {packet.payload[:32]!r}")
        self._version = min(packet.arg0, A_VERSION)
        self._max_payload = min(packet.arg1, MAX_PAYLOAD)
        if self._policy.keys:
            self._send_token()
        else:
            self._go_online()

    def _send_token(self) -> None:
        self._token = secrets.token_bytes(20)
        self.send(Packet(A_AUTH, AUTH_TOKEN, 0, self._token))

    def _on_auth(self, packet: Packet) -> None:
        if packet.arg0 == AUTH_SIGNATURE:
            if any(key.verify(self._token, packet.payload) for key in self._policy.keys):
                self._go_online()
                return
            self._auth_attempts += 1
            if self._auth_attempts >= self._policy.max_auth_attempts:
                raise ProtocolError(f"AUTH refused after {self._auth_attempts} bad signatures")
            self._send_token()
        elif packet.arg0 == AUTH_RSAPUBLICKEY:
            try:
                key = parse_public_key(packet.payload)
            except KeyFormatError as err:
                raise ProtocolError(f"AUTH public key unreadable: {err}") from err
            # As a phone does until its user allows the key: no answer. The host shows the
            # device "unauthorized" (and says to check for a dialog on it) until the
            # handshake times out and the connection closes.
            self._refused = (f"AUTH refused: key {key.comment or '(no comment)'} is not "
                             "allowed (held unauthorized until the handshake timed out)")
        else:
            raise ProtocolError(f"AUTH with unknown type {packet.arg0}")

    def _go_online(self) -> None:
        self._refused = ""  # a key refused before, then one allowed: online after all
        self.send(Packet(A_CNXN, A_VERSION, MAX_PAYLOAD, self._policy.banner))
        self._online = True

    async def _read_packet(self) -> Packet:
        # No time limit before a packet starts: an idle host is fine.
        first = await self._reader.readexactly(1)
        header = decode_header(first + await self._read_rest(HEADER_SIZE - 1, 1),
                               self._max_payload)
        payload = await self._read_rest(header.length, HEADER_SIZE)
        return verify_payload(header, payload, self._version)

    async def _read_rest(self, size: int, received: int) -> bytes:
        """``size`` more bytes of a packet whose first ``received`` bytes have arrived."""
        try:
            return await asyncio.wait_for(self._reader.readexactly(size),
                                          self._policy.packet_timeout)
        except asyncio.IncompleteReadError as err:
            raise ProtocolError(f"truncated packet: stream ended after "
                                f"{received + len(err.partial)} bytes") from err

    def _dispatch(self, packet: Packet) -> None:
        if packet.command == A_OPEN:
            self._open(packet)
            return
        if packet.command not in (A_OKAY, A_WRTE, A_CLSE):
            raise ProtocolError(f"unexpected {packet.name} on an online connection")
        # A stale id is normal: the host may still answer a stream we have just closed.
        stream = self._streams.get(packet.arg1)
        if stream is None or stream.remote_id != packet.arg0:
            return
        if packet.command == A_OKAY:
            stream.on_okay()
        elif packet.command == A_WRTE:
            stream.on_write(packet.payload)
        else:
            stream.on_close()
            self._streams.pop(stream.local_id, None)

    def _open(self, packet: Packet) -> None:
        if packet.arg0 == 0:
            raise ProtocolError("OPEN with remote id 0")
        name = packet.payload.rstrip(b"\x00").decode("utf-8", errors="replace")
        # Services whose stream the host closed may still be finishing: they count too.
        if not self._can_open(name) or len(self._tasks) >= self._policy.max_streams:
            log.info("refusing service %r (%d services running)", name, len(self._tasks))
            self.send(Packet(A_CLSE, 0, packet.arg0))
            return
        stream = Stream(self._next_id, packet.arg0, self.send, self._max_payload,
                        self._writer.drain, self._bulk)
        self._next_id += 1
        self._streams[stream.local_id] = stream
        self.send(Packet(A_OKAY, stream.local_id, stream.remote_id))
        task = asyncio.get_running_loop().create_task(self._serve_stream(name, stream))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _serve_stream(self, name: str, stream: Stream) -> None:
        try:
            await self._run_service(name, stream)
        except ConnectionError as err:
            log.debug("stream %s (%r) ended early: %s", stream.local_id, name, err)
        except Exception:
            log.exception("service %r failed", name)
        finally:
            stream.close()
            self._streams.pop(stream.local_id, None)

    def send(self, packet: Packet) -> None:
        """Queue one packet to the host (no-op once the transport is closing).

        Handshake packets always carry a checksum; afterwards it is left zero for hosts
        that negotiated :data:`A_VERSION_SKIP_CHECKSUM`, as adbd does.
        """
        if not self._writer.is_closing():
            skip = self._online and self._version >= A_VERSION_SKIP_CHECKSUM
            self._writer.write(packet.encode(with_checksum=not skip))

    async def _shutdown(self) -> None:
        for stream in self._streams.values():
            stream.on_close()
        for task in self._tasks:
            task.cancel()
        self._writer.close()
        await asyncio.gather(*self._tasks, return_exceptions=True)

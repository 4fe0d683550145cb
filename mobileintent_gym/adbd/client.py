"""A minimal adb-protocol client for loopback use: probes, tests and benchmarks.

It talks to the virtual device directly, without the adb binary or an adb server:
:class:`WireClient` sends and receives packets; :class:`RawAdb` runs shell-v2 commands and
pushes files, one connection per call, honouring the protocol's flow control (one WRTE in
flight per stream).
"""

from __future__ import annotations

import socket
import struct
from dataclasses import dataclass

from mobileintent_gym.adbd.packet import (
    A_CLSE,
    A_CNXN,
    A_OKAY,
    A_OPEN,
    A_VERSION,
    A_WRTE,
    HEADER,
    HEADER_SIZE,
    Packet,
)
from mobileintent_gym.errors import MobileIntentError

HOST_BANNER = b"host::features=shell_v2\x00"
_V2 = struct.Struct("<BI")
_SYNC_CHUNK = 64 * 1024


class ClientError(MobileIntentError, ConnectionError):
    """The device answered something this client did not expect."""


class WireClient:
    """One TCP connection to an adb device, packet by packet.

    Args:
        port: The device's loopback port.
        timeout: Seconds any one socket operation may take.
    """

    def __init__(self, port: int, timeout: float = 5.0) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)

    def send(self, packet: Packet) -> None:
        """Send one packet (with its checksum)."""
        self.sock.sendall(packet.encode())

    def recv(self) -> Packet:
        """The next packet."""
        header, payload = self.recv_raw()
        command, arg0, arg1, _length, _check, _magic = HEADER.unpack(header)
        return Packet(command, arg0, arg1, payload)

    def recv_raw(self) -> tuple[bytes, bytes]:
        """The next packet's 24-byte header as sent, and its payload."""
        header = self._exactly(HEADER_SIZE)
        return header, self._exactly(HEADER.unpack(header)[3])

    def _exactly(self, size: int) -> bytes:
        data = bytearray(size)
        with memoryview(data) as view:
            received = 0
            while received < size:
                count = self.sock.recv_into(view[received:])
                if not count:
                    raise EOFError(f"closed after {received} of {size} bytes")
                received += count
        return bytes(data)

    def handshake(self, maxdata: int = 4096) -> Packet:
        """Send CNXN; returns the device's answer (CNXN, or AUTH when it wants a key)."""
        self.send(Packet(A_CNXN, A_VERSION, maxdata, HOST_BANNER))
        return self.recv()

    def closed_by_server(self) -> bool:
        """Read until the device closes the connection; ``False`` on a reset or timeout."""
        try:
            while self.sock.recv(65536):
                pass
        except (ConnectionResetError, TimeoutError):
            return False
        return True

    def close(self) -> None:
        """Close the connection."""
        self.sock.close()


def v2_packets(data: bytes) -> list[tuple[int, bytes]]:
    """Split shell-v2 output into ``(id, data)`` packets (1 stdout, 2 stderr, 3 exit)."""
    out, index = [], 0
    while index < len(data):
        kind, length = _V2.unpack_from(data, index)
        out.append((kind, data[index + 5 : index + 5 + length]))
        index += 5 + length
    return out


def sync_request(tag: bytes, body: bytes = b"") -> bytes:
    """A ``sync:`` request as a host writes it: ``tag``, the body's length (u32), the body."""
    return tag + struct.pack("<I", len(body)) + body


def unread_pulls(port: int, path: str, count: int = 64, maxdata: int = 1 << 20) -> WireClient:
    """A connection whose ``count`` sync streams each ask to pull ``path``, none read.

    The hostile client of the memory tests and benchmarks: every stream's data waits for
    an OKAY that never comes. Close the connection to let go of it.

    Raises:
        ClientError: When the device refuses the connection or a stream.
    """
    wire = WireClient(port)
    try:
        if wire.handshake(maxdata).command != A_CNXN:
            raise ClientError("the device asks for a key, which this client does not sign with")
        for local in range(1, count + 1):
            wire.send(Packet(A_OPEN, local, 0, b"sync:\x00"))
        remotes: dict[int, int] = {}
        while len(remotes) < count:
            packet = wire.recv()
            if packet.command != A_OKAY:
                raise ClientError(f"the device answered an OPEN with {packet.name}")
            remotes[packet.arg1] = packet.arg0
        for local, remote in remotes.items():
            wire.send(Packet(A_WRTE, local, remote, sync_request(b"RECV", path.encode())))
    except BaseException:
        wire.close()
        raise
    return wire


@dataclass(frozen=True)
class ShellOutput:
    """A command's exit code, stdout and stderr."""

    code: int
    stdout: bytes
    stderr: bytes


class RawAdb:
    """Shell commands and pushes over the adb protocol itself, one connection per call.

    Args:
        port: The device's loopback port.
        timeout: Seconds any one socket operation may take.
        maxdata: The largest payload this host accepts.
    """

    def __init__(self, port: int, timeout: float = 30.0, maxdata: int = 1 << 20) -> None:
        self.port, self.timeout, self.maxdata = port, timeout, maxdata

    def shell(self, command: str) -> ShellOutput:
        """Run ``command`` (shell v2).

        Raises:
            ClientError: When the device refuses the stream or sends no exit code.
        """
        client, remote = self._open(f"shell,v2,raw:{command}")
        try:
            packets = v2_packets(self._read_to_close(client, remote))
        finally:
            client.close()
        codes = [data[0] for kind, data in packets if kind == 3 and data]
        if not codes:
            raise ClientError(f"no exit code for {command[:60]!r}")
        out = b"".join(data for kind, data in packets if kind == 1)
        err = b"".join(data for kind, data in packets if kind == 2)
        return ShellOutput(codes[0], out, err)

    def push(self, data: bytes, path: str, mode: int = 0o100644) -> str:
        """Push ``data`` to ``path`` (``sync:`` SEND); returns ``""`` or the device's FAIL text.

        Raises:
            ClientError: When the device refuses the stream.
        """
        client, remote = self._open("sync:")
        try:
            body = f"{path},{mode}".encode()
            chunks = (sync_request(b"DATA", data[i : i + _SYNC_CHUNK])
                      for i in range(0, len(data), _SYNC_CHUNK))
            answer = None
            for message in (sync_request(b"SEND", body), *chunks, sync_request(b"DONE")):
                answer = self._write(client, remote, message)
                if answer is not None:
                    break
            return self._sync_answer(client, remote, answer or client.recv())
        finally:
            client.close()

    def _open(self, service: str) -> tuple[WireClient, int]:
        client = WireClient(self.port, self.timeout)
        try:
            answer = client.handshake(self.maxdata)
            if answer.command != A_CNXN:
                raise ClientError(f"the device answered CNXN with {answer.name}: it asks for a "
                                  "key, which this client does not sign with")
            client.send(Packet(A_OPEN, 1, 0, service.encode() + b"\x00"))
            reply = client.recv()
            if reply.command != A_OKAY:
                raise ClientError(f"the device refused {service[:60]!r}")
        except BaseException:
            client.close()
            raise
        return client, reply.arg0

    def _write(self, client: WireClient, remote: int, message: bytes) -> Packet | None:
        """Send ``message`` in flow-controlled WRTEs; the device's packet if it answered first."""
        for start in range(0, len(message), self.maxdata):
            client.send(Packet(A_WRTE, 1, remote, message[start : start + self.maxdata]))
            reply = client.recv()
            if reply.command != A_OKAY:
                return reply
        return None

    def _read_to_close(self, client: WireClient, remote: int) -> bytes:
        data = bytearray()
        while (packet := client.recv()).command == A_WRTE:
            data += packet.payload
            client.send(Packet(A_OKAY, 1, remote))
        return bytes(data)

    def _sync_answer(self, client: WireClient, remote: int, packet: Packet) -> str:
        if packet.command == A_CLSE:
            return "stream closed"
        client.send(Packet(A_OKAY, 1, remote))
        tag, length = struct.unpack_from("<4sI", packet.payload)
        return "" if tag == b"OKAY" else packet.payload[8 : 8 + length].decode(errors="replace")

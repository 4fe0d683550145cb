"""A minimal raw adb-protocol client for tests (loopback only)."""

import socket
import struct

from mobileintent_gym.adbd.packet import A_CNXN, A_VERSION, HEADER, HEADER_SIZE, Packet

HOST_BANNER = b"host::features=shell_v2\x00"


class WireClient:
    def __init__(self, port: int, timeout: float = 5.0) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)

    def send(self, packet: Packet) -> None:
        self.sock.sendall(packet.encode())

    def recv(self) -> Packet:
        header, payload = self.recv_raw()
        command, arg0, arg1, _length, _check, _magic = HEADER.unpack(header)
        return Packet(command, arg0, arg1, payload)

    def recv_raw(self) -> tuple[bytes, bytes]:
        """The next packet's 24-byte header as sent, and its payload."""
        header = self._exactly(HEADER_SIZE)
        return header, self._exactly(HEADER.unpack(header)[3])

    def _exactly(self, size: int) -> bytes:
        data = b""
        while len(data) < size:
            chunk = self.sock.recv(size - len(data))
            if not chunk:
                raise EOFError(f"closed after {len(data)} of {size} bytes")
            data += chunk
        return data

    def handshake(self, maxdata: int = 4096) -> Packet:
        self.send(Packet(A_CNXN, A_VERSION, maxdata, HOST_BANNER))
        return self.recv()

    def closed_by_server(self) -> bool:
        try:
            while self.sock.recv(65536):
                pass
        except (ConnectionResetError, TimeoutError):
            return False
        return True

    def close(self) -> None:
        self.sock.close()


def v2_packets(data: bytes) -> list[tuple[int, bytes]]:
    out, index = [], 0
    while index < len(data):
        kind, length = struct.unpack_from("<BI", data, index)
        out.append((kind, data[index + 5 : index + 5 + length]))
        index += 5 + length
    return out

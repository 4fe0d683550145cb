"""adb wire packets: the 24-byte header, payload checksum and the protocol constants.

Every message is six little-endian uint32 words — command, arg0, arg1, payload length,
payload checksum (byte sum), magic (``command ^ 0xffffffff``) — then the payload. Since
protocol version ``0x01000001`` the host sends a zero checksum and the device may skip the
check; a non-zero checksum must still match (see ``adb/protocol.txt`` in AOSP).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from mobileintent_gym.errors import MobileIntentError

A_SYNC = 0x434E5953
A_CNXN = 0x4E584E43
A_AUTH = 0x48545541
A_OPEN = 0x4E45504F
A_OKAY = 0x59414B4F
A_CLSE = 0x45534C43
A_WRTE = 0x45545257
A_STLS = 0x534C5453

COMMAND_NAMES = {
    A_SYNC: "SYNC",
    A_CNXN: "CNXN",
    A_AUTH: "AUTH",
    A_OPEN: "OPEN",
    A_OKAY: "OKAY",
    A_CLSE: "CLSE",
    A_WRTE: "WRTE",
    A_STLS: "STLS",
}

A_VERSION_MIN = 0x01000000
A_VERSION_SKIP_CHECKSUM = 0x01000001
A_VERSION = 0x01000001

# AUTH packet arg0 values.
AUTH_TOKEN = 1
AUTH_SIGNATURE = 2
AUTH_RSAPUBLICKEY = 3

# The largest payload this device accepts; the host's CNXN may lower it.
MAX_PAYLOAD = 1024 * 1024
# Old hosts (before 2016) negotiate 4 KiB; nobody may go below that.
MIN_PAYLOAD = 4096

HEADER = struct.Struct("<6I")
HEADER_SIZE = HEADER.size


class ProtocolError(MobileIntentError):
    """A packet or stream message that breaks the adb protocol; the connection must close."""


def checksum(data: bytes) -> int:
    """The adb payload checksum: the sum of the bytes, modulo 2**32."""
    return sum(data) & 0xFFFFFFFF


@dataclass(frozen=True, slots=True)
class Packet:
    """One adb message.

    Attributes:
        command: One of the ``A_*`` command words.
        arg0: First argument (meaning depends on the command).
        arg1: Second argument.
        payload: The data that follows the header.
    """

    command: int
    arg0: int
    arg1: int
    payload: bytes = b""

    @property
    def name(self) -> str:
        """The command as its four letters, e.g. ``WRTE``."""
        return COMMAND_NAMES.get(self.command, f"0x{self.command:08x}")

    def encode(self, with_checksum: bool = True) -> bytes:
        """The packet on the wire, with checksum and magic filled in.

        Args:
            with_checksum: Compute the payload checksum; hosts that negotiated
                :data:`A_VERSION_SKIP_CHECKSUM` accept a zero instead (adbd sends zero to
                them too, which saves summing every byte of a screenshot).
        """
        check = checksum(self.payload) if with_checksum else 0
        header = HEADER.pack(self.command, self.arg0, self.arg1, len(self.payload), check,
                             self.command ^ 0xFFFFFFFF)
        return header + self.payload


@dataclass(frozen=True, slots=True)
class Header:
    """A decoded, validated packet header; ``length`` payload bytes follow it."""

    command: int
    arg0: int
    arg1: int
    length: int
    check: int


def decode_header(raw: bytes, max_payload: int) -> Header:
    """Decode and validate a 24-byte header.

    Args:
        raw: Exactly :data:`HEADER_SIZE` bytes.
        max_payload: The largest payload length allowed on this connection.

    Returns:
        The header.

    Raises:
        ProtocolError: Unknown command, bad magic or a payload longer than ``max_payload``.
    """
    command, arg0, arg1, length, check, magic = HEADER.unpack(raw)
    if command not in COMMAND_NAMES:
        raise ProtocolError(f"unknown command word 0x{command:08x}")
    if magic != command ^ 0xFFFFFFFF:
        raise ProtocolError(f"bad magic 0x{magic:08x} for {COMMAND_NAMES[command]}")
    if length > max_payload:
        raise ProtocolError(
            f"{COMMAND_NAMES[command]} payload of {length} bytes exceeds maxdata {max_payload}"
        )
    return Header(command, arg0, arg1, length, check)


def verify_payload(header: Header, payload: bytes, version: int) -> Packet:
    """Check a payload against its header's checksum and build the packet.

    Args:
        header: The decoded header.
        payload: The ``header.length`` bytes that followed it.
        version: The protocol version in force; from :data:`A_VERSION_SKIP_CHECKSUM` on a
            zero checksum means "not computed". A CNXN announces its sender's version (in
            ``arg0``), which counts for it: an adb server that reconnects to a device it
            has spoken to before sends its CNXN without a checksum.

    Returns:
        The packet.

    Raises:
        ProtocolError: When the checksum is required or present and does not match.
    """
    if header.command == A_CNXN:
        version = max(version, header.arg0)
    skip_allowed = version >= A_VERSION_SKIP_CHECKSUM and header.check == 0
    if not skip_allowed and checksum(payload) != header.check:
        raise ProtocolError(
            f"checksum mismatch on {COMMAND_NAMES[header.command]}: header says "
            f"0x{header.check:08x}, payload sums to 0x{checksum(payload):08x}"
        )
    return Packet(header.command, header.arg0, header.arg1, payload)

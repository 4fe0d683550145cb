import pytest

from mobileintent_gym.adbd.packet import (
    A_CNXN,
    A_VERSION,
    A_VERSION_MIN,
    A_WRTE,
    HEADER_SIZE,
    Packet,
    ProtocolError,
    checksum,
    decode_header,
    verify_payload,
)


def test_encode_writes_header_fields_checksum_and_magic():
    raw = Packet(A_WRTE, 7, 9, b"\x01\x02\xff").encode()
    assert raw[:4] == b"WRTE"
    assert len(raw) == HEADER_SIZE + 3
    header = decode_header(raw[:HEADER_SIZE], 4096)
    assert (header.arg0, header.arg1, header.length, header.check) == (7, 9, 3, 0x102)
    assert verify_payload(header, raw[HEADER_SIZE:], A_VERSION_MIN).payload == b"\x01\x02\xff"


def test_checksum_is_byte_sum_mod_2_32():
    assert checksum(b"\xff" * 10) == 2550
    assert checksum(b"") == 0


def test_bad_magic_unknown_command_and_oversize_are_rejected():
    raw = bytearray(Packet(A_CNXN, 1, 2, b"host::").encode()[:HEADER_SIZE])
    raw[20] ^= 1
    with pytest.raises(ProtocolError, match="bad magic"):
        decode_header(bytes(raw), 4096)
    with pytest.raises(ProtocolError, match="unknown command word 0x58585858"):
        decode_header(b"XXXX" + bytes(20), 4096)
    big = Packet(A_WRTE, 1, 1, b"x" * 5000).encode()[:HEADER_SIZE]
    with pytest.raises(ProtocolError, match="5000 bytes exceeds maxdata 4096"):
        decode_header(big, 4096)


def test_zero_checksum_is_accepted_only_after_skip_checksum_version():
    raw = bytearray(Packet(A_WRTE, 1, 1, b"abc").encode())
    raw[16:20] = bytes(4)
    header = decode_header(bytes(raw[:HEADER_SIZE]), 4096)
    assert verify_payload(header, b"abc", A_VERSION).payload == b"abc"
    with pytest.raises(ProtocolError, match="checksum mismatch"):
        verify_payload(header, b"abc", A_VERSION_MIN)


def test_a_cnxn_without_checksum_counts_by_the_version_it_announces():
    # An adb server reconnecting to a device it spoke to before sends CNXN unsummed.
    raw = bytearray(Packet(A_CNXN, A_VERSION, 4096, b"host::").encode())
    raw[16:20] = bytes(4)
    header = decode_header(bytes(raw[:HEADER_SIZE]), 4096)
    assert verify_payload(header, b"host::", A_VERSION_MIN).payload == b"host::"
    old = bytearray(Packet(A_CNXN, A_VERSION_MIN, 4096, b"host::").encode())
    old[16:20] = bytes(4)
    with pytest.raises(ProtocolError, match="checksum mismatch on CNXN"):
        verify_payload(decode_header(bytes(old[:HEADER_SIZE]), 4096), b"host::", A_VERSION_MIN)


def test_wrong_nonzero_checksum_is_rejected_in_any_version():
    raw = Packet(A_WRTE, 1, 1, b"abc").encode()
    header = decode_header(raw[:HEADER_SIZE], 4096)
    with pytest.raises(ProtocolError, match="checksum mismatch"):
        verify_payload(header, b"abd", A_VERSION)

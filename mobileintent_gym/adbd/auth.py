"""The adb RSA AUTH exchange: public keys in adb's format and signature checks.

A host proves it holds a key by signing a random 20-byte token: RSA PKCS#1 v1.5 with the
token placed as a SHA-1 digest (``RSA_sign(NID_sha1, token, ...)`` in adb). Public keys
travel, and sit in ``adbkey.pub`` / ``adb_keys`` files, as base64 of Android's
``RSAPublicKey`` struct (word count, n0inv, modulus and R² little-endian, exponent)
followed by `` user@host``. Verification is plain modular exponentiation, so it needs no
crypto library.
"""

from __future__ import annotations

import base64
import hmac
import struct
from dataclasses import dataclass
from pathlib import Path

from mobileintent_gym.errors import MobileIntentError

TOKEN_SIZE = 20
KEY_WORDS = 64  # adb keys are 2048-bit
KEY_BYTES = KEY_WORDS * 4
_STRUCT_SIZE = 4 + 4 + KEY_BYTES + KEY_BYTES + 4
# DER DigestInfo prefix for SHA-1 (RFC 8017, section 9.2, note 1).
_SHA1_PREFIX = bytes.fromhex("3021300906052b0e03021a05000414")


class KeyFormatError(MobileIntentError, ValueError):
    """Text that is not an adb public key; the message quotes the start of it."""


@dataclass(frozen=True, slots=True)
class PublicKey:
    """An RSA public key as adb uses it.

    Attributes:
        modulus: The RSA modulus n (2048 bits).
        exponent: The public exponent e (3 or 65537 in practice).
        comment: The ``user@host`` tail of the key line, if any.
    """

    modulus: int
    exponent: int
    comment: str = ""

    def verify(self, token: bytes, signature: bytes) -> bool:
        """Whether ``signature`` is this key's PKCS#1 v1.5 SHA-1 signature of ``token``."""
        if len(token) != TOKEN_SIZE or len(signature) != KEY_BYTES:
            return False
        value = int.from_bytes(signature, "big")
        if value >= self.modulus:
            return False
        decoded = pow(value, self.exponent, self.modulus).to_bytes(KEY_BYTES, "big")
        digest_info = _SHA1_PREFIX + token
        padding = b"\xff" * (KEY_BYTES - 3 - len(digest_info))
        return hmac.compare_digest(decoded, b"\x00\x01" + padding + b"\x00" + digest_info)

    def encode(self) -> str:
        """The key as one ``adbkey.pub`` line (base64 struct, space, comment)."""
        n0inv = (-pow(self.modulus, -1, 1 << 32)) % (1 << 32)
        rr = pow(2, KEY_BYTES * 8 * 2, self.modulus)
        raw = struct.pack("<II", KEY_WORDS, n0inv)
        raw += self.modulus.to_bytes(KEY_BYTES, "little") + rr.to_bytes(KEY_BYTES, "little")
        raw += struct.pack("<I", self.exponent)
        line = base64.b64encode(raw).decode("ascii")
        return f"{line} {self.comment}".rstrip()


def parse_public_key(text: str | bytes) -> PublicKey:
    """Parse one adb public key line (as in ``adbkey.pub`` or an AUTH RSAPUBLICKEY payload).

    Args:
        text: ``<base64> [user@host]``, optionally NUL- or newline-terminated.

    Returns:
        The key.

    Raises:
        KeyFormatError: When the text is not a 2048-bit adb key.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    text = text.strip("\x00 \r\n")
    blob, _, comment = text.partition(" ")
    try:
        raw = base64.b64decode(blob, validate=True)
    except ValueError as err:  # binascii.Error, or text that is not ASCII
        raise KeyFormatError(f"not base64: {text[:40]!r}") from err
    if len(raw) != _STRUCT_SIZE:
        raise KeyFormatError(
            f"key struct is {len(raw)} bytes, expected {_STRUCT_SIZE}: {text[:40]!r}")
    words = struct.unpack_from("<I", raw)[0]
    if words != KEY_WORDS:
        raise KeyFormatError(f"key has {words} words, expected {KEY_WORDS}: {text[:40]!r}")
    modulus = int.from_bytes(raw[8 : 8 + KEY_BYTES], "little")
    exponent = struct.unpack_from("<I", raw, 8 + 2 * KEY_BYTES)[0]
    if modulus.bit_length() != KEY_BYTES * 8 or exponent < 3:
        raise KeyFormatError(f"implausible RSA key (e={exponent}): {text[:40]!r}")
    return PublicKey(modulus, exponent, comment.strip())


def load_keys(path: str | Path) -> tuple[PublicKey, ...]:
    """Read an allow-list: one adb public key per line, ``#`` comments and blanks skipped.

    Raises:
        KeyFormatError: When a line is not a key (the message names the file and line), or
            the file holds no key: an empty allow-list is no list to serve by.
    """
    keys = []
    for number, line in enumerate(Path(path).read_text().splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            keys.append(parse_public_key(line))
        except KeyFormatError as err:
            raise KeyFormatError(f"{path}:{number}: {err}") from err
    if not keys:
        raise KeyFormatError(f"{path} holds no key: put one adb public key per line in it "
                             "(a client's ~/.android/adbkey.pub)")
    return tuple(keys)

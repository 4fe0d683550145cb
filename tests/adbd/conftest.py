import random

import pytest

from mobileintent_gym.adbd.auth import KEY_BYTES, PublicKey


def _probable_prime(bits: int, rng: random.Random) -> int:
    small = [p for p in range(3, 2000, 2) if all(p % d for d in range(3, int(p**0.5) + 1, 2))]
    while True:
        candidate = rng.getrandbits(bits) | (1 << (bits - 1)) | 1
        if any(candidate % p == 0 for p in small):
            continue
        d, r = candidate - 1, 0
        while d % 2 == 0:
            d, r = d // 2, r + 1
        if all(_miller_rabin(candidate, rng.randrange(2, candidate - 1), d, r) for _ in range(8)):
            return candidate


def _miller_rabin(n: int, a: int, d: int, r: int) -> bool:
    x = pow(a, d, n)
    if x in (1, n - 1):
        return True
    for _ in range(r - 1):
        x = pow(x, 2, n)
        if x == n - 1:
            return True
    return False


class TestKey:
    """A 2048-bit RSA key made in pure Python from a fixed seed (test use only)."""

    SHA1_PREFIX = bytes.fromhex("3021300906052b0e03021a05000414")

    def __init__(self, seed: int) -> None:
        rng = random.Random(seed)
        e = 65537
        while True:
            p, q = _probable_prime(1024, rng), _probable_prime(1024, rng)
            n = p * q
            if n.bit_length() == 2048 and (p - 1) % e and (q - 1) % e:
                break
        self.public = PublicKey(n, e, f"test{seed}@host")
        self._d = pow(e, -1, (p - 1) * (q - 1))

    def sign(self, token: bytes) -> bytes:
        info = self.SHA1_PREFIX + token
        block = b"\x00\x01" + b"\xff" * (KEY_BYTES - 3 - len(info)) + b"\x00" + info
        value = pow(int.from_bytes(block, "big"), self._d, self.public.modulus)
        return value.to_bytes(KEY_BYTES, "big")


@pytest.fixture(scope="session")
def test_key() -> TestKey:
    return TestKey(1)


@pytest.fixture(scope="session")
def other_key() -> TestKey:
    return TestKey(2)

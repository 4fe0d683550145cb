"""What a text field costs Gymnasium's async vector env with shared memory, per step.

Each step a worker writes every text field of the observation into shared memory
(``flatten`` of a :class:`~mobileintent_gym.envs.spaces.UnicodeText`) and the parent reads
it back (:class:`~mobileintent_gym.envs.spaces.SharedTexts`, on each copy). Both are timed
on a real view hierarchy (the Music app's home screen at 1080×2400) in its 1 MiB row, with
the baseline of one Python int per character (the earlier form, timed in the same run);
the best of ``--rounds`` rounds of ``--number`` calls is printed as JSON in milliseconds,
with the ratios.

Usage: ``python benchmarks/text_codec.py [--number 50] [--rounds 5]``
"""

from __future__ import annotations

import argparse
import json
import timeit

import numpy as np
from gymnasium.spaces.utils import flatten

from mobileintent_gym.console import positive_int
from mobileintent_gym.envs.spaces import HIERARCHY_LENGTH, UnicodeText, _decoded
from mobileintent_gym.phone import SimPhone


def per_char_flatten(space: UnicodeText, text: str) -> np.ndarray:
    """The baseline write: one Python int per character."""
    out = np.zeros(space.max_length, np.int32)
    out[:len(text)] = [ord(char) + 1 for char in text]
    return out


def per_char_read(codes: np.ndarray) -> str:
    """The baseline read: one Python int per code, padding skipped."""
    return "".join(chr(int(code) - 1) for code in codes if code > 0)


def main() -> None:
    """Time both ways of writing and reading a hierarchy; print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=positive_int, default=50,
                        help="calls per round (default 50)")
    parser.add_argument("--rounds", type=positive_int, default=5,
                        help="rounds; the fastest is kept (default 5)")
    args = parser.parse_args()
    phone = SimPhone()
    phone.reset(seed=0)
    phone.open("music")
    text = phone.hierarchy()
    phone.close()
    space = UnicodeText(HIERARCHY_LENGTH, min_length=0)
    codes = flatten(space, text)
    assert _decoded(codes) == per_char_read(codes) == text

    def ms(call) -> float:
        return min(timeit.repeat(call, number=args.number, repeat=args.rounds)) / args.number * 1e3

    figures = {"characters": len(text),
               "write_ms": ms(lambda: flatten(space, text)),
               "write_per_char_ms": ms(lambda: per_char_flatten(space, text)),
               "read_ms": ms(lambda: _decoded(codes)),
               "read_per_char_ms": ms(lambda: per_char_read(codes))}
    figures["write_speedup"] = figures["write_per_char_ms"] / figures["write_ms"]
    figures["read_speedup"] = figures["read_per_char_ms"] / figures["read_ms"]
    print(json.dumps({k: round(v, 3) for k, v in figures.items()}, indent=1))


if __name__ == "__main__":
    main()

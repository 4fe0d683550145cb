"""The ``mobileintent-gym`` command line: one sub-command per module that registers one."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence

# Each module exposes ``register(subparsers)`` adding its sub-command with ``func`` set.
COMMAND_MODULES = (
    "mobileintent_gym.phone.tour",
    "mobileintent_gym.adbd.command",
    "mobileintent_gym.evaluate",
    "mobileintent_gym.rl.command",
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every sub-command registered."""
    parser = argparse.ArgumentParser(prog="mobileintent-gym", description=__doc__)
    subparsers = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code."""
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    raise SystemExit(main())

"""The ``mobileintent-gym`` command line: one sub-command per module that registers one.

A mistake a person can fix (a :class:`~mobileintent_gym.errors.MobileIntentError`: an
unknown user, task or device, a port in use …) is printed as one line naming the fix, and
the command exits with status 2; argparse reports malformed arguments the same way. Such
an error that is no mistake (its ``exit_status`` 1: a cluster that lost its workers) is
one line too, with status 1.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import sys
from collections.abc import Sequence

from mobileintent_gym.errors import MobileIntentError

# Each module exposes ``register(subparsers)`` adding its sub-command with ``func`` set.
COMMAND_MODULES = (
    "mobileintent_gym.phone.tour",
    "mobileintent_gym.adbd.command",
    "mobileintent_gym.evaluate",
    "mobileintent_gym.report.command",
    "mobileintent_gym.report.contact_sheet",
    "mobileintent_gym.report.assist_command",
    "mobileintent_gym.intents.command",
    "mobileintent_gym.rl.command",
    "mobileintent_gym.tasks.catalog",
)
INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command Ctrl-C stopped
DESCRIPTION = """\
The gym's commands: evaluate an agent, view its run, generate users' days, serve a
simulated phone over adb, train a language-model agent, and more (each has --help).

A mistake you can fix (an unknown user, task or device, a port in use ...) is printed as
one line naming the fix, with exit status 2; an error that is no mistake (a cluster that
lost its workers) is one line with status 1; Ctrl-C exits with status 130. An error raised
by code of yours (an agent file that fails to import, an agent's act) is shown with its
traceback, to be debugged, with status 1."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every sub-command registered."""
    parser = argparse.ArgumentParser(prog="mobileintent-gym", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    subparsers = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)  # a write refused for want of room


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code."""
    try:  # a command's help may read the registry: a broken plugged-in app is named here
        args = build_parser().parse_args(argv)
    except MobileIntentError as err:
        print(f"mobileintent-gym: {err}", file=sys.stderr)
        return err.exit_status
    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # here, where a closed pipe is caught, rather than at exit
        return code
    except MobileIntentError as err:
        print(f"mobileintent-gym {args.command}: {err}", file=sys.stderr)
        return err.exit_status
    except KeyboardInterrupt:  # Ctrl-C: one line, as a shell's own commands say it
        print(f"mobileintent-gym {args.command}: interrupted", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:  # the reader left (`… | head`): stop quietly, as other tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing to flush
        return 1
    except OSError as err:
        if err.filename is not None or err.errno not in _FULL:
            raise
        # The output's device is full (`> /dev/full`, a quota): said in one line.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing to flush
        print(f"mobileintent-gym {args.command}: cannot write the output "
              f"({err.strerror})", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())

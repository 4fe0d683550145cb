"""``mobileintent-gym serve-adb``: serve a simulated phone to adb clients.

Example::

    mobileintent-gym serve-adb --port 15555 &
    adb connect 127.0.0.1:15555
    adb -s 127.0.0.1:15555 shell input tap 540 1200
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging

from mobileintent_gym.adbd.auth import load_keys
from mobileintent_gym.adbd.device import VirtualDevice
from mobileintent_gym.adbd.server import AdbServer, ServerConfig
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.phone import SimPhone


class UnknownUserError(MobileIntentError, LookupError):
    """A ``--user`` that names no user profile."""


def build_phone(user: str | None, seed: int, width: int, height: int) -> SimPhone:
    """The phone to serve: the default content for ``seed``.

    ``--user`` will select the PAIR-built state of that user profile once the users
    module exists; until then any user name is refused rather than silently ignored.

    Raises:
        UnknownUserError: When ``user`` is given.
    """
    if user is not None:
        raise UnknownUserError(
            f"no user profile {user!r}: user profiles are not available yet; "
            "omit --user to serve the default phone content")
    phone = SimPhone(width, height)
    phone.reset(seed=seed)
    return phone


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``serve-adb`` sub-command."""
    parser = subparsers.add_parser(
        "serve-adb", help="serve a simulated phone over the adb wire protocol",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=15555,
                        help="TCP port (default 15555; avoid 5555-5585, which adb scans)")
    parser.add_argument("--host", default="127.0.0.1", help="bind address (default loopback)")
    parser.add_argument("--allow-remote", action="store_true",
                        help="permit a non-loopback --host (requires --keys)")
    parser.add_argument("--keys", help="adb_keys allow-list file; turns RSA AUTH on")
    parser.add_argument("--user", help="user profile whose content fills the phone")
    parser.add_argument("--seed", type=int, default=0, help="content seed (default 0)")
    parser.add_argument("--size", default="1080x2400", help="screen WIDTHxHEIGHT")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted; returns the exit code."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    width, _, height = args.size.partition("x")
    config = ServerConfig(host=args.host, port=args.port, allow_remote=args.allow_remote,
                          keys=load_keys(args.keys) if args.keys else ())
    config.check()
    phone = build_phone(args.user, args.seed, int(width), int(height))
    server = AdbServer(VirtualDevice(phone), config)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(server.serve_forever())
    return 0

"""``mobileintent-gym serve-adb``: serve a simulated phone to adb clients.

Example::

    mobileintent-gym serve-adb --port 15555 &
    adb connect 127.0.0.1:15555
    adb -s 127.0.0.1:15555 shell input tap 540 1200

    mobileintent-gym serve-adb --user demo-ana      # a built-in user's PAIR content
    mobileintent-gym serve-adb --user user3 --profiles path/to/personalens/profiles

Limits (each client's command lines, all clients' files): ``--time-limit`` seconds per
command line (10), ``--output-limit`` MiB of output per command line (64), ``--storage``
MiB of files under /sdcard (256); ``--max-connections`` clients at once (16).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import logging
import math
import os
from collections.abc import Iterator

from mobileintent_gym.adbd.auth import load_keys
from mobileintent_gym.adbd.device import VirtualDevice
from mobileintent_gym.adbd.limits import MIB, ShellLimits
from mobileintent_gym.adbd.server import AdbServer, BindRefusedError, ServerConfig
from mobileintent_gym.backends.loader import DeviceConfigError
from mobileintent_gym.console import (
    UsageError,
    one_user,
    path_text,
    plain,
    port_int,
    positive_int,
    profiles_folder,
    run_encoder,
    seed_int,
    size_text,
)
from mobileintent_gym.errors import InvalidProfileError
from mobileintent_gym.phone import SimPhone
from mobileintent_gym.users import (
    PairConfig,
    UnknownProfileError,
    load_user_content,
    resolve_profile,
)
from mobileintent_gym.users.encoders import check_ranked_by


def build_phone(user: str | None, pair: PairConfig, width: int, height: int,
                profiles: str | None = None, encoder: str | None = None
                ) -> tuple[SimPhone, str | None]:
    """The phone to serve: ``user``'s PAIR-built content, else the default content.

    Returns:
        The phone, and the model that ranked ``user``'s content (``None`` without a user).

    Args:
        user: A user profile's name or JSON path (see ``resolve_profile``), or ``None``.
        pair: How PAIR builds ``user``'s content; its seed also seeds the default content.
        width: Screen width in pixels.
        height: Screen height in pixels.
        profiles: A folder searched first for ``user``'s profile.
        encoder: The model ``user``'s content must have been ranked by (the one
            announced), or ``None`` for any.

    Raises:
        UnknownProfileError: When ``user`` names no profile; the message lists where it
            looked.
        InvalidProfileError: When the profile found is not valid.
        MobileIntentError: When another model than ``encoder`` ranked the content.
    """
    state, ranked_by = None, None
    if user is not None:
        content = load_user_content(user, pair, profiles)
        if encoder is not None:
            check_ranked_by(user, content.encoder, encoder, "the encoder announced")
        state, ranked_by = content.state, content.encoder
    phone = SimPhone(width, height)
    phone.reset(state, seed=pair.seed)
    return phone, ranked_by


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``serve-adb`` sub-command."""
    parser = subparsers.add_parser(
        "serve-adb", help="serve a simulated phone over the adb wire protocol",
        description=plain(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=port_int, default=15555,
                        help="TCP port (default 15555; avoid 5555-5585, which adb scans for "
                        "emulators)")
    parser.add_argument("--host", default="127.0.0.1", help="bind address (default loopback)")
    parser.add_argument("--allow-remote", action="store_true",
                        help="permit a non-loopback --host (requires --keys)")
    parser.add_argument("--keys", type=path_text,
                        help="adb_keys allow-list file; turns RSA AUTH on")
    parser.add_argument("--user", help="user profile (name or JSON file) whose PAIR-built "
                        "content fills the phone, e.g. demo-ana")
    parser.add_argument("--profiles", type=path_text,
                        help="folder searched first for --user's profile "
                        "(NAME.json or NAME/profile.json)")
    parser.add_argument("--seed", type=seed_int, default=0, help="content seed (default 0)")
    parser.add_argument("--size", type=size_text, default="1080x2400",
                        help="screen WIDTHxHEIGHT, 320-3840 x 480-3840, portrait: the height "
                        "at least 1.5 times the width (default 1080x2400)")
    parser.add_argument("--require-encoder", metavar="MODEL",
                        help="refuse to serve --user's content unless this sentence model "
                        "ranks it")
    parser.add_argument("--time-limit", type=float, default=10.0,
                        help="seconds one command line may run (default 10)")
    parser.add_argument("--output-limit", type=int, default=64,
                        help="MiB of output one command line may write (default 64)")
    parser.add_argument("--storage", type=int, default=256,
                        help="MiB the files under /sdcard may hold (default 256)")
    parser.add_argument("--max-connections", type=positive_int, default=16,
                        help="connections served at once; one more is closed as it "
                        "connects (default 16; an adb server keeps one per device)")
    parser.set_defaults(func=run)


EMULATOR_PORTS = range(5555, 5586)
"""Ports an adb server probes for emulators on its own."""


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted (``KeyboardInterrupt`` goes on to the command line).

    Raises:
        UsageError: For a refused bind address, a host that is not this machine's or a
            port in use (each names the fix), or a ``--keys`` file that cannot be read
            (one that holds no key raises KeyFormatError);
            bad sizes, limits and profiles are printed the same way, with exit code 2.
    """
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    if args.port in EMULATOR_PORTS:
        logging.warning("--port %d is one an adb server scans for emulators (5555-5585): "
                        "it may list the phone twice, once as an emulator; another port "
                        "avoids that", args.port)
    if args.require_encoder and not args.user:
        raise UsageError("--require-encoder checks what ranked --user's content; give "
                         "--user, or leave it out (the default content is ranked by none)")
    try:
        keys = load_keys(args.keys) if args.keys else ()
    except OSError as err:
        raise UsageError(f"--keys {args.keys}: {err.strerror or err}") from err
    config = ServerConfig(host=args.host, port=args.port, allow_remote=args.allow_remote,
                          keys=keys, max_connections=args.max_connections)
    try:
        config.check()
    except BindRefusedError as err:
        raise UsageError(f"--host {args.host} is not loopback: serve it only with "
                         "--allow-remote and --keys FILE (an adb_keys allow-list)") from err
    with _listen_refused(args):  # before a user's content is built (half a minute)
        asyncio.run(_listen_once(args.host, args.port))
    try:
        limits = _limits(args)
        profiles = profiles_folder(args.profiles)
        user = resolve_profile(one_user(args.user), profiles).user_id if args.user else None
        encoder = None if user is None else run_encoder(args.require_encoder).name
        pair = PairConfig(seed=args.seed)
        phone, ranked_by = build_phone(args.user, pair, *args.size, profiles, encoder)
    except (UnknownProfileError, InvalidProfileError, DeviceConfigError, ValueError) as err:
        raise UsageError(str(err)) from err
    device = VirtualDevice(phone, user=user, pair=pair, encoder=ranked_by, limits=limits,
                           storage=args.storage * MIB)
    try:  # Ctrl-C stops it, said as every command says it (status 130)
        with _listen_refused(args):  # taken since the check, by another process
            asyncio.run(AdbServer(device, config).serve_forever())
    finally:
        device.close()
    return 0


async def _listen_once(host: str, port: int) -> None:
    """Listen on ``host``:``port`` as the server will, and stop at once."""
    server = await asyncio.start_server(lambda reader, writer: None, host, port)
    server.close()
    await server.wait_closed()


@contextlib.contextmanager
def _listen_refused(args: argparse.Namespace) -> Iterator[None]:
    """Say a refused listen on ``--host``:``--port`` as a usage error naming the fix.

    Raises:
        UsageError: For a port taken or below 1024 (``--port``), else a host that is none
            of this machine's (``--host``).
    """
    try:
        yield
    except OSError as err:
        fix = "--port" if err.errno in (errno.EADDRINUSE, errno.EACCES) else "--host"
        why = os.strerror(err.errno) if err.errno else err.strerror or err  # not asyncio's
        raise UsageError(f"cannot listen on {args.host}:{args.port} ({why}); choose "
                         f"another {fix}") from err


def _limits(args: argparse.Namespace) -> ShellLimits:
    """The command-line limits asked for; ``ValueError`` names one that is not positive."""
    for name in ("time_limit", "output_limit", "storage"):
        if not 0 < getattr(args, name) < math.inf:
            raise ValueError(f"--{name.replace('_', '-')} must be a positive number, "
                             f"got {getattr(args, name)!r}")
    return ShellLimits(args.time_limit, args.output_limit * MIB)

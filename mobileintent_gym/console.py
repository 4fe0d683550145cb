"""What the command line shows a person: usage errors, the encoder in use, a progress bar.

Every sub-command raises :class:`UsageError` (or another :class:`MobileIntentError`) for a
mistake a person can fix; ``mobileintent-gym`` prints it as one line and exits with status 2.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.files import trial_folder
from mobileintent_gym.users.cache import EncoderChoice, predict_encoder
from mobileintent_gym.users.encoders import make_encoder, name_matches
from mobileintent_gym.users.sets import user_set

_ROLE = re.compile(r":[a-z]+:`(~?)([^`]+)`")


def plain(doc: str | None) -> str:
    """A module's docstring as ``--help`` shows it: reST's markup taken out.

    ``:class:`~a.b.C``` reads ``C``, ``:func:`a.b``` reads ``a.b``, double backquotes go,
    and ``Example::`` ends with one colon.
    """
    text = _ROLE.sub(lambda m: m[2].rsplit(".", 1)[-1] if m[1] else m[2], doc or "")
    return text.replace("``", "").replace("::\n", ":\n")


class UsageError(MobileIntentError, ValueError):
    """A command-line mistake; the message names the bad value and the fix."""


def profiles_folder(value: str | None) -> str | None:
    """``--profiles`` as given, once it names a folder (``None`` when none was given).

    A missing folder would otherwise be searched for nothing, and built-in users of the
    same names taken in its place without a word.

    Raises:
        UsageError: When it is no folder.
    """
    if value is not None and not Path(value).is_dir():
        raise UsageError(f"--profiles {value!r} is not a folder")
    return value


def one_user(value: str, option: str = "--user") -> str:
    """``value`` once it is one user's name or path, not a set's name (``demo``).

    Raises:
        UsageError: When it names a set (one of its users would be drawn unsaid).
    """
    members = user_set(value)
    if members is not None:
        shown = ", ".join(members[:4]) + (", …" if len(members) > 4 else "")
        raise UsageError(f"{option} {value!r} is a set of {len(members)} users ({shown}); "
                         "give one of them")
    return value


def output_folder(out: Path, option: str = "--out") -> None:
    """Refuse a folder to write into that this process cannot make or write.

    Tried before anything runs (:func:`~mobileintent_gym.files.trial_folder`).

    Raises:
        UsageError: When a part of the path is a file, or the folder cannot be made or
            written (the reason named).
    """
    try:
        with trial_folder(out):
            pass
    except NotADirectoryError as err:
        raise UsageError(f"{option} {out}: {err.filename} is a file; give a folder") from err
    except OSError as err:
        raise UsageError(f"{option} {out}: cannot write there ({err.strerror or err})"
                         ) from err


class Repeated(argparse.Action):
    """An argparse action for ``nargs="+"`` lists that a repeated option adds to.

    ``--users a b --users c`` gives ``["a", "b", "c"]``, where argparse's own ``store``
    would keep only ``c``; the first use replaces the default (argparse's ``extend``
    would add to it).
    """

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None
                 ) -> None:
        """Add ``values`` to what earlier uses of the option gave."""
        held = getattr(namespace, self.dest, None)
        earlier = [] if held is None or held is self.default else held
        setattr(namespace, self.dest, [*earlier, *(values or ())])


def path_text(text: str) -> str:
    """An argparse ``type`` for a file or folder: any path but an empty one.

    An empty path reads as the current folder, where a command would write (or search
    for profiles) unasked.

    Raises:
        argparse.ArgumentTypeError: For an empty text (argparse names the option).
    """
    if not text:
        raise argparse.ArgumentTypeError("an empty path names no file or folder; give one")
    return text


def size_text(text: str) -> tuple[int, int]:
    """An argparse ``type`` for ``--size WIDTHxHEIGHT``: a simulated screen's size.

    Raises:
        argparse.ArgumentTypeError: For a malformed size or one the phone refuses
            (argparse names the option).
    """
    from mobileintent_gym.backends.loader import screen_size

    try:
        return screen_size(text)
    except MobileIntentError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def positive_int(text: str) -> int:
    """An argparse ``type``: an integer of at least 1 (argparse names the option and value).

    Raises:
        argparse.ArgumentTypeError: For anything else.
    """
    return _int_at_least(text, 1)


def count_int(text: str) -> int:
    """An argparse ``type``: an integer of at least 0 (a count or interval, 0 for none).

    Raises:
        argparse.ArgumentTypeError: For anything else.
    """
    return _int_at_least(text, 0)


seed_int = count_int
"""An argparse ``type`` for seeds: an integer of at least 0, as NumPy takes them."""


def port_int(text: str) -> int:
    """An argparse ``type`` for TCP ports: 0 (any free one) to 65535.

    Raises:
        argparse.ArgumentTypeError: For anything else.
    """
    port = _int_at_least(text, 0)
    if port > 65535:
        raise argparse.ArgumentTypeError(f"must be a TCP port, 0 to 65535, got {text!r}")
    return port


def _int_at_least(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        value = least - 1
    if value < least:
        raise argparse.ArgumentTypeError(f"must be an integer of at least {least}, got {text!r}")
    return value


def add_require_encoder(parser: argparse.ArgumentParser) -> None:
    """Add ``--require-encoder MODEL`` (see :func:`run_encoder`) to a command's parser."""
    parser.add_argument("--require-encoder", metavar="MODEL",
                        help="refuse to run unless this sentence model ranks the content")


def run_encoder(require: str | None = None, stream: TextIO | None = None) -> EncoderChoice:
    """The encoder that ranks users' content in this process, announced on stderr.

    The one-line announcement names the model and, when it is a fallback, why the preferred
    model could not be used. Each command that builds users' content calls this once,
    before building any, so that no fallback goes unnoticed. Where the files on disk tell
    which model loads (see ``predict_encoder``), nothing is loaded: content built before
    is read without importing torch, and content built now loads the model then. A
    command that records the model checks that its content was ranked by it
    (``check_ranked_by``): weights found damaged as they load fall back to another.

    Args:
        require: Refuse any other model than this one (``--require-encoder``).
        stream: Where to announce (default ``sys.stderr``).

    Raises:
        UsageError: When ``require`` is given and another model would be used.
    """
    choice = predict_encoder("auto")
    if choice is None:  # the hub may be asked: only loading tells
        with warnings.catch_warnings():  # the line below says it, once
            warnings.simplefilter("ignore")
            choice = EncoderChoice.of(make_encoder("auto"))
    fallback = choice.fallback_reason
    note = f" (FALLBACK: {fallback})" if fallback else ""
    print(f"encoder: {choice.name}{note}", file=stream or sys.stderr)
    if require is not None and not name_matches(choice.name, require):
        raise UsageError(f"--require-encoder {require} but {choice.name} ranks the content here"
                         f"{f' ({fallback})' if fallback else ''}; put {require} in the "
                         "Hugging Face cache, or drop --require-encoder")
    return choice


class Progress:
    """A one-line progress bar on a terminal: done/total, episodes/s and a running rate.

    Episodes per second are counted from the first episode finished on, so what comes
    before it (loading users, starting a Ray cluster) does not lower them; until a second
    one finishes the bar shows ``- ep/s``. Nothing is drawn when the stream is not a
    terminal (logs and pipes stay clean). As a context manager it ends its line on the
    way out, an error's included.

    Args:
        total: Episodes of the whole run.
        stream: Where to draw (default ``sys.stderr``).
        label: Name of the running rate, e.g. ``task_sr``.
        done: Episodes done before (a resumed run's), counted in the bar and the rate,
            not in the episodes per second.
        successes: How many of those succeeded.
    """

    def __init__(self, total: int, stream: TextIO | None = None, label: str = "task_sr",
                 done: int = 0, successes: int = 0) -> None:
        self.total, self.label = total, label
        self.stream = stream or sys.stderr
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.done, self.successes, self._before = done, successes, done
        self._first: tuple[int, float] | None = None  # episodes done and when, at the first

    def update(self, success: bool) -> None:
        """Count one finished episode and redraw."""
        self.done += 1
        self.successes += bool(success)
        if self._first is None:
            self._first = (self.done, time.perf_counter())
        if self.enabled:
            self.stream.write(f"\r{self.line()}")
            self.stream.flush()

    def line(self) -> str:
        """The bar's text, e.g. ``[####      ] 12/30  3.1 ep/s  task_sr 0.917``."""
        width = 20
        filled = width * self.done // max(1, self.total)
        share = self.successes / self.done if self.done else 0.0
        return (f"[{'#' * filled}{' ' * (width - filled)}] {self.done}/{self.total}  "
                f"{self._rate()} ep/s  {self.label} {share:.3f}")

    def _rate(self) -> str:
        """Episodes per second since the first finished, or ``-`` before a second one."""
        if self._first is None or self.done == self._first[0]:
            return "-"
        since, at = self._first
        return f"{(self.done - since) / max(1e-9, time.perf_counter() - at):.1f}"

    def close(self) -> None:
        """End the bar's line."""
        if self.enabled and self.done > self._before:
            self.stream.write("\n")
            self.stream.flush()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()  # an error's message then starts on a line of its own

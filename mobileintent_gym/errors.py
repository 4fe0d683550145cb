"""Typed errors of mobileintent-gym; every error the package raises derives from one root."""

from __future__ import annotations

import traceback
from collections.abc import Callable
from types import ModuleType
from typing import Any


def raised_at(err: BaseException, where: Callable[[str], bool] = lambda filename: True) -> str:
    """`` at file:line`` of the innermost frame of ``err`` in a file ``where`` takes, or ""."""
    frames = [f for f in traceback.extract_tb(err.__traceback__) if where(f.filename)]
    return f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""


def brief(value: object, limit: int = 80) -> str:
    """``repr(value)`` for a message: cut to ``limit`` characters, ending in "…" when cut.

    An integer too long to write (Python writes at most 4,300 digits) is told by its size,
    and a value whose ``repr`` fails by its type: a message never raises in its place.
    """
    try:
        text = repr(value)
    except Exception as err:  # a user's object: any error of its __repr__
        if isinstance(err, ValueError) and "integer string conversion" in str(err):
            return f"<{type(value).__name__} holding an integer too long to write>"
        return f"<{type(value).__name__} whose repr raised {type(err).__name__}>"
    return text if len(text) <= limit else text[:limit - 1] + "…"


def first_line(err: BaseException) -> str:
    """``Type: first line of the message``, for an error quoted inside another."""
    said = str(err).strip().splitlines()
    return f"{type(err).__name__}: {said[0] if said else ''}"


class MobileIntentError(Exception):
    """Root of every error raised on purpose by mobileintent-gym.

    Attributes:
        exit_status: The command line's exit status for it: 2 for a mistake a person can
            fix (the default), 1 for a failure of what ran (workers a cluster lost).
    """

    exit_status = 2


class InvalidActionError(MobileIntentError, ValueError):
    """An action, or an action string, that is not valid; the message names the bad value."""


class UnknownRouteError(MobileIntentError, KeyError):
    """A deep link or route that no installed app defines."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class InvalidStateError(MobileIntentError, ValueError):
    """A phone state, or a seed, that cannot be loaded; the message names the bad value."""


class InvalidAppError(MobileIntentError, ValueError):
    """An app, app bundle or app data file that cannot be installed; the message says why."""


class InvalidProfileError(MobileIntentError, ValueError):
    """A user profile that cannot be loaded; the message names the bad field or value."""


class InvalidOptionsError(MobileIntentError, ValueError):
    """Options (of ``reset``, say) that are not a dict, or hold an unknown or bad value."""


class InvalidArgumentError(MobileIntentError, TypeError):
    """An argument of another kind than the one asked for; the message names it."""


class DeviceError(MobileIntentError):
    """A device (simulated or real) failed to carry out a request."""


class AppActionError(DeviceError):
    """An app's code failed on an action, which was undone; the message ends with where.

    Attributes:
        reason: The message without where it was raised: what serve-adb tells its clients,
            who have no business with the server's files.
        where: `` at FILE:LINE`` of the code that raised, or "".
    """

    def __init__(self, reason: str, where: str = "") -> None:
        super().__init__(reason + where)
        self.reason = reason
        self.where = where

    def __reduce__(self) -> tuple[type, tuple[str, str], dict[str, Any]]:
        """Pickled with both parts and what was added since, notes too (for a worker's)."""
        return type(self), (self.reason, self.where), self.__dict__


class DependencyNotInstalled(MobileIntentError, ImportError):
    """An optional dependency is missing; the message names the extra that provides it."""


def require(module: str, extra: str) -> ModuleType:
    """Import an optional dependency, failing with the pip extra that installs it.

    Args:
        module: Dotted module name to import.
        extra: Name of the ``mobileintent-gym[extra]`` that provides it.

    Returns:
        The imported module.

    Raises:
        DependencyNotInstalled: When the module cannot be imported.
    """
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as err:
        if err.name is not None and f"{module}.".startswith(f"{err.name}."):
            raise _not_installed(module, extra) from err
        # Installed, but something it imports is missing or of a clashing version.
        raise DependencyNotInstalled(
            f"{module!r} is installed but cannot be imported ({err}); reinstall it: pip "
            f"install 'mobileintent-gym[{extra}]'") from err
    except OSError as err:  # a native library it loads is missing (libcudnn …)
        raise DependencyNotInstalled(
            f"{module!r} is installed but cannot load ({err}); reinstall it: pip install "
            f"'mobileintent-gym[{extra}]'") from err


def require_installed(module: str, extra: str) -> None:
    """Fail as :func:`require` does when ``module`` is not installed, without importing it.

    For a check made early, before the module's import would be worth its cost.

    Raises:
        DependencyNotInstalled: When no top-level package of ``module`` is found.
    """
    import importlib.util

    if importlib.util.find_spec(module.partition(".")[0]) is None:
        raise _not_installed(module, extra)


def _not_installed(module: str, extra: str) -> DependencyNotInstalled:
    return DependencyNotInstalled(
        f"{module!r} is not installed; run: pip install 'mobileintent-gym[{extra}]'")

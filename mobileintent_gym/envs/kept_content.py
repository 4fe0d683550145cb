"""Episodes on a device that keeps its content (``ExecuteEnv(load_state=False)``).

Such a device carries what one episode did into the next: a track played moves to the top
of "Recently played", a sent reply stays in the chat, a new playlist stays in the library.

* **The virtual adb device** (``serve-adb --user``) restores the content it was served with
  when asked (``cmd mobileintent restore-state``, :mod:`mobileintent_gym.adbd.restore`); the
  env asks at every reset, so every episode starts from the same phone, and checks that the
  phone holds the episode's user's content, built with the env's PAIR settings and ranked
  by the same model.
* **A real device** cannot be restored: a reset only presses HOME and opens the task's app
  (the app's back stack, played tracks, sent messages and created playlists stay). The env
  warns once, and warns again before an episode whose task (template and target) an earlier
  episode already completed on this device, since its outcome may then be pre-satisfied or
  impossible to change.
"""

from __future__ import annotations

import json
from typing import Any

from gymnasium import logger

from mobileintent_gym.adbd.conventions import NO_USER, NO_USER_NAME, RESTORE_COMMAND, STATE_COMMAND
from mobileintent_gym.errors import DeviceError, brief
from mobileintent_gym.tasks import TaskInstance
from mobileintent_gym.users import PairConfig


def restore(device: Any) -> dict[str, str] | None:
    """Ask ``device`` to restore its user's content; what it reports, or ``None`` if it cannot.

    The report maps ``user`` to the user's id, ``pair`` to the PAIR settings the content
    was built with (:meth:`~mobileintent_gym.users.PairConfig.summary`) and ``encoder`` to
    the model that ranked it (where the device knows it). A device without a
    shell and a real device (no such service) cannot restore.

    A virtual device served without a user cannot either, and a warning says so: unless
    its phone was loaded by other means, it shows the built-in content, not the user's.

    Raises:
        DeviceUnavailableError: When the device is gone.
    """
    from mobileintent_gym.backends.adb_transport import DeviceCommandError

    try:
        return _report(device, RESTORE_COMMAND)
    except DeviceCommandError as err:
        if NO_USER in str(err):  # it was read as a real phone's silence, runs scored 2 in 4
            logger.warn("the device says it holds no user's content (served without "
                        "--user): episodes run on what it shows, the built-in content unless "
                        "it was loaded otherwise; serve-adb --user USER restores the user's "
                        "content before each")
        return None


def held(device: Any) -> dict[str, str] | None:
    """What ``device`` reports of the content it was served with, changing nothing.

    The report is :func:`restore`'s; ``None`` from a device that cannot restore, or holds no
    user's content.

    Raises:
        DeviceUnavailableError: When the device is gone.
    """
    from mobileintent_gym.backends.adb_transport import DeviceCommandError

    try:
        report = _report(device, STATE_COMMAND)
    except DeviceCommandError:  # a real device (no such service), or the command failed
        return None  # (restore, at every episode, names what it says then)
    return None if report is None or report.get("user", NO_USER_NAME) == NO_USER_NAME else report


def _report(device: Any, command: str) -> dict[str, str] | None:
    """The ``key: value`` lines ``device`` answers to ``command``; ``None`` without a shell.

    Raises:
        DeviceCommandError: When the device answers with an error.
    """
    shell = getattr(device, "shell", None)
    if shell is None:
        return None
    lines = (line.partition(":") for line in shell(command).splitlines())
    return {key.strip(): value.strip() for key, _, value in lines}


class KeptContent:
    """Restores the device's content before each episode, or warns what may carry over."""

    def __init__(self) -> None:
        self.completed: set[tuple[str, str]] = set()  # (template, target) done on the device
        self._warned = False
        self._vetted: tuple[str, str] | None = None  # (user, PAIR settings) the device held

    def vet(self, device: Any, user: str, pair: PairConfig) -> None:
        """Refuse, before the env builds ``user``'s content, a device holding other content.

        Building an uncached user's content can take a minute; the device says at once whose
        content it holds. Nothing changes on it. :meth:`start` checks again, the model
        that ranked the content too, at every episode; this asks once per user and settings
        (again after :meth:`start` refused the device).

        Args:
            device: The device.
            user: The user's id (a profile's ``user_id``, as the device names it).
            pair: The PAIR settings the env builds the user's content with.

        Raises:
            DeviceError: When the device holds another user's content, or content built
                with other PAIR settings than ``pair``.
        """
        if self._vetted == (user, pair.summary()):
            return
        served = held(device)
        if served is not None:
            _check_served(served, user, pair, None)
        self._vetted = user, pair.summary()

    def finished(self, task: TaskInstance | None, success: bool) -> None:
        """Note how the previous episode ended (a completed task may stay completed)."""
        if task is not None and success:
            self.completed.add((task.template.id, task.record))

    def start(self, device: Any, task: TaskInstance, pair: PairConfig, encoder: str) -> None:
        """Before ``task``'s episode: restore the device, or warn about what carries over.

        Args:
            device: The device.
            task: The episode's task.
            pair: The PAIR settings the env builds the user's content with.
            encoder: The model that ranked the env's content of the user.

        Raises:
            DeviceError: When the restored device holds another user's content, or content
                built with other PAIR settings than ``pair`` or ranked by another model.
        """
        served = restore(device)
        if served is not None:
            self.completed.clear()
            self._vetted = None  # re-served since it was asked: ask again before a build
            _check_served(served, task.user, pair, encoder)
            self._vetted = task.user, pair.summary()
            return
        if not self._warned:
            self._warned = True
            logger.warn("the device keeps its content between episodes and cannot restore it: "
                        "what an episode does (tracks played, messages sent, playlists "
                        "made) stays for the next")
        if (task.template.id, task.record) in self.completed:
            logger.warn(f"{task.id} for {task.user}: an earlier episode on this device "
                        f"already completed {task.template.id} with {task.record}; it "
                        "cannot be judged as on a fresh phone (its outcome may hold "
                        "already, need a step more, such as a toggle already on, or be "
                        "out of reach, such as a record already added)")


def _check_served(served: dict[str, str], user: str, pair: PairConfig, encoder: str | None
                  ) -> None:
    """Refuse a device whose content is not ``user``'s as the env builds it, naming both.

    A device that names no model (a harness not told it) is taken at its word on that, and
    so is any device while the env's model is not known yet (``encoder`` ``None``).
    """
    held = served.get("user")
    if held != user:
        raise DeviceError(f"the device holds the content of {held!r}, the episode is for {user!r}: "
                          f"serve-adb --user {user}, or evaluate --users {held}")
    reported = served.get("pair")
    if reported != pair.summary():
        differ = _differences(reported, pair)
        said = ", ".join(f"{name} {brief(theirs)} (env: {brief(ours)})"
                         for name, (theirs, ours) in differ.items())
        fix = (f"serve-adb --seed {pair.seed}" if list(differ) == ["seed"]
               else "serve-adb builds with the default settings but --seed: make the env "
               "with PairConfig(seed=N)")
        raise DeviceError(f"the device holds the content of {user!r} built with other PAIR "
                          f"settings than the env's: {said or f'it reports {brief(reported, 200)}'}"
                          f"; {fix}")
    if encoder is not None and served.get("encoder", encoder) != encoder:
        raise DeviceError(f"the device holds the content of {user!r} ranked by "
                          f"{served['encoder']!r}, the env's by {encoder!r}: serve-adb "
                          f"--require-encoder {encoder}, or make the env with the device's "
                          "encoder")


def _differences(reported: str | None, pair: PairConfig) -> dict[str, tuple[Any, Any]]:
    """Each of ``pair``'s settings that the device ``reported`` otherwise: (its, the env's).

    Empty when the report cannot be read as settings.
    """
    try:
        theirs = json.loads(reported or "{}")
    except ValueError:
        return {}
    if not isinstance(theirs, dict):
        return {}
    return {name: (theirs.get(name), ours) for name, ours in json.loads(pair.summary()).items()
            if theirs.get(name) != ours}

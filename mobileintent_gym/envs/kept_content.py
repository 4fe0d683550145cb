"""Episodes on a device that keeps its content (``ExecuteEnv(load_state=False)``).

Such a device carries what one episode did into the next: a track played moves to the top
of "Recently played", a sent reply stays in the chat, a new playlist stays in the library.

* **The virtual adb device** (``serve-adb --user``) restores the content it was served with
  when asked (``cmd mobileintent restore-state``, :mod:`mobileintent_gym.adbd.restore`); the
  env asks at every reset, so every episode starts from the same phone, and checks that the
  phone holds the episode's user's content.
* **A real device** cannot be restored: a reset only presses HOME and opens the task's app
  (the app's back stack, played tracks, sent messages and created playlists stay). The env
  warns once, and warns again before an episode whose task (template and target) an earlier
  episode already completed on this device, since its outcome may then be pre-satisfied or
  impossible to change.
"""

from __future__ import annotations

from typing import Any

from gymnasium import logger

from mobileintent_gym.adbd.restore import RESTORE_COMMAND
from mobileintent_gym.errors import DeviceError
from mobileintent_gym.tasks import TaskInstance


def restore(device: Any) -> str | None:
    """Ask ``device`` to restore its user's content; that user, or ``None`` if it cannot.

    A device without a shell, a real device (no such service) and a virtual device served
    without a user cannot.

    Raises:
        DeviceUnavailableError: When the device is gone.
    """
    shell = getattr(device, "shell", None)
    if shell is None:
        return None
    from mobileintent_gym.backends.adb_transport import DeviceCommandError

    try:
        answer = shell(RESTORE_COMMAND)
    except DeviceCommandError:
        return None
    return answer.strip().removeprefix("user:").strip()


class KeptContent:
    """Restores the device's content before each episode, or warns what may carry over."""

    def __init__(self) -> None:
        self.completed: set[tuple[str, str]] = set()  # (template, target) done on the device
        self._warned = False

    def finished(self, task: TaskInstance | None, success: bool) -> None:
        """Note how the previous episode ended (a completed task may stay completed)."""
        if task is not None and success:
            self.completed.add((task.template.id, task.record))

    def start(self, device: Any, task: TaskInstance) -> None:
        """Before ``task``'s episode: restore the device, or warn about what carries over.

        Raises:
            DeviceError: When the restored device holds another user's content.
        """
        user = restore(device)
        if user is not None:
            self.completed.clear()
            if user != task.user:
                raise DeviceError(
                    f"the device holds {user!r}'s content, the episode is {task.user!r}'s: "
                    f"serve-adb --user {task.user}, or evaluate --users {user}")
            return
        if not self._warned:
            self._warned = True
            logger.warn("the device keeps its content between episodes and cannot restore it: "
                        "what an episode does (tracks played, messages sent, playlists "
                        "made) stays for the next")
        if (task.template.id, task.record) in self.completed:
            logger.warn(f"{task.id} for {task.user}: an earlier episode on this device "
                        f"already completed {task.template.id} with {task.record}; its "
                        "outcome may be pre-satisfied")

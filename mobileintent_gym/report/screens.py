"""The screens of a recorded episode: re-rendered on the simulated phone, or read from disk.

A run on the simulated phone is deterministic, so its screens are rebuilt by resetting the
env as the run did (user, task, seed, content settings, screen size) and replaying the
recorded actions; the replay's task must have the recorded target and instruction, and every
replayed step must lead from and to the recorded routes for the recorded reward, else the
replay stops there and says so (another version, an edited file); a user whose profile
changed since the run, or whose content this process ranks with another model than the
run's, is not replayed at all. A run
on a real device cannot be replayed: ``evaluate --frames`` (or ``--html``) stores its
screens beside the results file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from mobileintent_gym.envs.execute import ExecuteEnv
from mobileintent_gym.errors import MobileIntentError, brief
from mobileintent_gym.users import PairConfig, resolve_profile
from mobileintent_gym.users.pair import profile_fingerprint


@dataclass
class Screens:
    """An episode's screens: before each step, then after the last one.

    Attributes:
        frames: The screens (fewer than steps + 1 when the replay stopped).
        problem: Why screens are missing or stop early, else ``None``.
    """

    frames: list[np.ndarray] = field(default_factory=list)
    problem: str | None = None


def is_simulated(provenance: dict[str, Any]) -> bool:
    """Whether the run was on the simulated phone (its screens can be re-rendered)."""
    return str(provenance.get("device", "sim")).startswith("sim")


class ScreenSource:
    """Gives the screens of a run's episodes (see the module notes).

    Args:
        provenance: The run's provenance.
        frames_dir: Folder the stored frames' paths are relative to (real devices).
    """

    def __init__(self, provenance: dict[str, Any], frames_dir: Path | None = None) -> None:
        self.provenance = provenance
        self.frames_dir = frames_dir
        self._env: ExecuteEnv | None = None

    def screens(self, episode: dict[str, Any]) -> Screens:
        """The screens of ``episode`` (a dict of the results file).

        What the file lacks or holds of another kind (a run of another version, an edited
        file: a field missing, a user or task unknown here) is the episode's ``problem``,
        not an error: the other episodes are still shown.
        """
        try:
            if not is_simulated(self.provenance):
                return self._stored(episode)
            return self._replayed(episode)
        except (MobileIntentError, LookupError, TypeError, ValueError) as err:
            user = episode.get("user")
            gone = self._gone_folder() if isinstance(user, str) and not self._found(user) else ""
            return Screens(problem=f"its screens cannot be rebuilt from the file: "
                           f"{type(err).__name__}: {err}{gone}")

    def close(self) -> None:
        """Release the replay phone."""
        if self._env is not None:
            self._env.close()

    def _stored(self, episode: dict[str, Any]) -> Screens:
        names = episode.get("frames") or []
        if not names or self.frames_dir is None:
            return Screens(problem="no screens were stored for this real-device run "
                           "(evaluate --frames stores them)")
        screens = Screens()
        for name in names:
            path = self.frames_dir / str(name)
            if not path.resolve().is_relative_to(self.frames_dir.resolve()):
                screens.problem = f"stored screen {name!r} lies outside the run's folder"
                return screens
            try:
                with Image.open(path) as image:
                    screens.frames.append(np.asarray(image.convert("RGB")))
            except OSError as err:  # missing, truncated, not an image
                screens.problem = (f"stored screen {str(path)!r} cannot be read ({err}); later "
                                   "screens are not shown")
                return screens
        return screens

    def _replayed(self, episode: dict[str, Any]) -> Screens:
        env = self._replay_env()
        other = self._other_content(episode["user"])
        if other is not None:
            return Screens(problem=other)
        info = env.reset(seed=episode["seed"], options={"user": episode["user"],
                                                        "task": episode["task"]})[1]
        other = _other_task(info, episode)
        if other is not None:
            return Screens(problem=other)
        screens = Screens([env.device.screenshot()])
        for n, step in enumerate(episode["steps"], start=1):
            if step.get("invalid") is None:  # refused actions changed nothing
                _, reward, _, _, info = env.step(step["action"])
                left = _left_the_run(n, reward, info, step)
                if left is not None:
                    screens.problem = f"{left}; later screens are not shown"
                    return screens
            screens.frames.append(env.device.screenshot())
        return screens

    def _other_content(self, user: str) -> str | None:
        """Why ``user``'s content here is not the run's, else ``None``: their profile changed.

        (Content this process ranks with another model than the run's is refused by the
        replay env itself: its ``require_encoder`` is the run's encoder.)
        """
        recorded = (self.provenance.get("profiles_content") or {}).get(user)
        folder = self._profiles_folder()
        if recorded is not None and recorded != profile_fingerprint(resolve_profile(user, folder)):
            return (f"the profile of {user!r} changed since the run (its content hash "
                    "differs): the replay would show another person's content, so no "
                    "screens are shown")
        return None

    def _profiles_folder(self) -> str | None:
        # Names are looked up where the run found them: in --profiles, else in the folder
        # the environment named then (the variable may be gone or changed). A folder gone
        # since (moved, another machine) is left out: built-in users still replay, and a
        # profile found elsewhere is checked against the run's by its content hash.
        folder = self._recorded_folder()
        return folder if folder and Path(folder).is_dir() else None

    def _recorded_folder(self) -> str | None:
        return self.provenance.get("profiles") or self.provenance.get("profiles_env")

    def _gone_folder(self) -> str:
        """A note that the run's profiles folder is gone (for a user not found), or ""."""
        folder = self._recorded_folder()
        if folder and self._profiles_folder() is None:
            return f" (the run's profiles folder {folder!r} is gone)"
        return ""

    def _found(self, user: str) -> bool:
        try:
            resolve_profile(user, self._profiles_folder())
        except MobileIntentError:
            return False
        return True

    def _replay_env(self) -> ExecuteEnv:
        if self._env is None:
            prov = self.provenance
            width, height = prov["screen"]
            # The users whose profiles are found: one not found fails its own episodes
            # only (where the env would have failed all of them).
            users = [user for user in prov["users"] if self._found(user)] or prov["users"]
            self._env = ExecuteEnv(f"sim:{width}x{height}", users=users,
                                   tasks=prov["tasks"], observation=("instruction",),
                                   pair=PairConfig(**prov["pair"]),
                                   profiles_dir=self._profiles_folder(),
                                   require_encoder=prov.get("encoder"))
        return self._env


def _other_task(info: dict[str, Any], episode: dict[str, Any]) -> str | None:
    """Why the replay's task is not the run's (its target or instruction differ), or ``None``.

    Content ranked by another encoder than the run's gives a task of the same id another
    target or wording.
    """
    for key in ("target", "instruction"):
        if key in episode and info[key] != episode[key]:
            return (f"the replay's task has another {key} ({brief(info[key])}, recorded "
                    f"{brief(episode[key])}): its content is not the run's, so no screens "
                    "are shown")
    return None


def _left_the_run(n: int, reward: float, info: dict[str, Any],
                  step: dict[str, Any]) -> str | None:
    """How replayed step ``n`` differs from the recorded one, or ``None`` when it does not.

    It must be taken, between the same routes, for the same reward: a tap that opens
    another record of the same list (content ranked otherwise) keeps the routes and not
    the reward.
    """
    event = info["event"]
    if event is None:  # a run of another version, or an edited file
        return f"the replay refused step {n}, which the run took ({info['invalid_action']})"
    if (event.route_before, event.route_after) != (step["route_before"], step["route_after"]):
        return (f"the replay left the recorded run at step {n} ({event.route_after!r}, "
                f"recorded {step['route_after']!r})")
    if "reward" in step and reward != step["reward"]:
        return (f"the replay left the recorded run at step {n} (reward {reward}, "
                f"recorded {step['reward']})")
    return None

"""The screens of a recorded episode: re-rendered on the simulated phone, or read from disk.

A run on the simulated phone is deterministic, so its screens are rebuilt by resetting the
env as the run did (user, task, seed, content settings, screen size) and replaying the
recorded actions; every replayed step must lead from and to the recorded routes, else the
replay stops there and says so (content ranked by another encoder, another version). A run
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
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.users import PairConfig


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
            return Screens(problem=f"its screens cannot be rebuilt from the file: "
                           f"{type(err).__name__}: {err}")

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
        env.reset(seed=episode["seed"], options={"user": episode["user"],
                                                 "task": episode["task"]})
        screens = Screens([env.device.screenshot()])
        for n, step in enumerate(episode["steps"], start=1):
            if step.get("invalid") is None:  # refused actions changed nothing
                info = env.step(step["action"])[4]
                event = info["event"]
                if event is None:  # a run of another version, or an edited file
                    screens.problem = (f"the replay refused step {n}, which the run took "
                                       f"({info['invalid_action']}); later screens are not "
                                       "shown")
                    return screens
                if (event.route_before, event.route_after) != (step["route_before"],
                                                               step["route_after"]):
                    screens.problem = (f"the replay left the recorded run at step {n} "
                                       f"({event.route_after!r}, recorded "
                                       f"{step['route_after']!r}); later screens are not shown")
                    return screens
            screens.frames.append(env.device.screenshot())
        return screens

    def _replay_env(self) -> ExecuteEnv:
        if self._env is None:
            prov = self.provenance
            width, height = prov["screen"]
            # Names are looked up where the run found them: in --profiles, else in the
            # folder the environment named then (the variable may be gone or changed).
            folder = prov.get("profiles") or prov.get("profiles_env")
            self._env = ExecuteEnv(f"sim:{width}x{height}", users=prov["users"],
                                   tasks=prov["tasks"], observation=("instruction",),
                                   pair=PairConfig(**prov["pair"]), profiles_dir=folder)
        return self._env

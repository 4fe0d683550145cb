"""``SB3VecEnv``: a Gymnasium vector env as stable-baselines3 steps one.

SB3 takes its own ``VecEnv`` (``DummyVecEnv``, ``SubprocVecEnv``), not Gymnasium 1.x's
``VectorEnv``: given ``SharedMemoryVectorEnv`` or ``gym.make_vec(...)`` it stops with
"not a Gymnasium environment". This adapter lets SB3 learn on them, the package's
shared-memory vector env included. The two APIs end episodes differently: a Gymnasium
vector env (next-step autoreset) returns an episode's last observation and resets that
sub-env at the next ``step``, taking that step's action for the reset; SB3 wants the
first observation of the next episode at once, the last one in
``info["terminal_observation"]``, and ``info["TimeLimit.truncated"]`` for a cut-off
episode. So the sub-envs that ended are reset right away (``reset_mask``), and each
step's ``info`` is Gymnasium's batched dict taken apart per sub-env.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from mobileintent_gym.checks import check_type
from mobileintent_gym.errors import require

VecEnv = require("stable_baselines3.common.vec_env", "rl").VecEnv


class SB3VecEnv(VecEnv):
    """A Gymnasium ``VectorEnv`` of next-step autoreset, as an SB3 ``VecEnv``.

    Args:
        venv: The vector env (closed with this one). Its sub-envs reset with no seed
            when their episode ends, as ``DummyVecEnv`` resets them.

    Raises:
        ValueError: For a vector env whose autoreset is not next-step (its ended episodes
            would be reset twice).
        InvalidArgumentError: For what is no vector env (a single env, say).

    Observations come back as arrays of their own, as SB3's vec envs give them (a
    vector env of ``copy=False`` overwrites its arrays at the next step, and SB3 keeps the
    last observation until after that step). ``env_method`` and ``set_attr`` reach every
    sub-env or none (the vector env has no call for some of them); ``get_attr`` of a
    method calls it, as the vector env's ``get_attr`` does (a method cannot come back
    from a worker process), and so does SB3's ``has_attr``; ``env_is_wrapped`` answers
    ``False`` (the wrappers live in the vector env's sub-envs, out of reach).
    """

    def __init__(self, venv: gym.vector.VectorEnv) -> None:
        check_type("SB3VecEnv's venv", venv, gym.vector.VectorEnv,
                   "a vector env (gym.make_vec, SharedMemoryVectorEnv)")
        mode = venv.metadata.get("autoreset_mode", gym.vector.AutoresetMode.NEXT_STEP)
        if str(getattr(mode, "value", mode)) != gym.vector.AutoresetMode.NEXT_STEP.value:
            raise ValueError(f"SB3VecEnv needs a vector env of next-step autoreset, got "
                             f"{mode!r}")
        self.venv = venv
        super().__init__(venv.num_envs, venv.single_observation_space,
                         venv.single_action_space)
        self._actions: Any = None

    def reset(self) -> Any:
        """Reset every sub-env, with the seeds and options given since the last reset."""
        options = self._options[0] if self._options else {}
        if any(other != options for other in self._options):
            raise ValueError(f"the sub-envs' reset options differ ({self._options}); a "
                             f"vector env resets every sub-env with the same options")
        seeds = None if all(s is None for s in self._seeds) else self._seeds
        obs, infos = self.venv.reset(seed=seeds, options=options or None)
        self.reset_infos = unbatched_infos(infos, self.num_envs)
        self._reset_seeds()
        self._reset_options()
        return _owned(obs)

    def step_async(self, actions: np.ndarray) -> None:
        """Keep ``actions`` for :meth:`step_wait`."""
        self._actions = actions

    def step_wait(self) -> tuple[Any, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Step every sub-env; one that ended returns the next episode's first observation."""
        obs, rewards, terminated, truncated, infos = self.venv.step(self._actions)
        obs, dones = _owned(obs), np.logical_or(terminated, truncated)
        infos = unbatched_infos(infos, self.num_envs)
        for index in np.flatnonzero(dones):
            infos[index]["terminal_observation"] = _row(obs, index)
        for index, info in enumerate(infos):
            info["TimeLimit.truncated"] = bool(truncated[index] and not terminated[index])
        if dones.any():
            first, reset_infos = self.venv.reset(options={"reset_mask": dones})
            _splice(obs, first, dones)
            for index, info in enumerate(unbatched_infos(reset_infos, self.num_envs)):
                if dones[index]:
                    self.reset_infos[index] = info
        return obs, np.asarray(rewards, np.float32), dones, infos

    def close(self) -> None:
        """Close the vector env."""
        self.venv.close()

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        """The attribute of each sub-env of ``indices`` (default: all)."""
        values = self.venv.get_attr(attr_name)
        return [values[i] for i in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        """Set the attribute to ``value`` in every sub-env (``indices`` must name all)."""
        self._every("set_attr", indices)
        self.venv.set_attr(attr_name, [value] * self.num_envs)  # a list is one per sub-env

    def get_images(self) -> list[np.ndarray | None]:
        """Each sub-env's frame (``render_mode="rgb_array"``), for ``render`` and videos."""
        frames = self.venv.render()
        return [None] * self.num_envs if frames is None else list(frames)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None,
                   **method_kwargs: Any) -> list[Any]:
        """Call the method of every sub-env (``indices`` must name all of them)."""
        self._every("env_method", indices)
        return list(self.venv.call(method_name, *method_args, **method_kwargs))

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        """``False`` for each sub-env of ``indices``: their wrappers are out of reach."""
        return [False for _ in self._get_indices(indices)]

    def _every(self, what: str, indices: Any) -> None:
        if sorted(self._get_indices(indices)) != list(range(self.num_envs)):
            raise ValueError(f"{what} reaches every sub-env of a vector env or none, got "
                             f"indices {indices!r}")


def unbatched_infos(infos: dict[str, Any], count: int) -> list[dict[str, Any]]:
    """Gymnasium's batched ``info`` (arrays, with ``_key`` masks) as one dict per sub-env.

    A key is in a sub-env's dict where its mask says that sub-env gave it; nested dicts
    are taken apart the same way.
    """
    out: list[dict[str, Any]] = [{} for _ in range(count)]
    for key, values in infos.items():
        if key.startswith("_") and key[1:] in infos:
            continue
        given = infos.get(f"_{key}", np.ones(count, bool))
        parts = (unbatched_infos(values, count) if isinstance(values, dict)
                 else [v.item() if isinstance(v, np.generic) else v for v in values])
        for index in _given(given):
            out[index][key] = parts[index]
    return out


def _given(mask: Iterable[bool]) -> list[int]:
    return [index for index, given in enumerate(mask) if given]


def _row(obs: Any, index: int) -> Any:
    """Sub-env ``index``'s observation out of a batch (a dict of arrays, or an array)."""
    if isinstance(obs, dict):
        return {key: _row(value, index) for key, value in obs.items()}
    row = obs[index]
    return row if isinstance(row, str) else np.array(row, copy=True)  # a text as the batch's


def _owned(obs: Any) -> Any:
    """A batch of observations (a dict of arrays, or an array) copied into new arrays.

    Texts go into an array of objects: one of fixed width (this step's longest) would cut
    the next episode's longer text spliced into it.
    """
    if isinstance(obs, dict):
        return {key: _owned(value) for key, value in obs.items()}
    if isinstance(obs, tuple) and all(isinstance(text, str) for text in obs):
        return np.array(obs, dtype=object)
    return np.array(obs, copy=True)


def _splice(obs: Any, first: Any, rows: Sequence[bool]) -> None:
    """Write the rows of ``rows`` of ``first`` (a batch of the same space) into ``obs``."""
    if isinstance(obs, dict):
        for key in obs:
            _splice(obs[key], first[key], rows)
        return
    obs[np.asarray(rows)] = np.asarray(first, dtype=obs.dtype)[np.asarray(rows)]

"""The worker side of :class:`~mobileintent_gym.envs.vector.SharedMemoryVectorEnv`.

Each worker process holds one env. The observation's array fields (the top-level ``Box``
spaces of a ``Dict``, or a ``Box`` observation itself) go into shared memory, one batched
array per field with a row per worker; everything else (text, the reward, the flags and
``info``) goes through the worker's pipe.
"""

from __future__ import annotations

import io
import pickle
import traceback
from dataclasses import dataclass
from multiprocessing import shared_memory
from multiprocessing.connection import Connection
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from mobileintent_gym.errors import MobileIntentError

WHOLE = ""  # the field name of a Box observation that is shared as a whole


class WorkerError(MobileIntentError):
    """A vector env's worker failed or died; the message names it and what happened."""


@dataclass
class SharedFrames:
    """Batched arrays in shared memory, one per array field of the observation.

    Attributes:
        arrays: Field name (``WHOLE`` for a Box observation) → ``(num_envs, *shape)`` array.
        layout: Field name → (shared memory name, shape, dtype), what a worker attaches.
    """

    arrays: dict[str, np.ndarray]
    layout: dict[str, tuple[str, tuple[int, ...], str]]
    _blocks: list[shared_memory.SharedMemory]

    @classmethod
    def create(cls, space: gym.Space, num_envs: int) -> SharedFrames:
        """Allocate the arrays of ``space``'s array fields for ``num_envs`` workers."""
        frames = cls({}, {}, [])
        for name, box in shared_fields(space).items():
            shape = (num_envs, *box.shape)
            size = max(1, int(np.prod(shape)) * box.dtype.itemsize)
            block = shared_memory.SharedMemory(create=True, size=size)
            frames._add(name, block, shape, box.dtype)
        return frames

    @classmethod
    def attach(cls, layout: dict[str, tuple[str, tuple[int, ...], str]]) -> SharedFrames:
        """The arrays that :meth:`create` allocated in another process."""
        frames = cls({}, {}, [])
        for name, (block_name, shape, dtype) in layout.items():
            frames._add(name, shared_memory.SharedMemory(name=block_name), shape, dtype)
        return frames

    def _add(self, name: str, block: shared_memory.SharedMemory, shape: tuple[int, ...],
             dtype: Any) -> None:
        self._blocks.append(block)
        self.arrays[name] = np.ndarray(shape, np.dtype(dtype), buffer=block.buf)
        self.layout[name] = (block.name, shape, np.dtype(dtype).str)

    def store(self, index: int, observation: Any) -> Any:
        """Write the array fields of ``observation`` to row ``index``; the rest is returned."""
        if WHOLE in self.arrays:
            self.arrays[WHOLE][index] = observation
            return None
        for name, array in self.arrays.items():
            array[index] = observation[name]
        return {k: v for k, v in observation.items() if k not in self.arrays}

    def close(self, unlink: bool = False) -> None:
        """Let go of the memory; ``unlink`` frees it (the creator does, once)."""
        self.arrays.clear()
        for block in self._blocks:
            block.close()
            if unlink:
                block.unlink()
        self._blocks.clear()


def shared_fields(space: gym.Space) -> dict[str, spaces.Box]:
    """The fields of an observation space that go into shared memory."""
    if isinstance(space, spaces.Box):
        return {WHOLE: space}
    if isinstance(space, spaces.Dict):
        return {k: s for k, s in space.spaces.items() if isinstance(s, spaces.Box)}
    return {}


class _SpacePickler(pickle.Pickler):
    """Pickles a Box of uniform bounds as its bounds instead of two full arrays.

    A 1080×2400 screenshot space would otherwise pickle 15 MB of bounds.
    """

    def reducer_override(self, obj: Any) -> Any:
        if (type(obj) is spaces.Box and obj.low.size and (obj.low == obj.low.flat[0]).all()
                and (obj.high == obj.high.flat[0]).all()):
            return spaces.Box, (obj.low.flat[0], obj.high.flat[0], obj.shape, obj.dtype)
        return NotImplemented


def pack_spaces(*found: gym.Space) -> bytes:
    """Pickle spaces compactly (see ``_SpacePickler``); ``pickle.loads`` reads them."""
    buffer = io.BytesIO()
    _SpacePickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(found)
    return buffer.getvalue()


def run(index: int, env_fn: Any, pipe: Connection, parent_pipe: Connection) -> None:
    """A worker's life: build the env, report its spaces, attach the frames, serve.

    Args:
        index: The worker's row in the shared arrays.
        env_fn: Builds the env (wrapped for cloudpickle).
        pipe: This worker's end of its pipe.
        parent_pipe: The parent's end, closed here.
    """
    parent_pipe.close()
    env, frames = None, None
    try:
        env = env_fn()
        pipe.send(("ok", pack_spaces(env.observation_space, env.action_space)))
        command, layout = pipe.recv()
        if command != "attach":  # closed before it started
            pipe.send(("ok", None))
            return
        frames = SharedFrames.attach(layout)
        serve(index, env, frames, pipe)
    except (KeyboardInterrupt, EOFError):
        pass
    except Exception as err:
        pipe.send(("error", portable(err)))
    finally:
        if frames is not None:
            frames.close()
        if env is not None:
            env.close()
        pipe.close()


def serve(index: int, env: gym.Env, frames: SharedFrames, pipe: Connection) -> None:
    """Answer the parent's commands until ``close``, with next-step autoreset.

    ``step`` after an episode ended resets the env instead (reward 0, not terminated, not
    truncated), as Gymnasium's vector envs do by default. What a command returned is let go
    of once it is sent, so the env's device may draw the next frame over its own.
    """
    autoreset, rest = False, None
    while True:
        observation = info = reply = None
        command, data = pipe.recv()
        if command == "close":
            pipe.send(("ok", None))
            return
        try:
            if command == "reset":
                observation, info = env.reset(**data)
                autoreset, rest = False, frames.store(index, observation)
                reply: Any = (rest, info)
            elif command == "keep":  # not in a partial reset's mask
                reply = (rest, {})
            elif command == "step":
                if autoreset:
                    observation, info = env.reset()
                    reward, terminated, truncated = 0.0, False, False
                else:
                    observation, reward, terminated, truncated, info = env.step(data)
                autoreset, rest = terminated or truncated, frames.store(index, observation)
                reply = (rest, reward, terminated, truncated, info)
            else:  # call
                name, args, kwargs = data
                attr = env.get_wrapper_attr(name)
                reply = attr(*args, **kwargs) if callable(attr) else attr
            pipe.send(("ok", reply))
        except Exception as err:
            pipe.send(("error", portable(err)))


def portable(err: Exception) -> tuple[Exception, str]:
    """The error, or a ``WorkerError`` naming it when it cannot be pickled, and its trace."""
    trace = "".join(traceback.format_exception(type(err), err, err.__traceback__))
    try:
        pickle.loads(pickle.dumps(err))
    except Exception:
        return WorkerError(f"{type(err).__name__}: {err}"), trace
    return err, trace

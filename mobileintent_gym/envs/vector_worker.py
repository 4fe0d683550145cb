"""The worker side of :class:`~mobileintent_gym.envs.vector.SharedMemoryVectorEnv`.

Each worker process holds one env or several, stepped one after the other. The
observation's array fields (the top-level ``Box`` spaces of a ``Dict``, or a ``Box``
observation itself) go into shared memory, one batched array per field with a row per
env; everything else (text, the reward, the flags and ``info``) goes through the worker's
pipe. An env that declares that it keeps no screenshot (``keeps_screenshots = False``) and
shows a simulated phone (``env.unwrapped.device`` has ``draw_into``) has its screenshots
drawn straight into its row of shared memory instead of copied there.

On Linux a worker (and whatever it starts) runs under the ``SCHED_BATCH`` policy: waking
it (the parent sending it a command) does not hand it the parent's core at once. Without
it, the parent's send to the first worker let that worker take over the parent's core
and the other workers' commands waited for it: 116 µs per send instead of 12 with two
workers on two cores.
"""

from __future__ import annotations

import errno
import io
import logging
import os
import pickle
import signal
import traceback
import weakref
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext, suppress
from dataclasses import dataclass
from multiprocessing import shared_memory
from multiprocessing.connection import Connection
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.wrappers import OrderEnforcing, PassiveEnvChecker, TimeLimit

from mobileintent_gym.distributed.heap import HeapTrimmer
from mobileintent_gym.distributed.threads import limit_loaded_libraries
from mobileintent_gym.envs.checker import reset as checked_reset
from mobileintent_gym.envs.checker import wrappers
from mobileintent_gym.envs.vector_wire import dumps
from mobileintent_gym.errors import MobileIntentError, brief
from mobileintent_gym.held import held

WHOLE = ""  # the field name of a Box observation that is shared as a whole
SHM_DIR = "/dev/shm"  # where Linux keeps shared memory
_log = logging.getLogger(__name__)


class WorkerError(MobileIntentError):
    """A vector env's worker failed or died; the message names it and what happened."""


class SharedMemoryFullError(MobileIntentError):
    """Shared memory has no room for another batch of observations."""


def _reserve(block: shared_memory.SharedMemory) -> bool:
    """Allocate the pages of a new block now; whether there was room (or memory) for them.

    ``/dev/shm`` (tmpfs) gives a block its pages when they are first written, and a write
    that finds it full kills the writer with SIGBUS; reserving them here turns that into
    an error at creation. Where shared memory is not a file in ``/dev/shm`` (not Linux)
    nothing is reserved.
    """
    path = os.path.join(SHM_DIR, block.name.lstrip("/"))
    if not (hasattr(os, "posix_fallocate") and os.path.exists(path)):
        return True
    descriptor = os.open(path, os.O_RDWR)
    try:
        os.posix_fallocate(descriptor, 0, block.size)
    except OSError as err:
        if err.errno not in (errno.ENOSPC, errno.ENOMEM):
            raise
        return False
    finally:
        os.close(descriptor)
    return True


class _Mapped:
    """A shared-memory block that stays mapped while any array over it lives.

    At exit the OS unmaps it: closing it in the finalizers' exit hook would pull it from
    under a later exit hook's reads.
    """

    def __init__(self, block: shared_memory.SharedMemory) -> None:
        self.block, self._arrays = block, 0

    def array(self, shape: tuple[int, ...], dtype: Any, offset: int = 0) -> np.ndarray:
        """An array over the block; views of it keep it alive (not another array's)."""
        array = np.ndarray(shape, np.dtype(dtype), buffer=self.block.buf, offset=offset)
        self._arrays += 1
        weakref.finalize(array, self._release).atexit = False
        return array

    def _release(self) -> None:
        self._arrays -= 1
        if not self._arrays:
            self.block.close()


@dataclass
class SharedFrames:
    """Batched arrays in shared memory, one per array field of the observation.

    Attributes:
        arrays: Field name (``WHOLE`` for a Box observation) → ``(num_envs, *shape)`` array.
        layout: Field name → (shared memory name, shape, dtype), what a worker attaches.
    """

    arrays: dict[str, np.ndarray]
    layout: dict[str, tuple[str, tuple[int, ...], str]]
    _blocks: dict[str, _Mapped]

    @classmethod
    def create(cls, space: gym.Space, num_envs: int) -> SharedFrames:
        """Allocate the arrays of ``space``'s array fields for ``num_envs`` workers.

        Raises:
            SharedMemoryFullError: When ``/dev/shm`` has no room for them (a worker
                writing there would be killed by SIGBUS); nothing is kept.
        """
        boxes = shared_fields(space)
        sizes = {name: max(1, int(np.prod((num_envs, *box.shape))) * box.dtype.itemsize)
                 for name, box in boxes.items()}
        frames = cls({}, {}, {})
        try:
            for name, box in boxes.items():
                block = shared_memory.SharedMemory(create=True, size=sizes[name])
                frames._add(name, block, (num_envs, *box.shape), box.dtype)
                if not _reserve(block):
                    break
            else:
                return frames
        except BaseException:
            frames.close(unlink=True)
            raise
        frames.close(unlink=True)
        found = os.statvfs(SHM_DIR)  # once this batch's blocks are freed again
        raise SharedMemoryFullError(
            f"a batch of {num_envs} observations needs {sum(sizes.values()) / 2**20:.1f} "
            f"MiB of shared memory and {SHM_DIR} has "
            f"{found.f_bavail * found.f_frsize / 2**20:.1f} MiB free: give it more "
            f"(Docker: --shm-size) or use fewer envs")

    @classmethod
    def attach(cls, layout: dict[str, tuple[str, tuple[int, ...], str]]) -> SharedFrames:
        """The arrays that :meth:`create` allocated in another process."""
        frames = cls({}, {}, {})
        for name, (block_name, shape, dtype) in layout.items():
            frames._add(name, shared_memory.SharedMemory(name=block_name), shape, dtype)
        return frames

    def _add(self, name: str, block: shared_memory.SharedMemory, shape: tuple[int, ...],
             dtype: Any) -> None:
        self._blocks[name] = _Mapped(block)
        self.arrays[name] = self._blocks[name].array(shape, dtype)
        self.layout[name] = (block.name, shape, np.dtype(dtype).str)

    def row(self, name: str, index: int) -> np.ndarray:
        """Row ``index`` of field ``name`` as an array of its own (views of it hold it)."""
        array = self.arrays[name]
        return self._blocks[name].array(array.shape[1:], array.dtype, index * array.strides[0])

    def held(self) -> bool:
        """Whether anything but this object holds one of the arrays (a caller was given it)."""
        # By name: a loop variable bound to an array would be one more holder.
        return any(held(self.arrays[name]) for name in self.arrays)

    def store(self, index: int, observation: Any) -> tuple[Any, list[str]]:
        """Write the array fields of ``observation`` to row ``index``.

        An array that is that row already (drawn there) is left as it is.

        Returns:
            The other fields (``None`` for a Box observation; the whole observation where
            nothing is shared, a ``Discrete`` one say) and the fields copied.

        Raises:
            ValueError: Naming a field the observation lacks or has in another shape than
                its space's (nothing is written then).
        """
        whole = WHOLE in self.arrays
        fields = {WHOLE: observation} if whole else observation
        if not isinstance(fields, dict):
            return observation, []
        for name, array in self.arrays.items():
            _check_field(name, array.shape[1:], fields)
        copied = [name for name, array in self.arrays.items()
                  if _put(array, index, fields[name])]
        return None if whole else {k: v for k, v in fields.items()
                                   if k not in self.arrays}, copied

    def copy_row(self, index: int, source: SharedFrames) -> None:
        """Row ``index`` of every array, from ``source`` (a batch of the same layout)."""
        for name, array in self.arrays.items():
            array[index] = source.arrays[name][index]

    def close(self, unlink: bool = False) -> None:
        """Let go of the memory; ``unlink`` frees its name (the creator does, once).

        A block is unmapped once no array or view of it is left, so an observation held
        after its env was closed stays readable.
        """
        self.arrays.clear()
        for mapped in self._blocks.values():
            if unlink:
                with suppress(FileNotFoundError):  # removed by someone else (RemoveIPC)
                    mapped.block.unlink()
        self._blocks.clear()


def _check_field(name: str, shape: tuple[int, ...], fields: dict[str, Any]) -> None:
    """Raise unless ``fields`` has ``name`` in ``shape`` (numpy would broadcast it in)."""
    what = "the observation" if name == WHOLE else f"observation field {name!r}"
    if name not in fields:
        raise ValueError(f"{what} is missing, which the observation space has")
    if np.shape(fields[name]) != shape:
        raise ValueError(f"{what} has shape {np.shape(fields[name])}, not {shape} as the "
                         "observation space says")


def _put(array: np.ndarray, index: int, value: Any) -> bool:
    """``array[index] = value``, unless ``value`` is that row itself; whether it copied."""
    if (isinstance(value, np.ndarray) and value.shape == array.shape[1:]
            and value.strides == array.strides[1:]
            and value.__array_interface__["data"][0]
            == array.__array_interface__["data"][0] + index * array.strides[0]):
        return False
    array[index] = value
    return True


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
            low, high = obj.low.flat[0], obj.high.flat[0]
            if obj.dtype == np.bool_:  # an action mask's: Box takes 0 and 1, not bools
                low, high = int(low), int(high)
            return spaces.Box, (low, high, obj.shape, obj.dtype)
        return NotImplemented


def pack_spaces(*found: gym.Space) -> bytes:
    """Pickle spaces compactly (see ``_SpacePickler``); ``pickle.loads`` reads them."""
    buffer = io.BytesIO()
    _SpacePickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(found)
    return buffer.getvalue()


_PASSING = (TimeLimit, OrderEnforcing, PassiveEnvChecker)
"""Wrappers that keep no observation, so frames can be drawn in shared memory under them."""
SCREENSHOT_FIELDS = ("screenshot", WHOLE)
"""Where a device's screenshots may be drawn: by name, as another field of the frame's
shape and type (a goal image, a mask) holds something else."""


class _Canvases:
    """This worker's rows of shared memory, used as canvases by its env's simulated phone.

    Only while a ``reset``/``step`` writes a batch are its screenshots drawn there, so a
    frame drawn at any other time (``render()``, a ``call``) never lands in a batch the
    parent has handed out. An env that may keep its screenshots, one without such a phone,
    one whose screenshots are no field of :data:`SCREENSHOT_FIELDS`, or one wrapped in
    anything but ``_PASSING`` (a frame stack would see the frames it keeps drawn over)
    draws nothing here: its frames are copied. So are the frames Gymnasium's env checker
    compares (the first reset's and first two steps'): it would take a later frame drawn
    into the row of one it keeps for a buffer the env reuses.
    """

    def __init__(self, env: gym.Env, index: int) -> None:
        device = getattr(env.unwrapped, "device", None)
        self._field = None  # the shared field that holds the device's screenshots
        if (getattr(env.unwrapped, "keeps_screenshots", True) is False
                and callable(getattr(device, "draw_into", None)) and _passing(env)):
            shape, boxes = (device.height, device.width, 3), shared_fields(env.observation_space)
            self._field = next((name for name in SCREENSHOT_FIELDS if name in boxes
                                and boxes[name].shape == shape
                                and boxes[name].dtype == np.uint8), None)
        self._env, self._device, self._index, self._keys = env, device, index, set()
        self._checked = False  # the env checker has compared what it compares

    def add(self, number: int, frames: SharedFrames) -> None:
        """Draw into this worker's row of ``frames`` (batch ``number``); again once written."""
        if self._field is not None:
            self._device.add_canvas(number, frames.row(self._field, self._index))
            self._keys.add(number)

    def store(self, batches: dict[int, SharedFrames], number: int, observation: Any) -> Any:
        """Store ``observation`` in this worker's row of batch ``number``; the other fields.

        A screenshot that was not drawn in place (the canvas was held, or a wrapper changed
        the frame) is copied there, and the canvas forgets what it showed.
        """
        rest, copied = batches[number].store(self._index, observation)
        if number in self._keys and self._field in copied:
            self.add(number, batches[number])
        return rest

    def drawing_into(self, number: int) -> AbstractContextManager[None]:
        """Screenshots taken inside go to batch ``number``'s row."""
        if number not in self._keys:
            return nullcontext()
        self._checked = self._checked or not _checker_compares(self._env)
        return _DrawingInto(self._device, number) if self._checked else nullcontext()


class _DrawingInto:
    """The device draws into canvas ``number`` inside; an error passes through untouched.

    Not a ``contextlib.contextmanager``: re-raising an error, that sets its
    ``__traceback__``, which an error type refusing attributes (a frozen dataclass) turns
    into another error, hiding the env's.
    """

    def __init__(self, device: Any, number: int) -> None:
        self._device, self._number = device, number

    def __enter__(self) -> None:
        self._device.draw_into(self._number)

    def __exit__(self, *exc_info: Any) -> None:
        self._device.draw_into(None)


def _checker_compares(env: gym.Env) -> bool:
    """Whether a Gymnasium env checker around ``env`` has observations left to compare.

    Gymnasium 1.4's compares the first reset's with the first step's, and that with the
    second's, for shared buffers; earlier versions compare none.
    """
    return any(isinstance(wrapper, PassiveEnvChecker)
               and getattr(wrapper, "checked_data_reuse", True) is False
               for wrapper in wrappers(env))


def _passing(env: gym.Env) -> bool:
    """Whether every wrapper around ``env``'s core is one of ``_PASSING``."""
    return all(type(wrapper) in _PASSING for wrapper in wrappers(env))


def _place(index: int, cpu: int | None) -> None:
    """Pin this worker to ``cpu`` (unless ``None``) and run it under ``SCHED_BATCH``.

    Raises:
        ValueError: When this worker may not run on ``cpu`` (outside its cgroup's set).
    """
    if cpu is not None:
        try:
            os.sched_setaffinity(0, {cpu})
        except OSError as err:
            raise ValueError(f"cannot pin worker {index} to CPU {cpu}: {err.strerror}") from err
    # A sandbox may refuse it: the worker runs all the same, only less well placed.
    with suppress(OSError):
        if hasattr(os, "SCHED_BATCH"):
            os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))


CLOSE = "close"
"""The message that ends a worker: it answers, closes its envs and exits."""
FAILURES = (Exception, SystemExit, KeyboardInterrupt)
"""What env code may raise that is reported to the parent: ``sys.exit("reason")`` in an
env is its error, not the worker's silent end (the worker ignores SIGINT, so a
KeyboardInterrupt can only come from code raising it)."""


def run(worker: int, first: int, env_fns: list[Any], pipe: Connection,
        parent_pipe: Connection, cpu: int | None = None) -> None:
    """A worker's life: place it, build its envs, report their spaces, serve.

    Args:
        worker: The worker's number.
        first: The row of its first env in the shared arrays; its other envs' follow.
        env_fns: Build its envs, one each (each wrapped for cloudpickle).
        pipe: This worker's end of its pipe.
        parent_pipe: The parent's end, closed here.
        cpu: The CPU to pin the worker (and every thread and process it starts) to.
    """
    parent_pipe.close()
    # A terminal's Ctrl-C (and a notebook's interrupt) reaches the whole process group: it is
    # the parent's to handle. The worker finishes its command; close() or EOF ends it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    envs: list[gym.Env] = []
    batches: dict[int, SharedFrames] = {}
    try:
        _place(worker, cpu)
        limit_loaded_libraries()  # those a forked worker has from its parent
        pipe.send(build(env_fns, envs))
        if len(envs) == len(env_fns):
            serve(first, envs, batches, pipe)
    except EOFError:
        pass
    except FAILURES as err:  # the worker fails as a whole: one answer for every env named
        with suppress(OSError):  # a parent that died (SIGKILL) hears nothing
            pipe.send(("error", portable(err)))
    finally:
        for frames in batches.values():
            frames.close()
        try:
            clean = close_all(envs)
        finally:
            pipe.close()
    if not clean:
        raise SystemExit(1)  # its exit code says so; the errors are logged


def close_all(envs: list[gym.Env]) -> bool:
    """Close every env of a worker; whether all closed without an error (each is logged).

    Not raised: an env's failing ``close()`` would otherwise leave the envs after it
    unclosed, and replace the error that ended the vector env (its constructor's, a
    step's). What is no error (a Ctrl-C) is raised once the other envs are closed.
    """
    clean, interrupted = True, None
    for env in envs:
        try:
            env.close()
        except Exception:
            _log.exception("closing an env of a vector env's worker failed")
            clean = False
        except BaseException as err:
            interrupted = interrupted or err
    if interrupted is not None:
        raise interrupted
    return clean


def build(env_fns: Sequence[Callable[[], gym.Env]], envs: list[gym.Env]
          ) -> list[tuple[str, Any]]:
    """Build a worker's envs into ``envs``; the worker's first answer.

    Returns:
        Each env's spaces (packed by :func:`pack_spaces`), or, when one cannot be built,
        its error for it and every env after it (``envs`` then holds those built before).
    """
    try:
        for env_fn in env_fns:
            envs.append(_an_env(env_fn()))
    except FAILURES as err:  # the first env not built names why; those after it too
        failed = ("error", portable(err))
        return [("ok", None)] * len(envs) + [failed] * (len(env_fns) - len(envs))
    return [("ok", pack_spaces(env.observation_space, env.action_space)) for env in envs]


def _an_env(made: Any) -> gym.Env:
    """What an env function made, when it is an env (has spaces, reset, step and close).

    Raises:
        WorkerError: Naming what it made instead.
    """
    if not all(hasattr(made, name) for name in _ENV_PARTS):
        raise WorkerError(f"an env function made {type(made).__name__} {brief(made, 60)}, "
                          f"not an env (with {', '.join(_ENV_PARTS)})")
    return made


_ENV_PARTS = ("observation_space", "action_space", "reset", "step", "close")


def closed_answer(count: int) -> list[tuple[str, Any]]:
    """A worker's answer to :data:`CLOSE` for its ``count`` envs (which it closes next)."""
    return [("ok", None)] * count


@dataclass
class _Held:
    """One env of a worker and what the worker keeps of it between commands."""

    env: gym.Env
    index: int  # its row in the shared arrays
    canvases: _Canvases
    autoreset: bool = False  # its episode ended: the next step resets it
    rest: Any = None  # what its last observation sent through the pipe
    last: int = 0  # the batch its last observation went to


def serve(first: int, envs: list[gym.Env], batches: dict[int, SharedFrames],
          pipe: Connection) -> None:
    """Answer the parent's messages until :data:`CLOSE`, with next-step autoreset.

    A message lists ``(env, command, data)`` for envs of this worker (``env`` counts from
    0; the rows in the shared arrays from ``first``), stepped one after the other and
    answered together: one ``(status, payload)`` each, in order (or, when the worker
    fails as a whole and ends, one ``("error", …)`` for all of them). ``reset``, ``step`` and
    ``keep`` name the batch (a key of ``batches``) the observation goes to; ``keep`` copies
    the env's row there from the batch it last wrote; ``attach`` adds (or replaces) a
    batch. ``step`` after an episode ended resets the env instead (reward 0, not
    terminated, not truncated), as Gymnasium's vector envs do by default. What a command
    returned is let go of once it is sent, so the env's device may draw the next frame
    over its own; then, at most once a second, the freed heap goes back to the OS
    (:class:`~mobileintent_gym.distributed.heap.HeapTrimmer`).
    """
    served = Served(first, envs, batches)
    trim = HeapTrimmer()
    while True:
        message = pipe.recv()
        if message == CLOSE:
            pipe.send(closed_answer(len(envs)))
            return
        pipe.send_bytes(encoded(served.answer(message)))
        trim()


class Served:
    """A worker's envs as it serves them, and what it keeps of each between messages.

    Args:
        first: The row of the first env in the shared arrays; the other envs' follow.
        envs: The envs.
        batches: The shared-memory batches attached (``attach`` adds to it).
    """

    def __init__(self, first: int, envs: list[gym.Env], batches: dict[int, SharedFrames]
                 ) -> None:
        self._held = [_Held(env, first + j, _Canvases(env, first + j))
                      for j, env in enumerate(envs)]
        self._batches = batches
        for one in self._held:
            for number, frames in batches.items():
                one.canvases.add(number, frames)

    def answer(self, message: list[tuple[int, str, Any]]) -> list[tuple[str, Any]]:
        """Each ``(env, command, data)`` of ``message`` carried out (see :func:`serve`)."""
        return [_answer(self._held[j], self._batches, command, data)
                for j, command, data in message]


def encoded(answers: list[tuple[str, Any]]) -> memoryview:
    """The answers pickled for the parent (:func:`~.vector_wire.dumps`).

    One that cannot be pickled (a lock in an ``info``) becomes an error naming why, and
    the others go as they are: the worker and its envs go on.
    """
    try:
        return dumps(answers)
    except Exception:
        return dumps([_sendable(answer) for answer in answers])


def _sendable(answer: tuple[str, Any]) -> tuple[str, Any]:
    try:
        dumps(answer)
    except Exception as err:
        return "error", portable(err)
    return answer


def _answer(held: _Held, batches: dict[int, SharedFrames], command: str, data: Any
            ) -> tuple[str, Any]:
    """One env's answer to one command (see :func:`serve`): its status and payload."""
    try:
        return "ok", _COMMANDS.get(command, _call)(held, batches, data)
    except FAILURES as err:
        return "error", portable(err)


def _reset(held: _Held, batches: dict[int, SharedFrames], data: Any) -> Any:
    batch, kwargs = data
    with held.canvases.drawing_into(batch):
        observation, info = checked_reset(held.env, **kwargs)
    rest = held.canvases.store(batches, batch, observation)
    held.autoreset, held.rest, held.last = False, rest, batch
    return rest, info


def _keep(held: _Held, batches: dict[int, SharedFrames], batch: int) -> Any:
    """Not in a partial reset's mask: the env's row follows into ``batch``."""
    if batch != held.last:
        batches[batch].copy_row(held.index, batches[held.last])
        held.canvases.add(batch, batches[batch])
    held.last = batch
    return held.rest, {}


def _step(held: _Held, batches: dict[int, SharedFrames], data: Any) -> Any:
    batch, action = data
    with held.canvases.drawing_into(batch):
        if held.autoreset:
            observation, info = held.env.reset()
            reward, terminated, truncated = 0.0, False, False
        else:
            observation, reward, terminated, truncated, info = held.env.step(action)
    held.autoreset = terminated or truncated
    held.rest = held.canvases.store(batches, batch, observation)
    held.last = batch
    return held.rest, reward, terminated, truncated, info


def _attach(held: _Held, batches: dict[int, SharedFrames], data: Any) -> None:
    """Batch ``number`` of ``layout``: attached once per worker, a canvas for each env."""
    number, layout = data
    if number not in batches or batches[number].layout != layout:
        if number in batches:
            batches[number].close()
        batches[number] = SharedFrames.attach(layout)
    held.canvases.add(number, batches[number])


def _set_attr(held: _Held, batches: dict[int, SharedFrames], data: Any) -> None:
    held.env.set_wrapper_attr(*data)


def _call(held: _Held, batches: dict[int, SharedFrames], data: Any) -> Any:
    name, args, kwargs = data
    attr = held.env.get_wrapper_attr(name)
    return attr(*args, **kwargs) if callable(attr) else attr


_COMMANDS = {"reset": _reset, "keep": _keep, "step": _step, "attach": _attach,
             "set_attr": _set_attr}
"""What each command does; any other is a ``call``."""


def portable(err: BaseException) -> tuple[Exception, str]:
    """The error, or a ``WorkerError`` naming it, and its trace.

    The ``WorkerError`` stands for an error that cannot be pickled, and for a SystemExit or
    KeyboardInterrupt, which raised as they are would end or interrupt the parent.
    """
    trace = "".join(traceback.format_exception(type(err), err, err.__traceback__))
    if not isinstance(err, Exception):
        return WorkerError(f"{type(err).__name__}: {err}"), trace
    try:
        pickle.loads(pickle.dumps(err))
    except Exception:
        return WorkerError(f"{type(err).__name__}: {err}"), trace
    return err, trace

"""A vector env of worker processes that hand their screenshots over in shared memory.

Gymnasium's ``AsyncVectorEnv`` either pickles every observation through a pipe (a
1080×2400 screenshot is 7.8 MB) or, with ``shared_memory=True``, puts every field in
shared memory, text too (read at each step through :class:`~.spaces.SharedTexts`: its own
reader reads text there once, when it is built).
:class:`SharedMemoryVectorEnv` puts only the observation's arrays in shared memory and
sends text, rewards, flags and ``info`` through the pipes. Its results equal a
``SyncVectorEnv``'s for the same seeds, autoresets included (next-step autoreset,
Gymnasium's default), but for how ``info`` values of several types batch
(:mod:`.vector_info`: a ``None`` among numbers is NaN, numbers widen, whatever the order).

Every registered env id of this package reaches it through Gymnasium::

    envs = gym.make_vec("Act2Intent-Execute-v0", num_envs=8,
                        vectorization_mode="vector_entry_point", device="sim")

Besides ``step``, which waits for the slowest env, it can be stepped as a pool (as EnvPool's
asynchronous mode): :meth:`~SharedMemoryVectorEnv.send` starts a step of some envs and
returns at once, :meth:`~SharedMemoryVectorEnv.recv` returns the first ``batch_size`` envs
to finish, ``info["env_id"]`` saying which::

    observations, infos = envs.reset(seed=0)
    envs.send(policy(observations))                  # every env starts a step
    while training:
        observations, rewards, terminations, truncations, infos = envs.recv(batch_size=4)
        envs.send(policy(observations), infos["env_id"])

Workers are fresh interpreters (``spawn``) started with one thread per numeric library
(:mod:`mobileintent_gym.distributed.threads`); a script that builds one must guard its
entry point with ``if __name__ == "__main__":``, as for any spawned process. On Linux they
run under the ``SCHED_BATCH`` policy (see :mod:`~mobileintent_gym.envs.vector_worker`) and
can be pinned to CPUs (``cpus``).
"""

from __future__ import annotations

import atexit
import functools
import multiprocessing
import multiprocessing.connection
import pickle
import sys
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from contextlib import suppress
from multiprocessing import resource_tracker
from typing import Any, ClassVar, NamedTuple

import gymnasium as gym
import numpy as np
from gymnasium import logger
from gymnasium.error import AlreadyPendingCallError, ClosedEnvironmentError, NoAsyncCallError
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import (
    CloudpickleWrapper,
    batch_space,
    concatenate,
    create_empty_array,
    iterate,
)

from mobileintent_gym.checks import is_flag, is_integer, positive_integer
from mobileintent_gym.distributed.threads import worker_environment
from mobileintent_gym.envs import vector_worker
from mobileintent_gym.envs.vector_args import (
    checked_cpus,
    checked_ids,
    checked_mask,
    checked_seeds,
)
from mobileintent_gym.envs.vector_calls import CtrlC, first_error, payloads, raise_answer
from mobileintent_gym.envs.vector_gather import FrameGather, default_threads
from mobileintent_gym.envs.vector_in_parent import ParentWorker
from mobileintent_gym.envs.vector_info import batch_infos
from mobileintent_gym.envs.vector_wire import send
from mobileintent_gym.envs.vector_worker import (
    CLOSE,
    WHOLE,
    SharedFrames,
    SharedMemoryFullError,
    WorkerError,
)
from mobileintent_gym.errors import brief
from mobileintent_gym.held import held

JOIN_SECONDS = 10.0
"""How long ``close()`` waits for the workers to answer, and then for each to end."""
HANDED_BATCHES = 4
"""Shared-memory batches that ``copy=True`` observations are handed out in, at most.

While the caller holds all of them (a replay buffer keeping raw observations), the next
observations are copied out of the working batch instead.
"""
_BATCH_HINT = "(actions.batch_actions batches a list of actions or their strings)"


class SharedMemoryVectorEnv(VectorEnv):
    """``num_envs`` envs in worker processes; screenshots come back in shared memory.

    Args:
        env_fns: One function per sub-env that builds it (run in the worker).
        copy: Observations' arrays never change while the caller holds them, even after
            :meth:`close`. Each step's land in a shared-memory batch that nothing holds any
            more and come back as read-only views of it (an agent that keeps only its latest
            observation alternates between two; no copy is made), or, while the caller holds
            all :data:`HANDED_BATCHES` of them or ``/dev/shm`` has no room for another, as
            copies (also while steps sent with :meth:`send` are out and no batch is free:
            none is added then). With ``False`` they are views of shared memory that the
            next ``step``/``reset`` (or ``send`` to that sub-env) overwrites. Views and
            copies are read-only alike.
        context: The ``multiprocessing`` start method; ``spawn`` starts lean workers.
        cpus: Pin worker ``i`` (and what it starts) to CPU ``cpus[i % len(cpus)]`` (Linux), e.g.
            ``sorted(os.sched_getaffinity(0))``: a worker then keeps its caches, where an
            unpinned one moves between cores as it sleeps and wakes each step. ``None``
            (the default) leaves placement to the OS, as two runs on one machine pinning
            the same CPUs would share them.
        envs_per_worker: Sub-envs each worker process holds (the last may hold fewer),
            stepped one after the other: fewer processes than sub-envs, each waking once
            for all of its sub-envs' steps.
        gather_threads: Threads that copy the frames :meth:`recv` gathers (those of
            sub-envs that are not neighbouring rows) into one batch, side by side. ``None``
            (the default): half of the CPUs this process may run on, at most 8 — one on
            a machine of two or three, where the parent copies alone.
        worker_in_parent: Run the last worker's sub-envs (the last ``envs_per_worker``) in
            this process instead of a worker process of their own
            (:mod:`~mobileintent_gym.envs.vector_in_parent`): this process steps them
            while the worker processes step theirs, so N sub-envs on N cores take N
            processes, not N + 1. They step as a worker's would, through the same
            messages, but an env that crashes or hangs there takes this process with it
            (no ``close()`` can stop it), they use this process's threads and CPUs (not
            one thread per numeric library, ``cpus`` or ``SCHED_BATCH``), and a step
            :meth:`send` gives them is taken in the next :meth:`recv` (after the answers
            already there are read), with Ctrl-C held back until it ends.

    Attributes:
        exit_codes: Once closed, how each worker process ended: 0, minus the signal that
            killed it, or ``None`` for one still running (a close that Ctrl-C cut short);
            empty before. The worker in the parent (``worker_in_parent``) reads 0.

    Raises:
        ValueError: For no env functions, ``cpus`` naming no CPU of this machine, an
            ``envs_per_worker`` or ``gather_threads`` that is not a positive integer, or a
            ``copy`` or ``worker_in_parent`` that is not a bool (before any worker starts),
            or a CPU the worker may not run on (its cgroup's set).
        SharedMemoryFullError: When ``/dev/shm`` cannot hold one batch of observations.
        WorkerError: When a worker dies (an error for each of its sub-envs), a sub-env's
            spaces differ from the first's, or an answer cannot be unpickled here (the
            other workers finished their command).
        Exception: An error raised by an env in its worker, re-raised with the worker's
            traceback as its cause and the sub-env in its ``env_id`` attribute (and, on
            Python 3.11+, a note): the other workers finished their command (after a
            ``step``, :meth:`recv` returns the other sub-envs' steps).
        KeyboardInterrupt: Ctrl-C during a call: the workers (which ignore Ctrl-C) finish
            what it asked and its results are dropped (a ``recv``'s are kept for the next
            ``recv``), so the next call returns its own and a notebook can go on stepping.
            A dropped step that ended its episode is never seen ended: the next step
            resets that sub-env.
    """

    metadata: ClassVar[dict[str, Any]] = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, env_fns: Sequence[Callable[[], gym.Env]], *, copy: bool = True,
                 context: str | None = "spawn", cpus: Sequence[int] | None = None,
                 envs_per_worker: int = 1, gather_threads: int | None = None,
                 worker_in_parent: bool = False) -> None:
        given = env_fns
        if isinstance(env_fns, Iterable) and not isinstance(env_fns, str | bytes):
            env_fns = list(env_fns)  # a generator: its functions once, counted
        if not (isinstance(env_fns, list) and env_fns):
            raise ValueError(f"SharedMemoryVectorEnv needs a sequence of env functions (at "
                             f"least one), got {brief(given)}")
        uncallable = next((fn for fn in env_fns if not callable(fn)), None)
        if uncallable is not None:
            raise ValueError(f"env functions make an env when called, got "
                             f"{type(uncallable).__name__} {brief(uncallable, 60)}")
        share = positive_integer("envs_per_worker", envs_per_worker)
        for name, flag in (("copy", copy), ("worker_in_parent", worker_in_parent)):
            if not is_flag(flag):  # a text "no" would read as true
                raise ValueError(f"{name} must be True or False, got {flag!r}")
        self._gatherer = FrameGather(default_threads() if gather_threads is None
                                     else positive_integer("gather_threads", gather_threads),
                                     hold=CtrlC)
        self._cpus = checked_cpus(cpus)
        self.num_envs, self.copy, self.closed = len(env_fns), copy, False
        self._members = [list(range(first, min(first + share, self.num_envs)))
                         for first in range(0, self.num_envs, share)]  # worker → sub-envs
        self._worker_of = [w for w, ids in enumerate(self._members) for _ in ids]
        self._batches: list[SharedFrames] = []  # [0] is the working batch
        self._sent: dict[int, int] = {}  # sub-env stepping (send) → its batch
        self._ready: dict[int, _Step] = {}  # stepped, not returned yet (completion order)
        self._owed: list[deque[_Message]] = []  # per worker: the messages it will answer
        self._action_batches: dict[int, gym.Space] = {}  # batch_space of k actions, by k
        self._gathers: dict[str, list[np.ndarray]] = {}  # field → buffers for recv's copies
        self._numeric_info: set[tuple[str, ...]] = set()  # info keys seen holding numbers
        self._pipes: list[Any] = []
        self._processes: list[Any] = []
        self.exit_codes: tuple[int | None, ...] = ()
        # Before multiprocessing's own exit hook, registered earlier, kills the workers.
        self._at_exit = functools.partial(_close_left_open, weakref.ref(self))
        atexit.register(self._at_exit)
        try:
            self._start(env_fns, multiprocessing.get_context(context), worker_in_parent)
            self._setup()
        except BaseException as err:  # the workers that built their envs close them (a
            self.close(terminate=isinstance(err, KeyboardInterrupt))  # device, a session)
            raise

    def _start(self, env_fns: Sequence[Callable[[], gym.Env]], ctx: Any, in_parent: bool
               ) -> None:
        self._start_method = ctx.get_start_method()
        processes = self._members[:-1] if in_parent else self._members
        if self._start_method == "fork":  # (spawned ones are handed the parent's tracker)
            # A forked worker shares the resource tracker only if it runs before the fork:
            # one of the worker's own would unlink the shared memory when the worker dies.
            resource_tracker.ensure_running()
        with worker_environment():
            for worker, ids in enumerate(processes):
                parent, child = ctx.Pipe()
                cpu = self._cpus[worker % len(self._cpus)] if self._cpus else None
                builders = [CloudpickleWrapper(env_fns[index]) for index in ids]
                process = ctx.Process(target=vector_worker.run, daemon=True,
                                      name=f"mobileintent-gym-worker-{worker}",
                                      args=(worker, ids[0], builders, child, parent, cpu))
                process.start()
                child.close()
                self._pipes.append(parent)
                self._processes.append(process)
                self._owed.append(deque([_Message(ids, False)]))  # first: the spaces
        if in_parent:  # built while the worker processes build theirs
            ids = self._members[-1]
            with CtrlC():  # an env half built is no env: a Ctrl-C waits for its end
                worker = ParentWorker(ids[0], [env_fns[index] for index in ids])
                self._pipes.append(worker)  # before the Ctrl-C: close() closes its envs
                self._processes.append(worker)
                self._owed.append(deque([_Message(ids, False)]))

    def _setup(self) -> None:
        with CtrlC() as ctrl_c:
            found = [pickle.loads(packed)
                     for packed in payloads(self._collect([True] * len(self._members),
                                                           ctrl_c))]
        for index, pair in enumerate(found):
            if pair != found[0]:
                raise WorkerError(f"sub-env {index}'s env has other spaces than sub-env 0's: "
                                  f"{brief(pair, 300)} against {brief(found[0], 300)}")
        self.single_observation_space, self.single_action_space = found[0]
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._add_batch()
        # As Gymnasium's vector envs: the first sub-env's (video recorders read them).
        self.render_mode = self.call("render_mode")[0]
        self.metadata = {**self.call("metadata")[0], **type(self).metadata}

    def _add_batch(self) -> int:
        """Allocate one more batch in shared memory, attach the workers to it, its index."""
        number = len(self._batches)
        frames = SharedFrames.create(self.single_observation_space, self.num_envs)
        try:
            # Handed out read-only: the workers draw only what changed between frames, so a
            # caller's writes would stay in later ones.
            for array in frames.arrays.values():
                array.flags.writeable = False
            self._batches.append(frames)
            self._command([("attach", (number, frames.layout))] * self.num_envs)
        except BaseException:
            if self._batches[-1] is frames:
                self._batches.pop()
            frames.close(unlink=True)
            raise
        return number

    def _next_batch(self) -> int:
        """The batch the next observations go to (see ``copy``)."""
        if not self.copy:
            return 0
        free = next((i for i, b in enumerate(self._batches) if i and not b.held()), None)
        if free is not None:
            return free
        if len(self._batches) > HANDED_BATCHES or self._sent:  # no attach while stepping
            return 0
        try:
            return self._add_batch()
        except SharedMemoryFullError:
            return 0

    def reset(self, *, seed: int | Sequence[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Reset every sub-env, or those of ``options["reset_mask"]``.

        Args:
            seed: ``None``; an int ``s`` >= 0 (sub-env ``i`` gets ``s + i``); or a sequence
                (or 1-D array) of one per sub-env, ``None`` keeping a sub-env's generator.
            options: Passed to every sub-env's reset; a boolean ``reset_mask`` array picks
                the sub-envs to reset (the others keep their episode).

        Raises:
            ValueError: For a seed or ``options`` of another kind, before any sub-env is
                reset. A reset a sub-env refuses (an option its env rejects) is raised
                as the class says: the other sub-envs' resets are done.
        """
        self._open("reset")
        seeds = checked_seeds(seed, self.num_envs)
        if not (options is None or isinstance(options, dict)):
            raise ValueError(f"options must be None or a dict, got {brief(options)}")
        mask = (options or {}).get("reset_mask")
        mask = np.ones(self.num_envs, bool) if mask is None else checked_mask(mask,
                                                                                 self.num_envs)
        resets = [int(i) for i in np.flatnonzero(mask)]
        self._idle("reset", kept_ok=resets)
        for index in resets:  # a step kept from a failed step(): the reset replaces it
            dropped = self._ready.pop(index, None)
            if dropped is not None and dropped.status == "error":
                logger.warn(f"reset() drops sub-env {index}'s error from the step() that "
                            f"raised another's: {dropped.payload[0]!r}")
        if options is not None:  # as SyncVectorEnv: the sub-envs get the rest, or None
            options = {k: v for k, v in options.items() if k != "reset_mask"}
        batch = self._next_batch()
        commands = [("reset", (batch, {"seed": s, "options": options})) if m else ("keep", batch)
                    for s, m in zip(seeds, mask, strict=True)]
        replies = self._command(commands)
        infos = batch_infos([info if m else None for (_, info), m in zip(replies, mask,
                                                                          strict=True)],
                            self._numeric_info)
        rows = [(batch, index) for index in range(self.num_envs)]
        return self._observation([rest for rest, _ in replies], rows), infos

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray,
                                          dict[str, Any]]:
        """Step every sub-env; one that ended its episode at the last step resets instead.

        Raises:
            Exception: An error a sub-env raised (see the class): the other sub-envs' steps
                are done, and :meth:`recv` returns them, so no episode's end goes unseen.
                Until then ``step`` and ``send`` refuse those sub-envs, and ``reset``
                drops what it resets of them (``call``, ``get_attr``, ``set_attr`` and
                ``render`` work on).
        """
        self._idle("step")
        items = self._actions(actions, self.num_envs)
        batch = self._next_batch()
        answers = self._answers([("step", (batch, action)) for action in items])
        failed = first_error(answers)
        if failed is not None:
            self._ready.update((index, _Step(batch, *answer, kept=True))
                               for index, answer in enumerate(answers) if index != failed)
        return self._results(payloads(answers),
                             [(batch, index) for index in range(self.num_envs)])

    def send(self, actions: Any, env_ids: Sequence[int] | np.ndarray | None = None) -> None:
        """Start a step of the sub-envs ``env_ids`` (every one by default); return at once.

        :meth:`recv` returns the results. One that ended its episode at its last step
        resets instead, as in ``step``.

        Args:
            actions: Their actions, batched as for ``len(env_ids)`` sub-envs, in the order
                of ``env_ids``.
            env_ids: Sub-envs whose last step :meth:`recv` has returned (or that were reset
                since), e.g. the last ``info["env_id"]``.

        Raises:
            ValueError: For ids that name no sub-env or one twice, or actions that are not
                one per id; nothing is sent.
            AlreadyPendingCallError: For a sub-env whose step :meth:`recv` has not returned
                yet; nothing is sent.
            WorkerError: When a new shared-memory batch is needed (see ``copy``) and a
                worker cannot attach it (it died); nothing is sent.
        """
        ids = checked_ids(env_ids, self.num_envs)
        self._idle("send", ids)
        items = self._actions(actions, len(ids))
        batch = self._next_batch()
        steps: dict[int, list[tuple[int, Any]]] = {}  # worker → its sub-envs' actions
        for index, action in zip(ids, items, strict=True):
            steps.setdefault(self._worker_of[index], []).append((index, action))
        with CtrlC() as ctrl_c:  # every sub-env is sent its step and recorded, or none is
            self._drop_due(steps, ctrl_c)
            for worker, taken in steps.items():
                first, sent = self._members[worker][0], [index for index, _ in taken]
                message = [(index - first, "step", (batch, action)) for index, action in taken]
                if self._post(worker, message, sent, pooled=True):
                    self._sent.update(dict.fromkeys(sent, batch))
                else:  # the worker is gone: recv raises it
                    died = self._died(worker)
                    self._ready.update((index, _Step(batch, "error", died)) for index in sent)

    def recv(self, batch_size: int | None = None) -> tuple[Any, np.ndarray, np.ndarray,
                                                           np.ndarray, dict[str, Any]]:
        """The results of the first ``batch_size`` sub-envs to finish the steps sent them.

        Args:
            batch_size: How many; by default every sub-env sent a step not returned yet.

        Returns:
            What ``step`` returns, for those sub-envs in the order of their ids, which
            ``info["env_id"]`` holds (in place of an ``env_id`` the sub-envs' own infos
            may hold). Observations' arrays are views of shared memory (as in ``step``,
            see ``copy``) where the sub-envs' frames are consecutive rows of one batch
            (those of sub-envs that one ``send`` started, unless no batch was free),
            otherwise copies.

        Raises:
            NoAsyncCallError: When no step was sent.
            ValueError: For a ``batch_size`` below 1 or above the steps not returned yet.
            Exception: An error a sub-env raised in its step, as ``step`` raises it (its
                ``env_id`` names the sub-env, which can be sent a step again); the other
                finished steps are returned by the next ``recv``.
        """
        self._open("recv")
        pending = len(self._sent) + len(self._ready)
        if not pending:
            raise NoAsyncCallError("recv() with no step sent: call send() first", "recv")
        size = pending if batch_size is None else batch_size
        if not (is_integer(size) and 1 <= size <= pending):
            raise ValueError(f"batch_size must be 1-{pending} (the steps sent and not "
                             f"returned yet), got {batch_size!r}")
        self._wait_for(int(size))
        first = list(self._ready)[:size]
        failed = next((index for index in first if self._ready[index].status == "error"), None)
        if failed is not None:
            raise_answer(self._ready.pop(failed).payload, failed)
        ids = sorted(first)
        done = [self._ready[index] for index in ids]
        observations, rewards, terminations, truncations, infos = self._results(
            [step.payload for step in done],
            [(step.batch, index) for step, index in zip(done, ids, strict=True)])
        for index in ids:  # only now: an error above leaves them to be received again
            del self._ready[index]
        infos["env_id"], infos["_env_id"] = np.array(ids), np.ones(len(ids), bool)
        return observations, rewards, terminations, truncations, infos

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Call a method of every sub-env (or read an attribute); one result per sub-env."""
        self._idle("call", kept_ok=range(self.num_envs))
        return tuple(self._command([("call", (name, args, kwargs))] * self.num_envs))

    def set_attr(self, name: str, values: list[Any] | tuple[Any, ...] | Any) -> None:
        """Set an attribute of every sub-env (``Env.set_wrapper_attr``).

        Args:
            name: The attribute.
            values: One value per sub-env (a list or tuple), or any other value for all.

        Raises:
            ValueError: For a list or tuple that is not one value per sub-env; nothing is
                set.
        """
        self._idle("set_attr", kept_ok=range(self.num_envs))
        if not isinstance(values, list | tuple):
            values = [values] * self.num_envs
        if len(values) != self.num_envs:
            raise ValueError(f"set_attr({name!r}) needs one value per sub-env "
                             f"({self.num_envs}), got {len(values)}")
        self._command([("set_attr", (name, value)) for value in values])

    def render(self) -> tuple[Any, ...]:
        """Each sub-env's ``render()``."""
        return self.call("render")

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """An attribute of every sub-env."""
        return self.call(name)

    @property
    def np_random_seed(self) -> tuple[int, ...]:
        """Each sub-env's ``np_random_seed``, as Gymnasium's async vector env gives them."""
        return self.get_attr("np_random_seed")

    @property
    def np_random(self) -> tuple[np.random.Generator, ...]:
        """Copies of each sub-env's ``np_random``, as Gymnasium's async vector env gives."""
        return self.get_attr("np_random")

    def close_extras(self, terminate: bool = False, **kwargs: Any) -> None:
        """Stop the workers (``terminate`` kills them) and free the shared memory.

        Steps sent and not returned are waited for and dropped. Workers that have not
        answered within :data:`JOIN_SECONDS` (an env stuck in a step, a stopped process)
        are killed. A Ctrl-C while close waits kills the workers it waits for at once
        (those that answered may finish closing their env), and the env is closed all the
        same before the Ctrl-C goes on.
        """
        self.closed = True  # also when a Ctrl-C cuts this short (Gymnasium sets it after)
        atexit.unregister(self._at_exit)
        # After a failed start there may be fewer processes than workers.
        everyone = range(len(self._processes))
        try:
            self._join(everyone if terminate else self._unanswered_close())
        except BaseException:
            try:
                self._read_waiting()
            finally:
                self._join([w for w in everyone if self._owed[w]], kill=True)
            raise
        finally:
            self._free()

    def __del__(self) -> None:
        _close_left_open(self)

    def _read_waiting(self) -> None:
        """Read the answers already in the pipes: those workers owe nothing any more.

        A Ctrl-C may land while close waits on one worker with the others' answers unread.
        """
        for worker, pipe in enumerate(self._pipes):
            while self._owed[worker] and pipe.poll():
                self._read(worker)

    def _join(self, stuck: Iterable[int], kill: bool = False) -> None:
        """Wait for the workers to end, the ``stuck`` ones stopped (``kill``: at once).

        Those that have not ended within :data:`JOIN_SECONDS` are killed, as is every one
        left when Ctrl-C interrupts the wait.
        """
        for index in stuck:
            if self._processes[index].is_alive():
                (self._processes[index].kill if kill else self._processes[index].terminate)()
        deadline = time.monotonic() + JOIN_SECONDS
        try:
            for process in self._processes:
                process.join(max(0.0, deadline - time.monotonic()))
        finally:  # stopped, deaf to SIGTERM, or no time left to wait for
            for process in self._processes:
                if process.is_alive():
                    process.kill()
                    process.join()

    def _free(self) -> None:
        """Drop the steps out, close the pipes, free the shared memory.

        The ended workers' process objects are closed too (their exit codes kept in
        :attr:`exit_codes`): each held two file descriptors for as long as the closed env
        was referenced, and a sweep that kept its envs ran out of them.
        """
        self._sent.clear()
        self._ready.clear()
        for pipe in self._pipes:
            pipe.close()
        self.exit_codes = tuple(process.exitcode for process in self._processes)
        for process, code in zip(self._processes, self.exit_codes, strict=True):
            if code is not None:
                process.close()
        for batch in self._batches:
            batch.close(unlink=True)
        self._batches.clear()
        self._gathers.clear()
        self._gatherer.close()

    def _unanswered_close(self) -> list[int]:
        """Ask every worker to close; those that did not answer within ``JOIN_SECONDS``.

        A worker with a step out answers it first.
        """
        deadline = time.monotonic() + JOIN_SECONDS
        workers = range(len(self._pipes))
        with CtrlC() as ctrl_c:
            posted = [self._post(w, CLOSE, self._members[w]) for w in workers]
            return [w for w in workers
                    if not (posted[w] and self._answered(w, deadline, ctrl_c))]

    def _answered(self, worker: int, deadline: float, ctrl_c: CtrlC) -> bool:
        """Whether ``worker`` sent every answer it owes before ``deadline``."""
        while self._owed[worker]:  # a worker that died answers too: nothing left to stop
            if not ctrl_c.wait([self._pipes[worker]], max(0.0, deadline - time.monotonic())):
                return False
            self._read(worker)
        return True

    def _command(self, commands: Sequence[tuple[str, Any]]) -> list[Any]:
        """Send each sub-env its command; their replies.

        Raises:
            Exception: The first error, once every worker has answered.
        """
        return payloads(self._answers(commands))

    def _answers(self, commands: Sequence[tuple[str, Any]]) -> list[tuple[str, Any]]:
        """Send each sub-env its command and collect the answers (see ``_collect``).

        Answers that an interrupted call (Ctrl-C) left unread are read and dropped first,
        every worker's before any command goes; then every worker gets its sub-envs'
        commands in one message, or none does.
        """
        with CtrlC() as ctrl_c:
            workers = range(len(self._members))
            self._drop_due(workers, ctrl_c)
            posted = [self._post(w, [(index - ids[0], *commands[index]) for index in ids], ids)
                      for w, ids in enumerate(self._members)]
            return self._collect(posted, ctrl_c)

    def _collect(self, posted: Sequence[bool], ctrl_c: CtrlC) -> list[tuple[str, Any]]:
        """Every sub-env's answer (status, payload) to the message just posted to its worker.

        The sub-envs of a worker not ``posted`` (it is gone) get an error.
        """
        found: dict[int, tuple[str, Any]] = {}
        for worker, ids in enumerate(self._members):
            if not posted[worker]:
                found.update(dict.fromkeys(ids, ("error", self._died(worker))))
        while len(found) < self.num_envs:
            waiting = {self._pipes[w]: w for w, ids in enumerate(self._members)
                       if ids[0] not in found}
            for pipe in ctrl_c.wait(list(waiting)):
                found.update(self._read(waiting[pipe]))
        return [found[index] for index in range(self.num_envs)]

    def _post(self, worker: int, message: Any, ids: Sequence[int], pooled: bool = False
              ) -> bool:
        """Send ``worker`` a message for its sub-envs ``ids``; whether it could be (it lives).

        ``pooled``: steps that :meth:`recv` returns. Call it inside a :class:`CtrlC`
        block, which keeps the message whole.
        """
        try:
            send(self._pipes[worker], message)
        except OSError:
            return False
        self._owed[worker].append(_Message(ids, pooled))
        return True

    def _drop_due(self, workers: Iterable[int], ctrl_c: CtrlC) -> None:
        """Read and drop the answers ``workers`` owe to interrupted calls.

        Each finishes what they asked first (a step of its envs included), so its next
        answer is to the next command. Steps sent for :meth:`recv` stay out: they were sent
        after any such call, as a call waits for no step to be out.
        """
        for worker in workers:
            while self._owed[worker] and not self._owed[worker][0].pooled:
                ctrl_c.wait([self._pipes[worker]])
                self._read(worker)

    def _open(self, name: str) -> None:
        """Refuse ``name`` once the env is closed, as Gymnasium's vector envs do."""
        if self.closed:
            raise ClosedEnvironmentError(f"{name}() on a {type(self).__name__} after close()")

    def _idle(self, name: str, ids: Sequence[int] | None = None,
              kept_ok: Iterable[int] = ()) -> None:
        """Refuse ``name`` once closed, or while sub-envs ``ids`` (any) have steps out.

        ``kept_ok``: sub-envs whose steps kept from a failed ``step()`` do not count.
        """
        self._open(name)
        if not (self._sent or self._ready):
            return
        kept = {index for index, step in self._ready.items() if step.kept}
        out = sorted(index for index in (self._sent.keys() | self._ready.keys())
                     - kept.intersection(kept_ok) if ids is None or index in ids)
        if kept.intersection(out):
            raise AlreadyPendingCallError(
                f"{name}(): sub-envs {out} have steps that recv() has not returned, kept "
                f"from a step() that raised: recv() them, or reset() them", name)
        if out:
            raise AlreadyPendingCallError(
                f"{name}(): sub-envs {out} have steps sent that recv() has not returned: "
                f"recv() them first", name)

    def _actions(self, actions: Any, count: int) -> list[Any]:
        """Each of ``count`` sub-envs' action out of the batched ``actions``."""
        if count not in self._action_batches:
            self._action_batches[count] = batch_space(self.single_action_space, count)
        if isinstance(actions, str | bytes):  # one text: iterated, each letter an answer
            raise ValueError(f"actions must be batched for {count} sub-envs (a sequence of "
                             f"{count}), got one text {brief(actions, 300)}")
        try:
            items = list(iterate(self._action_batches[count], actions))
        except (TypeError, KeyError, IndexError, ValueError) as err:
            raise ValueError(f"actions must be batched for {count} sub-envs of action "
                             f"space {self.single_action_space} {_BATCH_HINT}, got "
                             f"{brief(actions, 300)}") from err
        if len(items) != count:
            raise ValueError(f"actions must be batched for {count} sub-envs, got "
                             f"{len(items)} {_BATCH_HINT}: {brief(actions, 300)}")
        return items

    def _wait_for(self, size: int) -> None:
        """Receive finished steps until ``size`` wait to be returned.

        Also until the worker in this process has taken the steps sent to it: otherwise,
        while other sub-envs' answers kept coming, those steps would never be taken.
        """
        here = self._pipes[-1]

        def due() -> bool:
            return len(self._ready) < size or (isinstance(here, ParentWorker) and here.pending)

        if not due():  # no message to wait for
            return
        with CtrlC() as ctrl_c:  # each answer read whole and recorded with its read
            while due():
                # In the workers' order: a worker in this process (the last) comes last.
                waiting = {self._pipes[w]: w
                           for w in sorted({self._worker_of[i] for i in self._sent})}
                for pipe in ctrl_c.wait(list(waiting)):
                    self._read(waiting[pipe])

    def _results(self, replies: Sequence[Any], rows: Sequence[tuple[int, int]]
                 ) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Steps' replies as ``step`` returns them; ``rows``: (batch, sub-env) of each."""
        rests, rewards, terminations, truncations, infos = zip(*replies, strict=True)
        return (self._observation(rests, rows), np.array(rewards, np.float64),
                np.array(terminations, np.bool_), np.array(truncations, np.bool_),
                batch_infos(infos, self._numeric_info))

    def _read(self, worker: int) -> list[tuple[int, tuple[str, Any]]]:
        """Read ``worker``'s next answer (inside a :class:`CtrlC` block: whole).

        Pooled steps' answers go to the steps ready for :meth:`recv`; the others come
        back, each with its sub-env. A worker that died answers all it owed with an
        error, as does an answer that cannot be unpickled here.
        """
        owed = self._owed[worker]
        try:
            data = self._pipes[worker].recv_bytes()
        except (EOFError, OSError):
            died, messages = ("error", self._died(worker)), list(owed)
            owed.clear()
            return self._file([(message, [died] * len(message.ids)) for message in messages])
        message = owed.popleft()
        try:
            answers = pickle.loads(data)
        except Exception as err:
            answers = ("error", (WorkerError(f"worker {worker}'s answer cannot be unpickled "
                                             f"here: {err!r}"), ""))
        if isinstance(answers, tuple):  # one answer for every sub-env the message named
            answers = [answers] * len(message.ids)
        return self._file([(message, answers)])

    def _file(self, answered: list[tuple[_Message, list[tuple[str, Any]]]]
              ) -> list[tuple[int, tuple[str, Any]]]:
        """Record pooled steps' answers as ready; the other sub-envs' answers, listed."""
        others = []
        for message, answers in answered:
            for index, answer in zip(message.ids, answers, strict=True):
                if message.pooled:
                    self._ready[index] = _Step(self._sent.pop(index), *answer)
                else:
                    others.append((index, answer))
        return others

    def _died(self, worker: int) -> tuple[WorkerError, str]:
        process = self._processes[worker]
        if isinstance(process, ParentWorker):
            return WorkerError(f"worker {worker} (in this process) has ended after an "
                               "error of its own, its envs closed"), ""
        process.join(1.0)
        message = f"worker {worker} died (exit code {process.exitcode})"
        if not self._batches and self._start_method in ("spawn", "forkserver") and (
                hasattr(sys.modules["__main__"], "__file__")):  # while starting, from a script
            message += (" while starting. A worker starts by importing the main script: if "
                        "its error above says so, make vector envs under "
                        "`if __name__ == \"__main__\":`")
        return WorkerError(message), ""

    def _observation(self, rests: Sequence[Any], rows: Sequence[tuple[int, int]]) -> Any:
        """The batched observation of ``rows`` ((batch, sub-env) pairs).

        Its fields that are not in shared memory come from ``rests``, the pipes' part.
        """
        arrays, single = self._batches[0].arrays, self.single_observation_space
        if WHOLE in arrays:
            return self._rows(WHOLE, rows)
        if not isinstance(single, gym.spaces.Dict):  # nothing shared: all came by the pipes
            return _concatenated(single, rests)
        return {name: self._rows(name, rows) if name in arrays
                else _concatenated(space, [rest[name] for rest in rests])
                for name, space in single.spaces.items()}

    def _rows(self, name: str, rows: Sequence[tuple[int, int]]) -> np.ndarray:
        """Field ``name`` of ``rows``, batched.

        Consecutive rows of one batch are handed as a read-only view of it, unless it is
        the working batch (0) under ``copy``; the others are copied (:meth:`_gather`).
        """
        batch, start = rows[0]
        if (batch or not self.copy) and all(row == (batch, start + k)
                                            for k, row in enumerate(rows)):
            array = self._batches[batch].arrays[name]
            part = array if len(rows) == self.num_envs else array[start:start + len(rows)]
            return part.view() if self.copy else part  # a view holds a handed-out batch
        return self._gather(name, rows)

    def _gather(self, name: str, rows: Sequence[tuple[int, int]]) -> np.ndarray:
        """Field ``name`` of ``rows`` copied into the first rows of a buffer nobody holds.

        Up to :data:`HANDED_BATCHES` buffers per field are kept and reused once let go of:
        a new one takes a page fault per page it is first written (see
        ``benchmarks/vector_parent.py``). While the caller holds them all, the rows are
        copied into new memory.
        """
        buffers = self._gathers.setdefault(name, [])
        free = next((i for i in range(len(buffers)) if not held(buffers[i])), None)
        if free is None and len(buffers) < HANDED_BATCHES:
            buffers.append(np.empty_like(self._batches[0].arrays[name]))
            free = len(buffers) - 1
        found = [self._batches[b].arrays[name][index] for b, index in rows]
        copied = self._gatherer.stack(found, None if free is None else buffers[free][:len(rows)])
        copied.flags.writeable = False  # as the views handed out are
        return copied


def make_vector(env_id: str, num_envs: int = 1, *, copy: bool = True,
                context: str | None = "spawn", cpus: Sequence[int] | None = None,
                envs_per_worker: int = 1, gather_threads: int | None = None,
                worker_in_parent: bool = False,
                autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
                **kwargs: Any) -> SharedMemoryVectorEnv:
    """``num_envs`` copies of a registered env in a :class:`SharedMemoryVectorEnv`.

    Each registered id of this package names it as its ``vector_entry_point`` (through
    this module's ``__getattr__``), so ``gym.make_vec(id, n, **kwargs)`` calls it.

    Args:
        env_id: The registered id.
        num_envs: How many sub-envs.
        copy: See :class:`SharedMemoryVectorEnv`.
        context: See :class:`SharedMemoryVectorEnv`.
        cpus: See :class:`SharedMemoryVectorEnv`.
        envs_per_worker: See :class:`SharedMemoryVectorEnv`.
        gather_threads: See :class:`SharedMemoryVectorEnv`.
        worker_in_parent: See :class:`SharedMemoryVectorEnv`.
        autoreset_mode: Gymnasium's next-step autoreset, the only one this vector env has.
        **kwargs: Passed to ``gym.make`` in each worker (``max_episode_steps`` included).

    Raises:
        ValueError: For a ``num_envs`` that is not a positive integer, or another
            autoreset mode (Gymnasium's own vector envs have the others).
    """
    positive_integer("num_envs", num_envs)
    mode = AutoresetMode(autoreset_mode)
    if mode is not AutoresetMode.NEXT_STEP:
        raise ValueError(f"autoreset_mode {mode} is not this vector "
                         "env's (next-step only): give vectorization_mode='sync' or 'async' "
                         "to gym.make_vec for Gymnasium's, which have it")
    return SharedMemoryVectorEnv([functools.partial(gym.make, env_id, **kwargs)] * num_envs,
                                 copy=copy, context=context, cpus=cpus,
                                 envs_per_worker=envs_per_worker,
                                 gather_threads=gather_threads,
                                 worker_in_parent=worker_in_parent)


def __getattr__(name: str) -> Callable[..., SharedMemoryVectorEnv]:
    """``vector:<env id>``: :func:`make_vector` of that registered id (its vector entry point).

    Raises:
        AttributeError: When no env of this package has the id ``name``.
    """
    from mobileintent_gym.envs import ENV_SPECS

    if any(spec.id == name for spec in ENV_SPECS):
        return functools.partial(make_vector, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _concatenated(space: gym.Space, items: list[Any]) -> Any:
    """``items`` of ``space`` batched, as Gymnasium's ``concatenate`` batches them.

    No empty batch is made where ``space`` itself is batched as a tuple of its items (a
    text field of the observation, say), as ``concatenate`` would drop it: for a ``Text``
    that drew a string from the space's charset per sub-env, and for a ``UnicodeText``
    built its 55,506-character tables. (Text inside a ``Tuple`` or nested ``Dict`` field
    still gets one.)
    """
    if concatenate.dispatch(type(space)) is _AS_TUPLE:
        return tuple(items)
    return concatenate(space, items, create_empty_array(space, len(items)))


_AS_TUPLE = concatenate.dispatch(gym.spaces.Space)
"""How ``concatenate`` batches a space of no array type: the items as a tuple."""


class _Message(NamedTuple):
    """A message a worker will answer: the sub-envs it names, in order."""

    ids: Sequence[int]  # never changed once posted (a worker's own list, or a send's)
    pooled: bool  # steps sent for recv


class _Step(NamedTuple):
    """A sub-env's finished step that :meth:`SharedMemoryVectorEnv.recv` has not returned."""

    batch: int
    status: str  # "ok" or "error"
    payload: Any  # the step's reply, or (error, trace)
    kept: bool = False  # kept from a step() that raised, not sent by send()


def _close_left_open(envs: SharedMemoryVectorEnv | weakref.ref | None) -> None:
    """Close a vector env (or the one a weak reference points to) the program left open.

    Called when it is collected and at exit: its workers close their envs as with
    ``close()`` and its shared memory is freed, rather than the workers being killed and
    the memory left to the resource tracker, which warns of both.
    """
    if isinstance(envs, weakref.ref):
        envs = envs()
    if envs is not None and not getattr(envs, "closed", True):
        with suppress(Exception):
            envs.close()

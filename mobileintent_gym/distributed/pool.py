"""Rollouts on Ray: actors that each hold an env, results streamed back as they finish.

Ray is the engine: each idle actor is sent an episode, and results are taken as Ray says
they are ready (``ray.wait``); an actor whose
process dies (a crash, the OOM killer, ``os.kill``, a lost node) is restarted by Ray
(``max_restarts``) and its unfinished episode is run again there
(``max_task_retries``). Every episode resets its env with its own seed and gets a fresh
agent seeded the same way, so a rerun gives the same result: no episode is lost and none
is counted twice, and the results equal those of
:func:`mobileintent_gym.rollouts.evaluate` in one process.

Actors start with one thread per numeric library
(:mod:`mobileintent_gym.distributed.threads`) and hand their freed heap back to the OS
between episodes (:mod:`mobileintent_gym.distributed.heap`). They import the package as
the driver does: installed, or, on a local cluster, from the driver's working directory,
which Ray puts on their path. Actors of a cluster started before (``ray start``) run in
its node's working directory and environment, not the driver's: the env's
``profiles_dir``, the driver's ``MOBILEINTENT_GYM_PROFILES`` (empty where unset) and
users given as profile paths reach them as absolute paths (records name the users as
given). The content cache is the node's own.

A new local cluster starts with Ctrl-C held back (in its midst it crashed the process),
and closing the pool cancels the episodes under way before it kills the actors (Ray said
each "will be retried").
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import socket
import time
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import gymnasium as gym
from gymnasium import logger

from mobileintent_gym import rollouts
from mobileintent_gym.agents.resolve import agent_file_modules
from mobileintent_gym.checks import MAX_PORT, is_digits, positive_integer
from mobileintent_gym.console import Progress
from mobileintent_gym.distributed.heap import HeapTrimmer
from mobileintent_gym.distributed.threads import usable_cpus, worker_thread_env
from mobileintent_gym.envs.vector_calls import CtrlC
from mobileintent_gym.errors import MobileIntentError, require
from mobileintent_gym.rollouts import AgentFactory, Episode, EpisodeRecord
from mobileintent_gym.users.profile import PROFILES_ENV, absolute_user

EXECUTE_ENV = "Act2Intent-Execute-v0"
ADDRESS_TIMEOUT = 10.0
"""Seconds :func:`check_address` waits for a Ray cluster's address to answer."""
CLOSE_SECONDS = 5.0  # what close() gives the actors to close their envs


def _cpu_share(cpus: float, num_actors: int) -> float:
    """The CPUs each actor asks Ray for: one, or an equal share where there are fewer.

    Actors that ask for more than the cluster has would never start, and the episodes sent
    to them would wait for ever. A cluster that has no CPUs yet (an autoscaling one whose
    head takes no work) is asked for one per actor: that is what makes it add nodes.
    """
    if num_actors <= cpus or cpus <= 0:
        return 1.0
    logger.warn(f"the Ray cluster has {cpus:g} CPUs for {num_actors} actors: each asks for "
                f"{cpus / num_actors:.3g} of one, and they share them")
    return cpus / num_actors


def _driver_profiles(environ: Mapping[str, str]) -> dict[str, str]:
    """This process's ``MOBILEINTENT_GYM_PROFILES``, as an actor anywhere reads it.

    Made absolute (a relative folder read in another working directory names another
    folder), and empty where it is unset here: a node's own folder would put other
    profiles in place of those this process looked up, hashed and drew seeds from.
    """
    value = environ.get(PROFILES_ENV)
    return {PROFILES_ENV: os.path.abspath(value) if value else ""}


def _actor_kwargs(env_kwargs: Mapping[str, Any] | None) -> dict[str, Any]:
    """``env_kwargs`` with a ``profiles_dir`` path made absolute (see the module notes)."""
    kwargs = dict(env_kwargs or {})
    folder = kwargs.get("profiles_dir")
    if isinstance(folder, str | os.PathLike) and os.fspath(folder):  # others: env refuses
        kwargs["profiles_dir"] = os.path.abspath(folder)
    return kwargs


HELD_GRACE = 1.0
"""Seconds a pool waits for CPUs held by actors just killed before it warns."""


def _warn_if_held(ray: Any, cpus: float, asked: float) -> None:
    """Warn when the actors ask for more CPUs than are free in a running session.

    Other actors (another pool, the trainer's) may hold the cluster's CPUs: these actors
    then start, and their episodes run, only once those let go of them. Ray frees a killed
    actor's CPUs a moment later (0.1 s here): those of a pool closed just before are
    waited for, up to :data:`HELD_GRACE`.
    """
    deadline = time.monotonic() + HELD_GRACE
    while cpus > 0 and (free := ray.available_resources().get("CPU", 0.0)) < asked:
        if time.monotonic() > deadline:
            logger.warn(f"the pool's actors ask for {asked:g} CPUs in all and {free:g} of "
                        f"the Ray cluster's {cpus:g} CPUs are free (other actors hold "
                        "them): its episodes wait until they are let go of (close the "
                        "other pool first)")
            return
        time.sleep(0.02)


def _warn_if_elsewhere(address: str | None, ray: Any) -> None:
    """Warn when ``address`` (given here, not ``$RAY_ADDRESS``) is not the running session's.

    The pool runs in the session this process has, whatever address is given.
    """
    if address is None or address in ("auto", "local"):
        return
    running = ray.get_runtime_context().gcs_address
    if address.removeprefix("ray://") != running:
        logger.warn(f"this process is in a Ray session at {running}: the pool runs there, "
                    f"not at {address} (ray.shutdown() first to join that cluster)")


class RolloutError(MobileIntentError):
    """Episodes could not be run: no cluster answered, or an actor failed or died too often."""


class ActorsLostError(RolloutError):
    """An actor died more often than its restarts allow: the cluster's failure.

    Not a mistake: the command line exits with status 1 (``evaluate --out`` has kept the
    episodes it wrote; ``--resume`` goes on from them).
    """

    exit_status = 1


def check_address(address: str | None) -> None:
    """Raise unless ``address`` is a Ray address and, for ``host:port``, a cluster answers.

    That is, a server that answers as gRPC does (see ``_speaks_grpc``).

    Ray (2.60) tries a ``host:port`` 20 times, each for 40-80 s here, before it gives up;
    this waits ``ADDRESS_TIMEOUT``. ``None`` stands for ``$RAY_ADDRESS`` (if set);
    ``auto`` and ``local`` are Ray's to find.

    Raises:
        RolloutError: Naming the address and why it is none, or could not be reached.
    """
    address = ray_address(address)
    if address is None or address in ("auto", "local"):
        return
    host, colon, port = address.removeprefix("ray://").rpartition(":")
    if not (host and colon and "/" not in host and is_digits(port)
            and 0 < int(port) <= MAX_PORT):
        raise RolloutError(f"{address!r} is no Ray address: give host:port (a port up to "
                           f"{MAX_PORT}), ray://host:port, auto or local")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), ADDRESS_TIMEOUT) as sock:
            grpc = os.environ.get("RAY_USE_TLS", "0") not in ("0", "") or _speaks_grpc(sock)
    except OSError as err:
        raise RolloutError(f"no Ray cluster answers at {address!r} ({err}); start one there "
                           "with 'ray start --head', or give another address") from err
    if not grpc:
        raise RolloutError(f"something answers at {address!r}, but not as a Ray cluster does "
                           "(gRPC): a dashboard's, Redis' or a web server's port? Give the "
                           "cluster's address (host:6379 by default, or ray://host:10001)")


_HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes((0, 0, 0, 4, 0, 0, 0, 0, 0))
"""What an HTTP/2 client sends first: the preface, then an empty SETTINGS frame."""


def _speaks_grpc(sock: socket.socket) -> bool:
    """Whether the server at ``sock`` answers as gRPC does: an HTTP/2 SETTINGS frame first.

    A cluster's GCS and its client server are gRPC servers; a port of something else (a
    web server, Redis) answers otherwise or not at all, and Ray would retry it for
    twenty minutes. A TLS cluster (``$RAY_USE_TLS``) is not asked.
    """
    sock.sendall(_HTTP2_PREFACE)
    try:  # a frame's header: length (3), type (1), flags (1), stream (4); fewer: it closed
        head = sock.recv(9, socket.MSG_WAITALL)
    except TimeoutError:
        return False
    return len(head) == 9 and head[3] == 4  # SETTINGS


def ray_address(address: str | None) -> str | None:
    """The cluster address Ray connects to: ``address``, else ``$RAY_ADDRESS`` (or none).

    An empty ``address`` is given, not absent: :func:`check_address` names it.
    """
    return address if address is not None else os.environ.get("RAY_ADDRESS") or None


_UNPICKLABLE = re.compile(r"FailTuple\((?P<name>[^ ]+) \[path=(?P<path>[^,]+), obj=(?P<obj>.*?), "
                         r"parent=")
"""How Ray's serialisation check names what could not be pickled (Ray 2.60)."""


def _put_agent(ray: Any, make_agent: AgentFactory) -> Any:
    """``ray.put(make_agent)``, or a one-line error naming what in it cannot be pickled.

    Raises:
        RolloutError: When the factory (its agent class, what that refers to) cannot be
            pickled, naming the object and where it is held where Ray finds it.
    """
    try:
        return ray.put(make_agent)
    except Exception as err:  # what pickling raised: TypeError, ValueError, PicklingError …
        if isinstance(err, ray.exceptions.RayError):  # the cluster's, not the agent's
            raise
        found = _UNPICKLABLE.search(str(err))
        held = (f"{found['name']} ({found['obj']}, reached as {found['path']})" if found
                else "an object")
        cause = err.__cause__ or err
        raise RolloutError(f"the agent cannot be sent to Ray's actors: it holds {held}, "
                           f"which cannot be pickled ({cause}); create it inside the agent "
                           "(in __init__ or act), or run without --ray") from None


def _actor_error(err: Exception) -> ActorsLostError:
    """What a dead actor's error means for the caller, in one line."""
    said = next((line.strip() for line in str(err).splitlines() if line.strip()), repr(err))
    return ActorsLostError(f"an actor died more than its restarts allow ({said})")


def _result(ray: Any, reference: Any) -> tuple[int, EpisodeRecord]:
    """What an episode's task returned, or its error as :meth:`RolloutPool.stream` raises it."""
    try:
        return ray.get(reference)
    except ray.exceptions.RayActorError as err:
        raise _actor_error(err) from err
    except ray.exceptions.RayTaskError as err:
        if isinstance(err.cause, MobileIntentError):  # a mistake, named in one line
            raise err.cause from None
        raise


def _as_given(record: EpisodeRecord, user: str) -> EpisodeRecord:
    """``record`` naming its user as ``user`` was given.

    An episode goes to its actor with a profile's path made absolute (the actor may run
    in another folder), and its record comes back naming that path.
    """
    if record.result.user == user:
        return record
    return dataclasses.replace(record, result=dataclasses.replace(record.result, user=user))


def _one_line(err: BaseException) -> str:
    """``Type: message`` of ``err`` on one line (its lines joined by ``; ``).

    The type is named with its module (``gymnasium.error.NameNotFound``), a built-in
    one without (``TypeError``).
    """
    kind = type(err)
    name = kind.__qualname__ if kind.__module__ == "builtins" else (
        f"{kind.__module__}.{kind.__qualname__}")
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    return f"{name}: {'; '.join(lines)}"


class RolloutActor:
    """A Ray actor's state: one env, built once (and again after a restart).

    An env that cannot be built does not kill the actor: Ray would print each failed
    start's traceback and retry the episodes sent to it. Its episodes raise
    :class:`RolloutError` naming the error instead.

    Args:
        env_id: The registered env id.
        env_kwargs: Passed to ``gym.make``.
    """

    def __init__(self, env_id: str, env_kwargs: Mapping[str, Any]) -> None:
        import mobileintent_gym  # noqa: F401  registers the env ids

        self.env: gym.Env | None = None
        self._unbuilt = ""  # why the env could not be built
        try:
            self.env = gym.make(env_id, **env_kwargs)
        except Exception as err:  # anything gym.make or the env raised: named on each run
            self._unbuilt = (f"an actor could not build its env (gym.make({env_id!r}, "
                             f"**env_kwargs)): {_one_line(err)}")
        self._trim = HeapTrimmer()
        self._agents: tuple[str, AgentFactory] | None = None  # the factory's object, by id

    def run(self, make_agent: list[Any], index: int, episode: Episode
            ) -> tuple[int, EpisodeRecord]:
        """Run one episode; ``index`` comes back with its result.

        ``make_agent`` holds the agent factory's object reference. In a list, Ray leaves it
        to the actor, which unpickles the factory once per run of episodes: one that loads
        a model on first use (``hf_agent``) then loads it once per actor, not per episode.
        """
        import ray

        if self.env is None:
            raise RolloutError(self._unbuilt)
        (reference,) = make_agent
        if self._agents is None or self._agents[0] != reference.hex():
            self._agents = reference.hex(), ray.get(reference)
        record = rollouts.run(self.env, self._agents[1], Episode(*episode))
        self._trim()
        return index, record

    def pid(self) -> int:
        """The actor's process id."""
        return os.getpid()

    def close(self) -> None:
        """Close the env (a real device's server, a session) before the actor is killed."""
        if self.env is not None:
            self.env.close()


class RolloutPool:
    """``num_actors`` Ray actors, each holding an env, that run episodes.

    Connects to Ray: the running session if there is one, else the cluster at ``address``,
    else a new local one with ``num_actors`` CPUs (which :meth:`close` shuts down again).

    Args:
        num_actors: How many actors (one CPU each, or an equal share of the cluster's
            CPUs where it has fewer, with a warning: an autoscaling cluster with some CPUs
            is not asked for more); ``None``: one per CPU of the cluster (of a new local
            one: of the CPUs Ray counts, which follows CPU quotas, those this process may
            run on).
        env_id: The registered env id each actor builds.
        env_kwargs: Passed to ``gym.make`` in each actor.
        address: A Ray cluster's address (``ray.init(address=...)``); a ``host:port`` is
            checked first (see :func:`check_address`).
        max_restarts: Restarts Ray allows each actor.
        max_task_retries: Reruns Ray allows an episode whose actor died.
        progress: Show a progress bar on stderr (a terminal) while :meth:`run` runs.

    Raises:
        ValueError: For a ``num_actors`` that is not a positive integer.
        RolloutError: When ``address`` is no Ray address, nothing answers there, or Ray
            cannot connect (a Ray started here is shut down again).
        MobileIntentError: For a bad ``MOBILEINTENT_GYM_WORKER_THREADS``, before Ray starts.
        DependencyNotInstalled: Without the ``[distributed]`` extra.
    """

    def __init__(self, num_actors: int | None, env_id: str = EXECUTE_ENV,
                 env_kwargs: Mapping[str, Any] | None = None, *, address: str | None = None,
                 max_restarts: int = 3, max_task_retries: int = 3,
                 progress: bool = True) -> None:
        num_actors = None if num_actors is None else positive_integer("num_actors", num_actors)
        self.progress, self.actors = progress, []
        self._running: dict[Any, Any] = {}  # the last stream's episodes under way
        ray = self._ray = require("ray", "distributed")
        threads = worker_thread_env()
        self._owns_ray = not ray.is_initialized()
        if not self._owns_ray:
            _warn_if_elsewhere(address, ray)
        try:
            local = self._owns_ray and self._init(address, num_actors) is None
            cpus = ray.cluster_resources().get("CPU", 0.0)
            if num_actors is None:  # Ray's count follows CPU quotas but not the affinity mask
                num_actors = max(1, min(int(cpus), usable_cpus()) if local else int(cpus))
            share = _cpu_share(cpus, num_actors)
            if not self._owns_ray:
                _warn_if_held(ray, cpus, share * num_actors)
            env_vars = {**threads, **_driver_profiles(os.environ)}
            actor = ray.remote(num_cpus=share, max_restarts=max_restarts,
                               max_task_retries=max_task_retries,
                               runtime_env={"env_vars": env_vars})(RolloutActor)
            self.actors = [actor.remote(env_id, _actor_kwargs(env_kwargs))
                           for _ in range(num_actors)]
        except BaseException:
            self.close()
            raise

    def _init(self, address: str | None, num_actors: int | None) -> str | None:
        """Start Ray: the cluster at ``address`` (or ``$RAY_ADDRESS``), else a local one.

        A new local cluster (no address, or ``local``) gets ``num_actors`` CPUs (``None``:
        as many as Ray counts); Ray refuses a CPU count for a running cluster. Returns the
        cluster's address (``None``: a new local one).
        """
        check_address(address)
        address = ray_address(address)
        local = address in (None, "local")
        try:
            # A new local cluster starts with Ctrl-C held back (in its midst, it crashed the
            # process); one at an address may retry for minutes, and Ctrl-C stops that.
            with CtrlC() if local else contextlib.nullcontext():
                self._ray.init(address=address, num_cpus=num_actors if local else None,
                               include_dashboard=False)
        except (ValueError, ConnectionError, RuntimeError) as err:
            self._ray.shutdown()
            raise RolloutError(f"Ray cannot start at {address or 'a new local cluster'!r}: "
                               f"{err}") from err
        return None if local else address

    def stream(self, episodes: Sequence[Episode], make_agent: AgentFactory
               ) -> Iterator[tuple[int, EpisodeRecord]]:
        """Each episode's index and result, as the episodes finish.

        Args:
            episodes: What to run (see :func:`mobileintent_gym.rollouts.episodes`).
            make_agent: ``make_agent(env, seed)`` builds each episode's agent (pickled once,
                with cloudpickle, for the actors).

        Raises:
            RolloutError: When ``make_agent`` cannot be pickled, an actor could not build
                its env (``gym.make`` raised in it: the message ends with that error), or
                one died more than ``max_restarts`` times.
            MobileIntentError: One the agent or the env raised in an episode, as raised.
            ray.exceptions.RayTaskError: Any other error raised in an episode (its
                ``cause`` is that error).
        """
        ray = self._ray
        by_value = require("ray.cloudpickle", "distributed").register_pickle_by_value
        for module in agent_file_modules():  # helpers beside an agent file: the actors
            by_value(module)  # have no folder to import them from
        agent = [_put_agent(ray, make_agent)]  # in a list: see RolloutActor.run
        waiting, idle = deque(enumerate(episodes)), list(self.actors)
        running = self._running = {}  # each episode under way: its result, its actor
        try:
            while waiting or running:
                while waiting and idle:  # one episode per actor at a time
                    actor, (index, episode) = idle.pop(), waiting.popleft()
                    sent = episode._replace(user=absolute_user(episode.user))
                    running[actor.run.remote(agent, index, tuple(sent))] = actor
                (finished,), _ = ray.wait(list(running), num_returns=1)
                idle.append(running.pop(finished))
                index, record = _result(ray, finished)
                yield index, _as_given(record, episodes[index].user)
        finally:  # left (a break, Ctrl-C, an error): what runs is not to be retried,
            self._cancel(running)  # nor said by Ray to be, when close() kills its actor

    def run(self, episodes: Sequence[Episode], make_agent: AgentFactory
            ) -> list[EpisodeRecord]:
        """Every episode's record, in the order of ``episodes`` (see :meth:`stream`)."""
        return list(self.ordered(episodes, make_agent))

    def ordered(self, episodes: Sequence[Episode], make_agent: AgentFactory
                ) -> Iterator[EpisodeRecord]:
        """Every episode's record in the order of ``episodes``.

        Each is yielded as soon as it and all before it have finished: what a results file
        written in order needs.
        """
        waiting: dict[int, EpisodeRecord] = {}
        following = 0
        with Progress(len(episodes)) as bar:  # draws nothing until updated
            for index, record in self.stream(episodes, make_agent):
                waiting[index] = record
                if self.progress:
                    bar.update(record.result.success)
                while following in waiting:
                    yield waiting.pop(following)
                    following += 1

    def pids(self) -> list[int]:
        """Each actor's current process id."""
        return self._ray.get([actor.pid.remote() for actor in self.actors])

    def close(self) -> None:
        """Stop the actors, and Ray if this pool started it.

        Each actor closes its env first; one that has not within :data:`CLOSE_SECONDS`
        (busy with an episode, dead) is killed all the same. Closing a closed pool does
        nothing (Ray's calls would start a new local cluster).
        """
        if self.actors and self._ray.is_initialized():
            closing = [actor.close.remote() for actor in self.actors]
            with contextlib.suppress(Exception):  # a dead actor, one still busy: killed below
                self._ray.get(closing, timeout=CLOSE_SECONDS)
            # A stream not closed yet (kept, not iterated to its end) still runs episodes;
            # a close queued behind one is cancelled with them.
            self._cancel([*self._running, *closing])
            for actor in self.actors:
                self._ray.kill(actor)
        self.actors = []
        if self._owns_ray:
            self._ray.shutdown()
            self._owns_ray = False

    def _cancel(self, references: Iterable[Any]) -> None:
        """Cancel Ray's tasks ``references`` (done ones are left as they are)."""
        for reference in references:
            self._ray.cancel(reference)

    def __enter__(self) -> RolloutPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

"""Thread limits of worker processes, and how many CPUs they may run on.

N env workers on a machine are N processes, and each numeric library in each of them
(OpenBLAS, MKL, OpenMP — torch's too) would start a thread per core: the CPUs are
oversubscribed and every thread adds its buffers to the worker's memory. Workers — the
processes of :class:`~mobileintent_gym.envs.vector.SharedMemoryVectorEnv` and the Ray
rollout actors — therefore start with each of :data:`THREAD_VARIABLES` set to
``$MOBILEINTENT_GYM_WORKER_THREADS`` (default 1). A variable already set in the
environment keeps its value, so ``OMP_NUM_THREADS=4`` still gives workers four OpenMP
threads. A forked worker has its parent's libraries, started before the variables were set:
:func:`limit_loaded_libraries` holds them to the same counts.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from mobileintent_gym.checks import is_digits
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.once import ForkSafeLock

WORKER_THREADS_ENV = "MOBILEINTENT_GYM_WORKER_THREADS"
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                    "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")


def usable_cpus() -> int:
    """How many CPUs this process may run on.

    Its affinity mask, as ``taskset`` or a batch system sets it; where the OS keeps none
    (macOS, Windows), every CPU of the machine.
    """
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def worker_thread_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The thread variables a worker starts with.

    Args:
        environ: The environment to start from (default ``os.environ``).

    Raises:
        MobileIntentError: When ``$MOBILEINTENT_GYM_WORKER_THREADS`` is not a positive
            integer.
    """
    environ = os.environ if environ is None else environ
    threads = environ.get(WORKER_THREADS_ENV, "1").strip()
    if not is_digits(threads) or int(threads) < 1:
        raise MobileIntentError(f"{WORKER_THREADS_ENV} must be a positive integer, "
                                f"got {threads!r}")
    return {name: environ.get(name, threads) for name in THREAD_VARIABLES}


@contextlib.contextmanager
def worker_environment() -> Iterator[None]:
    """While open, ``os.environ`` holds :func:`worker_thread_env`.

    Processes started inside inherit it before they import numpy. (``multiprocessing``
    takes no environment argument, so this is the way to hand one to its processes.)
    Threads may open it together: the variables as they were come back when the last
    one closes (each restoring what it found left them at 1 for good).
    """
    limits = worker_thread_env()
    with _OPENED.lock:
        if not _OPENED.count:
            _OPENED.saved = {name: os.environ.get(name) for name in limits}
        _OPENED.count += 1
        os.environ.update(limits)
    try:
        yield
    finally:
        with _OPENED.lock:
            _OPENED.count -= 1
            if not _OPENED.count:
                for name, value in _OPENED.saved.items():
                    if value is None:
                        os.environ.pop(name, None)
                    else:
                        os.environ[name] = value


@dataclass
class _Opened:
    """The worker environments open in this process, and the variables as they were."""

    count: int = 0
    saved: dict[str, str | None] = field(default_factory=dict)
    lock: ForkSafeLock = field(default_factory=ForkSafeLock)


_OPENED = _Opened()


_LIBRARIES = {"openblas": "OPENBLAS_NUM_THREADS", "mkl": "MKL_NUM_THREADS",
              "openmp": "OMP_NUM_THREADS"}
"""threadpoolctl's name of each library → the variable holding its thread count."""


def limit_loaded_libraries() -> None:
    """Hold the numeric libraries this process loaded already to its thread variables.

    What a worker started by forking needs: the variables (set in ``os.environ`` by
    :func:`worker_environment`) count only for libraries loaded after them. torch, when
    loaded, gets ``torch.set_num_threads``; BLAS and OpenMP are held with threadpoolctl
    where it is installed. A variable that is no count (``OMP_NUM_THREADS=4,2``) is left
    to its library.
    """
    counts = {library: int(os.environ[name]) for library, name in _LIBRARIES.items()
              if is_digits(os.environ.get(name, "").strip())}
    torch = sys.modules.get("torch")
    if torch is not None and "openmp" in counts:
        torch.set_num_threads(max(1, counts["openmp"]))
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return
    loaded = ThreadpoolController()
    for library, count in counts.items():
        loaded.select(internal_api=library).limit(limits=max(1, count))

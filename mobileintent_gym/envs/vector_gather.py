"""Copying sub-envs' frames into one batch with several threads.

A pool's ``recv`` hands back the frames of the sub-envs that finished first. Unless they
are neighbouring rows of shared memory they are copied into one batch, and at 1080×2400
(7.8 MB a frame) that copy is most of the parent's work: one thread moves eight frames
in some 5 ms. NumPy lets go of the GIL while it copies, so threads copy frames side by
side — on the cores of the workers whose steps are being received, which wait for their
next action meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import AbstractContextManager, nullcontext

import numpy as np

from mobileintent_gym.distributed.threads import usable_cpus

MOST_THREADS = 8
"""Threads :func:`default_threads` gives at most (a bound chosen, not measured: memory
bandwidth, not the thread count, paces copies beyond some number of threads)."""
LEAST_BYTES = 16 << 20
"""Batches smaller than this are stacked in the calling thread. Handing parts to threads
costs some 0.1 ms on the 2-core VM: two 1080×2400 frames (15.6 MB) took 0.82 ms on two
threads against 0.72 on one, eight 1200×540 frames (15.5 MB) 0.73 against 0.69, and
eight 1600×720 frames (27.7 MB) 1.72 against 2.16."""


def default_threads() -> int:
    """Half the CPUs this process may run on, at most :data:`MOST_THREADS`, at least 1.

    On two or three CPUs that is one: the parent copies alone, as the workers need the
    other cores.
    """
    return max(1, min(MOST_THREADS, usable_cpus() // 2))


class FrameGather:
    """Stacks frames into a batch, spread over ``threads`` threads (started when first needed).

    Args:
        threads: How many threads copy; 1 copies in the calling thread.
        hold: Entered around a copy that threads share (a vector env holds Ctrl-C back
            there, so that no thread copies on into memory it reuses after the interrupt).
    """

    def __init__(self, threads: int,
                 hold: Callable[[], AbstractContextManager[object]] = nullcontext) -> None:
        self.threads, self._hold = threads, hold
        self._pool: ThreadPoolExecutor | None = None

    def stack(self, frames: Sequence[np.ndarray], out: np.ndarray | None = None) -> np.ndarray:
        """``np.stack(frames, out=out)``, frame ``i`` copied by thread ``i % threads``.

        A single frame, or a batch under :data:`LEAST_BYTES`, is stacked in this thread.
        Returns once every copy is done (also when one failed: its error is raised then),
        so no thread writes into ``out`` after it returns.

        Raises:
            ValueError: For frames of different shapes, or an ``out`` of another shape
                than theirs stacked (as ``np.stack``).
        """
        parts = min(self.threads, len(frames))
        if parts < 2 or frames[0].nbytes * len(frames) < LEAST_BYTES:
            return np.stack(frames, out=out)
        if any(frame.shape != frames[0].shape for frame in frames):
            raise ValueError(f"frames to stack must have one shape, got "
                             f"{sorted({frame.shape for frame in frames})}")
        shape = (len(frames), *frames[0].shape)
        if out is None:
            out = np.empty(shape, np.result_type(*frames))
        elif out.shape != shape:
            raise ValueError(f"out must have the shape of the frames stacked, {shape}, "
                             f"not {out.shape}")

        def copy(part: int) -> None:
            for index in range(part, len(frames), parts):
                np.copyto(out[index], frames[index])

        with self._hold():
            futures = self._submit(copy, parts)
            try:
                for part in range(len(futures), parts):  # those no thread took
                    copy(part)
            finally:  # every copy done before an error (any part's) is raised
                wait(futures)
        for future in futures:
            future.result()
        return out

    def _submit(self, copy: Callable[[int], None], parts: int) -> list[Future]:
        """Parts ``0 … parts - 1`` handed to the threads, as many as they take.

        When one is refused (the interpreter exiting, in an ``atexit`` handler; or no thread
        could start, which leaves the part queued without its future) the threads run what
        they were handed and end; the caller copies the rest (a part both queued and
        copied here is copied twice, both done before :meth:`stack` returns).
        """
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="frame-gather")
        futures: list[Future] = []
        for part in range(parts):
            try:
                futures.append(self._pool.submit(copy, part))
            except RuntimeError:
                self.close()
                break
        return futures

    def close(self) -> None:
        """End the threads (they finish what they copy)."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

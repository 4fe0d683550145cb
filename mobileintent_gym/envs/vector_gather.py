"""Copying sub-envs' frames into one batch with several threads.

A pool's ``recv`` hands back the frames of the sub-envs that finished first. Unless they
are neighbouring rows of shared memory they are copied into one batch, and at 1080×2400
(7.8 MB a frame) that copy is most of the parent's work: one thread moves eight frames
in some 5 ms. NumPy lets go of the GIL while it copies, so threads copy frames side by
side — on the cores of the workers whose steps are being received, which wait for their
next action meanwhile.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait

import numpy as np

MOST_THREADS = 8
"""Threads :func:`default_threads` gives at most: past that, memory bandwidth, not the
threads, sets the pace."""
LEAST_BYTES = 1 << 20
"""Frames smaller than this are copied in the calling thread: handing them to threads
would cost more than their copy."""


def default_threads() -> int:
    """Half the CPUs this process may run on, at most :data:`MOST_THREADS`, at least 1.

    On two or three CPUs that is one: the parent copies alone, as the workers need the
    other cores.
    """
    usable = (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
              else os.cpu_count() or 1)
    return max(1, min(MOST_THREADS, usable // 2))


class FrameGather:
    """Stacks frames into a batch, spread over ``threads`` threads (started when first needed).

    Args:
        threads: How many threads copy; 1 copies in the calling thread.
    """

    def __init__(self, threads: int) -> None:
        self.threads = threads
        self._pool: ThreadPoolExecutor | None = None

    def stack(self, frames: Sequence[np.ndarray], out: np.ndarray | None = None) -> np.ndarray:
        """``np.stack(frames, out=out)``, frame ``i`` copied by thread ``i % threads``.

        Frames under :data:`LEAST_BYTES`, or a single one, are stacked in this thread.

        Returns once every copy is done (also when one failed: its error is raised then),
        so no thread writes into ``out`` after it returns.

        Raises:
            ValueError: For frames of different shapes, or an ``out`` of another shape
                than theirs stacked (as ``np.stack``).
        """
        if not self.uses_threads(frames):
            return np.stack(frames, out=out)
        parts = min(self.threads, len(frames))
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

        futures = self._submit(copy, parts)
        try:
            for part in range(len(futures), parts):  # no threads left (interpreter exiting)
                copy(part)
        finally:  # every copy done before an error (any part's) is raised
            wait(futures)
        for future in futures:
            future.result()
        return out

    def uses_threads(self, frames: Sequence[np.ndarray]) -> bool:
        """Whether :meth:`stack` hands ``frames`` to threads (several, large enough)."""
        return self.threads > 1 and len(frames) > 1 and frames[0].nbytes >= LEAST_BYTES

    def _submit(self, copy: Callable[[int], None], parts: int) -> list[Future]:
        """Parts ``0 … parts - 1`` handed to the threads, as many as they take.

        Once the interpreter has begun to exit (an ``atexit`` handler), threads take none.
        """
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="frame-gather")
        futures: list[Future] = []
        for part in range(parts):
            try:
                futures.append(self._pool.submit(copy, part))
            except RuntimeError as err:
                # Refused before queueing ("cannot schedule new futures after [interpreter]
                # shutdown"); any other failure (no thread could start) may have queued the
                # part, whose future is lost: raised once the threads have run every part
                # queued (the pool shut down).
                if "after" not in str(err) or "shutdown" not in str(err):
                    self.close()
                    raise
                break
        return futures

    def close(self) -> None:
        """End the threads (they finish what they copy)."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

"""A vector env's worker that runs in the parent process (``worker_in_parent=True``).

With N sub-envs on N cores, :class:`~mobileintent_gym.envs.vector.SharedMemoryVectorEnv`
otherwise runs N worker processes and the parent: every step each worker sleeps until its
action comes and wakes on a core the parent or another worker was just using, and the
parent waits for the slowest. With the last worker in the parent, the parent steps that
worker's sub-envs itself while the N - 1 worker processes step theirs: N processes on N
cores, and the parent busy while it would have waited.

:class:`ParentWorker` takes the place of both the worker's process and its pipe, so the
vector env talks to it as to any worker: messages are pickled as they would be for a pipe
(the envs never share an object with the caller) and carried out when the parent waits
for answers and none is there yet (:meth:`ParentWorker.work`), after the worker
processes were sent theirs.
"""

from __future__ import annotations

import errno
import pickle
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym

from mobileintent_gym.envs.vector_wire import dumps
from mobileintent_gym.envs.vector_worker import (
    CLOSE,
    FAILURES,
    Served,
    SharedFrames,
    build,
    close_all,
    closed_answer,
    encoded,
    portable,
)


class ParentWorker:
    """A worker whose envs run in this process: the pipe and the process of one, in one.

    Args:
        first: The row of its first env in the shared arrays; its other envs' follow.
        env_fns: Build its envs, one each (called here, now).

    Attributes:
        exitcode: ``None`` while it serves; once it has ended (closed its envs) 0, or 1
            when an env's ``close()`` raised, as a worker process's exit code reads (the
            error is logged, as a worker process prints its traceback).
    """

    name = "mobileintent-gym-worker-in-parent"

    def __init__(self, first: int, env_fns: Sequence[Callable[[], gym.Env]]) -> None:
        self.exitcode: int | None = None
        self._envs: list[gym.Env] = []
        self._batches: dict[int, SharedFrames] = {}
        self._messages: deque[Any] = deque()  # sent, not carried out yet
        self._answers: deque[bytes | memoryview] = deque()
        try:
            self._answers.append(dumps(build(env_fns, self._envs)))
        except BaseException:
            self._end()
            raise
        self._served = Served(first, self._envs, self._batches)
        if len(self._envs) < len(env_fns):  # as a worker that could not build them all
            self._end()

    # The pipe's side: what the vector env sends and reads.

    @property
    def pending(self) -> bool:
        """Whether messages wait to be carried out (:meth:`work`)."""
        return bool(self._messages) and not self.closed

    @property
    def closed(self) -> bool:
        """Whether it has ended (as a pipe's ``closed``)."""
        return self.exitcode is not None

    def send_bytes(self, data: bytes | memoryview) -> None:
        """Take a pickled message, carried out at the next :meth:`work`.

        Raises:
            OSError: Once it has ended, as a pipe to a worker that has.
        """
        if self.closed:
            raise OSError(errno.EPIPE, "the vector env's worker in the parent has ended")
        self._messages.append(data)

    def work(self) -> None:
        """Carry out the messages sent, one after the other, and keep their answers.

        After :data:`~.vector_worker.CLOSE` it answers, closes its envs and ends. A failure
        outside any env's command (a message that cannot be unpickled: an action of a type
        this process cannot rebuild) ends it as it ends a worker process: one error for all
        the envs the message named. So does anything else an env raises that is no
        ``Exception`` (a ``GeneratorExit``, a test framework's failure), which is then
        raised here.
        """
        while self._messages and not self.closed:
            try:
                message = pickle.loads(self._messages.popleft())
                ending = isinstance(message, str) and message == CLOSE
                self._answers.append(dumps(closed_answer(len(self._envs))) if ending
                                     else encoded(self._served.answer(message)))
            except FAILURES as err:
                self._answers.append(dumps(("error", portable(err))))
                ending = True
            except BaseException:  # as it ends a worker process: answers owed read as ended
                self.close()
                raise
            if ending:
                self._end()

    def poll(self) -> bool:
        """Whether an answer waits to be read, or it has ended (nothing is carried out)."""
        return bool(self._answers) or self.closed

    def recv_bytes(self) -> bytes | memoryview:
        """The next answer (of the messages :meth:`work` carried out).

        Raises:
            EOFError: When it has ended with no answer left, as a pipe does.
        """
        if not self._answers:
            raise EOFError("the vector env's worker in the parent has ended")
        return self._answers.popleft()

    # The process's side: what the vector env does with a worker process.

    def is_alive(self) -> bool:
        """Whether it still serves."""
        return not self.closed

    def join(self, timeout: float | None = None) -> None:
        """Nothing to wait for: it ends when told (:meth:`close`)."""

    def close(self) -> None:
        """End it: its envs are closed and its shared memory let go of.

        Ending it again does nothing; messages not carried out are dropped.
        """
        self._messages.clear()
        self._end()

    terminate = kill = close  # a process is stopped; this one's envs can only be closed

    def _end(self) -> None:
        if self.closed:
            return
        self.exitcode = 1  # until every env closed without an error
        for frames in self._batches.values():
            frames.close()
        envs, self._envs = self._envs, []
        if close_all(envs):
            self.exitcode = 0

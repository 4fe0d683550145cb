"""A training run's checkpoints: ``checkpoint-N`` folders of adapters, optimiser and N.

SFT and RePAIR keep them alike: every so many updates and at the end, and where Ctrl-C
stops a run (:mod:`.stopping`); a resumed run goes on from the latest.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from gymnasium import logger

from mobileintent_gym.errors import MobileIntentError, require
from mobileintent_gym.files import atomic_folder
from mobileintent_gym.rl.policy import load_adapters, save_adapters
from mobileintent_gym.rl.runs import LOG_FILE, checkpoints, latest_checkpoint
from mobileintent_gym.rl.stopping import Stopping

STATE_FILE = "trainer.pt"
"""A checkpoint's optimiser state and update count (beside the adapters' files)."""


def save_checkpoint(folder: Path, policy: Any, optimizer: Any, done: int, **more: Any
                    ) -> None:
    """Write adapters, optimiser state and the update count ``done`` to ``folder``, atomically.

    ``more`` is what else the trainer keeps there.
    """
    torch = require("torch", "llm")
    with atomic_folder(folder) as partial:
        save_adapters(policy, partial)
        torch.save({"done": done, "optimizer": optimizer.state_dict(), **more},
                   partial / STATE_FILE)


def load_checkpoint(folder: Path, policy: Any, optimizer: Any, device: Any
                    ) -> dict[str, Any]:
    """Load a folder written by :func:`save_checkpoint` into ``policy`` and ``optimizer``.

    Returns:
        The rest of its state: ``done``, the updates done when it was saved, and what
        else the trainer kept.

    Raises:
        MobileIntentError: When the folder holds no trainer state, or its adapters or
            state cannot be read (a file cut short by a disk that filled).
    """
    torch = require("torch", "llm")
    state_file = folder / STATE_FILE
    if not state_file.is_file():
        raise MobileIntentError(f"{folder} holds no trainer state ({STATE_FILE})")
    try:
        load_adapters(policy, folder)
        state = torch.load(state_file, map_location=device)
        optimizer.load_state_dict(state.pop("optimizer"))
        return {**state, "done": int(state["done"])}
    except Exception as err:  # torch's, safetensors' and peft's own errors
        if isinstance(err, MemoryError | torch.cuda.OutOfMemoryError):  # any torch device
            raise  # the checkpoint is fine: the machine lacks room for it
        raise MobileIntentError(
            f"{folder} cannot be read ({type(err).__name__}: {str(err)[:200]}); if it "
            "is damaged (cut short by a full disk), remove it to resume from the "
            "checkpoint before it") from err


def resume_point(out: Path, resume: bool) -> Path | None:
    """The checkpoint a run in ``out`` goes on from: its latest when resumed, else none.

    A resumed run without one starts from update 0, warning that the updates it logged
    are dropped.
    """
    saved = checkpoints(out) if resume else []
    if resume and not saved and _logged(out):
        logger.warn(f"--resume: {out} holds no checkpoint to continue from; its "
                    "logged updates are dropped and the run starts from update 0")
    return saved[-1][1] if saved else None


def _logged(out: Path) -> bool:
    """Whether the run in ``out`` logged an update (a row below the log's header)."""
    try:  # read as bytes: a damaged log is dropped too, not refused
        return len((out / LOG_FILE).read_bytes().splitlines()) > 1
    except OSError:  # no log (yet)
        return False


def checkpoint_due(done: int, every: int, total: int) -> bool:
    """Whether a run keeps a checkpoint after update ``done`` of ``total``.

    One is kept every ``every`` updates (0: never) and after the last.
    """
    return bool(every and done % every == 0) or done == total


@contextlib.contextmanager
def saved_when_stopped(out: Path, stopping: Stopping, done: Callable[[], int],
                       save: Callable[[Path], None]) -> Iterator[None]:
    """Hold Ctrl-C back by ``stopping`` while open; one that stops the run keeps its work.

    The updates done (``done()``) since the latest checkpoint are saved as one
    (``save``), or, where a second Ctrl-C stopped an optimiser step half done, said to
    be lost; the ``KeyboardInterrupt`` goes on.
    """
    try:
        with stopping:
            yield
    except KeyboardInterrupt:
        _keep_stopped(out, done(), stopping.whole, save)
        raise


def _keep_stopped(out: Path, done: int, whole: bool, save: Callable[[Path], None]) -> None:
    """After Ctrl-C: save the updates done since the latest checkpoint, or say they are lost.

    Args:
        out: The run's folder.
        done: The updates done.
        whole: Whether no optimiser step was stopped half done
            (:attr:`~.stopping.Stopping.whole`): only then can they be saved.
        save: Writes a checkpoint to the folder it is given.
    """
    kept = latest_checkpoint(out)
    if done > kept and whole:
        save(out / f"checkpoint-{done}")
        kept = done
    if done == 0:
        logger.warn("stopped before its first update: nothing to keep (--resume starts "
                    "the run from update 0)")
        return
    if done == kept:
        logger.warn(f"stopped after update {done}, saved as checkpoint-{done}: "
                    "--resume goes on from it")
        return
    start = f"checkpoint-{kept}" if kept else "update 0 (no checkpoint yet)"
    logger.warn(f"stopped after update {done}, unsaved (stopped at once by a second "
                f"Ctrl-C, or trained outside the main thread): --resume goes on from "
                f"{start}, running updates {kept + 1}-{done} again "
                "(--checkpoint-every sets how often one is kept)")

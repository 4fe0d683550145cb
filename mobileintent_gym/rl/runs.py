"""What training runs share: the default users, the envs, the CSV/TensorBoard log, checkpoints."""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
import os
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
from gymnasium import logger

from mobileintent_gym.agents.lm import MIN_TEMPERATURE, is_temperature, local_name
from mobileintent_gym.backends.loader import DeviceConfigError, parse_device, public_spec
from mobileintent_gym.checks import check_flags, check_items, is_count, is_finite
from mobileintent_gym.console import output_folder
from mobileintent_gym.distributed.pool import EXECUTE_ENV
from mobileintent_gym.errors import InvalidArgumentError, MobileIntentError, brief
from mobileintent_gym.files import hash_file, write_atomic
from mobileintent_gym.once import once
from mobileintent_gym.rl.curves import plot_curves
from mobileintent_gym.users.profile import absolute_user

_CHECKPOINT = re.compile(r"checkpoint-(\d+)")


# What each real-valued training setting may be: the test, and how an error message says it.
RANGES: dict[str, tuple[Callable[[float], bool], str]] = {
    "lr": (lambda v: v > 0, "> 0"),
    "lora_alpha": (lambda v: v > 0, "> 0"),
    "temperature": (is_temperature, f"0 (greedy) or >= {MIN_TEMPERATURE}"),
    "epsilon": (lambda v: 0 < v < 1, "in (0, 1): the ratio's clip range"),
    "beta": (lambda v: v >= 0, ">= 0: the KL penalty's weight"),
    "max_grad_norm": (lambda v: v > 0, "> 0: below 0 the clip turns gradients round"),
}
TRAIN_USERS = ("train",)  # the built-in training set (users.USER_SETS)
VAL_USERS = ("val",)  # the built-in validation set
SFT_LR = 2e-4  # AdamW learning rates by default: SFT's, and RePAIR's (the study's)
REPAIR_LR = 1e-5
SFT_CHECKPOINT_EVERY = 200  # optimiser steps between checkpoints by default
REPAIR_CHECKPOINT_EVERY = 20
CONFIG_FILE = "config.json"
# Settings a resumed run may change: how far it goes, how often it keeps a checkpoint
# (saved runs from before SFT had one lack it), and where it is (the same folder, however
# it is written).
RESUMABLE = ("updates", "checkpoint_every", "out")
_FOLDERS = ("init", "profiles_dir")  # settings naming a folder
_USERS = ("users", "val_users")  # settings naming users, by name or profile file


def env_kwargs(device: str = "sim", users: Sequence[str] | None = None,
               profiles_dir: str | None = None, max_steps: int | None = None
               ) -> dict[str, Any]:
    """``gym.make`` keywords of an Execute env observing what a language policy reads.

    The observation is the instruction and the dump; ``max_steps`` (if given) truncates
    episodes before the task's step limit.
    """
    kwargs: dict[str, Any] = {"device": device, "users": users, "profiles_dir": profiles_dir,
                              "observation": ("instruction", "hierarchy")}
    if max_steps is not None:
        kwargs["max_episode_steps"] = max_steps
    return kwargs


def make_envs(count: int, **kwargs: Any) -> list[gym.Env]:
    """``count`` Execute envs made with :func:`env_kwargs` of ``kwargs``."""
    import mobileintent_gym  # noqa: F401  (registers the envs)

    return [gym.make(EXECUTE_ENV, **env_kwargs(**kwargs)) for _ in range(count)]


def check_settings(config: Any, kind: str, counts: Sequence[str], reals: Sequence[str],
                   intervals: Sequence[str] = (), flags: Sequence[str] = ()) -> None:
    """Refuse settings a run cannot work with, before any model is loaded.

    Args:
        config: The run's settings (an object with the named attributes).
        kind: The run's kind, for the message (``RePAIR``, ``SFT``).
        counts: Settings that must be integers of at least 1.
        reals: Settings of :data:`RANGES`: finite numbers in their range.
        intervals: Settings of every so many updates (0: never): integers of at least 0.
        flags: Settings that must be True or False (a text "no" would read as true).

    Raises:
        MobileIntentError: Naming the setting, its value and what it may be; also for a
            seed that is not an integer of at least 0, a ``phone`` that names no device,
            or an ``out``, model or folder setting of another type.
    """
    for names, least, says in ((counts, 1, "counts must be >= 1"),
                               (intervals, 0, "intervals must be integers >= 0; 0: never")):
        bad = {name: getattr(config, name) for name in names
               if not is_count(getattr(config, name), least=least)}
        if bad:
            raise MobileIntentError(f"{kind} settings out of range: {bad} ({says})")
    check_flags(**{name: getattr(config, name) for name in flags})
    _check_paths({field.name: getattr(config, field.name)  # users: resolve_users names them
                  for field in dataclasses.fields(config) if field.name not in _USERS})
    if not (is_count(config.seed, least=0) and config.seed < TORCH_SEEDS):
        raise MobileIntentError(f"{kind} setting seed={config.seed!r} must be an integer in "
                                "[0, 2**64) (torch's seeds)")
    for name in reals:
        allowed, says = RANGES[name]
        value = getattr(config, name)
        if not (is_finite(value) and allowed(value)):
            raise MobileIntentError(f"{kind} setting {name}={value!r} is out of range "
                                    f"({says}; finite)")
    try:
        parse_device(config.phone)
    except DeviceConfigError as err:
        raise MobileIntentError(f"{kind} setting phone={public_spec(config.phone)!r}: {err}"
                                ) from err


def settings_json(config: Mapping[str, Any], indent: int | None = None) -> str:
    """A run's settings as saved: JSON, tuples as lists, paths as strings.

    Folders (``init``, ``profiles_dir``), a model in a local folder or file (as the
    model is named once loaded: :func:`~mobileintent_gym.agents.lm.local_name`) and
    profile files among the users are made absolute, and a lone user or task (a string)
    is a list of one: a run is resumed with them written any way that means the same, from
    any folder, and not on another model that a relative path names there.

    Raises:
        InvalidArgumentError: Naming a model, folder or user setting of another type.
    """
    settings = dict(config)
    _check_paths(settings)
    model = settings.get("model")
    if isinstance(model, str) and Path(model).expanduser().exists():
        settings["model"] = local_name(model)
    for name in (*_USERS, "tasks"):
        if isinstance(settings.get(name), str | os.PathLike):
            settings[name] = [settings[name]]
    for name in _FOLDERS:
        if settings.get(name) is not None:
            settings[name] = str(Path(settings[name]).expanduser().resolve())
    if settings.get("init") is not None and "init_content" not in settings:
        settings["init_content"] = adapters_fingerprint(settings["init"])
    for name in _USERS:
        if settings.get(name) is not None:
            settings[name] = [absolute_user(user) for user in settings[name]]
    return json.dumps(settings, indent=indent, default=os.fspath)


def _check_paths(settings: Mapping[str, Any]) -> None:
    """Refuse an out, model, folder or users setting that names no folder, model or users."""
    paths = str | os.PathLike
    for name in ("out", "model", *_FOLDERS):
        value = settings.get(name)
        if name in settings and not (isinstance(value, paths)
                                     or (value is None and name != "out")):
            raise InvalidArgumentError(f"setting {name} must be a path or name"
                                       f"{'' if name == 'out' else ', or None'}; got "
                                       f"{brief(value, 60)}")
    for name in _USERS:
        value = settings.get(name)
        if not (value is None or isinstance(value, paths)):
            check_items(f"setting {name}", value, lambda user: isinstance(user, paths),
                        "a user's name or profile path")


ADAPTER_FILES = ("adapter_config.json", "adapter_model.safetensors", "adapter_model.bin")
"""The files of a folder of LoRA adapters that make the model (others: a README, notes)."""


def adapters_fingerprint(folder: str | Path) -> str | None:
    """SHA-256 of a folder's :data:`ADAPTER_FILES` (names and bytes); ``None`` for none.

    What a run keeps of its ``init`` adapters: a run resumed on adapters changed since
    (retrained in place) is refused, as one on another base model is.
    """
    files = [path for name in ADAPTER_FILES if (path := Path(folder, name)).is_file()]
    if not files:
        return None
    digest = hashlib.sha256()
    for path in files:
        digest.update(f"{path.name}\0".encode())
        hash_file(digest, path)
    return digest.hexdigest()


def checkpoints(out: str | Path) -> list[tuple[int, Path]]:
    """The ``checkpoint-N`` folders of a run, by N."""
    found = [(int(m.group(1)), p) for p in Path(out).glob("checkpoint-*")
             if p.is_dir() and (m := _CHECKPOINT.fullmatch(p.name))]
    return sorted(found)


def latest_checkpoint(out: str | Path) -> int:
    """N of the run's latest ``checkpoint-N`` folder (0: none yet)."""
    return max((n for n, _ in checkpoints(out)), default=0)


def check_progress(out: str | Path, updates: int) -> None:
    """Refuse to resume the run in ``out`` for fewer ``updates`` than it has checkpointed.

    Raises:
        MobileIntentError: Naming the updates held and the fewest that may be given.
    """
    done = latest_checkpoint(out)
    if done > updates:
        raise MobileIntentError(f"{out} holds {done} updates; --updates {updates} would end "
                                f"before them (give {done} or more)")


LOG_FILE = "log.csv"
"""A run's log in its folder: one row per update (or SFT step)."""
TORCH_SEEDS = 1 << 64
"""Seeds of a training run are below it: ``torch.manual_seed`` takes no larger one."""


def run_settings(config: Any, model: str) -> dict[str, Any]:
    """A run's settings as its folder keeps them: its config's, with the model it loaded.

    A config naming no model loads the default one, and which that is depends on the
    machine (the hub's model where the cache or the hub has it, else the packaged
    weights); ``model``, the one loaded, is kept in its place, so a run resumed on
    another base is refused rather than trained on. A ``phone`` URL is kept without its
    user name and password.
    """
    settings = {**dataclasses.asdict(config), "model": config.model or model}
    if isinstance(settings.get("phone"), str):
        settings["phone"] = public_spec(settings["phone"])
    return settings


def check_run_folder(out: str | Path, config: Mapping[str, Any], resume: bool = False,
                     unknown: Collection[str] = ()) -> None:
    """Refuse to start a run where it would mix with another one.

    ``out`` must be a folder this process can make and write. A fresh run needs one
    holding no run (no config, log or checkpoint). A
    resumed one needs the settings saved there to equal ``config``, but for
    :data:`RESUMABLE` ones; a folder without saved settings starts afresh, with a warning
    naming it (so one command starts a run and continues it after a stop, and a misspelt
    folder shows), unless it holds checkpoints (of settings that cannot be compared).

    Args:
        out: The run's folder.
        config: The run's settings as its folder saves them (:func:`run_settings`).
        resume: Whether the run continues the one in ``out``.
        unknown: Settings not known yet (the model before it is loaded), left out here to
            be compared once they are.

    Raises:
        MobileIntentError: Naming the folder and what to do, or every setting that differs
            with its saved and its given value.
    """
    out = Path(out)
    output_folder(out)  # a file there failed only when the run wrote its settings
    saved_file = out / CONFIG_FILE
    if not resume:
        if saved_file.exists() or (out / LOG_FILE).exists() or checkpoints(out):
            raise MobileIntentError(f"{out} already holds a run; continue it with --resume, "
                                    "or give another --out (or delete that folder)")
        return
    if not saved_file.is_file():
        if checkpoints(out):  # its settings are not known: they cannot be compared
            raise MobileIntentError(f"--resume: {out} holds checkpoints but no {CONFIG_FILE}, "
                                    "so no settings to continue them with; give another --out")
        _warn_new_run(str(out))
        return
    # Read as settings are written now: a run saved before models were made absolute
    # kept a relative path, which names the same model from the folder it was run in.
    try:
        saved = json.loads(settings_json(_saved_settings(saved_file)))
    except InvalidArgumentError as err:
        raise MobileIntentError(f"{saved_file} is damaged ({err}); give another --out") from err
    given = json.loads(settings_json(config))  # tuples as lists, as saved
    differ = sorted(k for k in saved.keys() | given.keys()
                    if k not in {*RESUMABLE, *unknown} and saved.get(k) != given.get(k))
    if "init" in differ:  # another folder (or none): what it holds is no news
        differ = [k for k in differ if k != "init_content"]
    if differ:
        changes = "; ".join(_difference(k, saved.get(k), given.get(k)) for k in differ)
        raise MobileIntentError(f"--resume would continue the run in {out} with other settings "
                                f"({changes}); give the saved ones, or another --out")


def _difference(name: str, saved: Any, given: Any) -> str:
    """How a setting differs from the saved one, in a message."""
    if name == "init_content":
        return "init: the adapters there changed since the run started (their content hash)"
    return f"{name}: {saved!r} saved, {given!r} given"


@once
def _warn_new_run(out: str) -> None:
    """Warn that ``out`` holds no run to continue, once per folder and process.

    A command checks its folder before loading its model, and the trainer again once it
    holds the folder: one warning.
    """
    logger.warn(f"--resume: {out} holds no run to continue; starting a new run there")


def write_config(out: str | Path, config: Mapping[str, Any]) -> None:
    """Save a run's settings in its folder (what :func:`check_run_folder` compares)."""
    Path(out).mkdir(parents=True, exist_ok=True)
    write_atomic(Path(out, CONFIG_FILE), settings_json(config, indent=1).encode())


def _saved_settings(path: Path) -> dict[str, Any]:
    """The settings a run saved at ``path``.

    Raises:
        MobileIntentError: Naming the file when it holds no JSON object.
    """
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise MobileIntentError(f"{path} holds no run's settings ({err}); give another "
                                "--out") from err
    if not isinstance(saved, dict):
        raise MobileIntentError(f"{path} holds no run's settings (a JSON "
                                f"{type(saved).__name__}, not an object); give another --out")
    return saved


class RunLog:
    """One row per update in ``<out>/log.csv``, and in TensorBoard when it is installed.

    Args:
        out: The run's folder.
        fields: The CSV columns, ``update`` first.
        resume_after: Keep the rows of updates up to this one from an earlier run (the
            rows after the checkpoint resumed from are dropped, and so are TensorBoard's
            events of those updates); ``None`` starts afresh.
    """

    def __init__(self, out: str | Path, fields: Sequence[str], resume_after: int | None = None
                 ) -> None:
        self.path = Path(out, LOG_FILE)
        self.fields = list(fields)
        # Updates count from 1: from 0 no row is kept, and none is read (nor refused).
        kept = [r for r in self.rows() if int(r["update"]) <= resume_after] \
            if resume_after else []  # rows() checked the updates
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = io.StringIO(newline="")
        writer = csv.DictWriter(text, self.fields)
        writer.writeheader()
        writer.writerows(kept)
        write_atomic(self.path, text.getvalue().encode())  # a stop meanwhile keeps the rows
        self._board = _summary_writer(Path(out, "tensorboard"), resume_after)

    def rows(self) -> list[dict[str, str]]:
        """The rows written so far.

        Raises:
            MobileIntentError: Naming the log and its first damaged line, where it is no
                UTF-8 CSV or a row's update is no count.
        """
        if not self.path.is_file():
            return []
        data = self.path.read_bytes()
        try:
            reader = csv.DictReader(io.StringIO(data.decode(), newline=""))
        except UnicodeDecodeError as err:
            raise self._damaged(data[:err.start].count(b"\n") + 1, "not UTF-8") from err
        rows = []
        try:
            for row in reader:
                if not str(row.get("update")).isdecimal():
                    raise ValueError(f"no update count: {row.get('update')!r}")
                if None in row:  # csv.DictReader's key of cells past the header's
                    raise ValueError(f"more cells than the header names: {row[None]!r}")
                rows.append(row)
        except (csv.Error, ValueError) as err:
            raise self._damaged(reader.line_num, str(err)) from err
        return rows

    def _damaged(self, line: int, why: str) -> MobileIntentError:
        return MobileIntentError(f"{self.path} is damaged at line {line} ({why}): mend or "
                                 "remove it (removing it drops the logged rows, not the "
                                 "checkpoints)")

    def write(self, row: Mapping[str, Any]) -> None:
        """Append one update's row (missing fields stay empty) and log its numbers."""
        with self.path.open("a", newline="", encoding="utf-8") as handle:
            csv.DictWriter(handle, self.fields).writerow(
                {k: _cell(row.get(k)) for k in self.fields})
        if self._board is not None:
            for key, value in row.items():
                if key != "update" and isinstance(value, (int, float)):
                    self._board.add_scalar(key, value, int(row["update"]))
            self._board.flush()

    def close(self) -> None:
        """Close the TensorBoard writer."""
        if self._board is not None:
            self._board.close()


def plot_log(rows: Sequence[dict[str, str]], path: Path) -> Path:
    """Plot a RePAIR run's log rows: each update's group SAR, the validation SAR where measured."""
    series = {}
    # SAR is undefined (an empty cell) where no subgoal's context was reached.
    for name, key in (("group SAR (sampled rollouts)", "sar"),
                      ("validation SAR (greedy)", "val_sar")):
        points = [(int(r["update"]), float(r[key])) for r in rows if r.get(key)]
        if points:
            series[name] = tuple(zip(*points, strict=True))
    return plot_curves(series, path, "RePAIR", "update", "subgoal achievement rate",
                       ylim=(0.0, 1.0))


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    return f"{value:.6g}" if isinstance(value, float) else value


def _summary_writer(folder: Path, resume_after: int | None) -> Any:
    """A TensorBoard writer, if installed; resumed, it drops the events after the checkpoint."""
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:  # TensorBoard is optional; the CSV log is always written
        return None
    return SummaryWriter(str(folder),
                         purge_step=None if resume_after is None else resume_after + 1)

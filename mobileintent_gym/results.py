"""The record of an ``evaluate`` run: one JSON file, written as the episodes finish.

The file is one JSON document at every moment::

    {"provenance": {...},
    "episodes": [
    {...one episode per line...},
    {...}
    ],
    "scores": {...}}

The file is first written when the first episode is done (a run that fails before it
leaves the file it would replace as it was). After each episode the new line and a fresh
``scores`` tail are written over the old tail,
so a run that stops early keeps every finished episode, and ``--resume`` continues it. A
file cut off in the middle of a line (a killed process) is still read up to its last whole
episode. Episodes hold :class:`~mobileintent_gym.metrics.pair.EpisodeResult`'s fields
(``dataclasses.asdict``), so the record grows with it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from mobileintent_gym.checks import is_count, is_integer, is_number
from mobileintent_gym.errors import MobileIntentError, brief
from mobileintent_gym.files import trial_folder, write_atomic
from mobileintent_gym.metrics.pair import EpisodeResult
from mobileintent_gym.rollouts import EpisodeRecord

_HEAD = '{"provenance": '
_EPISODES = '"episodes": ['
# Provenance fields that may differ between a run and its resumption: the start, and the
# folders profiles were looked up in, --profiles and the environment's (the profiles found
# are compared by content).
UNCHECKED_ON_RESUME = frozenset({"started", "profiles", "profiles_env"})
# Provenance fields known only once the encoder is loaded.
ENCODER_FIELDS = frozenset({"encoder", "encoder_fallback"})


class ResultsFileError(MobileIntentError, ValueError):
    """A results file that cannot be written, read or resumed; the message names it."""


@dataclass
class RunRecord:
    """A run as read back: provenance, episodes (dicts) and scores."""

    provenance: dict[str, Any]
    episodes: list[dict[str, Any]] = field(default_factory=list)
    scores: dict[str, Any] = field(default_factory=dict)

    def results(self) -> list[EpisodeResult]:
        """The episodes as :class:`EpisodeResult` records, for the scores."""
        return [episode_result(e) for e in self.episodes]


def episode_dict(record: EpisodeRecord, index: int, **extra: Any) -> dict[str, Any]:
    """One episode as the file keeps it: its result's fields, what the agent saw, its steps."""
    return {"index": index, **dataclasses.asdict(record.result), "seed": record.seed,
            "instruction": record.instruction, "target": record.target,
            "subgoals": list(record.subgoals),
            "steps": [dataclasses.asdict(step) for step in record.steps], **extra}


def score_text(value: float | None) -> str:
    """A score as summaries and reports show it: three decimals, ``n/a`` when undefined."""
    return "n/a" if value is None else f"{value:.3f}"


def subgoal_marks(episode: dict[str, Any]) -> str:
    """Each subgoal of an episode as one character: ``1``, ``0``, or ``.`` if not reached.

    ``.``: the subgoal's entry context was not reached (SAR counts reached ones only).
    """
    return "".join(str(int(r)) if seen else "."
                   for r, seen in zip(episode["rewards"], episode["reached"], strict=True))


def episode_result(episode: dict[str, Any]) -> EpisodeResult:
    """The :class:`EpisodeResult` stored in an episode dict (lists back to tuples).

    Raises:
        ResultsFileError: For an episode missing a field or holding one the scores would
            misread (named, with the episode's index).
    """
    try:
        return _result(episode)
    except KeyError as err:
        raise ResultsFileError(f"episode {episode.get('index')!r} has no {err}") from err
    except (TypeError, ValueError) as err:
        raise ResultsFileError(f"episode {episode.get('index')!r}: {err}") from err


def _result(episode: dict[str, Any]) -> EpisodeResult:
    """:func:`episode_result` raising what reading the fields raises (``KeyError`` …)."""
    values = {f.name: episode[f.name] for f in dataclasses.fields(EpisodeResult)}
    return EpisodeResult(**{k: tuple(v) if isinstance(v, list) else v for k, v in values.items()})


def check_writable(path: Path, option: str) -> None:
    """Fail now, not after the run, when ``path`` cannot be written (nothing is left behind).

    Files are written as :func:`~mobileintent_gym.files.write_atomic` writes them: a
    temporary file beside the target, renamed over it, so the folder must take a new file.
    An existing target must be a file this user may write, too: a results file is
    reopened to add each episode.

    Args:
        path: Where the command will write.
        option: The command-line option that named it, for the message.

    Raises:
        ResultsFileError: Naming the path and the reason.
    """
    target = Path(os.path.realpath(path))
    existed = target.exists()
    try:
        with trial_folder(target.parent):
            try:
                with target.open("a", encoding="utf-8"):
                    pass
            finally:
                if not existed:  # nothing may be there (a file where a folder was asked for)
                    with contextlib.suppress(OSError):
                        target.unlink()
    except NotADirectoryError as err:
        raise ResultsFileError(f"cannot write {str(path)!r}: {err.filename!r} is a file, not "
                               f"a folder; choose another {option}") from err
    except OSError as err:
        raise ResultsFileError(f"cannot write {str(path)!r} ({err.strerror or err}); "
                               f"choose another {option}") from err


class ResultsWriter:
    """Writes a run's file episode by episode (see the module notes).

    The file is replaced when the first episode is added (or the run finished): a run that
    fails before it (an agent that cannot load, Ctrl-C) leaves the file as it was.

    Args:
        path: The file (replaced).
        provenance: What produced the run.
        episodes: Episodes already finished (a resumed run's), written first.
        scores: Computes the scores from the episode dicts so far.
    """

    def __init__(self, path: Path, provenance: dict[str, Any],
                 episodes: Iterable[dict[str, Any]],
                 scores: Callable[[list[dict[str, Any]]], dict[str, Any]]) -> None:
        self.path, self.scores = path, scores
        self.episodes: list[dict[str, Any]] = list(episodes)
        self._start = f"{_HEAD}{json.dumps(provenance)},\n{_EPISODES}" + "".join(
            _line(episode, index) for index, episode in enumerate(self.episodes))
        self._file: IO[str] | None = None
        self._end = len(self._start)  # JSON is written ASCII-only: characters are bytes


    def add(self, episode: dict[str, Any]) -> None:
        """Append a finished episode and rewrite the scores.

        The scores are computed before the file is touched, and the episode's line and the
        new tail are written together: a run stopped while scoring (Ctrl-C) leaves the
        file as it was after the last episode, whole.
        """
        tail = _tail(self.scores([*self.episodes, episode]))
        self._write(_line(episode, len(self.episodes)), tail)
        self.episodes.append(episode)

    def finish(self, scores: dict[str, Any]) -> None:
        """Write the finished run's scores (those of a whole run, e.g. all-success)."""
        self._write("", _tail(scores))

    def close(self) -> None:
        """Close the file (it is complete after every :meth:`add`)."""
        if self._file is not None:
            self._file.close()

    def _write(self, line: str, tail: str) -> None:
        """Write ``line`` after the last episode, then ``tail``, in one write.

        The first write replaces the file with the run's start, ``line`` and ``tail``,
        written beside it and renamed over it: a process killed meanwhile leaves a resumed
        run's file whole.
        """
        if self._file is None:
            write_atomic(self.path, (self._start + line + tail).encode("ascii"))
            self._file = self.path.open("r+", encoding="ascii")
        else:
            self._file.seek(self._end)
            self._file.write(line + tail)
            self._file.truncate()
            self._file.flush()
        self._end += len(line)


def _line(episode: dict[str, Any], index: int) -> str:
    """Episode number ``index``'s line of the file, with the comma before it."""
    return ("," if index else "") + "\n" + json.dumps(episode)


def _tail(scores: dict[str, Any]) -> str:
    """The end of the file after the last episode: the scores."""
    return f"\n],\n\"scores\": {json.dumps(scores)}}}\n"


def read_run(path: str | os.PathLike[str]) -> RunRecord:
    """Read a run's file, up to its last whole episode if it was cut off.

    Raises:
        ResultsFileError: When the file is missing or is not a run's record.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise ResultsFileError(f"cannot read {str(path)!r} ({err.strerror or err})") from err
    except UnicodeDecodeError as err:  # an image, say
        raise ResultsFileError(f"{str(path)!r} is not the record of an evaluate run (not "
                               "text)") from err
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        return _read_cut(text, path)
    if not isinstance(whole, dict):
        raise ResultsFileError(f"{str(path)!r} is not the record of an evaluate run")
    return _checked(RunRecord(whole.get("provenance"), whole.get("episodes", []),
                              whole.get("scores", {})), path)


def _checked(run: RunRecord, path: object) -> RunRecord:
    """``run``, unless a part is of another kind than a run's record has.

    Raises:
        ResultsFileError: Naming the file and the part.
    """
    if not isinstance(run.provenance, dict):
        raise ResultsFileError(f"{str(path)!r} is not the record of an evaluate run")
    screen = run.provenance.get("screen")
    if not (isinstance(screen, list) and len(screen) == 2 and all(is_integer(s) for s in screen)):
        raise ResultsFileError(f"{str(path)!r}: its provenance's 'screen' must be [width, "
                               f"height], got {brief(screen, 40)}")
    for name, (valid, says) in _PROVENANCE_FIELDS.items():
        if name in run.provenance and not valid(run.provenance[name]):
            raise ResultsFileError(f"{str(path)!r}: its provenance's {name!r} must be {says}, "
                                   f"got {brief(run.provenance[name], 40)}")
    if not (isinstance(run.episodes, list) and all(isinstance(e, dict) for e in run.episodes)):
        raise ResultsFileError(f"{str(path)!r}: 'episodes' must be a list of objects")
    if not isinstance(run.scores, dict):
        raise ResultsFileError(f"{str(path)!r}: 'scores' must be an object, got "
                               f"{type(run.scores).__name__}")
    for name, value in run.scores.items():
        if not (value is None or is_number(value)):
            raise ResultsFileError(f"{str(path)!r}: score {name!r} must be a number or null, "
                                   f"got {brief(value, 40)}")
    for position, episode in enumerate(run.episodes):
        problem = _episode_problem(episode, position)
        if problem:
            raise ResultsFileError(f"{str(path)!r}: episode {position}: {problem}")
    return run


def _texts(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _text_or_none(value: Any) -> bool:
    return value is None or isinstance(value, str)


# What the provenance's fields that reports and resumed runs read must be, where present.
_PROVENANCE_FIELDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    **{name: (_texts, "a list of texts") for name in ("users", "tasks", "observation")},
    **{name: (_text_or_none, "a text or null") for name in (
        "agent", "device", "encoder", "encoder_fallback", "profiles", "profiles_env",
        "started", "version")},
    "profiles_content": (lambda v: v is None or (isinstance(v, dict) and all(
        isinstance(h, str | None) for h in v.values())), "an object of texts, or null"),
}


# What each of an episode's fields beside its result must be, and how a message says it.
_EPISODE_FIELDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "seed": (lambda v: is_count(v, least=0), "an integer >= 0"),
    "instruction": (lambda v: isinstance(v, str), "a text"),
    "target": (lambda v: isinstance(v, str), "a text"),
    "subgoals": (_texts, "a list of texts"),
    "steps": (lambda v: isinstance(v, list) and all(map(_is_step, v)),
              "a list of steps, each with texts 'action', 'route_before' and "
              "'route_after', a number 'reward' and 'invalid' null or a text"),
}


# Fields some runs add (--teacher-forced, --frames), checked where present.
_OPTIONAL_FIELDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "teacher_forced": (lambda v: isinstance(v, list) and all(isinstance(m, bool) for m in v),
                       "a list of true/false step matches"),
    "frames": (_texts, "a list of file names"),
}


def _episode_problem(episode: dict[str, Any], position: int) -> str | None:
    """What in episode number ``position`` a report or a resumed run would misread."""
    if episode.get("index") != position:
        return f"its index must be {position}, got {brief(episode.get('index'), 40)}"
    names = [f.name for f in dataclasses.fields(EpisodeResult)] + list(_EPISODE_FIELDS)
    missing = [name for name in names if name not in episode]
    if missing:
        return f"it has no {missing}"
    try:
        result = _result(episode)
    except (TypeError, ValueError) as err:
        return str(err)
    for name, (valid, says) in (*_EPISODE_FIELDS.items(), *_OPTIONAL_FIELDS.items()):
        if name in episode and not valid(episode[name]):
            return f"{name!r} must be {says}, got {brief(episode[name], 60)}"
    if len(episode["subgoals"]) != len(result.rewards):
        return (f"{len(episode['subgoals'])} subgoals named and {len(result.rewards)} "
                "rewards; each subgoal has one")
    return None


def _is_step(step: Any) -> bool:
    """Whether ``step`` is a step as :func:`episode_dict` writes it."""
    return (isinstance(step, dict)
            and all(isinstance(step.get(k), str) for k in ("action", "route_before",
                                                           "route_after"))
            and is_number(step.get("reward")) and isinstance(step.get("invalid"), str | None))


def _read_cut(text: str, path: object) -> RunRecord:
    """A file cut off anywhere after its provenance line: its whole episodes (maybe none)."""
    lines = text.split("\n")
    second = lines[1] if len(lines) > 1 else ""  # cut within the episodes' opening too
    if not (lines[0].startswith(_HEAD) and _EPISODES.startswith(second)):
        raise ResultsFileError(f"{str(path)!r} is not the record of an evaluate run")
    try:
        run = RunRecord(json.loads(lines[0][len(_HEAD):].rstrip(",")))
    except json.JSONDecodeError as err:
        raise ResultsFileError(f"{str(path)!r}: its provenance line is damaged") from err
    for line in lines[2:]:
        try:
            episode = json.loads(line.rstrip(","))
        except json.JSONDecodeError:
            break
        # A line of the scores' tail, half overwritten, can be JSON too: episodes only.
        if not (isinstance(episode, dict) and episode.get("index") == len(run.episodes)):
            break
        run.episodes.append(episode)
    return _checked(run, path)


def provenance_difference(old: dict[str, Any], new: dict[str, Any],
                          ignore: frozenset[str] = frozenset()) -> list[str]:
    """Fields of two provenances that differ.

    ``ignore`` and the fields a resumption may change (:data:`UNCHECKED_ON_RESUME`) are
    left out.
    """
    keys = (old.keys() | new.keys()) - UNCHECKED_ON_RESUME - ignore
    return sorted(k for k in keys if old.get(k) != new.get(k))

"""Act2Intention's file formats: trajectory JSON with a PNG folder, and the intention CSV.

**Trajectory JSON** — a list with one object per segment::

    {"datetime": "2026-03-02 07:59:18", "event": "Chatting", "behavior": "<intention>",
     "app": "Chat", "steps": [{"action": "CLICK[420,800]",
                               "action_description": "On the home screen, tap ...",
                               "image_path": "2026-03-02/003_01.png"}, ...]}

``image_path`` is relative to the JSON file's folder (``null`` without screenshots). Noise
segments carry ``"event": "Noise"`` and one key the study's files lack, ``"kind"`` (``idle``,
``accidental`` or ``distractor``); the two parts of an interleaved intention carry
``"part"`` (1, then 2 where it is resumed). Readers of the study's format ignore both.

**Intention CSV** — ``Time,APP,Intention,Event``, one row per intention (noise has no row),
as the study's ``user_demo.csv``.

Loaders return :class:`~mobileintent_gym.intents.IntentionSegment` s holding what the file
holds; writing what was loaded gives the same file content back, times written as
:func:`format_time` writes them (milliseconds only where they are not ``.000``, a UTC
offset where the time has one).
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from PIL import Image

from mobileintent_gym.checks import is_integer
from mobileintent_gym.errors import MobileIntentError, brief
from mobileintent_gym.intents.replay import replay
from mobileintent_gym.intents.schema import (
    SEGMENT_KINDS,
    TIME_FORMAT,
    IntentionSegment,
    Session,
    Step,
)
from mobileintent_gym.phone import SimPhone

CSV_COLUMNS = ("Time", "APP", "Intention", "Event")
_RECORD_KEYS = ("datetime", "event", "behavior", "app", "steps")


class InvalidDataError(MobileIntentError, ValueError):
    """A data file that cannot be read; the message names the file and the bad value."""


def format_time(when: datetime) -> str:
    """``YYYY-MM-DD HH:MM:SS`` (as the study's CSV), then any milliseconds and UTC offset.

    Milliseconds are written where they are not ``.000``, the offset (``+08:00``) where the
    time has one.
    """
    text = when.strftime(TIME_FORMAT)
    if when.microsecond // 1000:
        text += f".{when.microsecond // 1000:03d}"
    return text + when.isoformat(timespec="seconds")[19:]  # the offset, if any


def parse_time(text: Any, where: str) -> datetime:
    """A time written by :func:`format_time` (or any ISO 8601 date and time).

    Raises:
        InvalidDataError: Naming ``where`` and the bad value.
    """
    try:
        return datetime.fromisoformat(text)
    except (TypeError, ValueError):
        raise InvalidDataError(f"{where}: not a date and time: {text!r}") from None


def segment_record(segment: IntentionSegment) -> dict[str, Any]:
    """The trajectory JSON object of one segment."""
    record: dict[str, Any] = {
        "datetime": format_time(segment.time), "event": segment.event,
        "behavior": segment.intention, "app": segment.app,
        "steps": [{"action": s.action, "action_description": s.description,
                   "image_path": s.image_path} for s in segment.steps]}
    if segment.is_noise:
        record["kind"] = segment.kind
    if segment.part:
        record["part"] = segment.part
    return record


def write_trajectories(segments: Iterable[IntentionSegment], path: str | os.PathLike[str]
                       ) -> None:
    """Write segments as a trajectory JSON file (folders are created)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    records = [segment_record(s) for s in segments]
    path.write_text(json.dumps(records, ensure_ascii=False, indent=1), encoding="utf-8")


def _text(record: dict, key: str, where: str) -> str:
    value = record.get(key)
    if not isinstance(value, str):
        raise InvalidDataError(f"{where}: {key!r} must be a string, got {value!r}")
    return value


def _step(data: Any, where: str) -> Step:
    if not isinstance(data, dict):
        raise InvalidDataError(f"{where}: a step must be an object, got {data!r}")
    image = data.get("image_path")
    if image is not None and not isinstance(image, str):
        raise InvalidDataError(f"{where}: 'image_path' must be a string or null, got {image!r}")
    return Step(_text(data, "action", where), _text(data, "action_description", where), image)


def record_segment(record: Any, where: str) -> IntentionSegment:
    """The segment of one trajectory JSON object.

    Raises:
        InvalidDataError: Naming ``where`` and the missing or bad field.
    """
    check_keys(record, _RECORD_KEYS, "a segment", where)
    kind = record.get("kind", "intention")
    if kind not in SEGMENT_KINDS:
        raise InvalidDataError(f"{where}: 'kind' must be one of {SEGMENT_KINDS}, got {kind!r}")
    if not isinstance(record["steps"], list):
        raise InvalidDataError(f"{where}: 'steps' must be a list, "
                               f"got {brief(record['steps'], 120)}")
    part = record.get("part", 0)
    if not is_integer(part) or part not in (0, 1, 2):
        raise InvalidDataError(f"{where}: 'part' must be 1 or 2, got {part!r}")
    if part and kind != "intention":
        raise InvalidDataError(f"{where}: a segment of kind {kind!r} has no 'part' (only "
                               f"an interrupted intention has), got {part!r}")
    steps = tuple(_step(s, f"{where} step {i + 1}") for i, s in enumerate(record["steps"]))
    return IntentionSegment(parse_time(record["datetime"], f"{where} 'datetime'"),
                            _text(record, "app", where), _text(record, "event", where),
                            _text(record, "behavior", where), steps, kind, part=part)


def check_keys(record: Any, keys: Sequence[str], what: str, where: str) -> None:
    """Raise unless ``record`` is an object holding every key of ``keys``.

    Raises:
        InvalidDataError: Naming ``where`` and the first key missing (or what ``record`` is).
    """
    if not isinstance(record, dict):
        raise InvalidDataError(f"{where}: {what} must be an object, got {brief(record, 120)}")
    missing = [k for k in keys if k not in record]
    if missing:
        raise InvalidDataError(f"{where}: {what} has no {missing[0]!r} (it needs "
                               f"{list(keys)})")


def read_json_list(path: str | os.PathLike[str], what: str) -> list:
    """The JSON list a file holds (a UTF-8 byte order mark before it is skipped).

    Raises:
        InvalidDataError: When the file cannot be read, is not JSON (or nested too deeply
            to read) or holds no list; the message names the file and says it should be
            ``what``.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8-sig"))
    except (OSError, ValueError, RecursionError) as err:
        raise InvalidDataError(f"{path}: {err}") from err
    if not isinstance(data, list):
        raise InvalidDataError(f"{path}: {what} holds a list, got {type(data).__name__}")
    return data


def load_trajectories(path: str | os.PathLike[str]) -> list[IntentionSegment]:
    """The segments of a trajectory JSON file.

    Raises:
        InvalidDataError: When the file cannot be read or a segment is malformed; the
            message names the file and the segment.
    """
    return [record_segment(r, f"{path} segment {i + 1}")
            for i, r in enumerate(read_json_list(path, "a trajectory file"))]


def write_intentions_csv(segments: Iterable[IntentionSegment], path: str | os.PathLike[str]
                         ) -> None:
    """Write the intentions as an intention CSV, one row each.

    Noise is left out, and an interrupted intention (two segments, ``part`` 1 and 2) is
    written once, at its resumed part, where it ended (as ``Session.done`` lists it).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(CSV_COLUMNS)
        for s in segments:
            if s.ends_intention:
                writer.writerow((format_time(s.time), s.app, s.intention, s.event))


def load_intentions_csv(path: str | os.PathLike[str]) -> list[IntentionSegment]:
    """The intentions of an intention CSV (``Time,APP,Intention,Event``).

    Raises:
        InvalidDataError: When the file cannot be read, lacks a column or a row is bad.
    """
    try:
        with Path(path).open(encoding="utf-8-sig", newline="") as handle:
            rows = _numbered_rows(csv.reader(handle))
    except (OSError, ValueError, csv.Error) as err:  # csv.Error: a field past its limit
        raise InvalidDataError(f"{path}: {err}") from err
    if not rows or tuple(rows[0][1]) != CSV_COLUMNS:
        raise InvalidDataError(f"{path}: the header must be {','.join(CSV_COLUMNS)}, "
                               f"got {','.join(rows[0][1]) if rows else 'nothing'}")
    out = []
    for line, row in rows[1:]:
        if not row:  # a blank line
            continue
        if len(row) != len(CSV_COLUMNS):
            raise InvalidDataError(f"{path} line {line}: expected 4 fields, got {row!r}")
        out.append(IntentionSegment(parse_time(row[0], f"{path} line {line}"), row[1], row[3],
                                    row[2]))
    return out


def _numbered_rows(reader: Any) -> list[tuple[int, list[str]]]:
    """Each row of a ``csv.reader`` with the file line it starts on.

    A quoted field may span lines: counting rows would name the wrong line after it.
    """
    rows, start = [], 1
    for row in reader:
        rows.append((start, row))
        start = reader.line_num + 1
    return rows


def export_sessions(sessions: Sequence[Session], folder: str | os.PathLike[str],
                    screenshots: bool = False, size: tuple[int, int] = (1080, 2400)) -> None:
    """Write sessions as ``<user>/<date>.json`` and ``<user>/intentions.csv`` under ``folder``.

    With ``screenshots`` the sessions are replayed and the screen each step was taken on is
    written as ``<user>/<date>/<segment>_<step>.png`` (``size`` = the phone's width, height).
    """
    folder = Path(folder)
    by_user: dict[str, list[IntentionSegment]] = {}
    for session in sessions:
        user_dir = folder / session.user
        if screenshots:
            session = with_screenshots(session, user_dir, size)
        write_trajectories(session.segments, user_dir / f"{session.context.date}.json")
        by_user.setdefault(session.user, []).extend(session.segments)
    for user, segments in by_user.items():
        write_intentions_csv(segments, folder / user / "intentions.csv")



def with_screenshots(session: Session, folder: Path, size: tuple[int, int]) -> Session:
    """``session`` with each step's screen written as a PNG under ``folder`` (replayed).

    Returns:
        The session whose steps' ``image_path`` name the PNGs, relative to ``folder``.
    """
    day = folder / session.context.date
    day.mkdir(parents=True, exist_ok=True)
    phone = SimPhone(*size)
    index = {id(seg): i for i, seg in enumerate(session.segments)}
    paths: dict[int, list[str]] = {}
    try:
        for segment, _ in replay(session, phone):
            shots = paths.setdefault(index[id(segment)], [])
            name = f"{session.context.date}/{index[id(segment)]:03d}_{len(shots) + 1:02d}.png"
            Image.fromarray(phone.screenshot()).save(folder / name, optimize=False)
            shots.append(name)
    finally:
        phone.close()
    segments = tuple(
        replace(seg, steps=tuple(replace(step, image_path=path)
                                 for step, path in zip(seg.steps, paths.get(i, []), strict=True)))
        for i, seg in enumerate(session.segments))
    return replace(session, segments=segments)

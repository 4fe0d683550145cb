"""Records: an app's built-in content, one JSON-lines data file per record pool.

Each line of ``<app package>/data/<pool>.jsonl`` is one complete record::

    {"id": "t000", "label": "Paper Lanterns", "cue": "a mellow indie song about ...",
     "attributes": {"artist": "The Quiet Harbor", "genre": "indie", "moods": ["mellow"]}}

``label`` is what the screen shows for the record, ``cue`` an implicit description that
does not contain the label (implicit instructions use it), ``attributes`` everything else.
Lists become tuples and objects read-only mappings, at every depth, so records are
immutable (they are shared by every user's phone).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from types import MappingProxyType
from typing import Any

from mobileintent_gym.checks import unique_keys
from mobileintent_gym.errors import InvalidAppError

FIELDS = ("id", "label", "cue", "attributes")


@dataclass(frozen=True, slots=True, eq=False)
class Record:
    """One record of a pool (compared and hashed by identity: each is read once).

    Attributes:
        id: Its id, unique in the pool (the id the app's state and screens use).
        label: What the screen shows for it.
        cue: An implicit description that does not contain ``label``.
        attributes: Everything else, read-only at every depth (lists as tuples, objects as
            read-only mappings).
    """

    id: str
    label: str
    cue: str
    attributes: Mapping[str, Any]

    def __getitem__(self, name: str) -> Any:
        """The attribute ``name``."""
        return self.attributes[name]


@functools.cache
def read_records(package: str, pool: str) -> tuple[Record, ...]:
    """The records of ``data/<pool>.jsonl`` in the Python package ``package``, in file order.

    Raises:
        InvalidAppError: Naming the file, the line and what is wrong with it.
    """
    try:
        text = (resources.files(package) / "data" / f"{pool}.jsonl").read_text("utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise InvalidAppError(f"{package}: data/{pool}.jsonl cannot be read: {err}") from err
    records: list[Record] = []
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{package}: data/{pool}.jsonl line {number}"
        try:
            row = json.loads(line, object_pairs_hook=unique_keys)
        except ValueError as err:  # JSONDecodeError, a number int() refuses, a repeated key
            raise InvalidAppError(f"{where}: not JSON ({err})") from None
        record = _record(row, where)
        if record.id in seen:
            raise InvalidAppError(f"{where}: id {record.id!r} repeats")
        seen.add(record.id)
        records.append(record)
    return tuple(records)


def _record(row: Any, where: str) -> Record:
    if not isinstance(row, dict) or sorted(row) != sorted(FIELDS):
        raise InvalidAppError(f"{where}: a record has exactly {FIELDS}, got {row!r}")
    if not all(isinstance(row[k], str) and row[k].strip() for k in FIELDS[:3]):
        raise InvalidAppError(f"{where}: id, label and cue must be non-empty strings")
    if row["label"].casefold() in row["cue"].casefold():
        raise InvalidAppError(f"{where}: cue {row['cue']!r} contains label {row['label']!r}")
    if not isinstance(row["attributes"], dict):
        raise InvalidAppError(f"{where}: attributes must be an object, got {row['attributes']!r}")
    return Record(row["id"], row["label"], row["cue"], _frozen(row["attributes"]))


def _frozen(value: Any) -> Any:
    """``value`` with its lists as tuples and its objects as read-only mappings, throughout."""
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict):
        return MappingProxyType({k: _frozen(v) for k, v in value.items()})
    return value

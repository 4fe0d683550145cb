"""Act2Intention trajectories (JSON + PNG), the intention CSV and KnowU logs: in and out."""

import json
from dataclasses import replace

import numpy as np
import pytest
from PIL import Image

from mobileintent_gym.intents import (
    InvalidDataError,
    behaviour_log,
    export_sessions,
    generate_sessions,
    load_behaviour_log,
    load_intentions_csv,
    load_trajectories,
    replay,
    write_behaviour_log,
    write_intentions_csv,
    write_trajectories,
)
from mobileintent_gym.intents.generator import GeneratorConfig
from mobileintent_gym.phone import SimPhone
from tests.helpers import shared

from .conftest import USER, lexical_config


def _fields(segment):
    return (segment.time, segment.app, segment.event, segment.intention, segment.kind,
            tuple((s.action, s.description, s.image_path) for s in segment.steps))


def test_trajectories_round_trip_with_noise_kinds(week, tmp_path):
    segments = [s for session in week[:2] for s in session.segments]
    write_trajectories(segments, tmp_path / "t.json")
    loaded = load_trajectories(tmp_path / "t.json")
    assert [_fields(s) for s in loaded] == [_fields(s) for s in segments]
    records = json.loads((tmp_path / "t.json").read_text())
    assert set(records[0]) >= {"datetime", "event", "behavior", "app", "steps"}
    assert all(("kind" in r) == (r["event"] == "Noise") for r in records)
    write_trajectories(loaded, tmp_path / "again.json")
    assert (tmp_path / "again.json").read_text() == (tmp_path / "t.json").read_text()


def test_the_parts_of_an_interleaved_intention_round_trip(week, tmp_path):
    first = week[0].intentions()[0]
    segments = [replace(first, part=1, success=None), week[0].segments[1],
                replace(first, part=2)]
    write_trajectories(segments, tmp_path / "t.json")
    assert [r.get("part") for r in json.loads((tmp_path / "t.json").read_text())] == [1, None, 2]
    assert [s.part for s in load_trajectories(tmp_path / "t.json")] == [1, 0, 2]


def test_the_intention_csv_round_trips_and_leaves_noise_out(week, tmp_path):
    segments = [s for session in week for s in session.segments]
    write_intentions_csv(segments, tmp_path / "i.csv")
    loaded = load_intentions_csv(tmp_path / "i.csv")
    intentions = [s for s in segments if not s.is_noise]
    assert [(s.time, s.app, s.intention, s.event) for s in loaded] == [
        (s.time, s.app, s.intention, s.event) for s in intentions]
    assert (tmp_path / "i.csv").read_text().splitlines()[0] == "Time,APP,Intention,Event"


def test_knowu_logs_round_trip_with_signal_and_noise(week, tmp_path):
    entries = behaviour_log(week)
    write_behaviour_log(entries, tmp_path / "log.json")
    assert load_behaviour_log(tmp_path / "log.json") == entries
    labels = {e.label for e in entries}
    assert labels == {"signal", "noise"}
    assert all(e.action.startswith(f"At {e.time:%H:%M}, ") for e in entries)


def test_the_real_intention_log_loads_and_writes_back_byte_for_byte(tmp_path):
    path = shared("act2intention", "user_demo.csv")
    rows = load_intentions_csv(path)
    assert len(rows) == 349 and rows[0].app == "抖音短视频" and rows[0].event == "Watch videos"
    assert rows[0].time.microsecond == 2000
    write_intentions_csv(rows, tmp_path / "copy.csv")
    assert (tmp_path / "copy.csv").read_bytes() == path.read_bytes()


def test_the_real_knowu_logs_load_and_round_trip(tmp_path):
    paths = sorted(shared("knowu").glob("*.json"))
    assert len(paths) == 8  # four logs, each also with 25 % noise: none may pass unread
    noise = {}
    for path in paths:
        entries = load_behaviour_log(path)
        noise[path.stem] = sum(e.label == "noise" for e in entries)
        assert entries and {e.label for e in entries} <= {"signal", "noise"}
        assert ("noise" in {e.label for e in entries}) == ("noise" in path.stem)
        write_behaviour_log(entries, tmp_path / path.name)
        assert load_behaviour_log(tmp_path / path.name) == entries
    assert sorted(n for n in noise.values() if n) == [32, 46, 53, 56]


@pytest.mark.parametrize(("content", "message"), [
    ("{}", "holds a list"),
    ('[{"datetime": "2026-03-02 08:00:00"}]', "segment 1: a segment has no 'event'"),
    ('[{"datetime": "soon", "event": "E", "behavior": "b", "app": "A", "steps": []}]',
     "not a date and time: 'soon'"),
    ('[{"datetime": "2026-03-02 08:00:00", "event": "E", "behavior": "b", "app": "A", '
     '"steps": [{"action": 3}]}]', "step 1: 'action' must be a string"),
    ('[{"datetime": "2026-03-02 08:00:00", "event": "E", "behavior": "b", "app": "A", '
     '"steps": [], "kind": "nap"}]', "'kind' must be one of"),
    ('[{"datetime": "2026-03-02 08:00:00", "event": "E", "behavior": "b", "app": "A", '
     '"steps": [], "part": 3}]', "'part' must be 1 or 2, got 3"),
    ('[{"datetime": "2026-03-02 08:00:00", "event": "E", "behavior": "b", "app": "A", '
     '"steps": [], "part": 1.0}]', "'part' must be 1 or 2, got 1.0"),
    ('[{"datetime": "2026-03-02 08:00:00", "event": "Noise", "behavior": "b", "app": "A", '
     '"steps": [], "kind": "idle", "part": 1}]', "a segment of kind 'idle' has no 'part'"),
    # The missing key is named, however long the others are.
    ('[{"datetime": "2026-03-02 08:00:00", "event": "E", "behavior": "' + "b" * 200
     + '", "steps": []}]', "segment 1: a segment has no 'app'"),
    ('[3]', "segment 1: a segment must be an object, got 3"),
    ("[", "t.json"),
    ("[" * 100_000 + "]" * 100_000, "t.json: maximum recursion depth"),
])
def test_malformed_trajectory_files_are_named(tmp_path, content, message):
    (tmp_path / "t.json").write_text(content)
    with pytest.raises(InvalidDataError, match=message):
        load_trajectories(tmp_path / "t.json")


def test_malformed_csv_and_logs_are_named(tmp_path):
    (tmp_path / "a.csv").write_text("Time,App\n")
    with pytest.raises(InvalidDataError, match="header must be Time,APP,Intention,Event"):
        load_intentions_csv(tmp_path / "a.csv")
    (tmp_path / "b.csv").write_text("Time,APP,Intention,Event\n2024-10-25,X,y\n")
    with pytest.raises(InvalidDataError, match="line 2: expected 4 fields"):
        load_intentions_csv(tmp_path / "b.csv")
    # A quoted field over three lines: the bad row after it is on line 5, not "line 3".
    (tmp_path / "m.csv").write_text('Time,APP,Intention,Event\n2024-10-25 06:52:34,A,"line '
                                    'one\nline two\nline three",E\n2024-10-25 07:00:00,B,bad\n')
    with pytest.raises(InvalidDataError, match="line 5: expected 4 fields"):
        load_intentions_csv(tmp_path / "m.csv")
    (tmp_path / "c.json").write_text('[{"time": "2026-01-01T08:00:00", "location": "x", '
                                     '"action": "y", "label": "maybe", "category": "z"}]')
    with pytest.raises(InvalidDataError, match="'label' must be one of"):
        load_behaviour_log(tmp_path / "c.json")
    (tmp_path / "d.json").write_text('[{"time": "2026-01-01T08:00:00", "location": "'
                                     + "Room 405, " * 20 + '", "action": "y", "label": '
                                     '"noise", "category": null}]')
    with pytest.raises(InvalidDataError, match="entry 1: 'category' must be a string, got "
                                               "None"):
        load_behaviour_log(tmp_path / "d.json")


def test_a_utf8_mark_and_a_last_blank_line_are_read_as_other_tools_read_them(tmp_path):
    (tmp_path / "a.csv").write_text("Time,APP,Intention,Event\n2024-10-25 06:52:34,Maps,"
                                    "Find a cafe,Travel\n\n")
    assert [s.app for s in load_intentions_csv(tmp_path / "a.csv")] == ["Maps"]
    (tmp_path / "b.json").write_text('\ufeff[{"time": "2026-01-01T08:00:00", "location": "x", '
                                     '"action": "y", "label": "noise", "category": "z"}]',
                                     encoding="utf-8")
    assert [e.label for e in load_behaviour_log(tmp_path / "b.json")] == ["noise"]


@pytest.mark.parametrize("text", ["2024-10-25 06:52:34+08:00", "2024-10-25 06:52:34.250-05:30",
                                  "2024-10-25 06:52:34.001"])
def test_a_time_with_an_offset_or_milliseconds_writes_back_as_it_was(tmp_path, text):
    # The offset was dropped on writing.
    (tmp_path / "a.csv").write_text(f"Time,APP,Intention,Event\n{text},Maps,Find,Travel\n")
    segments = load_intentions_csv(tmp_path / "a.csv")
    write_intentions_csv(segments, tmp_path / "b.csv")
    assert (tmp_path / "b.csv").read_text() == (tmp_path / "a.csv").read_text()


def test_microseconds_under_a_millisecond_write_no_milliseconds():
    from datetime import datetime

    from mobileintent_gym.intents.act2intention import format_time

    assert format_time(datetime(2026, 3, 2, 8, 0, 0, 500)) == "2026-03-02 08:00:00"
    assert format_time(datetime(2026, 3, 2, 8, 0, 0, 7_500)) == "2026-03-02 08:00:00.007"


def test_export_with_screenshots_writes_the_screen_of_every_step(tmp_path):
    config = GeneratorConfig(540, 1200)
    session = generate_sessions(USER, 1, seed=3, config=config)[0]
    export_sessions([session], tmp_path, screenshots=True, size=(540, 1200))
    folder = tmp_path / USER
    loaded = load_trajectories(folder / f"{session.context.date}.json")
    paths = [step.image_path for seg in loaded for step in seg.steps]
    assert len(paths) == sum(len(seg.steps) for seg in session.segments) == len(set(paths))
    assert all((folder / p).is_file() for p in paths)
    assert len(load_intentions_csv(folder / "intentions.csv")) == len(session.intentions())
    phone, frames = SimPhone(540, 1200), []
    for _ in replay(session, phone):
        frames.append(phone.screenshot().copy())
    for k in (0, len(frames) // 2, len(frames) - 1):
        png = np.asarray(Image.open(folder / paths[k]))
        assert png.shape == (1200, 540, 3) and np.array_equal(png, frames[k])


def test_a_csv_field_past_the_csv_modules_limit_is_named(tmp_path):
    # An unterminated quote makes one field of the rest of the file: csv.Error escaped.
    path = tmp_path / "big.csv"
    path.write_text('Time,APP,Intention,Event\n2024-10-25 06:52:34,"App,' + "x" * 140_000 + "\n")
    with pytest.raises(InvalidDataError, match=r"big\.csv"):
        load_intentions_csv(path)


def test_a_replay_on_a_phone_of_another_size_is_refused(tmp_path):
    # It replayed on: 75 of 79 steps landed on other screens, and export_sessions wrote
    # PNGs of the wrong screens without a word.
    session = generate_sessions(USER, 1, 0, lexical_config())[0]
    with pytest.raises(ValueError, match="is it of the size the session was generated at"):
        for _ in replay(session, SimPhone()):  # 1080x2400
            pass
    with pytest.raises(ValueError, match="the phone shows"):
        export_sessions([session], tmp_path, screenshots=True)
    assert sum(1 for _ in replay(session, SimPhone(540, 1200))) == sum(
        len(s.steps) for s in session.segments)


def test_a_knowu_log_labels_noise_by_its_kind_and_intentions_by_their_event(week):
    entries = behaviour_log(week[:1])
    segments = week[0].segments
    assert len(entries) == len(segments) and any(s.is_noise for s in segments)
    assert [(e.label, e.category) for e in entries] == [
        ("noise", s.kind) if s.is_noise else ("signal", s.event) for s in segments]


def test_a_step_whose_image_path_is_no_text_is_named(tmp_path):
    (tmp_path / "t.json").write_text(
        '[{"datetime": "2026-03-02 08:00:00", "event": "E", "behavior": "b", "app": "A", '
        '"steps": [{"action": "CLICK[1,1]", "action_description": "d", "image_path": 3}]}]')
    with pytest.raises(InvalidDataError, match="step 1: 'image_path' must be a string or null"):
        load_trajectories(tmp_path / "t.json")

"""Reading an app's record pools: errors name the file and line; records are immutable."""

import json
from types import MappingProxyType

import pytest

from mobileintent_gym.apps.records import read_records
from mobileintent_gym.errors import InvalidAppError

GOOD = {"id": "c1", "label": "Ana", "cue": "your sister",
        "attributes": {"messages": [["me", "hi"], ["Ana", "hey"]], "meta": {"tags": ["x"]}}}


def pool(tmp_path, monkeypatch, package: str, *lines: str) -> str:
    """A package on the path whose ``data/pool.jsonl`` holds ``lines``; its name."""
    folder = tmp_path / package
    (folder / "data").mkdir(parents=True)
    (folder / "__init__.py").write_text("")
    (folder / "data" / "pool.jsonl").write_text("\n".join(lines) + "\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    return package


def test_a_line_that_is_not_json_is_named_by_file_and_line(tmp_path, monkeypatch):
    # json.loads' own error named "line 1 column 61" of the line alone, and no file.
    package = pool(tmp_path, monkeypatch, "records_bad_json", json.dumps(GOOD), '{"id": "c2",')
    with pytest.raises(InvalidAppError, match=r"records_bad_json: data/pool.jsonl line 2: not "
                                              r"JSON"):
        read_records(package, "pool")


def test_attributes_are_read_only_at_every_depth(tmp_path, monkeypatch):
    # Inner lists stayed lists, shared by every user's phone that holds the record.
    package = pool(tmp_path, monkeypatch, "records_nested", json.dumps(GOOD))
    (record,) = read_records(package, "pool")
    assert record["messages"] == (("me", "hi"), ("Ana", "hey"))
    assert isinstance(record["meta"], MappingProxyType) and record["meta"]["tags"] == ("x",)
    with pytest.raises(TypeError):
        record["meta"]["tags"] = ()


def test_a_missing_or_undecodable_pool_and_a_repeated_key_are_named(tmp_path, monkeypatch):
    # A missing file and bytes not in UTF-8 raised OSError / UnicodeDecodeError naming no
    # package; a key given twice silently took its last value.
    package = pool(tmp_path, monkeypatch, "records_odd", json.dumps(GOOD))
    with pytest.raises(InvalidAppError, match=r"records_odd: data/none.jsonl cannot be read"):
        read_records(package, "none")
    (tmp_path / package / "data" / "latin.jsonl").write_bytes(b'{"id": "\xff"}\n')
    with pytest.raises(InvalidAppError, match=r"records_odd: data/latin.jsonl cannot be read"):
        read_records(package, "latin")
    twice = json.dumps(GOOD).replace('"id": "c1"', '"id": "c1", "id": "c2"')
    (tmp_path / package / "data" / "twice.jsonl").write_text(twice + "\n")
    with pytest.raises(InvalidAppError, match=r"twice.jsonl line 1: not JSON \(key 'id' is "
                                              r"given twice\)"):
        read_records(package, "twice")


def test_a_repeated_id_and_a_cue_that_gives_its_label_away_are_named(tmp_path, monkeypatch):
    # The implicit instruction names the record by its cue: a cue holding the label in
    # any case ("Your sister ANA") would make it explicit.
    package = pool(tmp_path, monkeypatch, "records_checked", json.dumps(GOOD),
                   json.dumps({**GOOD, "label": "Ben"}))
    with pytest.raises(InvalidAppError, match=r"records_checked: data/pool.jsonl line 2: id "
                                              r"'c1' repeats"):
        read_records(package, "pool")
    (tmp_path / package / "data" / "cue.jsonl").write_text(
        json.dumps({**GOOD, "cue": "your sister ANA"}) + "\n")
    with pytest.raises(InvalidAppError, match=r"line 1: cue 'your sister ANA' contains label "
                                              r"'Ana'"):
        read_records(package, "cue")


def test_a_state_built_from_a_dict_and_lists_holds_them_read_only_and_toggles_ids():
    from mobileintent_gym.apps.music.state import MusicState
    from mobileintent_gym.phone.state import toggled

    state = MusicState(tracks={}, playlists={}, home=[], mine=["p1"], liked=["t2", "t1"])
    assert isinstance(state.tracks, MappingProxyType) and state.mine == ("p1",)
    assert state.liked == ("t2", "t1")
    assert toggled(state.liked, "t3") == ("t3", "t2", "t1")  # a new one first
    assert toggled(state.liked, "t1") == ("t2",)  # a second time takes it back

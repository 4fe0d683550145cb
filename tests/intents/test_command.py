"""``mobileintent-gym generate``: sessions, files, progress and summary in one command."""

import json

import pytest

from mobileintent_gym.cli import main
from mobileintent_gym.intents import load_behaviour_log, load_intentions_csv, load_trajectories

from .conftest import USER


def test_generate_writes_every_format_and_prints_a_summary(tmp_path, capsys):
    assert main(["generate", "--users", USER, "--days", "2", "--out", str(tmp_path)]) == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    folder = tmp_path / USER
    days = sorted(folder.glob("*.json"))
    assert [p.name for p in days] == ["2026-03-02.json", "2026-03-03.json", "behaviour.json"]
    segments = [s for p in days[:2] for s in load_trajectories(p)]
    assert summary["segments"] == len(segments) and summary["users"] == 1
    assert summary["intentions"] == len(load_intentions_csv(folder / "intentions.csv"))
    assert summary["succeeded"] == summary["judged"] == summary["intentions"]
    assert sum(summary["classes"].values()) == summary["intentions"]
    assert len(load_behaviour_log(folder / "behaviour.json")) == summary["segments"]
    out, err = capsys.readouterr()
    assert f"{summary['segments']} segments" in out and "success checked by the judge" in out
    assert "classes: " in out and "[" + "#" * 30 + "] 2/2 user-days" in err
    assert f"encoder: {summary['encoder']}" in err and "encoder_fallback" in summary
    assert not list(folder.glob("*/*.png"))


def test_bad_arguments_stop_with_a_message(tmp_path):
    for argv, message in ((["--days", "0"], "--days must be at least 1"),
                          (["--size", "big"], "--size must be WIDTHxHEIGHT"),
                          (["--knowu", "x.yaml"], "--knowu takes USER=PATH")):
        with pytest.raises(SystemExit, match=message):
            main(["generate", "--out", str(tmp_path), *argv])


def test_unknown_users_are_one_line_naming_them_and_the_sets(tmp_path, capsys):
    assert main(["generate", "--out", str(tmp_path), "--users", "val", "nobody"]) == 2
    err = capsys.readouterr().err
    assert "mobileintent-gym generate: no user profile 'nobody'" in err
    assert "nor is it a user set: train (8), val (2), test (10), demo (4), all (24)" in err
    assert not list(tmp_path.iterdir())

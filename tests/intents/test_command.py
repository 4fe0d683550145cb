"""``mobileintent-gym generate``: sessions, files, progress and summary in one command."""

import json
from pathlib import Path

import pytest

from mobileintent_gym.cli import main
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.intents import load_behaviour_log, load_intentions_csv, load_trajectories
from tests.helpers import exit_status, written_by_another_process

from .conftest import USER, lexical_config


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
    assert "classes: " in out and "user-days" not in err  # no bar drawn into a log
    assert f"encoder: {summary['encoder']}" in err and "encoder_fallback" in summary
    assert not list(folder.glob("*/*.png"))


def test_the_progress_bar_is_drawn_on_a_terminal_only():
    import io

    from mobileintent_gym.intents.command import progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal, log = Terminal(), io.StringIO()
    for done in (1, 2):
        progress(done, 2, "user-days (ana)", terminal, width=4)
        progress(done, 2, "user-days (ana)", log, width=4)
    assert terminal.getvalue() == "\r[##..] 1/2 user-days (ana)\r[####] 2/2 user-days (ana)\n"
    assert log.getvalue() == ""


def test_bad_arguments_are_one_line_with_the_usage_errors_status(tmp_path, capsys):
    # Each exited with status 1 (SystemExit of a message), and 100x100 was refused only
    # after the first user's content was built.
    for argv, message in ((["--knowu", "x.yaml"], "--knowu takes USER=PATH, got 'x.yaml'"),
                          # "nowhere.yaml: [Errno 2] …" named not the option.
                          (["--knowu", f"{USER}=nowhere.yaml"],
                           f"--knowu {USER}=…: nowhere.yaml: No such file or directory"),
                          # A missing folder generated the built-in user of that name.
                          (["--profiles", str(tmp_path / "nowhere")],
                           f"--profiles '{tmp_path / 'nowhere'}' is not a folder")):
        assert exit_status(["generate", "--users", USER, "--out", str(tmp_path), *argv]) == 2
        err = capsys.readouterr().err
        assert err.startswith("mobileintent-gym generate: ") and message in err
        assert "encoder:" not in err and len(err.splitlines()) == 1
    for argv, message in ((["--days", "0"], "--days: must be an integer of at least 1, got '0'"),
                          # Ran for days, writing nothing, as the envs refuse it.
                          (["--days", "3661"], "--days: days=3661: at most 3660 (ten years)"),
                          (["--size", "big"], "--size: a screen size is written WIDTHxHEIGHT "
                                              "(as 1080x2400), got 'big'"),
                          (["--size", "100x100"], "--size: screen 100x100 is outside 320-3840")):
        assert exit_status(["generate", "--users", USER, "--out", str(tmp_path), *argv]) == 2
        err = capsys.readouterr().err.splitlines()  # argparse's usage, then its error
        assert err[-1].startswith("mobileintent-gym generate: error: argument ")
        assert message in err[-1] and not any("encoder:" in line for line in err)
    assert not list(tmp_path.iterdir())


def test_two_profiles_of_one_user_id_are_refused_before_any_work(tmp_path, capsys):
    # The second user's files overwrote the first's, and the summary counted both.
    import mobileintent_gym.users

    builtin = Path(mobileintent_gym.users.__file__).parent / "profiles" / f"{USER}.json"
    other = tmp_path / "ana2.json"
    data = json.loads(builtin.read_text())
    other.write_text(json.dumps({**data, "demographics": {**data["demographics"],
                                                          "name": "Ana Two"}}))
    out = tmp_path / "out"
    assert main(["generate", "--users", USER, str(other), "--days", "1", "--out",
                 str(out)]) == 2
    err = capsys.readouterr().err
    assert f"users '{USER}' and '{other}' are both user '{USER}'" in err
    assert "encoder:" not in err and not out.exists()


def test_unknown_users_are_one_line_naming_them_and_the_sets(tmp_path, capsys):
    assert main(["generate", "--out", str(tmp_path), "--users", "val", "nobody"]) == 2
    err = capsys.readouterr().err
    assert "mobileintent-gym generate: no user profile 'nobody'" in err
    assert "nor is it a user set: train (8), val (2), test (10), demo (4), all (24)" in err
    assert not list(tmp_path.iterdir())


KNOWU = ("user_profile:\n  habits:\n    clock_out:\n      trigger: {time: '18:00'}\n"
         "      action: {type: send_message}\n")


def test_arguments_that_would_fail_after_the_work_stop_before_it(tmp_path, capsys):
    # Each failed only after days were generated (a NotADirectoryError, numpy's seed
    # error), or not at all (habits for a misspelt user were dropped without a word).
    (tmp_path / "file").write_text("x")
    (tmp_path / "me.yaml").write_text(KNOWU)
    out = str(tmp_path / "out")
    for argv, message in (
            (["--out", str(tmp_path / "file")], "is a file; give a folder"),
            (["--out", str(tmp_path / "file" / "sessions")], "file is a file; give a folder"),
            (["--out", out, "--knowu", f"demo-anna={tmp_path / 'me.yaml'}"],
             "'demo-anna', which is not generated; the users are ['demo-ana']")):
        assert main(["generate", "--users", USER, "--days", "1", *argv]) == 2
        assert message in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["generate", "--users", USER, "--seed", "-1", "--out", out])
    assert "--seed: must be an integer of at least 0, got '-1'" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_every_knowu_file_of_a_user_counts(tmp_path):
    # Two files for one user: only the last one's habits were kept, and a second --knowu
    # flag replaced the first one's files.
    from mobileintent_gym.cli import build_parser
    from mobileintent_gym.intents import UserLife
    from mobileintent_gym.intents.command import _knowu

    (tmp_path / "a.yaml").write_text(KNOWU)
    (tmp_path / "b.yaml").write_text(KNOWU.replace("clock_out", "other"))
    args = build_parser().parse_args(["generate", "--users", USER, "--out", "o",
                                      "--knowu", f"{USER}={tmp_path / 'a.yaml'}",
                                      "--knowu", f"{USER}={tmp_path / 'b.yaml'}"])
    habits = _knowu(args.knowu, [USER])
    life = UserLife(USER, 0, lexical_config(habits=habits))
    names = {h.name for h in life.routine.habits if h.source == "knowu"}
    life.close()
    assert names == {"clock_out", "other"}
    with pytest.raises(MobileIntentError, match="seed must be an integer of at least 0"):
        UserLife(USER, -1)


def test_more_days_than_a_life_can_date_are_refused_before_any_is_lived():
    # The days were lived one by one until the last dated one: for ever, nothing written.
    # (generate's --days takes ten years at most.)
    from mobileintent_gym.intents.generator import generate_sessions

    with pytest.raises(MobileIntentError, match="day 99999999999 is after 9998-12-31"):
        generate_sessions(USER, 100_000_000_000, config=lexical_config())


def test_a_folder_another_generate_writes_is_refused(tmp_path, capsys):
    # Both found it empty and wrote their users into it, under one run's summary.
    with written_by_another_process(tmp_path / "out"):
        assert main(["generate", "--users", USER, "--days", "1", "--out",
                     str(tmp_path / "out")]) == 2
    assert f"another process is writing {tmp_path / 'out'} now" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_a_folder_holding_files_is_refused_before_any_work(tmp_path, capsys):
    # An earlier run's users and later days stayed beside the new run's files, and its
    # summary counted only the new ones.
    (tmp_path / "demo-ben").mkdir()
    assert main(["generate", "--users", USER, "--days", "1", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"--out {tmp_path} holds files already" in err and "encoder:" not in err
    assert [p.name for p in tmp_path.iterdir()] == ["demo-ben"]


def test_an_interrupted_run_leaves_none_of_its_files(tmp_path, capsys, monkeypatch):
    # Its first days stayed in --out, a PNG cut short among them, with no summary: a
    # partial run that a new one was then refused over ("holds files already").
    from mobileintent_gym.intents import command

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(command, "write_behaviour_log", interrupted)  # after the days' files
    out = tmp_path / "run"
    assert main(["generate", "--users", USER, "--days", "1", "--out", str(out)]) == 130
    assert not out.exists()  # made for the run, and gone with it
    out.mkdir()
    assert main(["generate", "--users", USER, "--days", "1", "--out", str(out)]) == 130
    assert list(out.iterdir()) == []  # a folder given stays, as it was
    (out / (".staged-" + "0" * 32) / USER).mkdir(parents=True)  # what a run killed outright leaves
    monkeypatch.undo()
    assert main(["generate", "--users", USER, "--days", "1", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == [USER, "summary.json"]

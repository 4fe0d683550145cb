import argparse
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from mobileintent_gym.cli import main
from mobileintent_gym.phone import SimPhone
from mobileintent_gym.phone.tour import plan
from tests.helpers import exit_status

ROOT = Path(__file__).resolve().parents[1]


def test_tour_writes_a_frame_per_step_and_a_log(tmp_path, capsys):
    assert main(["tour", "--out", str(tmp_path)]) == 0
    frames = sorted(tmp_path.glob("*.png"))
    apps = SimPhone().apps
    tour = plan(apps.values())
    assert len(frames) == len(tour)
    assert Image.open(frames[0]).size == (1080, 2400)
    log = json.loads((tmp_path / "tour.json").read_text())
    assert [r["name"] for r in log] == [name for name, _ in tour]
    # Named in order: "100_…" sorted between "10_…" and "11_…" before.
    assert [f.name.split("_", 1)[1][:-4] for f in frames] == [name for name, _ in tour]
    # The last app's tour ends inside it, then HOME leads back to the launcher.
    assert log[-2]["route"].startswith(f"{list(apps)[-1]}/") and log[-1]["route"] == "launcher"
    assert all(r["effect"] for r in log[1:])
    assert "frames written" in capsys.readouterr().out


def test_a_tour_replaces_an_earlier_one_whole_and_mixes_with_nothing_else(tmp_path, capsys,
                                                                         monkeypatch):
    # Frames were written in place: Ctrl-C left a PNG cut short beside the first frames,
    # and a folder's other files stayed among the new frames (156 PNGs for 155 written).
    from mobileintent_gym.phone import tour

    out, steps = tmp_path / "tour", len(plan(SimPhone(320, 480).apps.values()))
    assert main(["tour", "--size", "320x480", "--out", str(out)]) == 0
    first = {p.name: p.read_bytes() for p in out.iterdir()}
    assert len(first) == steps + 1  # the frames and tour.json
    walk = tour.walk

    def interrupted(phone):
        for number, step in enumerate(walk(phone)):
            if number == 5:
                raise KeyboardInterrupt
            yield step

    monkeypatch.setattr(tour, "walk", interrupted)
    assert main(["tour", "--size", "320x480", "--out", str(out)]) == 130
    assert {p.name: p.read_bytes() for p in out.iterdir()} == first  # the earlier one, whole
    monkeypatch.undo()
    assert main(["tour", "--size", "320x480", "--out", str(out)]) == 0  # replaces it
    assert sorted(p.name for p in out.iterdir()) == sorted(first)
    (out / "notes.txt").write_text("mine")
    capsys.readouterr()
    assert main(["tour", "--size", "320x480", "--out", str(out)]) == 2
    assert capsys.readouterr().err.strip().endswith(
        "holds files that are no tour's (notes.txt); give a new or empty folder, or one an "
        "earlier tour wrote")
    assert len(list(out.iterdir())) == steps + 2
    # A tour killed outright (its staging left), or stopped while its files were moved in
    # (frames without their log): the next one replaces both.
    (out / "notes.txt").unlink()
    (out / "tour.json").unlink()
    stale = out / (".staged-" + "0" * 32)
    stale.mkdir()
    (stale / "001_launcher.png").write_bytes(b"cut")
    assert main(["tour", "--size", "320x480", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(first)
    (out / ".staged-notes").mkdir()  # named like one, but no staging's: the user's, kept
    assert main(["tour", "--size", "320x480", "--out", str(out)]) == 2
    assert (out / ".staged-notes").is_dir()


def test_tour_rejects_a_bad_size_before_creating_its_folder(tmp_path, capsys):
    out = tmp_path / "never"
    assert exit_status(["tour", "--size", "10x2400", "--out", str(out)]) == 2
    err = capsys.readouterr().err  # as every command's bad values read ("tour: …" before)
    assert err.splitlines()[-1] == ("mobileintent-gym tour: error: argument --size: screen "
                                    "10x2400 is outside 320-3840 x 480-3840 pixels")
    assert not out.exists()


@pytest.mark.parametrize("argv", [
    ["tour", "--out", ""],  # wrote 155 files into the current folder
    ["train", "repair", "--out", ""],  # wrote its run (adapters, checkpoints …) there
    ["generate", "--users", "demo-ana", "--out", "x", "--profiles", ""],  # searched it
    ["evaluate", "--out", ""], ["view", ""], ["view", "run.json", "--gif-out", ""],
    ["contact-sheet", "--out", ""], ["assist", "--user", "demo-ana", "--out", ""],
    ["serve-adb", "--keys", ""]])
def test_an_empty_path_is_refused_before_anything_runs(tmp_path, capsys, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith(
        ": an empty path names no file or folder; give one")
    assert list(tmp_path.iterdir()) == []


def test_tour_names_an_out_that_cannot_be_a_folder(tmp_path, capsys):
    # It ended in a FileExistsError (or NotADirectoryError) traceback, with status 1.
    (tmp_path / "file").write_text("")
    for out in (tmp_path / "file", tmp_path / "file" / "x"):
        assert main(["tour", "--out", str(out)]) == 2
        err = capsys.readouterr().err.splitlines()
        assert err == [f"mobileintent-gym tour: --out {out}: {tmp_path / 'file'} is a file; "
                       "give a folder"]


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc (Linux)")
@pytest.mark.parametrize("command", [["tour"], ["generate", "--users", "demo-ana", "--days",
                                                "1"]])
def test_an_out_the_file_system_refuses_is_named_before_any_work(tmp_path, capsys, command):
    # Only permission was asked, which says yes to root in /proc: mkdir then raised a
    # FileNotFoundError traceback (generate after its first user's days).
    assert main([*command, "--out", "/proc/mobileintent-out"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"mobileintent-gym {command[0]}: --out /proc/mobileintent-out: cannot "
                   "write there (No such file or directory)"]


def test_a_reader_that_leaves_early_stops_the_command_quietly():
    # A real pipe whose reading end is closed before the command writes (`… | head -1`).
    command = subprocess.Popen([sys.executable, "-m", "mobileintent_gym.cli", "catalog",
                                "templates"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               cwd=ROOT)
    command.stdout.close()
    _, err = command.communicate(timeout=120)
    assert command.returncode == 1 and err == b""


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
def test_output_to_a_full_device_is_one_line_not_a_traceback():
    # `catalog templates > /dev/full` ended in an OSError traceback.
    with open("/dev/full", "wb") as full:
        done = subprocess.run([sys.executable, "-m", "mobileintent_gym.cli", "catalog",
                               "templates"], stdout=full, stderr=subprocess.PIPE, cwd=ROOT,
                              timeout=120)
    assert done.returncode == 1
    assert done.stderr.decode() == ("mobileintent-gym catalog: cannot write the output (No "
                                    "space left on device)\n")


def test_the_package_runs_as_a_module():
    # `python -m mobileintent_gym` said the package cannot be executed directly.
    done = subprocess.run([sys.executable, "-m", "mobileintent_gym", "catalog", "templates"],
                          capture_output=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0 and done.stderr == b""
    assert done.stdout.splitlines()[2].startswith(b"| G-SPT-01 | music |")


def test_an_error_that_is_no_mistake_is_one_line_with_status_1(monkeypatch, capsys):
    # A cluster that lost an actor beyond its restarts exited 2, the status of a mistake a
    # person can fix. (The command's work is replaced here: losing the actors needs a
    # cluster killed mid-run, which tests/distributed/test_ray.py does to the pool.)
    from mobileintent_gym import evaluate as evaluate_module
    from mobileintent_gym.distributed.pool import ActorsLostError

    def lost(args):
        raise ActorsLostError("an actor died more than its restarts allow (gone)")

    monkeypatch.setattr(evaluate_module, "_main", lost)
    assert main(["evaluate"]) == 1
    assert capsys.readouterr().err == ("mobileintent-gym evaluate: an actor died more than "
                                       "its restarts allow (gone)\n")


@pytest.mark.parametrize("command", [["serve-adb", "--port", "0"], ["assist", "--out", "s.png"]])
def test_a_set_where_one_user_is_meant_is_named_as_a_set(command, capsys, tmp_path,
                                                        monkeypatch):
    # serve-adb said "no user profile 'demo'"; assist played a drawn user without a word.
    monkeypatch.chdir(tmp_path)
    assert main([*command, "--user", "demo"]) == 2
    assert not list(tmp_path.iterdir())
    err = capsys.readouterr().err
    assert (f"mobileintent-gym {command[0]}: --user 'demo' is a set of 4 users (demo-ana, "
            "demo-ben, demo-chen, demo-dara); give one of them") in err


@pytest.mark.parametrize("command", [[], ["view"], ["assist"], ["serve-adb"], ["catalog"],
                                     ["contact-sheet"], ["evaluate"]])
def test_help_shows_no_markup(command, capsys):
    # The module docstrings' ``x`` and :class:`~a.B` were printed as they are.
    with pytest.raises(SystemExit) as done:
        main([*command, "--help"])
    shown = capsys.readouterr().out
    assert done.value.code == 0 and shown.startswith("usage: mobileintent-gym")
    assert not any(mark in shown for mark in ("``", ":class:", ":func:", "::\n"))


def commands_and_options(parser, path=("mobileintent-gym",)):
    """``(command path, option)`` for every option and positional of every command."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, command in action.choices.items():
                yield from commands_and_options(command, (*path, name))
        else:
            yield " ".join(path), action


def test_every_option_of_every_command_says_what_it_does():
    # train sft --epochs, generate --days and eight more showed a bare name in --help.
    from mobileintent_gym.cli import build_parser

    unexplained = [(path, action.dest) for path, action in commands_and_options(build_parser())
                   if not action.help]
    assert unexplained == []


@pytest.mark.parametrize(("trainer", "config"), [("sft", "mobileintent_gym.rl.sft.SftConfig"),
                                                 ("repair", "mobileintent_gym.rl.repair_config"
                                                            ".RepairConfig")])
def test_the_learning_rate_shown_is_the_trainers_default(trainer, config):
    # The help names the default without importing the trainers for every command.
    from mobileintent_gym.cli import build_parser

    module, name = config.rsplit(".", 1)
    [shown] = [action.help for path, action in commands_and_options(build_parser())
               if path == f"mobileintent-gym train {trainer}" and action.dest == "lr"]
    default = getattr(importlib.import_module(module), name).lr
    assert shown == f"AdamW learning rate (default {default:g})"


def test_plain_takes_rest_roles_and_literals_out():
    from mobileintent_gym.console import plain

    assert plain("A :class:`~mobileintent_gym.errors.MobileIntentError` or :func:`a.b`; "
                 "``x``.\n\nExample::\n") == "A MobileIntentError or a.b; x.\n\nExample:\n"


@pytest.mark.parametrize("command", [
    ["generate", "--users", "demo-ana", "--days", "1", "--out", "OUT"],
    ["contact-sheet", "--out", "OUT/sheet.png"],
    ["assist", "--out", "OUT/strip.png"]])
def test_every_command_that_builds_content_takes_require_encoder(tmp_path, capsys, command):
    # Only evaluate and serve-adb had it; the README offers it for every such command.
    argv = [a.replace("OUT", str(tmp_path / "out")) for a in command]
    assert main([*argv, "--require-encoder", "no-such/model"]) == 2
    assert capsys.readouterr().err.splitlines()[-1].startswith(
        f"mobileintent-gym {command[0]}: --require-encoder no-such/model but ")
    assert not (tmp_path / "out").exists()


def test_assist_looks_for_its_user_in_profiles(tmp_path, capsys):
    # assist had no --profiles: a user of one's own could not be drawn.
    assert main(["assist", "--user", "zed", "--profiles", str(tmp_path / "none"),
                 "--out", str(tmp_path / "strip.png")]) == 2
    assert capsys.readouterr().err == (f"mobileintent-gym assist: --profiles "
                                       f"'{tmp_path / 'none'}' is not a folder\n")
    assert main(["assist", "--user", "zed", "--profiles", str(tmp_path),
                 "--out", str(tmp_path / "strip.png")]) == 2
    assert (f"no user profile 'zed'; searched profiles_dir {tmp_path} (none)"
            in capsys.readouterr().err)


@pytest.mark.parametrize(("argv", "dest", "expected"), [
    (["evaluate", "--users", "demo-ana", "--users", "demo-ben", "test"], "users",
     ["demo-ana", "demo-ben", "test"]),
    (["evaluate", "--tasks", "a", "--tasks", "b"], "tasks", ["a", "b"]),
    (["evaluate", "--templates", "G-SPT-02", "--templates", "G-SPT-03"], "templates",
     ["G-SPT-02", "G-SPT-03"]),
    (["evaluate", "--observation", "screenshot", "--observation", "instruction"], "observation",
     ["screenshot", "instruction"]),
    (["evaluate"], "observation", ["instruction", "hierarchy"]),
    (["generate", "--out", "x", "--users", "demo-ana", "--users", "demo-ben"], "users",
     ["demo-ana", "demo-ben"]),
    (["generate", "--out", "x"], "users", ["test"]),
    # A first use equal to the default is a use: it was dropped as the default.
    (["generate", "--out", "x", "--users", "test", "--users", "demo-ana"], "users",
     ["test", "demo-ana"]),
    (["train", "repair", "--val-users", "val", "--val-users", "demo"], "val_users",
     ["val", "demo"]),
])
def test_a_repeated_list_option_adds_to_the_first_and_replaces_the_default(argv, dest,
                                                                          expected):
    from mobileintent_gym.cli import build_parser

    assert getattr(build_parser().parse_args(argv), dest) == expected


def test_a_repeated_list_option_leaves_the_default_list_as_it_was():
    from mobileintent_gym.cli import build_parser

    parser = build_parser()
    parser.parse_args(["generate", "--out", "x", "--users", "demo-ana"])
    assert parser.parse_args(["generate", "--out", "x"]).users == ["test"]


def test_the_command_line_starts_where_python_has_no_resource_module():
    # Windows has none: importing the adb server's regex child for every command stopped
    # them all, evaluate and --help included.
    code = ("import sys; sys.modules['resource'] = None\n"
            "from mobileintent_gym.cli import build_parser\n"
            "print(build_parser().parse_args(['evaluate']).agent)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 0 and done.stdout.strip() == "oracle", done.stderr

"""The README's loops run as written and print what they say they print."""

import contextlib
import io
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def run_block(code: str) -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        # Dedented (a list item's block is indented), run as a script's main module.
        exec(compile(textwrap.dedent(code), "README.md", "exec"), {"__name__": "__main__"})
    return out.getvalue().splitlines()


def block(marker: str) -> str:
    return next(b for b in BLOCKS if marker in b)


def test_the_env_loop_runs_the_oracle_to_success():
    lines = run_block(block('gym.make("Act2Intent-Execute-v0")'))
    assert lines[0].startswith("In Music, play a velvety R&B groove")
    assert [line.split()[1] for line in lines[1:-1]] == [
        "music/library", "music/library/recent", "music/library/recent"]
    assert all(line.endswith(" 1.0") for line in lines[1:-1])
    assert lines[-1] == "(1.0, 1.0, 1.0) True"


def test_the_phone_loop_runs_and_prints_what_it_claims():
    lines = run_block(block("SimPhone()"))
    assert lines[0] == "True music/library/liked"
    assert lines[1].startswith("CLICK[") and "launcher -> music/home" in lines[1]
    assert len(lines) == 1 + 4  # one line per logged action


def test_your_first_experiment_runs_as_written(tmp_path, monkeypatch, capsys):
    """Steps 3 and 4 of the README: the agent file, then its evaluation and report (on
    one user, to stay quick)."""
    from mobileintent_gym.cli import main
    from mobileintent_gym.tasks import task_ids

    section = README.read_text().split("## Your first experiment")[1].split("\n## ")[0]
    command = next(line for line in section.splitlines()
                   if line.startswith("mobileintent-gym evaluate"))
    (tmp_path / "my_agent.py").write_text(block("class KeywordTapper"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        assert main(command.replace("--users demo ", "--users demo-ana ").split()[1:]) == 0
    finally:
        sys.modules.pop("my_agent", None)
    task_sr = float(capsys.readouterr().out.split("task_sr=")[1].split()[0])
    assert 0 < task_sr < 1
    report = (tmp_path / "out" / "mine.html").read_text()
    # one episode per task of the one user: four per template of every registered app
    assert "KeywordTapper" in report and report.count('class="episode"') == len(task_ids())


def test_the_video_example_records_an_episode(tmp_path, monkeypatch):
    pytest.importorskip("moviepy", reason="RecordVideo needs moviepy (pip install moviepy)")
    monkeypatch.chdir(tmp_path)
    run_block(block("RecordVideo"))
    [video] = (tmp_path / "out" / "videos").iterdir()
    assert video.name == "rl-video-episode-0.mp4" and video.stat().st_size > 10_000


@pytest.mark.parametrize("table", ["templates", "contexts"])
def test_the_readme_tables_are_the_catalog_of_the_installed_apps(table, capsys):
    from mobileintent_gym.cli import main

    assert main(["catalog", table]) == 0
    printed = capsys.readouterr().out.strip()
    assert printed in README.read_text()


def test_the_pool_script_runs_as_written_and_steps_every_sub_env(tmp_path):
    # As a user runs it: a script in a fresh interpreter, whose spawned workers import it.
    script = tmp_path / "pool.py"
    script.write_text(textwrap.dedent(block("envs.recv(batch_size=2)")))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    total, shares = done.stdout.splitlines()[-1].split(" ", 1)
    shares = [int(n) for n in shares.strip("[]").split(", ")]
    assert int(total) == sum(shares) == 200 and len(shares) == 4 and min(shares) > 0

"""The README's loops run as written and print what they say they print."""

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def run_block(code: str) -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    return out.getvalue().splitlines()


def test_the_env_loop_runs_the_oracle_to_success():
    lines = run_block(BLOCKS[0])
    assert lines[0].startswith("In Music, play a velvety R&B groove")
    assert [line.split()[1] for line in lines[1:-1]] == [
        "music/library", "music/library/recent", "music/library/recent"]
    assert all(line.endswith(" 1.0") for line in lines[1:-1])
    assert lines[-1] == "(1.0, 1.0, 1.0) True"


def test_the_phone_loop_runs_and_prints_what_it_claims():
    code = next(block for block in BLOCKS if "SimPhone()" in block)
    lines = run_block(code)
    assert lines[0] == "True music/library/liked"
    assert lines[1].startswith("CLICK[") and "launcher -> music/home" in lines[1]
    assert len(lines) == 1 + 4  # one line per logged action

"""The README's loop runs as written and prints what it says it prints."""

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_loop_runs_and_prints_what_it_claims():
    code = re.search(r"```python\n(.*?)```", README.read_text(), re.S).group(1)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    lines = out.getvalue().splitlines()
    assert lines[0] == "True music/library/liked"
    assert lines[1].startswith("CLICK[") and "launcher -> music/home" in lines[1]
    assert len(lines) == 1 + 4  # one line per logged action

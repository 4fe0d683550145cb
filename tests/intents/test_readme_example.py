"""The README's session example runs as written and prints what it says it prints."""

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_session_example_prints_what_the_readme_says():
    code = next(b for b in re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
                if "generate_sessions(" in b)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    lines = out.getvalue().splitlines()
    claims = [line.partition("# ")[2].strip() for line in code.splitlines() if "# " in line]
    assert lines[0] == claims[0]
    assert lines[1].startswith(claims[1].rstrip(". "))
    assert lines[2] == claims[2]
    assert lines[4] == claims[3]

"""Checks of the source files themselves, for the Python versions the package supports."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(p for folder in ("mobileintent_gym", "tests", "benchmarks")
                 for p in (ROOT / folder).rglob("*.py"))
DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_docstring_is_utf8_text(path):
    # Python 3.13 compiles docstrings as UTF-8 and refuses a lone surrogate: a "\ud800" in
    # one (not a raw string) stopped every gym.make there with UnicodeEncodeError.
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        doc = ast.get_docstring(node, clean=False) if isinstance(node, DOCUMENTED) else None
        if doc is not None:
            doc.encode("utf-8")  # raises, naming the character, for a surrogate

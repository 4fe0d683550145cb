"""Every command-line option the README and docs/ name exists.

The README named ``train repair --phone``, an option that did not exist. An option written
after a command (``mobileintent-gym tour --size …``) must be that command's; any other must
be an option of one of the gym's commands or benchmark scripts, or of the few other tools
the docs run (pip, Docker).
"""

import argparse
import re
from pathlib import Path

from mobileintent_gym.cli import build_parser

REPO = Path(__file__).resolve().parents[1]
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
COMMAND = re.compile(r"(?:mobileintent-gym|python -m mobileintent_gym(?:\.cli)?)"
                     r"((?:[ \t]+[^\s`|]+)+)")
# pip install, docker build / run, docker compose up
OTHER_TOOLS = {"--no-deps", "--build", "--shm-size", "--exit-code-from"}


def documents() -> list[tuple[str, str]]:
    paths = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    return [(path.name, path.read_text(encoding="utf-8")) for path in paths]


def commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The sub-commands of ``parser`` by name (none: an empty dict)."""
    return next((dict(a.choices) for a in parser._actions
                 if isinstance(a, argparse._SubParsersAction)), {})


def options(parser: argparse.ArgumentParser) -> set[str]:
    """The options of ``parser`` and of all its sub-commands."""
    return {o for a in parser._actions for o in a.option_strings}.union(
        *(options(p) for p in commands(parser).values()))


def benchmark_options() -> set[str]:
    return {m for path in (REPO / "benchmarks").glob("*.py")
            for m in re.findall(r'add_argument\("(--[a-z0-9-]+)"', path.read_text())}


def test_every_option_named_exists():
    known = options(build_parser()) | benchmark_options() | OTHER_TOOLS
    unknown = sorted({(name, option) for name, text in documents()
                      for option in OPTION.findall(text) if option not in known})
    assert unknown == []


def test_an_option_written_after_a_command_is_that_commands():
    top, wrong = commands(build_parser()), []
    for name, text in documents():
        for match in COMMAND.finditer(text):
            words = match.group(1).split()
            parser = top.get(words[0])
            if parser is None:
                continue
            parser = commands(parser).get(words[1] if len(words) > 1 else "", parser)
            known = options(parser)
            wrong += [(name, " ".join(words[:2]), w.split("=")[0]) for w in words
                      if OPTION.fullmatch(w.split("=")[0]) and w.split("=")[0] not in known]
    assert wrong == []

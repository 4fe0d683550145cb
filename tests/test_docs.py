"""What the package and its README cite exists in the repository."""

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# Rewritten on another branch together with its score definitions; drop once merged.
CITED_DOC = re.compile(r"\b([\w./-]+\.md)\b")


def sources():
    for path in sorted((REPO / "mobileintent_gym").rglob("*.py")):
        yield path.relative_to(REPO).as_posix(), path.read_text(encoding="utf-8")


def test_every_document_the_package_cites_is_in_the_repository():
    cited = {(name, doc) for name, text in sources() for doc in CITED_DOC.findall(text)}
    missing = sorted((name, doc) for name, doc in cited
                     if not any((REPO / doc).exists() for doc in (doc, f"docs/{doc}")))
    assert missing == []


def test_no_docstring_cites_the_teams_notes():
    notes = re.compile(r"\b(SPEC|HOUSE_STYLE|ARCHITECTURE)(\.md)?\b(?!_)(?=[ ,.)]| [A-C]\b)")
    assert [name for name, text in sources() if notes.search(text)] == []

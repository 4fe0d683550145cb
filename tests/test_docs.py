"""Every document the package, the README and docs/ cite is in the repository."""

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CITED_DOC = re.compile(r"\b([\w./-]+\.md)\b")


def sources():
    paths = [*sorted((REPO / "mobileintent_gym").rglob("*.py")), REPO / "README.md",
             *sorted((REPO / "docs").glob("*.md"))]
    for path in paths:
        yield path.relative_to(REPO).as_posix(), path.read_text(encoding="utf-8")


def test_every_document_cited_is_in_the_repository():
    cited = {(name, doc) for name, text in sources() for doc in CITED_DOC.findall(text)}
    missing = sorted((name, doc) for name, doc in cited
                     if not any((REPO / doc).exists() for doc in (doc, f"docs/{doc}")))
    assert missing == []

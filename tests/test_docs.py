"""docs/RULES.md is the specification the code cites, kept in the repository so that a clone is
self-contained: it is the shared one, word for word, and every section the code or the tests
cite (`§7.3`) exists in it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
RULES = REPO / "docs" / "RULES.md"
SHARED = REPO.parent / "shared" / "RULES.md"
CITED = re.compile(r"§ ?([0-9]+(?:\.[0-9]+)?)")


def _sections() -> set[str]:
    found: set[str] = set()
    for line in RULES.read_text(encoding="utf-8").splitlines():
        # "## 7. Title" (a section) or "7.2 Title" (a subsection)
        if m := re.match(r"## ([0-9]+)\. |([0-9]+\.[0-9]+) ", line):
            found.add(m.group(1) or m.group(2))
    return found


def test_docs_rules_is_the_shared_specification() -> None:
    if not SHARED.exists():
        pytest.skip("no ../shared/RULES.md beside this clone to compare with")
    assert RULES.read_bytes() == SHARED.read_bytes(), (
        "docs/RULES.md differs from ../shared/RULES.md: copy the shared one"
    )


def test_every_cited_section_exists() -> None:
    sections = _sections()
    assert {"1", "2.3", "7.13", "10.5"} <= sections  # the parser reads the headings
    missing: dict[str, list[str]] = {}
    for top in ("bot", "handlers", "storage", "tests", "bench"):
        for path in sorted((REPO / top).rglob("*.py")):
            for number in set(CITED.findall(path.read_text(encoding="utf-8"))):
                if number not in sections:
                    missing.setdefault(number, []).append(str(path.relative_to(REPO)))
    assert not missing, f"sections cited but not in docs/RULES.md: {missing}"

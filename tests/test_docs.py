"""docs/RULES.md is the specification the code cites, kept in the repository so that a clone is
self-contained: it is the shared one, word for word, and every section the code or the tests
cite (`§7.3`) exists in it. The README says what the bot does where an issue found it did not."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.i18n import plain

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


def test_readme_says_who_may_mark_a_payment_paid() -> None:
    """Issue 54.8: the README said only the payer (or an admin) marks a payment of /beer paid,
    while the bot lets the one owed do it too (`League.mark_paid`; its refusal to anyone else
    names both, tests/test_league_service.py has the one owed mark one). The README says the
    bot's rule."""
    refusal = plain("en", "lg_err_not_payer", who="Payer", to="Owed")
    assert "Payer" in refusal and "Owed" in refusal and "admin" in refusal
    text = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    (sentence,) = [s for s in re.split(r"(?<=\.) ", text) if "**pagato**" in s]
    assert "the payer, the one owed, or an admin taps it" in sentence, sentence

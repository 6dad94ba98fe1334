"""`bench.paired`: two recorded chiamata matchups compared deal by deal (issue 41)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import paired
from bench.strength import play_deal


def record(path: Path, a: str, deals: range) -> list[float]:
    """`a`-normal on `deals` as `bench.strength --record` writes it; the bench's own score
    difference per deal (what its summary averages)."""
    out = []
    with path.open("w") as fh:
        for k in deals:
            res = play_deal("chiamata", a, "normal", 2024, k, 0.0, 1)
            for hand in res.hands_played:
                fh.write(json.dumps(hand) + "\n")
            out.append(res.score_diff / 2)
    return out


def test_paired_reads_the_benchs_score_per_deal_and_pairs_the_deals(tmp_path: Path) -> None:
    """§7.12: replayed from the records, each deal's score difference is the one the bench
    computed as it played; two matchups are compared on the deals both hold, and a hand
    recorded twice counts once."""
    easy, rand = tmp_path / "easy.jsonl", tmp_path / "random.jsonl"
    want_easy = record(easy, "easy", range(4))
    want_rand = record(rand, "random", range(1, 5))
    got = paired.per_deal(easy, "normal")
    assert [got[k] for k in range(4)] == pytest.approx(want_easy)
    first = easy.read_text().splitlines()[0]
    with easy.open("a") as fh:
        fh.write(first + "\n")  # the first hand once more
    assert paired.per_deal(easy, "normal") == pytest.approx(got)
    c = paired.compare(easy, rand)
    assert c["deals"] == 3
    diffs = [want_easy[k] - want_rand[k - 1] for k in (1, 2, 3)]
    assert c["diff"] == pytest.approx(sum(diffs) / 3, abs=1e-3)
    assert c["lo"] <= c["diff"] <= c["hi"]

"""Two chiamata matchups against the same level on the same deals, compared deal by deal.

    python -m bench.paired NEW.jsonl OLD.jsonl [--against normal]

Each file is what `bench.strength --record` wrote for one matchup A-`against` with the same
seed (the same deals). Per deal the §7.12 score per seat-hand of A's seats minus the
`against` seats', the two games averaged, as `bench.strength` prints it; then, on the deals
both files hold, each file's mean and the mean of NEW minus OLD with its 95% interval: the
paired difference of the two A levels, without a third run of the two head to head. A hand
recorded twice (a file that two runs appended to) counts once, the later record.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
from pathlib import Path
from typing import Any

from bench.strength import table_options
from bot.engine import HandState


def per_deal(path: Path, against: str) -> dict[int, float]:
    """Per deal `k`, A's mean score per seat-hand minus `against`'s, over its two games."""
    last: dict[tuple[int, tuple[str, ...]], dict[str, Any]] = {}
    with path.open() as fh:
        for line in fh:
            r = json.loads(line)
            last[(r["k"], tuple(r["levels"]))] = r
    out: dict[int, float] = {}
    for r in last.values():
        state = HandState.deal(table_options(r["variant"]), r["seed"], r["k"], r["dealer"])
        for seat, action in r["actions"]:
            state.apply(action, seat)
        res = state.result()
        levels = r["levels"]
        a = [s for s, lv in enumerate(levels) if lv != against]
        b = [s for s, lv in enumerate(levels) if lv == against]
        k = r["k"]
        if res.redeal or not a or not b:
            out.setdefault(k, 0.0)
            continue
        diff = sum(res.deltas[s] for s in a) / len(a) - sum(res.deltas[s] for s in b) / len(b)
        out[k] = out.get(k, 0.0) + diff / 4  # bench.strength: the two games' sum, halved twice
    return out


def compare(new: Path, old: Path, against: str = "normal") -> dict[str, float]:
    """NEW's and OLD's means on their common deals and NEW minus OLD with its 95% interval."""
    x, y = per_deal(new, against), per_deal(old, against)
    ks = sorted(set(x) & set(y))
    d = [x[k] - y[k] for k in ks]
    mean = statistics.fmean(d)
    half = 1.96 * statistics.stdev(d) / math.sqrt(len(d)) if len(d) > 1 else 0.0
    return {
        "deals": len(ks),
        "new": round(statistics.fmean(x[k] for k in ks), 3),
        "old": round(statistics.fmean(y[k] for k in ks), 3),
        "diff": round(mean, 3),
        "lo": round(mean - half, 3),
        "hi": round(mean + half, 3),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("new", type=Path)
    p.add_argument("old", type=Path)
    p.add_argument("--against", default="normal")
    args = p.parse_args(argv)
    c = compare(args.new, args.old, args.against)
    print(
        f"{c['deals']} deals: new {c['new']:+.3f}, old {c['old']:+.3f} a seat-hand; "
        f"new - old {c['diff']:+.3f} [{c['lo']:+.3f}, {c['hi']:+.3f}]"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

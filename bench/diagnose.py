"""Where `hard`'s lead over `normal` in chiamata comes from, and where its ceiling is (issue 41).

    python -m bench.diagnose [--deals 400] [--seed 2024] [--workers 2] [--only a,b]
        [--json FILE] [--record FILE]

Runs `bench.strength`'s paired deals in chiamata for each of these players against `normal`
and prints one table row per matchup (§7.12 score per seat-hand with its 95% interval, the
thinking per seat-hand, and the score by role):

- `hard`: as it is;
- `hardbid`: `hard`'s auction (its Monte Carlo bidding) with `normal`'s card play;
- `hardplay`: `normal`'s auction with `hard`'s card play;
- `hardseer`: `hard` whose card play sees every hand (`bench/seers.py`), the same time;
- `hardseer10`, `hardseer100`: the same at 10 and 100 times the time, solving its one world
  exactly from 5 and 6 tricks out (30 cards: some 4 s a world, `bench.solver`);
- `harddeep5`: `hard` at 10 times the time, each world solved exactly from 5 tricks out;
- `hardseern`, `hardseern1`: the seer whose worlds are played on by `normal` itself in every
  seat (a model of the opponents that is exact in this bench), to the end of the hand or for
  the trick under way only (then the greedy rollout); `hardn`, `hardn1`: `hard` so (its
  sampled worlds), `hardn5` the first at 5 times the time (`--only` them: not in the default
  run).

The players are bench-only baselines of `bench.strength` (`--matchups hardbid-normal`, ...).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from bench.hard_variants import MATCHUPS


def row(s: dict[str, Any]) -> str:
    """One markdown table row of a chiamata matchup's summary."""
    a = s["matchup"].split("-")[0]
    c = s["chiamata"]
    lo, hi = c["score_diff_ci95"]
    roles = ", ".join(
        f"{role} {r['mean']:+.2f}" for role, r in c["roles"][a].items() if r["mean"] is not None
    )
    think = s["decision_ms"][a]
    return (
        f"| {s['matchup']} | {s['deals']} | {c['score_diff']:+.3f} [{lo:+.3f}, {hi:+.3f}] | "
        f"{think['per_seat_hand'] / 1000:.2f} s | {think['p95']:.0f} ms | "
        f"{100 * (c['caller_success_by_level'][a] or 0):.1f}% | {roles} |"
    )


HEADER = (
    "| matchup | paired deals | score per seat-hand (95% CI) | thinking per seat-hand | "
    "decision p95 | caller success | by role (mean score) |\n|---|---|---|---|---|---|---|"
)


def main(argv: list[str] | None = None) -> int:
    from bench.strength import render, run_matchup

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=400)
    p.add_argument("--seed", type=int, default=2024)
    p.add_argument("--budget", type=float, default=0.2)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--variant", default="chiamata")
    p.add_argument("--only", help="comma-separated players (default: all of MATCHUPS)")
    p.add_argument("--json", metavar="FILE", help="append the summaries as JSON lines")
    p.add_argument("--record", metavar="FILE", help="append every hand played (JSON lines)")
    p.add_argument("--clock", choices=["cpu", "wall"], default="cpu")
    args = p.parse_args(argv)
    names = args.only.split(",") if args.only else list(MATCHUPS)
    rows = []
    for name in names:
        s = run_matchup(
            args.variant,
            name,
            "normal",
            args.deals,
            args.seed,
            args.budget,
            args.workers,
            None,
            args.record,
            args.clock,
        )
        print(render(s), flush=True)
        rows.append(row(s))
        if args.json:
            with open(args.json, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(s) + "\n")
    print(HEADER)
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Random-play throughput of the rules engine on one core.

    python -m bench.engine [--hands N] [--repeat R]

Prints, for `due` and `chiamata`, complete random hands per second along two paths:
- api: deal, then `legal_actions()` + `apply()` once per move with a uniform random choice,
  the way any caller drives the engine;
- playout: deal, then `HandState.playout(rng)`, the same moves in one tight loop (what a
  search player's rollouts use; a test checks it plays exactly like the api path).
Best of R repeats, to keep other load on the machine out of the number.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time

from bot.engine import HandState, Options


def _api(options: Options, hands: int, seed: int) -> float:
    rng = random.Random(seed)
    r = rng.random
    n = options.rules().n_players
    start = time.perf_counter()
    for k in range(hands):
        state = HandState.deal(options, seed, k, k % n)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply(legal[int(r() * len(legal))])
    return hands / (time.perf_counter() - start)


def _playout(options: Options, hands: int, seed: int) -> float:
    rng = random.Random(seed)
    n = options.rules().n_players
    start = time.perf_counter()
    for k in range(hands):
        HandState.deal(options, seed, k, k % n).playout(rng)
    return hands / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    results = {}
    for variant in ("due", "chiamata"):
        options = Options.parse(variant)
        for path, fn in (("api", _api), ("playout", _playout)):
            best = max(fn(options, args.hands, 1000 + i) for i in range(args.repeat))
            results[f"{variant}/{path}"] = round(best)
            print(f"{variant:9} {path:8} {best:10,.0f} hands/s", flush=True)
    print(json.dumps({"hands_per_second": results, "target_due": 10000}))


if __name__ == "__main__":
    main()

"""How the bidding network's chances compare with what callers of each level then made.

    python -m train.calibrate_bid SOURCE.jsonl [...]

Replays recorded chiamata hands (`bench.strength --record`, with the level in each seat) and,
for every hand called with a card (not carichi, §7.8), asks the bidding network the caller's
chance of reaching its target with its hand and call, as it was when the play began. Prints
per level of the caller: the calls, the network's mean chance, the share made, the log-loss,
and the shift of the network's logits that fits that level's outcomes best (maximum
likelihood): `hard`'s `bid_shift` is read off here. A level's callers won their auctions,
so their hands are better than a random deal's for the others (who passed): that too is in
the shift.
"""

from __future__ import annotations

import argparse
import json
import math
from collections import defaultdict

from bot.engine import PLAY, HandState, Options
from bot.players.learned import bid


def fit_shift(z: list[float], y: list[int]) -> float:
    """The shift of the logits `z` that maximises the likelihood of outcomes `y` (Newton)."""
    d = 0.0
    for _ in range(50):
        g = h = 0.0
        for zi, yi in zip(z, y, strict=True):
            p = 1.0 / (1.0 + math.exp(-(zi + d)))
            g += yi - p
            h += p * (1 - p)
        if h <= 0:
            break
        step = g / h
        d += step
        if abs(step) < 1e-6:
            break
    return d


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("sources", nargs="+")
    args = p.parse_args(argv)
    z: dict[str, list[float]] = defaultdict(list)
    y: dict[str, list[int]] = defaultdict(list)
    for source in args.sources:
        with open(source, encoding="utf-8") as fh:
            for line in fh:
                record = json.loads(line)
                variant = record.get("variant", "chiamata")
                if variant not in ("chiamata", "chiamata4"):
                    continue
                options = Options.parse(variant)
                state = HandState.deal(options, record["seed"], record["k"], record["dealer"])
                obs = None
                for seat, action in record["actions"]:
                    if state.phase == PLAY and obs is None:
                        obs = state.observation(state.caller)
                    state.apply(action, seat)
                if obs is None or state.carichi or state.called_card < 0 or not bid.available(obs):
                    continue
                chance = bid.chances(obs, [state.called_card])[state.called_card].at(state.target)
                chance = min(max(chance, 1e-4), 1 - 1e-4)
                sides = state.sides()
                made = sum(state.taken[s] for s in range(len(sides)) if sides[s] == 0)
                level = record["levels"][state.caller] if "levels" in record else "normal"
                z[level].append(math.log(chance / (1 - chance)))
                y[level].append(int(made >= state.target))
    for level in sorted(z):
        zs, ys = z[level], y[level]
        ps = [1 / (1 + math.exp(-x)) for x in zs]
        loss = -sum(
            yi * math.log(pi) + (1 - yi) * math.log(1 - pi) for pi, yi in zip(ps, ys, strict=True)
        ) / len(ys)
        print(
            f"{level:10} calls {len(ys):5}  network {sum(ps) / len(ps):.3f}  made "
            f"{sum(ys) / len(ys):.3f}  logloss {loss:.4f}  shift {fit_shift(zs, ys):+.3f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

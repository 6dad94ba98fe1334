"""How well a seat's worlds place the hidden cards, with and without the inference network.

    python -m train.eval_infer SOURCE.jsonl [...] [--every 3] [--hands N]

Replays recorded chiamata hands (as `train.infer_data` reads them) and, at every `--every`-th
card play, asks the seat to play where each card it cannot see is, three ways: in proportion
to the hidden cards of each seat (no inference), as `Knowledge` places it with the
hand-fitted weights (`SUSPICION` and the leanings), and with the inference network
(`Knowledge.of(obs, learned=True)`). A card's chance of a seat is what `sample_world` gives
it when drawn first: the seat's hidden cards times its weight, normalised. Prints the mean
log-loss of the true holder over every hidden card, over the hidden called card (who is
the socio, §7.6), and per level of the observed seat when the hands were recorded with them.
"""

from __future__ import annotations

import argparse
import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

from bot.engine import PLAY, HandState, Options
from bot.engine.observation import Observation
from bot.players.knowledge import Knowledge
from bot.players.learned import infer

WAYS = ("uniform", "hand-fitted", "learned")


def chances(obs: Observation, know: Knowledge, card: int, weighted: bool) -> dict[int, float]:
    seats = [s for s in range(obs.rules.n_players) if s != obs.seat and know.hidden[s] > 0]
    w = {s: know.hidden[s] * (know.weight.get((s, card), 1.0) if weighted else 1.0) for s in seats}
    total = sum(w.values())
    return {s: x / total for s, x in w.items()}


def evaluate(records: list[tuple[str, dict[str, Any]]], every: int) -> None:
    loss: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for variant, record in records:
        options = Options.parse(variant)
        state = HandState.deal(options, record["seed"], int(record["k"]), int(record["dealer"]))
        levels = record.get("levels")
        stop = int(record["at"]) if record.get("deviate") else 10**6
        i = 0
        for seat, action in record["actions"]:
            if state.phase == PLAY:
                if i >= stop:
                    break
                obs = state.observation(seat)
                if i % every == 0 and infer.available(obs):
                    level = levels[seat] if isinstance(levels, list) else "normal"
                    knows = {
                        "uniform": Knowledge.of(obs),
                        "hand-fitted": Knowledge.of(obs),
                        "learned": Knowledge.of(obs, learned=True),
                    }
                    for c in knows["uniform"].unseen:
                        holder = next(s for s in range(len(state.hands)) if c in state.hands[s])
                        for way, know in knows.items():
                            p = chances(obs, know, c, way != "uniform").get(holder, 0.0)
                            x = -math.log(max(p, 1e-6))
                            loss[(way, "card", level)].append(x)
                            if c == obs.called_card:
                                loss[(way, "socio", level)].append(x)
                i += 1
            state.apply(action, seat)
    levels_seen = sorted({lv for _, _, lv in loss})
    for what in ("card", "socio"):
        for lv in levels_seen:
            row = [f"{what:5} {lv:8}"]
            for way in WAYS:
                xs = loss[(way, what, lv)]
                if xs:
                    row.append(f"{way} {sum(xs) / len(xs):.4f}")
            n = len(loss[("uniform", what, lv)])
            print("  ".join(row) + f"  (n {n})", flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("sources", nargs="+")
    p.add_argument("--every", type=int, default=3)
    p.add_argument("--hands", type=int, default=2000, help="per source, the first N")
    args = p.parse_args(argv)
    records = []
    for source in args.sources:
        with open(source, encoding="utf-8") as fh:
            for j, line in enumerate(fh):
                if j >= args.hands:
                    break
                record = json.loads(line)
                variant = record.get("variant") or Path(source).stem.rpartition("-")[0]
                if variant in ("chiamata", "chiamata4"):
                    records.append((variant, record))
    evaluate(records, args.every)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

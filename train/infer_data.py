"""Who held which card, seen from each seat during play, for the inference network (issue 41).

    python -m train.infer_data SOURCE.jsonl [...] [--every 2] [--out .cache/infer]

Replays recorded chiamata hands (`train.value_data`'s `<variant>-<i>.jsonl`: `normal`
players; `bench.strength --record`: whatever levels played, `hard` among them) through the
engine and, at every `--every`-th card play, records the observation of the seat to play
(`features.infer_row`) and, for each card it cannot see, the relative seat holding it
(`features` canonical ids; -1 for the cards it can see). A `value_data` hand is used up to
its one random card (`at`) only. Each source file becomes `OUT/<its name>.npz` (rows, owner,
levels: the level of the observed seat, when recorded), skipped if already there.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from bot.engine import PLAY, HandState, Options
from bot.players.learned.features import INFER_ROW, applies, canon_map, infer_row
from train.value_data import save_chunk

LEVELS = ("normal", "hard", "easy", "random", "other")


def replay(record: dict[str, Any], options: Options, every: int, out: dict[str, list[Any]]) -> None:
    seed = record["seed"]
    k = int(record["k"])
    state = HandState.deal(options, seed, k, int(record["dealer"]))
    n = state.rules.n_players
    stop = int(record["at"]) if record.get("deviate") else 10**6
    levels = record.get("levels")
    i = 0
    for seat, action in record["actions"]:
        if state.phase == PLAY:
            if i >= stop:
                break
            if i % every == 0 and applies(state.rules, state.briscola) and not state.carichi:
                obs = state.observation(seat)
                canon = canon_map(state.briscola)
                owner = [-1] * 40
                visible = set(obs.hand)
                for s in range(n):
                    for c in state.hands[s]:
                        if c not in visible:
                            owner[canon[c]] = (s - seat) % n
                out["rows"].append(infer_row(obs))
                out["owner"].append(owner)
                lv = levels[seat] if isinstance(levels, list) else "normal"
                out["level"].append(LEVELS.index(lv) if lv in LEVELS else len(LEVELS) - 1)
            i += 1
        state.apply(action, seat)


def make(source: Path, every: int, out_dir: Path) -> None:
    target = out_dir / f"{source.stem}.npz"
    if target.exists():
        return
    t = time.perf_counter()
    got: dict[str, list[Any]] = {"rows": [], "owner": [], "level": []}
    hands = 0
    with open(source, encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            variant = record.get("variant") or source.stem.rpartition("-")[0]
            if variant not in ("chiamata", "chiamata4"):
                continue
            replay(record, Options.parse(variant), every, got)
            hands += 1
    save_chunk(
        target,
        rows=np.array(got["rows"], dtype=np.int16).reshape(-1, INFER_ROW),
        owner=np.array(got["owner"], dtype=np.int8).reshape(-1, 40),
        level=np.array(got["level"], dtype=np.int8),
    )
    print(f"{source}: {hands} hands, {len(got['rows'])} positions, {time.perf_counter() - t:.0f} s")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("sources", nargs="+")
    p.add_argument("--every", type=int, default=2)
    p.add_argument("--out", default=".cache/infer")
    args = p.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for source in args.sources:
        make(Path(source), args.every, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

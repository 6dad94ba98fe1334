"""Briscola a due decisions and how the hand ended, for the due network (issue 41).

    python -m train.due_data [--chunks 0-19] [--hands 10000] [--seed 41] [--out .cache/due]

Two `normal` players play each hand; at each card play, with chance `EXPLORE`, the seat plays
a random other card instead (so that the network sees every card played, not only
`normal`'s). Half the decisions, drawn at random, are recorded: the observation of the seat
to play (`features.due_row`), the card it played (canonical id) and its card points at the
end of the hand (the later random cards included). Chunk i holds hands i*hands ..
(i+1)*hands - 1 in `OUT/due-<i>.npz`; a chunk already written is skipped.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

import numpy as np

from bot.engine import HandState, Options
from bot.players.learned.features import DUE_ROW, canon_map, due_row
from bot.players.normal import NormalPlayer
from train.value_data import chunk_range, save_chunk

EXPLORE = 0.1
RECORD = 0.5


def make_chunk(seed: int, chunk: int, hands: int, out: Path) -> None:
    npz = out / f"due-{chunk}.npz"
    if npz.exists():
        return
    options = Options.parse("due")
    rows: list[list[int]] = []
    action: list[int] = []
    points: list[int] = []
    hand: list[int] = []
    t = time.perf_counter()
    for k in range(chunk * hands, (chunk + 1) * hands):
        state = HandState.deal(options, f"due:{seed}", k, k % 2)
        bots = [NormalPlayer(random.Random(f"due:{seed}:{k}:{s}")) for s in range(2)]
        rng = random.Random(f"explore:{seed}:{k}")
        mine: list[tuple[int, int]] = []  # (recorded row index, seat)
        while not state.is_terminal():
            seat = state.current
            obs = state.observation(seat)
            card = bots[seat].act(obs)
            if rng.random() < EXPLORE:
                others = [c for c in obs.legal if c != card]
                if others:
                    card = rng.choice(others)
            if len(obs.legal) > 1 and rng.random() < RECORD:
                mine.append((len(rows), seat))
                rows.append(due_row(obs))
                action.append(canon_map(obs.briscola)[card])
            state.apply(card, seat)
        for _, seat in mine:
            points.append(state.taken[seat])
            hand.append(k)
    save_chunk(
        npz,
        rows=np.array(rows, dtype=np.uint8).reshape(-1, DUE_ROW),
        action=np.array(action, dtype=np.uint8),
        points=np.array(points, dtype=np.uint8),
        hand=np.array(hand, dtype=np.int32),
    )
    print(
        f"due chunk {chunk}: {hands} hands, {len(rows)} decisions, {time.perf_counter() - t:.0f} s"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--chunks", default="0-19")
    p.add_argument("--hands", type=int, default=10000)
    p.add_argument("--seed", type=int, default=41)
    p.add_argument("--out", default=".cache/due")
    args = p.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for chunk in chunk_range(args.chunks):
        make_chunk(args.seed, chunk, args.hands, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

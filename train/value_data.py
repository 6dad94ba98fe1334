"""Chiamata positions and how the hand ended, for the value network (issue 41).

    python -m train.value_data [--variant chiamata] [--chunks 0-19] [--hands 5000]
        [--seed 41] [--out .cache/value]

Five (four) `normal` players bid and play each hand (a redeal or carichi is skipped). In
three hands of four, at one decision drawn uniformly over the hand's card plays, the seat
plays a random other legal card instead of its own: the positions recorded are those from
there on (after that card, every later one, as `features.value_row` from the seat to move),
so that the network sees positions after cards `normal` would not play, the ones `hard`'s
search asks about. Each position's targets are the caller's side's card points at the end
and whether it reached its target (§7.11). Chunk i holds hands i*hands .. (i+1)*hands - 1
of the seed, in `OUT/<variant>-<i>.npz` (rows, points, won, hand) and the hands themselves
(deal and actions, to replay) in `OUT/<variant>-<i>.jsonl`; a chunk already written is
skipped, so an interrupted run resumes.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bot.engine import PLAY, HandState, Options
from bot.players.learned.features import VALUE_ROW, state_value_row
from bot.players.normal import NormalPlayer

DEVIATE = 0.75


def play_hand(
    options: Options, seed: int, k: int
) -> tuple[list[list[int]], int, int, dict[str, Any]] | None:
    """One hand: (position rows, the caller's side's points, won, the hand's record), or
    None for a redeal or carichi."""
    rules = options.rules()
    n = rules.n_players
    dealer = k % n
    deal_seed = f"value:{seed}"
    state = HandState.deal(options, deal_seed, k, dealer)
    bots = [NormalPlayer(random.Random(f"value:{seed}:{k}:{s}")) for s in range(n)]
    while state.phase != PLAY and not state.is_terminal():
        seat = state.current
        state.apply(bots[seat].act(state.observation(seat)), seat)
    if state.is_terminal() or state.carichi or state.briscola < 0:
        return None
    rng = random.Random(f"deviate:{seed}:{k}")
    at = rng.randrange(n * rules.hand_size)
    deviate = rng.random() < DEVIATE
    rows: list[list[int]] = []
    i = 0
    while not state.is_terminal():
        seat = state.current
        obs = state.observation(seat)
        action = bots[seat].act(obs)
        if i == at and deviate:
            others = [c for c in obs.legal if c != action]
            if others:
                action = rng.choice(others)
        state.apply(action, seat)
        if i >= at and not state.is_terminal():
            rows.append(state_value_row(state))
        i += 1
    sides = state.sides()
    pts = sum(state.taken[s] for s in range(n) if sides[s] == 0)
    record = {
        "seed": deal_seed,
        "k": k,
        "dealer": dealer,
        "at": at,
        "deviate": deviate,
        "actions": [list(a) for a in state.actions],
    }
    return rows, pts, int(pts >= state.target), record


def make_chunk(variant: str, seed: int, chunk: int, hands: int, out: Path) -> None:
    npz = out / f"{variant}-{chunk}.npz"
    if npz.exists():
        return
    options = Options.parse(variant)
    rows: list[list[int]] = []
    pts: list[int] = []
    won: list[int] = []
    hand: list[int] = []
    records = []
    t = time.perf_counter()
    for k in range(chunk * hands, (chunk + 1) * hands):
        got = play_hand(options, seed, k)
        if got is None:
            continue
        r, p, w, rec = got
        rows.extend(r)
        pts.extend([p] * len(r))
        won.extend([w] * len(r))
        hand.extend([k] * len(r))
        records.append(rec)
    with open(out / f"{variant}-{chunk}.jsonl", "w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(rec) + "\n")
    save_chunk(
        npz,
        rows=np.array(rows, dtype=np.uint8).reshape(-1, VALUE_ROW),
        points=np.array(pts, dtype=np.uint8),
        won=np.array(won, dtype=np.uint8),
        hand=np.array(hand, dtype=np.int32),
    )
    report(variant, chunk, f"{len(records)} hands, {len(rows)} positions", t)


def save_chunk(path: Path, **arrays: np.ndarray) -> None:
    """`arrays` to `path` (.npz) through a temporary file: a chunk is there whole or not at
    all, and a run stopped halfway makes it again."""
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, **arrays)  # type: ignore[arg-type]
    tmp.rename(path)


def chunk_range(text: str) -> range:
    lo, _, hi = text.partition("-")
    return range(int(lo), int(hi or lo) + 1)


def chunk_parser(
    doc: str, out: str, chunks: str, count: str, per_chunk: int, *, variant: bool = False
) -> argparse.ArgumentParser:
    """The command line every chunk maker shares: [--variant], --chunks, --`count` (how many
    per chunk), --seed, --out."""
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    if variant:
        p.add_argument("--variant", default="chiamata")
    p.add_argument("--chunks", default=chunks)
    p.add_argument(f"--{count}", type=int, default=per_chunk)
    p.add_argument("--seed", type=int, default=41)
    p.add_argument("--out", default=out)
    return p


def make_chunks(args: argparse.Namespace, make: Callable[[int, Path], None]) -> int:
    """`make` each chunk of `--chunks` in `--out` (made if missing); a command's status."""
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for chunk in chunk_range(args.chunks):
        make(chunk, out)
    return 0


def report(name: str, chunk: int, counts: str, started: float) -> None:
    """A chunk is made: `counts` ("5000 hands, 41234 positions") and the seconds it took."""
    print(f"{name} chunk {chunk}: {counts}, {time.perf_counter() - started:.0f} s", flush=True)


def variant_chunks(
    argv: list[str] | None,
    doc: str,
    out: str,
    chunks: str,
    count: str,
    per_chunk: int,
    make: Callable[[str, int, int, int, Path], None],
) -> int:
    """The command of a chunk maker by variant (`chunk_parser`'s, with --variant): `make`
    (variant, seed, chunk, --`count`, out) each chunk."""
    args = chunk_parser(doc, out, chunks, count, per_chunk, variant=True).parse_args(argv)
    n = getattr(args, count)
    return make_chunks(args, lambda k, folder: make(args.variant, args.seed, k, n, folder))


def main(argv: list[str] | None = None) -> int:
    return variant_chunks(argv, __doc__, ".cache/value", "0-19", "hands", 5000, make_chunk)


if __name__ == "__main__":
    raise SystemExit(main())

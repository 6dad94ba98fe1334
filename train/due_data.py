"""Briscola a due decisions, each card valued by playing the hand out, for the due network
(issue 41).

    python -m train.due_data [--chunks 0-19] [--hands 2000] [--seed 41] [--out .cache/due]

Two `normal` players (as they were before the due network and the sampled endgame, as
`normal41` plays due) play each hand; at each card play, with chance `EXPLORE`, the seat plays
a random other card instead (so that the network sees positions off `normal`'s path too).
Every decision with a choice while more than `RECORD_TALON` cards are left to draw (later
`normal` solves the few worlds left itself) is recorded: the observation of the seat to play
(`features.due_row`), the card `normal` chose, and, for each card it could play, its card
points at the end of the hand were it to play that card and both seats then play as `normal`
does, on the true deal, every card's playout with the same players' random streams (the
differences between cards are then the cards', not the streams'). That is `normal`'s action
value: a network that learns it and plays its best card improves on `normal` by one step of
policy iteration. Chunk i holds hands i*hands .. (i+1)*hands - 1 in `OUT/due-<i>.npz`; a
chunk already written is skipped.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from bot.engine import HandState, Options
from bot.engine.observation import Observation
from bot.players.learned.features import DUE_ROW, canon_map, due_row
from bot.players.normal import NormalPlayer
from bot.players.search import Solver
from train.value_data import chunk_parser, make_chunks, report, save_chunk

EXPLORE = 0.1
RECORD_TALON = 2  # decisions recorded while more cards than this are left to draw
NONE = 255  # no card in that place (fewer than three to choose from)


def playout(state: HandState, card: int, seed: str, learned: bool = False) -> int:
    """The seat to move's card points at the end of the hand after it plays `card` and both
    seats then play as `normal` does (their streams from `seed`), the last tricks (from the
    talon's last draw, where `normal` solves the few worlds left exactly) solved exactly on
    the true deal."""
    seat = state.current
    state = state.clone()
    state.apply(card, seat)
    bots = [
        NormalPlayer(random.Random(f"{seed}:{s}"), exact_endgame=False, learned_due=learned)
        for s in range(2)
    ]
    while not state.is_terminal():
        if state.talon_left() <= 2 and Solver.applicable(state):
            mine = tuple(s == seat for s in range(2))
            return state.taken[seat] + round(Solver(state, mine).value())
        s = state.current
        state.apply(bots[s].act(state.observation(s)), s)
    return state.taken[seat]


class Decisions:
    """A chunk's decisions as `save` writes them: per decision the seat's row, each legal card
    (canonical, padded with `NONE` to `width`) with its value played out, the card chosen,
    the hand's number."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.rows: list[list[int]] = []
        self.cards: list[list[int]] = []
        self.values: list[list[int]] = []
        self.chosen: list[int] = []
        self.hand: list[int] = []

    def play(
        self,
        state: HandState,
        bots: list[NormalPlayer],
        seed: int,
        k: int,
        recorded: Callable[[HandState, Observation], bool],
        row: Callable[[Observation], list[int]],
        value: Callable[[HandState, int, str], int],
    ) -> None:
        """Play hand `k` out from `state` by `bots`, each card with chance `EXPLORE` a random
        other one; keep each decision with a choice that `recorded` asks for: the seat's
        `row` and each legal card's `value` (played out with the same streams for every
        card, from the decision's own seed)."""
        rng = random.Random(f"explore:{seed}:{k}")
        turn = 0
        while not state.is_terminal():
            seat = state.current
            obs = state.observation(seat)
            card = bots[seat].act(obs)
            if len(obs.legal) > 1 and recorded(state, obs):
                canon = canon_map(obs.briscola)
                self.rows.append(row(obs))
                stream = f"playout:{seed}:{k}:{turn}"
                got = [(canon[c], value(state, c, stream)) for c in obs.legal]
                got += [(NONE, 0)] * (self.width - len(got))
                self.cards.append([c for c, _ in got])
                self.values.append([v for _, v in got])
                self.chosen.append(canon[card])
                self.hand.append(k)
            if rng.random() < EXPLORE:
                others = [c for c in obs.legal if c != card]
                if others:
                    card = rng.choice(others)
            state.apply(card, seat)
            turn += 1

    def save(self, npz: Path, row_width: int) -> None:
        save_chunk(
            npz,
            rows=np.array(self.rows, dtype=np.uint8).reshape(-1, row_width),
            cards=np.array(self.cards, dtype=np.uint8).reshape(-1, self.width),
            values=np.array(self.values, dtype=np.uint8).reshape(-1, self.width),
            chosen=np.array(self.chosen, dtype=np.uint8),
            hand=np.array(self.hand, dtype=np.int32),
        )


def make_chunk(seed: int, chunk: int, hands: int, out: Path, learned: bool = False) -> None:
    npz = out / f"due-{chunk}.npz"
    if npz.exists():
        return
    options = Options.parse("due")
    decisions = Decisions(3)
    t = time.perf_counter()
    for k in range(chunk * hands, (chunk + 1) * hands):
        state = HandState.deal(options, f"due:{seed}", k, k % 2)
        bots = [
            NormalPlayer(random.Random(f"due:{seed}:{k}:{s}"), learned_due=learned, sample_worlds=0)
            for s in range(2)
        ]
        decisions.play(
            state,
            bots,
            seed,
            k,
            lambda _, obs: obs.talon_left > RECORD_TALON,
            due_row,
            lambda state, card, stream: playout(state, card, stream, learned),
        )
    decisions.save(npz, DUE_ROW)
    report("due", chunk, f"{hands} hands, {len(decisions.rows)} decisions", t)


def main(argv: list[str] | None = None) -> int:
    p = chunk_parser(__doc__, ".cache/due", "0-19", "hands", 2000)
    p.add_argument(
        "--learned",
        action="store_true",
        help="normal with the shipped due network plays (a second round of policy iteration)",
    )
    args = p.parse_args(argv)
    return make_chunks(args, lambda k, out: make_chunk(args.seed, k, args.hands, out, args.learned))


if __name__ == "__main__":
    raise SystemExit(main())

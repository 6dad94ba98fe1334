"""Chiamata decisions, each card valued by playing the hand out, for the card network
(issue 41).

    python -m train.card_data [--chunks 0-9] [--hands 1000] [--seed 41] [--out .cache/card]

Five `normal` players bid and play each hand (a redeal or carichi is skipped); at each card
play, with chance `due_data.EXPLORE`, the seat plays a random other card instead (so that
the network sees positions off `normal`'s path too). Every decision with a choice before the last
`RECORD_TRICKS` tricks (where `hard` solves each world exactly) is recorded: the observation
of the seat to play (`features.card_row`), the card `normal` chose, and, for each card it
could play, the caller's side's card points at the end of the hand were it to play that card
and every seat then play as `normal` does, on the true deal, every card's playout with the
same players' random streams (the differences between cards are then the cards', not the
streams'). That is `normal`'s action value, as in `train.due_data`: a network that learns it
and plays its best card improves on `normal` by one step of policy iteration. Chunk i holds
hands i*hands .. (i+1)*hands - 1 in `OUT/card-<i>.npz`; a chunk already written is skipped.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

from bot.engine import PLAY, HandState, Options
from bot.players.learned.features import CARD_ROW, card_row
from bot.players.normal import NormalPlayer
from train.due_data import NONE as NONE  # a place with no card (the chunks' padding)
from train.due_data import Decisions
from train.value_data import chunk_parser, make_chunks, report

RECORD_TRICKS = 4  # decisions recorded while more tricks than this are left
WIDTH = 8  # cards a decision may have to choose from (the rest `NONE`)


def caller_points(state: HandState) -> int:
    sides = state.sides()
    return sum(state.taken[s] for s in range(state.rules.n_players) if sides[s] == 0)


def playout(state: HandState, card: int, seed: str) -> int:
    """The caller's side's card points at the end of the hand after the seat to move plays
    `card` and every seat then plays as `normal` does (their streams from `seed`)."""
    state = state.clone()
    state.apply(card, state.current)
    bots = [NormalPlayer(random.Random(f"{seed}:{s}")) for s in range(state.rules.n_players)]
    while not state.is_terminal():
        s = state.current
        state.apply(bots[s].act(state.observation(s)), s)
    return caller_points(state)


def make_chunk(seed: int, chunk: int, hands: int, out: Path) -> None:
    npz = out / f"card-{chunk}.npz"
    if npz.exists():
        return
    options = Options.parse("chiamata")
    rules = options.rules()
    n = rules.n_players
    decisions = Decisions(WIDTH)
    t = time.perf_counter()
    played = 0
    for k in range(chunk * hands, (chunk + 1) * hands):
        state = HandState.deal(options, f"card:{seed}", k, k % n)
        bots = [NormalPlayer(random.Random(f"card:{seed}:{k}:{s}")) for s in range(n)]
        while state.phase != PLAY and not state.is_terminal():
            seat = state.current
            state.apply(bots[seat].act(state.observation(seat)), seat)
        if state.is_terminal() or state.carichi or state.briscola < 0:
            continue
        played += 1
        decisions.play(
            state,
            bots,
            seed,
            k,
            lambda state, _: len(state.tricks) < rules.hand_size - RECORD_TRICKS,
            card_row,
            playout,
        )
    decisions.save(npz, CARD_ROW)
    report("card", chunk, f"{played} hands, {len(decisions.rows)} decisions", t)


def main(argv: list[str] | None = None) -> int:
    args = chunk_parser(__doc__, ".cache/card", "0-9", "hands", 1000).parse_args(argv)
    return make_chunks(args, lambda k, out: make_chunk(args.seed, k, args.hands, out))


if __name__ == "__main__":
    raise SystemExit(main())

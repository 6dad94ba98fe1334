"""Chiamata calls and how they end, for the bidding network (issue 41).

    python -m train.bid_data [--variant chiamata] [--chunks 0-9] [--deals 5000] [--seed 41]
        [--out .cache/bid]

Per deal, one seat (deal k: seat k mod players) is made the caller (`HandState.assume_call`,
at 61) with each of `CALLS` calls, every call played out from the same deal by five (four)
`normal` players: the caller's side's card points at the end are the outcome of that call on
that hand. The calls: per rank, in the auction's order, the suit `normal` rates best for it
(`bidding.best_call`), for three ranks drawn at random; a random card not in the hand; and
alone (§7.7), the strongest card of the hand's longest suit. Chunk i holds deals
i*deals .. (i+1)*deals - 1 in `OUT/<variant>-<i>.npz`: the caller's hand (cards, padded with
-1), its seat after the first leader (§7.10), the called card, the points.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import numpy as np

from bot.engine import HandState, Options
from bot.engine.cards import card_id
from bot.players import bidding
from bot.players.normal import NormalPlayer
from train.value_data import report, save_chunk, variant_chunks

CALLS = 5


def calls_for(state: HandState, seat: int, rng: random.Random) -> list[int]:
    """The calls tried for `seat`'s hand (see the module's docstring), without repeats."""
    deck = state.rules.deck
    hand = state.hands[seat]
    obs = state.observation(seat)
    ranks = list(deck.auction_ranks())
    out: list[int] = []
    for n in rng.sample(ranks, 3):
        s, _, _ = bidding.best_call(obs, n)
        out.append(card_id(n, s))
    out.append(rng.choice([c for c in range(deck.size) if c not in hand]))
    by_suit = {s: [c for c in hand if deck.suit[c] == s] for s in range(4)}
    longest = max(by_suit.values(), key=lambda cs: (len(cs), sum(deck.points[c] for c in cs)))
    out.append(max(longest, key=lambda c: deck.strength[c]))
    return list(dict.fromkeys(out))


def play_call(options: Options, seed: str, k: int, dealer: int, seat: int, card: int) -> int:
    """The caller's side's card points when `seat` calls `card` at 61 on deal k."""
    state = HandState.deal(options, seed, k, dealer)
    state.assume_call(seat, card, 61)
    n = state.rules.n_players
    bots = [NormalPlayer(random.Random(f"{seed}:{k}:{card}:{s}")) for s in range(n)]
    while not state.is_terminal():
        s = state.current
        state.apply(bots[s].act(state.observation(s)), s)
    sides = state.sides()
    return sum(state.taken[s] for s in range(n) if sides[s] == 0)


def make_chunk(variant: str, seed: int, chunk: int, deals: int, out: Path) -> None:
    npz = out / f"{variant}-{chunk}.npz"
    if npz.exists():
        return
    options = Options.parse(variant)
    rules = options.rules()
    n = rules.n_players
    deal_seed = f"bid:{seed}"
    hands: list[list[int]] = []
    seats: list[int] = []
    called: list[int] = []
    points: list[int] = []
    deal: list[int] = []
    t = time.perf_counter()
    for k in range(chunk * deals, (chunk + 1) * deals):
        dealer = k % n
        seat = (k // n) % n
        state = HandState.deal(options, deal_seed, k, dealer)
        first = rules.seat_orders[(dealer + 1) % n]
        rng = random.Random(f"calls:{seed}:{k}")
        hand = sorted(state.hands[seat])
        for card in calls_for(state, seat, rng):
            hands.append(hand + [-1] * (10 - len(hand)))
            seats.append(first.index(seat))
            called.append(card)
            points.append(play_call(options, deal_seed, k, dealer, seat, card))
            deal.append(k)
    save_chunk(
        npz,
        hands=np.array(hands, dtype=np.int8),
        seat=np.array(seats, dtype=np.int8),
        called=np.array(called, dtype=np.int8),
        points=np.array(points, dtype=np.uint8),
        players=np.full(len(points), n, dtype=np.int8),
        deal=np.array(deal, dtype=np.int32),
    )
    report(variant, chunk, f"{deals} deals, {len(points)} calls", t)


def main(argv: list[str] | None = None) -> int:
    return variant_chunks(argv, __doc__, ".cache/bid", "0-9", "deals", 5000, make_chunk)


if __name__ == "__main__":
    raise SystemExit(main())

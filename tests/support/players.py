"""Helpers of the computer players' tests: the exact card points of a position by plain minimax
on the engine (`brute_force`, independent of the players' solver), a strong and a weak
auction hand (`auction_obs`, `STRONG`, `WEAK`) and a chiamata hand dealt by hand
(`chiamata_state`)."""

from __future__ import annotations

import random

from bot.engine import (
    HandState,
    Options,
)


def brute_force(state: HandState, mine: tuple[bool, ...]) -> int:
    """Card points my side wins from here with best play by both sides (plain minimax on the
    engine itself: independent of the players' solver)."""
    if state.is_terminal():
        return 0
    seat = state.current
    before = sum(t for s, t in enumerate(state.taken) if mine[s])
    values = []
    for card in state.legal_actions():
        child = state.clone()
        child.apply(card)
        gained = sum(t for s, t in enumerate(child.taken) if mine[s]) - before
        values.append(gained + brute_force(child, mine))
    return max(values) if mine[seat] else min(values)


def auction_obs(hand: list[str], variant: str = "chiamata") -> tuple[HandState, int]:
    options = Options.parse(variant)
    state = HandState.deal(options, 0, 0, 0)
    deck = options.rules().deck
    seat = state.current
    mine = [deck.card(x) for x in hand]
    rest = [c for c in range(deck.size) if c not in mine]
    random.Random(1).shuffle(rest)
    size = options.rules().hand_size
    hands: list[list[int]] = []
    for s in range(state.n_players):
        if s == seat:
            hands.append(mine)
        else:
            hands.append(rest[:size])
            rest = rest[size:]
    state.hands = hands
    return state, seat


def chiamata_state(hands: dict[int, list[str]], caller: int, called: str, dealer: int) -> HandState:
    """A five-player chiamata hand with these hands (by seat, given as card notation, the
    rest dealt in card order), `caller` calling `called` at 61 (§7.5), the play about to
    start (§7.10: the seat after `dealer` leads)."""
    options = Options.parse("chiamata")
    deck = options.rules().deck
    state = HandState.deal(options, 0, 0, dealer)
    fixed = {s: [deck.card(x) for x in cards] for s, cards in hands.items()}
    used = {c for cards in fixed.values() for c in cards}
    rest = iter(c for c in range(40) if c not in used)
    state.hands = [
        fixed.get(s, []) + [next(rest) for _ in range(8 - len(fixed.get(s, [])))] for s in range(5)
    ]
    state.assume_call(caller, deck.card(called), 61)
    return state


STRONG = ["1D", "3D", "10D", "9D", "8D", "1C", "1S", "3S"]
WEAK = ["2C", "4S", "5B", "6C", "7B", "4C", "5S", "6B"]

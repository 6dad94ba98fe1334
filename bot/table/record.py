"""The export record of one finished hand: enough for an independent referee to replay and
verify it (the `--jsonl` lines of `python -m bot simulate`, and game exports).

Cards are written in the deck's notation (`1D`, `10S`; Briškula32 `TD`, `9S`). Bids are the
Italian number called (1..10), a points bid (61..120), "pass" or "carichi".
"""

from __future__ import annotations

from typing import Any

from bot.engine import actions as A
from bot.engine.cards import SUITS
from bot.engine.state import HandState


def bid_value(action: int) -> int | str:
    if A.CALL_RANK <= action < A.BID_POINTS:
        return action - A.CALL_RANK
    if A.BID_POINTS <= action < A.PASS:
        return action - A.BID_POINTS
    if action == A.PASS:
        return "pass"
    if action == A.CARICHI:
        return "carichi"
    raise ValueError(f"not a bid: {action}")


def initial_hands(state: HandState) -> list[list[int]]:
    """Each seat's hand as dealt, rebuilt from the current hands, plays and draws."""
    drawn: set[int] = set(state.talon[: state.talon_pos])
    if state.turned_to >= 0:
        drawn.add(state.turned)
    played: list[list[int]] = [[] for _ in range(state.n_players)]
    for t in state.tricks:
        for seat, card in zip(t.seats, t.cards, strict=True):
            played[seat].append(card)
    for seat, card in state.trick_plays():
        played[seat].append(card)
    hands = []
    for seat in range(state.n_players):
        cards = [c for c in state.hands[seat] + played[seat] if c not in drawn]
        hands.append(sorted(cards))
    return hands


def hand_record(state: HandState, players: list[str] | None = None) -> dict[str, Any]:
    """The record of a finished hand."""
    deck = state.rules.deck
    label = deck.label
    res = state.result()
    called = state.called_card
    turned = state.turned
    record: dict[str, Any] = {
        "variant": state.rules.variant,
        "options": state.options.explicit(),
        "seed": state.seed,
        "hand_index": state.hand_index,
        "dealer": state.dealer,
        "players": players,
        "hands": [[label(c) for c in h] for h in initial_hands(state)],
        "talon": [label(c) for c in state.talon],
        "removed": [label(c) for c in state.removed],
        "turned": label(turned) if turned >= 0 else None,
        "called_card": label(called) if called >= 0 else None,
        "briscola": SUITS[state.briscola] if state.briscola >= 0 else None,
        "auction": [[seat, bid_value(a)] for seat, a in state.bids],
        "caller": state.caller if state.caller >= 0 else None,
        "partner": state.partner if state.partner >= 0 else None,
        "target": state.target if state.rules.chiamata else None,
        "signals": [[seat, A.SIGNAL_NAMES[k]] for seat, k in state.signals],
        "tricks": [
            {
                "leader": t.leader,
                "plays": [[seat, label(c)] for seat, c in zip(t.seats, t.cards, strict=True)],
                "winner": t.winner,
                "points": t.points,
            }
            for t in state.tricks
        ],
        "card_points": list(res.card_points),
        "result": {
            "void": res.void,
            "redeal": res.redeal,
            "side_of": list(state.sides()),
            "side_points": list(res.side_points),
            "winning_sides": list(res.winning_sides),
            "winners": list(res.winners(state.sides())),
            "cappotto": res.cappotto,
        },
        "ledger": list(res.deltas),
    }
    return record

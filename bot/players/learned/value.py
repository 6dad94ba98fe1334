"""The value network: what a chiamata position is worth to the caller's side, as
`normal` players would play it out from there (trained on their hands, `train.value_data`),
for `hard`'s search in place of its greedy rollouts.

A position is a determinized `HandState` (every card placed, as one world of the search);
the network answers the caller's side's expected card points at the end and its chance of
reaching the target (§7.11), which `card_values` turns into `hard`'s utility: the side's
points and the hand's win at `win` points (`hard.CHIAMATA_WIN`).
"""

from __future__ import annotations

from bot.engine.state import HandState
from bot.players.learned import features, nets

# the tables where it measured better than the rollouts: five players. With four (chiamata4,
# trained on too) `hard` with it lost 6.75 [4.24, 9.25] card points a game to `hard41` (-0.050
# [-0.115, +0.015] a seat-hand, 100 paired deals, with the partner guard)
PLAYERS = (5,)


def available(state: HandState) -> bool:
    """Whether the network applies to this table (`PLAYERS`) and is shipped."""
    return (
        features.applies(state.rules, state.briscola)
        and state.rules.n_players in PLAYERS
        and nets.get("value") is not None
    )


def card_values(state: HandState, cards: list[int], caller_side: bool, win: float) -> list[float]:
    """The utility for the seat to move's side (`caller_side`: the caller's) of playing each
    of `cards`: the side's expected card points at the end, plus `win` times the chance of
    winning the hand minus the chance of losing it. Only where `available`."""
    import numpy as np

    net = nets.get("value")
    assert net is not None
    rows: list[list[int]] = []
    ends: dict[int, tuple[int, float]] = {}  # a card that ends the hand: its exact outcome
    for i, c in enumerate(cards):
        s = state.clone()
        s.play_unchecked(c)
        if s.is_terminal():
            side = s.sides()
            got = sum(s.taken[x] for x in range(len(side)) if side[x] == 0)
            ends[i] = (got, float(got >= s.target))
            rows.append(rows[-1] if rows else features.state_value_row(state))
        else:
            rows.append(features.state_value_row(s))
    out = net(features.value_inputs(np.array(rows, dtype=np.int64)))
    pts = out[:, 0] * 120.0
    p = 1.0 / (1.0 + np.exp(-out[:, 1]))
    for i, (got, won) in ends.items():
        pts[i], p[i] = got, won
    if caller_side:
        u = pts + win * (2.0 * p - 1.0)
    else:
        u = (120.0 - pts) + win * (1.0 - 2.0 * p)
    return [float(x) for x in u]

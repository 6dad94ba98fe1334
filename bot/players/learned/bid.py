"""The bidding network: the chance that a chiamata call reaches each card-point
target, from the caller's hand alone (trained on calls played out by `normal` players from
the same deals, `train.bid_data`), for `hard`'s auction in place of its Monte Carlo rollouts.
"""

from __future__ import annotations

from bot.engine.observation import Observation
from bot.players.learned import features, nets

THRESHOLDS = features.BID_THRESHOLDS
# the tables its training calls were played at (`train.bid_data --variant chiamata`): five
# players; a four-player table is left to the Monte Carlo auction
PLAYERS = (5,)


class Chances:
    """One call's chances of reaching `THRESHOLDS` (a row of the network's answer)."""

    __slots__ = ("p",)

    def __init__(self, p: list[float]) -> None:
        self.p = p

    def at(self, target: int) -> float:
        """The chance of reaching `target` card points: interpolated between thresholds
        (below the first one: the first one's; above the last, down to 0 at 121)."""
        t = THRESHOLDS
        if target <= t[0]:
            return self.p[0]
        for i in range(1, len(t)):
            if target <= t[i]:
                f = (target - t[i - 1]) / (t[i] - t[i - 1])
                return self.p[i - 1] + f * (self.p[i] - self.p[i - 1])
        return self.p[-1] * max(0.0, (121 - target) / (121 - t[-1]))


def available(obs: Observation) -> bool:
    """Whether the network knows this table (chiamata with the players it was trained for,
    the standard deck) and is shipped."""
    return (
        features.applies(obs.rules, 0)
        and obs.rules.n_players in PLAYERS
        and nets.get("bid") is not None
    )


def chances(obs: Observation, cards: list[int], shift: float = 0.0) -> dict[int, Chances]:
    """Per called card, its `Chances` were this seat to call it (alone when it holds it,
    §7.7), the logits moved by `shift` (the caller's play is better or worse than the
    `normal` play the network learned from). Only where `available`."""
    import numpy as np

    net = nets.get("bid")
    assert net is not None
    rules = obs.rules
    n = rules.n_players
    first = rules.seat_orders[(obs.dealer + 1) % n]
    seat = first.index(obs.seat) if rules.lead == "dealer_right" else 0
    rows = [features.bid_row(obs.hand, c, seat, n) for c in cards]
    z = net(features.bid_inputs(np.array(rows, dtype=np.int64))) + shift
    p = 1.0 / (1.0 + np.exp(-z))
    return {c: Chances([float(x) for x in row]) for c, row in zip(cards, p, strict=True)}

"""`easy`: plays sensibly, with a human's lapses.

It judges cards like `normal` but does not count them (it forgets which cards were played, so
it cannot tell when a carico is safe or which briscole are gone), values its briscole less
carefully, and now and then simply plays the second-best card or a careless one. It bids like
`simple` (a quick look at the hand, no overbidding judgement).
"""

from __future__ import annotations

import random

from bot.engine.observation import Observation
from bot.players.common import blind_choice, card_actions
from bot.players.heuristics import Style, score_cards
from bot.players.knowledge import Knowledge
from bot.players.simple import SimplePlayer

CARELESS = Style(
    trump_power_talon=4.0,
    trump_power_end=2.0,
    trump_strength=0.2,
    feed_factor=0.0,
    guard_carichi=0.0,  # easy throws its carichi about as it always did
)
SECOND_BEST = 0.18  # chance of settling for the second-best card
ANY_CARD = 0.06  # chance of a careless card


class EasyPlayer:
    name = "easy"

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._simple = SimplePlayer(rng)

    def act(self, obs: Observation) -> int:
        legal = obs.legal
        if len(legal) == 1:
            return legal[0]
        if obs.phase != "play":
            return self._simple.act(obs)
        blind = blind_choice(obs, self._rng)
        if blind is not None:
            return blind
        cards = card_actions(obs)  # never bothers with signals
        if len(cards) == 1:
            return cards[0]
        r = self._rng.random()
        if r < ANY_CARD:
            return cards[int(self._rng.random() * len(cards))]
        scores = score_cards(obs, Knowledge.of(obs, counting=False), cards, CARELESS)
        ranked = sorted(cards, key=lambda c: (-scores[c], c))
        if r < ANY_CARD + SECOND_BEST:
            return ranked[1]
        return ranked[0]

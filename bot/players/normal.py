"""`normal`: a strong heuristic player.

Play: `heuristics.score_cards` on what the seat knows (`Knowledge`: cards played, trumps and
carichi still out, who may hold what, the partner in pairs and chiamata, the socio inferred
from play by a defender). Chiamata bidding: `bidding` (hand rating per suit, a rating
threshold per called rank, points overbids, calling in one's own hand). Signals (§5.3): tells
the partner about its briscola Asso and Tre.
"""

from __future__ import annotations

import random

from bot.engine import actions as A
from bot.engine.observation import Observation
from bot.players import bidding
from bot.players.common import card_actions, obvious_move
from bot.players.heuristics import NORMAL, Style, score_cards
from bot.players.knowledge import Knowledge


class NormalPlayer:
    name = "normal"

    def __init__(
        self, rng: random.Random, style: Style = NORMAL, bid: bidding.BidStyle = bidding.BID
    ) -> None:
        self._rng = rng
        self._style = style
        self._bid = bid

    def act(self, obs: Observation) -> int:
        legal = obs.legal
        if len(legal) == 1:
            return legal[0]
        if obs.phase == "auction":
            return bidding.normal_bid(obs, self._bid)
        if obs.phase == "name_suit":
            return A.NAME_SUIT + bidding.normal_suit(obs, self._bid)
        if obs.phase == "call_card":
            return A.CALL_CARD + bidding.normal_card(obs, self._bid)
        move = obvious_move(obs, self._rng)
        if move is not None:
            return move
        cards = card_actions(obs)
        scores = score_cards(obs, Knowledge.of(obs), cards, self._style)
        return max(cards, key=lambda c: (scores[c], -c))

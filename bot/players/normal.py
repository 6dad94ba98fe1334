"""`normal`: a strong heuristic player.

Play: in due, the card the due network values most (`learned.due`: `normal`'s own play one
step improved, learned from hands played out), then the end of the hand solved exactly
(`endgame`); elsewhere `heuristics.score_cards` on what the seat knows (`Knowledge`: cards
played, trumps and carichi still out, who may hold what, the partner in pairs and chiamata,
the socio inferred from play by a defender). Chiamata bidding: `bidding` (hand rating per
suit, a rating threshold per called rank, points overbids, calling in one's own hand).
Signals (§5.3): tells the partner about its briscola Asso and Tre.
"""

from __future__ import annotations

import random

from bot.engine import actions as A
from bot.engine.observation import Observation
from bot.engine.state import HandState
from bot.players import bidding
from bot.players.common import card_actions, obvious_move
from bot.players.hard_bidding import HardBidder
from bot.players.heuristics import Style, score_cards
from bot.players.knowledge import Knowledge
from bot.players.learned import bid as bid_net
from bot.players.learned import due as due_net
from bot.players.search import Solver, SolverLimit, sides_of

# The exact endgame (`endgame`): two players, the last cards known or nearly (at most this
# many ways to place the unseen ones), a tree small enough for a normal player's few
# milliseconds.
ENDGAME_WORLDS = 4
ENDGAME_NODES = 20_000
# ... and from a little earlier, at most this many cards left to draw (two draws), where there
# are too many ways to place the unseen cards (up to 120) to solve them all in a few
# milliseconds: `SAMPLE_WORLDS` of them, drawn as `Knowledge` weighs them, each solved within
# `SAMPLE_NODES`. Due against `normal41` (2,000 paired deals, before the due network): 4
# worlds +0.65 [+0.40, +0.91] card points a game, 8 +0.82 [+0.57, +1.07], 16 +1.16 [+0.91,
# +1.40] (p95 7.6 ms a decision); from three draws out (8 worlds) +0.94 [+0.63, +1.24], p95
# 12 ms. With the due network, 8 worlds against none (`normal8-normal1`, 4,000 deals): +0.90
# [+0.72, +1.08], p95 4.2 ms; 16 no better against `normal41` (+8.39 against +8.31).
SAMPLE_TALON = 4
SAMPLE_WORLDS = 8
SAMPLE_NODES = 3000


class NormalPlayer:
    name = "normal"

    def __init__(
        self,
        rng: random.Random,
        style: Style | None = None,  # None: by table (`heuristics.style_for`)
        bid: bidding.BidStyle | None = None,  # None: by table (`bidding.style_for`)
        *,
        exact_endgame: bool = True,
        sample_worlds: int = SAMPLE_WORLDS,
        learned_due: bool = True,
        learned_infer: bool = False,
        learned_bid: bool = False,
    ) -> None:
        self._rng = rng
        self._style = style
        self._bid = bid
        self._exact_endgame = exact_endgame
        self._sample_worlds = sample_worlds  # 0: only the enumerated endgame
        self._learned_due = learned_due  # due: the due network's card (`learned.due`)
        self._learned_infer = learned_infer  # chiamata: the socio read by the network
        self._learned_bid = learned_bid  # chiamata: the bidding network's auction

    def act(self, obs: Observation) -> int:
        legal = obs.legal
        if len(legal) == 1:
            return legal[0]
        if obs.phase != "play" and self._learned_bid and bid_net.available(obs):
            bidder = HardBidder(self._rng, 0.0, 0, learned=True)
            if obs.phase == "auction":
                return bidder.bid(obs)
            if obs.phase == "name_suit":
                return A.NAME_SUIT + bidder.name_suit(obs)
            return A.CALL_CARD + bidder.call_card(obs)
        if obs.phase == "auction":
            return bidding.normal_bid(obs, self._bid)
        if obs.phase == "name_suit":
            return A.NAME_SUIT + bidding.normal_suit(obs, self._bid)
        if obs.phase == "call_card":
            return A.CALL_CARD + bidding.normal_card(obs, self._bid)
        cards = card_actions(obs)
        know: Knowledge | None = None
        if self._exact_endgame and endgame_applies(obs, self._sample_worlds > 0):
            know = Knowledge.of(obs)
            move = endgame(obs, know, cards, self._style, self._rng, self._sample_worlds)
            if move is not None:
                return move
        move = obvious_move(obs, self._rng)
        if move is not None:
            return move
        know = know or Knowledge.of(obs, learned=self._learned_infer)
        scores = score_cards(obs, know, cards, self._style)
        if self._learned_due and due_net.available(obs):
            values = due_net.card_values(obs, cards)
            return max(cards, key=lambda c: (values[c], scores[c], -c))
        return max(cards, key=lambda c: (scores[c], -c))


def endgame_applies(obs: Observation, sampled: bool = True) -> bool:
    """Two players who see their cards and need not follow suit, the talon gone or down to
    its last draw (`sampled`: its last two draws, `SAMPLE_TALON`)."""
    rules = obs.rules
    return (
        rules.n_players == 2
        and rules.plays_per_trick == 1
        and not rules.follow_suit
        and not rules.blind
        and obs.talon_left <= (SAMPLE_TALON if sampled else rules.n_players)
    )


def endgame(
    obs: Observation,
    know: Knowledge,
    cards: list[int],
    style: Style | None,
    rng: random.Random | None = None,
    sample: int = 0,
) -> int | None:
    """Two players without an obligation to follow, once the talon is gone or down to its
    last draw: every card is known, or all but where one lies. Each way to place the unseen
    cards is solved exactly (`Solver`: the card points still to be won), the values weighed
    as `Knowledge` weighs the worlds; the card worth most, ties broken by the judgement.
    Where there are more ways than `ENDGAME_WORLDS`, `sample` of them drawn with `rng`
    (each `SAMPLE_NODES` at most), or None without. None too where the trees are larger than
    allowed. Only where `endgame_applies`."""
    if len(cards) < 2:
        return None
    nodes = ENDGAME_NODES
    if know.count_worlds() <= ENDGAME_WORLDS:
        worlds = know.enumerate_worlds()
    elif rng is not None and sample > 0:
        worlds = [(know.sample_world(rng), 1.0) for _ in range(sample)]
        nodes = SAMPLE_NODES
    else:
        return None
    totals = [0.0] * len(cards)
    weight = 0.0
    for world, w in worlds:
        if w <= 0.0:
            continue
        state = HandState.from_observation(obs, world)
        if not Solver.applicable(state):
            return None
        sides = sides_of(state)
        mine = tuple(side == sides[obs.seat] for side in sides)
        try:
            values = Solver(state, mine, max_nodes=nodes).root_values(cards)
        except SolverLimit:
            return None
        for i, v in enumerate(values):
            totals[i] += w * v
        weight += w
    if weight <= 0.0:
        return None
    scores = score_cards(obs, know, cards, style)
    best = max(range(len(cards)), key=lambda i: (round(totals[i] / weight, 6), scores[cards[i]]))
    return cards[best]

"""Chiamata bidding by Monte Carlo (the `hard` player, RULES.md §7.2-7.9).

For each candidate call (a called card; one in its own hand means playing alone, §7.7;
`carichi`, §7.8), deal the unseen cards to the other seats many times (the same deals for
every candidate), play each deal out with the greedy rollout policy, and record the caller
side's card points. From those, the expected score of each call at any target follows
(§7.11-7.12: the caller's share of the zero-sum scores), and:

- auction by rank: call the strongest legal rank whose best call scores above passing;
  after the Two, overbid points while the expected score at that target stays positive;
- naming the suit / calling the card: the candidate with the best expected score;
- auction by points: bid while the best card's expected score at the next bid is positive.

Candidates are pruned with the `normal` rating so the budget goes to plausible calls.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable

from bot.engine import actions as A
from bot.engine.cards import card_id
from bot.engine.observation import Observation
from bot.engine.state import HandState, World
from bot.players import bidding
from bot.players.search import rollout

CARICHI_CARD = -1  # candidate marker for a carichi call (§7.8), as `HandState.assume_call` takes it
MIN_SAMPLES = 6
MAX_SAMPLES = 400
# Sampling stops early once the decision is clear: after `SETTLE_MIN` deals, checked every
# `SETTLE_EVERY`, when each estimate it rests on is `SETTLE_Z` standard errors from the line
# it is compared with (the auction's margin, or the best call's rival).
SETTLE_MIN = 24
SETTLE_EVERY = 8
SETTLE_Z = 1.5
CALL_MARGIN = -0.15  # a call must beat this expected score: passing is worth less than 0
# (a defender loses when the chiamante wins, and chiamanti win more often than not)


class HardBidder:
    def __init__(self, rng: random.Random, deadline: float, iterations: int | None) -> None:
        self._rng = rng
        self._deadline = deadline
        self._samples = iterations

    # ------------------------------------------------------------------ decisions

    def bid(self, obs: Observation) -> int:
        bid = self._bid(obs)
        if bid == A.PASS and A.PASS not in obs.legal:  # §7.2 first_must_call
            return bidding.forced_call(obs)
        return bid

    def _bid(self, obs: Observation) -> int:
        legal = set(obs.legal)
        point_bids = sorted(a - A.BID_POINTS for a in legal if A.BID_POINTS <= a < A.PASS)
        if point_bids:
            if obs.rules.auction == "points":
                twos = self._card_candidates(obs)
            else:  # after the Two (§7.3): which Two would it name?
                twos = [card_id(2, s) for s in range(4)]
            p = point_bids[0]

            def points_clear(res: dict[int, list[int]]) -> bool:
                bounds = [_bounds(obs, c, pts, p) for c, pts in res.items()]
                return any(lo > CALL_MARGIN for lo, _ in bounds) or all(
                    hi < CALL_MARGIN for _, hi in bounds
                )

            res = self._evaluate(obs, twos, points_clear)
            best = max(_expected(obs, c, pts, p) for c, pts in res.items())
            return A.BID_POINTS + p if best > CALL_MARGIN else A.PASS
        deck = obs.rules.deck
        ranks = [n for n in deck.auction_ranks() if A.CALL_RANK + n in legal]
        cands: list[int] = []
        rank_of: dict[int, int] = {}
        for n in ranks:
            s, margin, _ = bidding.best_call(obs, n)
            if margin < -14.0:
                continue
            c = card_id(n, s)
            cands.append(c)
            rank_of[c] = n
            if len(cands) >= 5:
                break
        if A.CARICHI in legal and sum(1 for c in obs.hand if deck.points[c] >= 10) >= 4:
            cands.append(CARICHI_CARD)
        if not cands:
            return A.PASS
        target = 61

        def rank_clear(res: dict[int, list[int]]) -> bool:
            # every call up to the first clearly worth making is clearly on its side of the
            # margin (the strongest rank first, carichi too)
            for c in cands:  # carichi, if a candidate, is the last
                lo, hi = _bounds(obs, c, res[c], target)
                if lo > CALL_MARGIN and c != CARICHI_CARD:
                    return CARICHI_CARD not in cands
                if hi >= CALL_MARGIN:
                    return False
            return True

        res = self._evaluate(obs, cands, rank_clear)
        if (
            CARICHI_CARD in res
            and _expected(obs, CARICHI_CARD, res[CARICHI_CARD], target)
            > max(_expected(obs, c, res[c], target) for c in res) - 1e-9
            and _expected(obs, CARICHI_CARD, res[CARICHI_CARD], target) > CALL_MARGIN
        ):
            return A.CARICHI
        for c in cands:  # strongest rank first
            if c == CARICHI_CARD:
                continue
            if _expected(obs, c, res[c], target) > CALL_MARGIN:
                return A.CALL_RANK + rank_of[c]
        return A.PASS

    def name_suit(self, obs: Observation) -> int:
        rank = next(
            a - A.CALL_RANK for _, a in reversed(obs.bids) if A.CALL_RANK <= a < A.BID_POINTS
        )
        cands = [card_id(rank, s) for s in range(4)]
        res = self._evaluate(obs, cands, _best_clear(obs, obs.target))
        best = max(cands, key=lambda c: _expected(obs, c, res[c], obs.target))
        return obs.rules.deck.suit[best]

    def call_card(self, obs: Observation) -> int:
        cands = self._card_candidates(obs)
        res = self._evaluate(obs, cands, _best_clear(obs, obs.target))
        return max(cands, key=lambda c: _expected(obs, c, res[c], obs.target))

    def _card_candidates(self, obs: Observation) -> list[int]:
        """auction=points: per suit, the two strongest cards missing from the hand, and the
        strongest held (a call in one's own hand)."""
        deck = obs.rules.deck
        held = set(obs.hand)
        out: list[int] = []
        for s in range(4):
            missing = [card_id(n, s) for n in deck.auction_ranks() if card_id(n, s) not in held]
            out.extend(missing[:2])
            mine = [card_id(n, s) for n in deck.auction_ranks() if card_id(n, s) in held]
            if mine and sum(1 for c in obs.hand if deck.suit[c] == s) >= 4:
                out.append(mine[0])
        return out

    # ------------------------------------------------------------------ Monte Carlo

    def _evaluate(
        self,
        obs: Observation,
        cands: list[int],
        settled: Callable[[dict[int, list[int]]], bool] | None = None,
    ) -> dict[int, list[int]]:
        """The caller side's card points per candidate call over deals of the unseen cards
        (the same deals for every candidate), until the budget is spent, `iterations` deals
        are done, or `settled` says the decision is clear (never with fixed iterations)."""
        rules = obs.rules
        n = rules.n_players
        me = obs.seat
        held = set(obs.hand)
        unseen = [c for c in range(rules.deck.size) if c not in held]
        target = obs.target if obs.phase != "auction" else 61
        rng = self._rng
        play_rng = random.Random(0)
        out: dict[int, list[int]] = {c: [] for c in cands}
        limit = self._samples if self._samples is not None else MAX_SAMPLES
        for i in range(limit):
            rng.shuffle(unseen)
            hands: list[list[int]] = []
            pos = 0
            for s in range(n):
                if s == me:
                    hands.append(list(obs.hand))
                else:
                    size = obs.hand_sizes[s]
                    hands.append(unseen[pos : pos + size])
                    pos += size
            seed = rng.getrandbits(32)
            dealt = HandState.from_observation(obs, World(hands, [], []))
            for c in cands:
                # The hand as it would be played if this seat won the auction calling `c`.
                state = dealt.clone()
                state.assume_call(me, c, target)
                play_rng.seed(seed)
                rollout(state, play_rng, hide_socio=False)  # bids tuned on open sides
                partner = state.partner
                out[c].append(state.taken[me] + (state.taken[partner] if partner != me else 0))
            if self._samples is None and i + 1 >= MIN_SAMPLES:
                if time.perf_counter() >= self._deadline:
                    break
                if (
                    settled is not None
                    and i + 1 >= SETTLE_MIN
                    and (i + 1) % SETTLE_EVERY == 0
                    and settled(out)
                ):
                    break
        return out


def _bounds(obs: Observation, card: int, pts: list[int], target: int) -> tuple[float, float]:
    """`_expected` give or take `SETTLE_Z` standard errors."""
    e = _expected(obs, card, pts, target)
    p = sum(1 for x in pts if x >= target) / len(pts)
    se = math.sqrt(max(p * (1.0 - p), 0.25 / len(pts)) / len(pts))
    half = SETTLE_Z * 2.0 * _gain(obs, card) * se
    return e - half, e + half


def _best_clear(obs: Observation, target: int) -> Callable[[dict[int, list[int]]], bool]:
    """Settled when the best call's lower bound is above every other's upper bound."""

    def clear(res: dict[int, list[int]]) -> bool:
        bounds = {c: _bounds(obs, c, pts, target) for c, pts in res.items()}
        best = max(res, key=lambda c: _expected(obs, c, res[c], target))
        return all(bounds[best][0] > hi for c, (_, hi) in bounds.items() if c != best)

    return clear


def _expected(obs: Observation, card: int, pts: list[int], target: int) -> float:
    """The caller's expected score (§7.12) calling `card` at `target`, cappotto aside."""
    if not pts:
        return -math.inf
    p = sum(1 for x in pts if x >= target) / len(pts)
    return _gain(obs, card) * (2 * p - 1)


def _gain(obs: Observation, card: int) -> int:
    """The caller's score at stake calling `card` (§7.12): alone (a card of its own hand,
    §7.7, or carichi, §7.8) or with a socio."""
    alone = card == CARICHI_CARD or card in obs.hand
    five = obs.rules.n_players == 5
    return (4 if five else 3) if alone else (2 if five else 1)

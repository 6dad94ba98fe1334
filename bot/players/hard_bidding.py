"""Chiamata bidding by Monte Carlo (the `hard` player, RULES.md §7.2-7.9).

For each candidate call (a called card; one in its own hand means playing alone, §7.7;
`carichi`, §7.8), deal the unseen cards to the other seats many times (the same deals for
every candidate), play each deal out with the greedy rollout policy, and record the caller
side's card points. From those, the expected score of each call at any target follows
(§7.11-7.12: the caller's share of the zero-sum scores), and:

- auction by rank: call the strongest legal rank whose best call scores above passing, or
  that rank alone (a long suit of its own holding that card) where alone scores more than
  any call with a socio; after the Two, overbid points while the expected score at that
  target stays positive;
- naming the suit / calling the card: the candidate with the best expected score;
- auction by points: bid while the best card's expected score at the next bid is positive.

Alone, the rollouts overrate the caller; their win rate is lowered by `ALONE_BIAS`
(measured) before it is compared. Candidates are pruned with the `normal` rating so the
budget goes to plausible calls, and the deals (with every call's outcome on them) are kept
for the hand's later decisions (`Deals`, `recent_deals`).
"""

from __future__ import annotations

import math
import random
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.engine import actions as A
from bot.engine.cards import card_id
from bot.engine.observation import Observation
from bot.engine.state import HandState, World
from bot.players import bidding
from bot.players.common import clock
from bot.players.learned import bid as bid_net
from bot.players.learned.bid import Chances
from bot.players.search import rollout

# a candidate call's outcomes: the caller side's points over sampled deals, or the network's
Outcomes = list[int] | Chances
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
# Alone (a card of its own hand called, §7.7), the rollouts overrate the caller's chances:
# on 433 hands with a long suit headed by the Asso, called alone at 61 and played out by
# `hard` against four `normal` players, the estimate was 0.60 on average and the caller
# won 0.50; by estimate 0.55 -> 0.31, 0.64 -> 0.54, 0.84 -> 0.65, 0.95 -> 0.88 (the same
# hands called with a socio: estimated 0.97, won 0.99). More than the mean gap is taken off,
# as the gap is widest where the choice is close, and alone calls won in contested auctions
# lost most (2 won of 12 in two 400-deal benches with 0.12 or nothing taken off).
ALONE_BIAS = 0.2
# Alone where another seat called the Two or bid points (§7.3, §7.9): such bidders hold
# strong hands the deals know nothing of; over four 400-deal benches `hard` won 3 of 19
# alone calls, nearly all of them made so, at estimates of 0.6-0.8.
ALONE_BIAS_CONTESTED = 0.4
# Candidate calls are pruned on the `normal` rating with the thresholds its margin of -14 was
# set with (`normal` itself now bids with thresholds per table, `bidding.style_for`).
PRUNE_STYLE = bidding.BidStyle(base=18.0, per_rank=1.8)


@dataclass(slots=True)
class Deals:
    """The deals sampled for one seat's hand and each call's outcome on them (the caller
    side's card points, whatever the target: it only decides who won). They depend on the
    seat's own cards alone, so every decision of one auction (each turn, naming the suit or
    the card, the points overbids) reuses them and samples only what is still missing."""

    key: tuple[object, ...]
    hands: list[list[list[int]]] = field(default_factory=list)
    seeds: list[int] = field(default_factory=list)
    points: dict[int, list[int]] = field(default_factory=dict)  # call -> per deal, a prefix

    @staticmethod
    def key_of(obs: Observation) -> tuple[object, ...]:
        hand = tuple(sorted(obs.hand))
        return (repr(obs.options), obs.hand_index, obs.dealer, obs.seat, hand)


RECENT_HANDS = 64  # hands whose auction deals a process keeps (about 0.1 MB each)
_recent: OrderedDict[tuple[object, ...], Deals] = OrderedDict()
_recent_lock = threading.Lock()


def recent_deals(obs: Observation) -> Deals:
    """This hand's `Deals` from the seat's earlier decisions in this process, else new ones.
    Each decision is a fresh player (the bot makes one per move, in a worker process), so
    they are kept here, for the last `RECENT_HANDS` hands."""
    key = Deals.key_of(obs)
    with _recent_lock:
        deals = _recent.pop(key, None) or Deals(key)
        _recent[key] = deals
        while len(_recent) > RECENT_HANDS:
            _recent.popitem(last=False)
    return deals


class HardBidder:
    def __init__(
        self,
        rng: random.Random,
        deadline: float,
        iterations: int | None,
        deals: Deals | None = None,
        *,
        learned: bool = False,
        shift: float = 0.0,
    ) -> None:
        self._rng = rng
        self._deadline = deadline
        self._samples = iterations
        self._deals = deals  # kept by the player across one hand's decisions
        self._learned = learned  # the bidding network's chances instead of rollouts
        self._shift = shift  # ... its logits moved by this much (the caller's play)

    # ------------------------------------------------------------------ decisions

    def bid(self, obs: Observation) -> int:
        return bidding.or_forced_call(obs, self._bid(obs))

    def _bid(self, obs: Observation) -> int:
        legal = set(obs.legal)
        point_bids = sorted(a - A.BID_POINTS for a in legal if A.BID_POINTS <= a < A.PASS)
        if point_bids:
            if obs.rules.auction == "points":
                twos = self._card_candidates(obs)
            else:  # after the Two (§7.3): which Two would it name?
                twos = [card_id(2, s) for s in range(4)]
            p = point_bids[0]

            def points_clear(res: dict[int, Outcomes]) -> bool:
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
        if self._uses_network(obs):
            # every rank open, each in the suit the network rates best (not a card held)
            cards = [card_id(n, s) for n in ranks for s in range(4)]
            cards = [c for c in cards if c not in obs.hand]
            chances = bid_net.chances(obs, cards, self._shift)
            for n in ranks:
                mine = [c for c in cards if deck.number[c] == n]
                if mine:
                    c = max(mine, key=lambda x: chances[x].at(61))
                    cands.append(c)
                    rank_of[c] = n
        for n in ranks if not cands else ():
            s, margin, _ = bidding.best_call(obs, n, PRUNE_STYLE)
            if margin < -14.0:
                continue
            c = card_id(n, s)
            cands.append(c)
            rank_of[c] = n
            if len(cands) >= 5:
                break
        # Alone on purpose (§7.7): the strongest rank still open, named in a
        # long suit of its own (5+ cards) that holds that card; chosen over every call with a
        # socio only where it is expected to score more (a partner's help is worth a lot:
        # alone pays double, and wins far less often).
        solo = -1
        if ranks:
            for s in range(4):
                c = card_id(ranks[0], s)
                long = sum(1 for x in obs.hand if deck.suit[x] == s) >= 5
                if long and c in obs.hand and c not in cands:
                    solo = c
                    rank_of[c] = ranks[0]
        if A.CARICHI in legal and sum(1 for c in obs.hand if deck.points[c] >= 10) >= 4:
            cands.append(CARICHI_CARD)
        if not cands and solo < 0:
            return A.PASS
        target = 61
        calls = [c for c in cands if c != CARICHI_CARD]

        def rank_clear(res: dict[int, Outcomes]) -> bool:
            if solo >= 0:  # alone clearly better or clearly worse than the best other call
                lo, hi = _bounds(obs, solo, res[solo], target)
                rival = max([_expected(obs, c, res[c], target) for c in calls] + [CALL_MARGIN])
                if lo <= rival <= hi:
                    return False
            # every call up to the first clearly worth making is clearly on its side of the
            # margin (the strongest rank first, carichi too)
            for c in cands:  # carichi, if a candidate, is the last
                lo, hi = _bounds(obs, c, res[c], target)
                if lo > CALL_MARGIN and c != CARICHI_CARD:
                    return CARICHI_CARD not in cands
                if hi >= CALL_MARGIN:
                    return False
            return True

        res = self._evaluate(obs, cands + ([solo] if solo >= 0 else []), rank_clear)
        if (
            CARICHI_CARD in res
            and _expected(obs, CARICHI_CARD, res[CARICHI_CARD], target)
            > max(_expected(obs, c, res[c], target) for c in res) - 1e-9
            and _expected(obs, CARICHI_CARD, res[CARICHI_CARD], target) > CALL_MARGIN
        ):
            return A.CARICHI
        if solo >= 0:
            e = _expected(obs, solo, res[solo], target)
            if e > CALL_MARGIN and all(e > _expected(obs, c, res[c], target) for c in calls):
                return A.CALL_RANK + rank_of[solo]
        for c in calls:  # strongest rank first
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

    def _uses_network(self, obs: Observation) -> bool:
        return self._learned and bid_net.available(obs)

    def _evaluate(
        self,
        obs: Observation,
        cands: list[int],
        settled: Callable[[dict[int, Outcomes]], bool] | None = None,
    ) -> dict[int, Outcomes]:
        """The caller side's card points per candidate call over deals of the unseen cards
        (the same deals for every candidate), until the budget is spent, `iterations` deals
        are done, or `settled` says the decision is clear (never with fixed iterations).
        Deals and outcomes already in `Deals` from earlier decisions are reused for free.
        With the bidding network (`learned`, no carichi among the candidates): its chances."""
        if self._uses_network(obs) and CARICHI_CARD not in cands:
            return dict(bid_net.chances(obs, cands, self._shift))
        return dict(self._sample(obs, cands, settled))

    def _sample(
        self,
        obs: Observation,
        cands: list[int],
        settled: Callable[[dict[int, Outcomes]], bool] | None = None,
    ) -> dict[int, list[int]]:
        rules = obs.rules
        n = rules.n_players
        me = obs.seat
        held = set(obs.hand)
        unseen = [c for c in range(rules.deck.size) if c not in held]
        key = Deals.key_of(obs)
        deals = self._deals if self._deals is not None and self._deals.key == key else Deals(key)
        rng = self._rng
        play_rng = random.Random(0)
        limit = self._samples if self._samples is not None else MAX_SAMPLES
        for c in cands:
            deals.points.setdefault(c, [])
        i = 0
        while i < limit:
            if i == len(deals.seeds):  # a new deal
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
                deals.hands.append(hands)
                deals.seeds.append(rng.getrandbits(32))
            todo = [c for c in cands if len(deals.points[c]) == i]
            if todo:
                dealt = HandState.from_observation(obs, World(deals.hands[i], [], []))
                for c in todo:
                    # The hand as it would be played if this seat won the auction calling `c`
                    # (at 61: the target does not change the play).
                    state = dealt.clone()
                    state.assume_call(me, c, 61)
                    play_rng.seed(deals.seeds[i])
                    rollout(state, play_rng, hide_socio=False)  # bids tuned on open sides
                    partner = state.partner
                    taken = state.taken
                    deals.points[c].append(taken[me] + (taken[partner] if partner != me else 0))
            i += 1
            if todo and self._samples is None and i >= MIN_SAMPLES:  # (reused: no cost)
                if clock() >= self._deadline:
                    break
                if (
                    settled is not None
                    and i >= SETTLE_MIN
                    and i % SETTLE_EVERY == 0
                    and settled({c: deals.points[c][:i] for c in cands})
                ):
                    break
        return {c: deals.points[c][:i] for c in cands}


def _bounds(obs: Observation, card: int, pts: Outcomes, target: int) -> tuple[float, float]:
    """`_expected` give or take `SETTLE_Z` standard errors (none for the network's)."""
    e = _expected(obs, card, pts, target)
    if isinstance(pts, Chances):
        return e, e
    p = sum(1 for x in pts if x >= target) / len(pts)  # the sampled rate (its error)
    se = math.sqrt(max(p * (1.0 - p), 0.25 / len(pts)) / len(pts))
    half = SETTLE_Z * 2.0 * _gain(obs, card) * se
    return e - half, e + half


def _best_clear(obs: Observation, target: int) -> Callable[[dict[int, Outcomes]], bool]:
    """Settled when the best call's lower bound is above every other's upper bound."""

    def clear(res: dict[int, Outcomes]) -> bool:
        bounds = {c: _bounds(obs, c, pts, target) for c, pts in res.items()}
        best = max(res, key=lambda c: _expected(obs, c, res[c], target))
        return all(bounds[best][0] > hi for c, (_, hi) in bounds.items() if c != best)

    return clear


def _expected(obs: Observation, card: int, pts: Outcomes, target: int) -> float:
    """The caller's expected score (§7.12) calling `card` at `target`, cappotto aside."""
    if isinstance(pts, Chances):
        p = pts.at(target)
        if card in obs.hand and _contested(obs):  # strong hands the network knows nothing of
            p = max(0.0, p - (ALONE_BIAS_CONTESTED - ALONE_BIAS))
        return _gain(obs, card) * (2 * p - 1)
    if not pts:
        return -math.inf
    p = sum(1 for x in pts if x >= target) / len(pts)
    if card in obs.hand:  # alone: the rollouts' optimism (`ALONE_BIAS`)
        p = max(0.0, p - (ALONE_BIAS_CONTESTED if _contested(obs) else ALONE_BIAS))
    return _gain(obs, card) * (2 * p - 1)


def _contested(obs: Observation) -> bool:
    """Whether another seat called the Two or bid points (§7.3, §7.9)."""
    two = A.CALL_RANK + 2
    return any(s != obs.seat and (a == two or A.BID_POINTS <= a < A.PASS) for s, a in obs.bids)


def _gain(obs: Observation, card: int) -> int:
    """The caller's score at stake calling `card` (§7.12): alone (a card of its own hand,
    §7.7, or carichi, §7.8) or with a socio."""
    alone = card == CARICHI_CARD or card in obs.hand
    five = obs.rules.n_players == 5
    return (4 if five else 3) if alone else (2 if five else 1)

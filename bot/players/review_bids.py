"""What a review counts in, and the bids judged (issue 51, `bot.players.review`): the currency
(§7.12's score of the mover's side in chiamata, `chiamata_side_score`; card points elsewhere,
`worth`), and chiamata's contracts played out on deals of the other cards (`Contracts`), which
value the bids, the suit named and the card called."""

from __future__ import annotations

import random

from bot.engine import actions as A
from bot.engine.cards import card_id
from bot.engine.options import Rules
from bot.engine.state import HandState
from bot.players.bidding import suit_rating
from bot.players.review_data import OPEN, Budget, Judged
from bot.players.search import rollout

# ------------------------------------------------------------------------------ the currency


def chiamata_side_score(
    rules: Rules, caller_points: int, target: int, alone: bool, caller_side: bool
) -> int:
    """§7.11-7.12: the score of one side (the sum of its seats' deltas) when the caller's
    side took `caller_points`: caller and socio +2 +1 against three -1 (alone +4 against four
    -1; four players +1 +1 against two -1, alone +3 against three -1), reversed on a loss,
    doubled for cappotto (the losing side with no card points)."""
    total = rules.deck.total_points
    won = caller_points >= target
    loser_points = total - caller_points if won else caller_points
    if rules.n_players == 5:
        gain = 4 if alone else 3
    else:
        gain = 3 if alone else 2
    v = gain * (2 if loser_points == 0 else 1) * (1 if won else -1)
    return v if caller_side else -v


def worth(state: HandState, my_side: int, points: float) -> float:
    """The value of the mover's side (`my_side` of `sides_of(state)`) ending with `points`."""
    rules = state.rules
    if not rules.chiamata:
        return float(points)
    caller_side = my_side == 0
    mine = round(points)
    caller_points = mine if caller_side else rules.deck.total_points - mine
    return float(
        chiamata_side_score(
            rules, caller_points, state.target, state.partner == state.caller, caller_side
        )
    )


# ------------------------------------------------------------------------------ contracts


class Contracts:
    """Chiamata contracts played out on deals of the other cards, per judging seat: the
    caller's side's card points of (deal, caller, called card), kept for the hand."""

    def __init__(self, start: HandState, seed: int | str, budget: Budget, mode: Judged) -> None:
        self.start = start
        self.seed = seed
        self.budget = budget
        self.mode = mode
        self.rules = start.rules
        self._deals: dict[int, tuple[list[list[list[int]]], list[int]]] = {}
        self._points: dict[tuple[int, int, int, int], int] = {}
        self._rng = random.Random(0)
        self.n = budget.bid_deals  # the deals in use (the first n of each viewer's)

    def deals(self, viewer: int) -> tuple[list[list[list[int]]], list[int]]:
        """The viewer's deals (its own hand, the others' cards shuffled; OPEN: the real
        deal each time) and a rollout seed for each."""
        got = self._deals.get(viewer)
        if got is None:
            rng = random.Random(f"review:{self.seed}:deals:{viewer}")
            hands = self.start.hands
            count = max(
                self.budget.bid_deals, round(self.budget.bid_deals * self.budget.bid_extend)
            )
            if self.mode == OPEN:
                deals = [[sorted(h) for h in hands] for _ in range(count)]
            else:
                mine = set(hands[viewer])
                unseen = [c for c in range(self.rules.deck.size) if c not in mine]
                deals = []
                for _ in range(count):
                    rng.shuffle(unseen)
                    deal: list[list[int]] = []
                    pos = 0
                    for s, h in enumerate(hands):
                        if s == viewer:
                            deal.append(sorted(h))
                        else:
                            deal.append(sorted(unseen[pos : pos + len(h)]))
                            pos += len(h)
                    deals.append(deal)
            got = (deals, [rng.getrandbits(32) for _ in deals])
            self._deals[viewer] = got
        return got

    def deals_of(self, viewer: int) -> int:
        """How many of the viewer's deals are in use now (`n`)."""
        return min(self.n, len(self.deals(viewer)[0]))

    def _caller_points(self, viewer: int, d: int, caller: int, card: int) -> int:
        key = (viewer, d, caller, card)
        got = self._points.get(key)
        if got is None:
            deals, seeds = self.deals(viewer)
            st = self.start.clone()
            st.hands = [list(h) for h in deals[d]]
            st.assume_call(caller, card, 61)
            self._rng.seed(seeds[d])
            rollout(st, self._rng, hide_socio=False)
            got = st.taken[caller] + (st.taken[st.partner] if st.partner != caller else 0)
            self._points[key] = got
        return got

    def _value(self, viewer: int, d: int, caller: int, card: int, target: int) -> float:
        deal = self.deals(viewer)[0][d]
        alone = card < 0 or card in deal[caller]
        on_side = viewer == caller or (card >= 0 and card in deal[viewer])
        pts = self._caller_points(viewer, d, caller, card)
        return float(chiamata_side_score(self.rules, pts, target, alone, on_side))

    def values(self, viewer: int, caller: int, card: int, target: int) -> list[float]:
        """Per deal of the viewer's, its side's §7.12 score when `caller` calls `card` (-1:
        carichi, §7.8) at `target`."""
        return [self._value(viewer, d, caller, card, target) for d in range(self.deals_of(viewer))]

    def _best_of(self, viewer: int, cards: list[int], target: int) -> list[float]:
        rows = [self.values(viewer, viewer, c, target) for c in cards]
        return max(rows, key=sum)

    def bid_values(self, state: HandState, seat: int, action: int) -> list[float]:
        """Per deal, the value of `action` in the auction: a call as if it won the auction
        there (a rank in the suit `normal` would name, §7.5; points over the Two with the
        Two that scores best, §7.3; auction=points with the best candidate card, §7.9), a
        pass as the standing bid winning it."""
        if action == A.PASS:
            return self._pass_values(state, seat)
        if action == A.CARICHI:
            return self.values(seat, seat, -1, 61)
        hand = self.start.hands[seat]
        if A.CALL_RANK <= action < A.BID_POINTS:
            return self.values(seat, seat, _named(hand, action - A.CALL_RANK, self.rules), 61)
        target = action - A.BID_POINTS
        if self.rules.auction == "points":
            return self._best_of(seat, self.card_candidates(seat), target)
        return self._best_of(seat, [card_id(2, s) for s in range(4)], target)

    def _pass_values(self, state: HandState, seat: int) -> list[float]:
        """The standing bid wins the auction (its bidder naming, in each deal, the suit
        `normal` rates best among those whose card it does not hold); nothing standing:
        a void hand (0)."""
        n = self.deals_of(seat)
        standing = next(((s, a) for s, a in reversed(state.bids) if a != A.PASS), None)
        if standing is None:
            return [0.0] * n
        bidder, bid = standing
        deals = self.deals(seat)[0]
        out = []
        for d in range(n):
            hand = deals[d][bidder]
            if bid == A.CARICHI:
                card, target = -1, 61
            elif A.CALL_RANK <= bid < A.BID_POINTS:
                card, target = _named(hand, bid - A.CALL_RANK, self.rules), 61
            elif self.rules.auction == "points":
                card, target = _strongest_missing(hand, self.rules), bid - A.BID_POINTS
            else:
                card, target = _named(hand, 2, self.rules), bid - A.BID_POINTS
            out.append(self._value(seat, d, bidder, card, target))
        return out

    def card_candidates(self, seat: int) -> list[int]:
        """auction=points (§7.9): per suit the two strongest cards missing from the hand, and
        the strongest held with four or more of the suit (a call in one's own hand, §7.7)."""
        deck = self.rules.deck
        held = set(self.start.hands[seat])
        out: list[int] = []
        for s in range(4):
            ranks = [card_id(n, s) for n in deck.auction_ranks()]
            out.extend([c for c in ranks if c not in held][:2])
            mine = [c for c in ranks if c in held]
            if mine and sum(1 for c in held if deck.suit[c] == s) >= 4:
                out.append(mine[0])
        return out


def _named(hand: list[int], rank: int, rules: Rules) -> int:
    """The card of `rank` a caller with `hand` names: the suit `normal` rates best among
    those whose card it does not hold (any, if it holds all four)."""
    deck = rules.deck
    suits = [s for s in range(4) if card_id(rank, s) not in hand] or list(range(4))
    s = max(suits, key=lambda x: (suit_rating(hand, x, deck), -x))
    return card_id(rank, s)


def _strongest_missing(hand: list[int], rules: Rules) -> int:
    """auction=points: the strongest card missing from `hand` in the suit it rates best."""
    deck = rules.deck
    s = max(range(4), key=lambda x: (suit_rating(hand, x, deck), -x))
    for n in deck.auction_ranks():
        if card_id(n, s) not in hand:
            return card_id(n, s)
    return card_id(deck.auction_ranks()[0], s)


__all__ = ["Contracts", "chiamata_side_score", "worth"]

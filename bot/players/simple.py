"""`simple`: a sensible greedy player that also bids in the chiamata auction.

Play: lead the cheapest card; take a trick with a card of the led suit when it can; trump only
a trick worth it (a carico on the table, or any points once the talon is gone); load points on
a friend's winning trick when it plays last; otherwise throw the cheapest card.
Bidding: rate each suit as briscola, call the strongest rank missing from the best suit, go
lower only as far as the hand's rating allows, and overbid with points on a strong hand.
"""

from __future__ import annotations

import random

from bot.engine import actions as A
from bot.engine.cards import card_id
from bot.engine.observation import Observation
from bot.engine.tricks import trick_winner
from bot.players import bidding


class SimplePlayer:
    name = "simple"

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def act(self, obs: Observation) -> int:
        legal = obs.legal
        if len(legal) == 1:
            return legal[0]
        if obs.phase == "auction":
            return self._bid(obs)
        if obs.phase == "name_suit":
            return A.NAME_SUIT + self._suit_to_name(obs)
        if obs.phase == "call_card":
            return A.CALL_CARD + self._card_to_call(obs)
        cards = [a for a in legal if A.is_card(a)]
        if not cards:  # coperta: nothing to choose by
            blind = [a for a in legal if A.BLIND <= a < A.CALL_RANK]
            return blind[int(self._rng.random() * len(blind))]
        return self._play(obs, cards)

    # ------------------------------------------------------------------ play

    def _play(self, obs: Observation, cards: list[int]) -> int:
        deck = obs.rules.deck
        suit, strength, points = deck.suit, deck.strength, deck.points
        b = obs.briscola

        def cheap(c: int) -> tuple[bool, int, int]:
            return (suit[c] == b, points[c], strength[c])

        if not obs.trick:
            return min(cards, key=cheap)
        best_seat, best_card = obs.trick[trick_winner([c for _, c in obs.trick], suit, strength, b)]
        trick_points = sum(points[c] for _, c in obs.trick)
        to_come = obs.rules.n_players * obs.rules.plays_per_trick - len(obs.trick) - 1
        if best_seat in _friends(obs):
            if to_come == 0:  # load the friend's trick
                return max(cards, key=lambda c: (suit[c] != b, points[c], -strength[c]))
            return min(cards, key=cheap)

        winners = [c for c in cards if trick_winner((best_card, c), suit, strength, b) == 1]
        plain = [c for c in winners if suit[c] != b]
        if plain:
            return max(plain, key=lambda c: (points[c], strength[c]))
        worth_trumping = trick_points >= 10 or (obs.talon_left == 0 and trick_points > 0)
        if winners and worth_trumping:
            return min(winners, key=lambda c: (points[c], strength[c]))
        return min(cards, key=cheap)

    # ------------------------------------------------------------------ chiamata bidding

    def _rating(self, obs: Observation, s: int) -> int:
        deck = obs.rules.deck
        rating = 0
        for c in obs.hand:
            if deck.suit[c] == s:
                rating += 6 + deck.points[c] + deck.strength[c]
            elif deck.points[c] >= 10:
                rating += deck.points[c] // 2
        return rating

    def _best_suit(self, obs: Observation) -> tuple[int, int]:
        ratings = [(self._rating(obs, s), s) for s in range(4)]
        rating, s = max(ratings)
        return s, rating

    def _missing_ranks(self, obs: Observation, s: int) -> list[int]:
        held = set(obs.hand)
        return [n for n in obs.rules.deck.auction_ranks() if card_id(n, s) not in held]

    def _bid(self, obs: Observation) -> int:
        return bidding.or_forced_call(obs, self._choose_bid(obs))

    def _choose_bid(self, obs: Observation) -> int:
        legal = set(obs.legal)
        s, rating = self._best_suit(obs)
        point_bids = sorted(a - A.BID_POINTS for a in legal if A.BID_POINTS <= a < A.PASS)
        if point_bids:  # after the Two, or auction=points
            ceiling = 61 + max(0, (rating - 55) // 2) if obs.rules.auction == "rank" else 0
            if obs.rules.auction == "points":
                ceiling = min(95, 30 + rating)
            if point_bids[0] <= ceiling:
                return A.BID_POINTS + point_bids[0]
            return A.PASS
        floor = max(1, min(10, 11 - (rating - 20) // 5))  # weakest rank power it dares call
        for n in self._missing_ranks(obs, s):
            if obs.rules.deck.rank_power(n) < floor:
                break
            if A.CALL_RANK + n in legal:
                return A.CALL_RANK + n
        if A.CARICHI in legal:
            carichi = sum(1 for c in obs.hand if obs.rules.deck.points[c] >= 10)
            if carichi >= 6:
                return A.CARICHI
        return A.PASS

    def _suit_to_name(self, obs: Observation) -> int:
        rank = next(
            a - A.CALL_RANK for _, a in reversed(obs.bids) if A.CALL_RANK <= a < A.BID_POINTS
        )
        held = set(obs.hand)
        choices = [(card_id(rank, s) not in held, self._rating(obs, s), s) for s in range(4)]
        return max(choices)[2]

    def _card_to_call(self, obs: Observation) -> int:
        s, _ = self._best_suit(obs)
        missing = self._missing_ranks(obs, s)
        return card_id(missing[0] if missing else 1, s)


def _friends(obs: Observation) -> set[int]:
    """Seats this player knows to be on its side."""
    if not obs.rules.chiamata:
        return set(obs.teammates)
    me = obs.seat
    if obs.carichi or obs.caller < 0:
        return set()
    if me == obs.caller:
        return {obs.partner} - {me, -1}
    if me == obs.partner:  # the socio knows it plays with the caller
        return {obs.caller}
    if obs.partner_revealed:  # a defender, once the socio is known
        return set(range(obs.rules.n_players)) - {me, obs.caller, obs.partner}
    return set()

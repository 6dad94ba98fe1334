"""One hand (smazzata) of any variant: the OpenSpiel-like game state.

    state = HandState.deal(options, seed=7, hand_index=0, dealer=0)
    while not state.is_terminal():
        state.apply(choose(state.observation(state.current), ...))
    state.returns()

Everything inside is plain ints, lists and tuples; pydantic stays at the boundaries
(`Options`, `to_dict` / `from_dict`). No I/O, no clock, no global randomness: the deal of
hand k is a function of (options, seed, k) alone (RULES.md §3.1-3.2, §7.1).
"""

from __future__ import annotations

import random
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from bot.engine import actions as A
from bot.engine.cards import card_id
from bot.engine.observation import SPECTATOR, Observation, trick_order
from bot.engine.options import Options, Rules
from bot.engine.phase import Phase
from bot.engine.tricks import Trick as Trick  # re-exported: `bot.engine.state.Trick`
from bot.engine.tricks import take

AUCTION = Phase.AUCTION
NAME_SUIT = Phase.NAME_SUIT
CALL_CARD = Phase.CALL_CARD
PLAY = Phase.PLAY
OVER = Phase.OVER
_STORED_PHASES = (AUCTION, NAME_SUIT, CALL_CARD, PLAY, OVER)
"""`to_dict` stores a phase as its index here (the snapshot format); `from_dict` reads that
or the phase's name."""

_SIGNAL_OF_NUMBER = {n: k for k, n in enumerate(A.SIGNAL_NUMBERS)}


class IllegalAction(ValueError):
    """The action is not legal now for that seat. The state is left exactly as it was."""


_new_trick = tuple.__new__  # builds a Trick without NamedTuple's Python-level __new__


@dataclass(frozen=True, slots=True)
class HandResult:
    """A finished hand. `deltas` are §7.12 for chiamata, else this hand seen as a single-hand
    match (§10.2). A void hand (§4.1-4.2, all-pass redeal §7.4) has every delta 0."""

    card_points: tuple[int, ...]  # per seat
    side_points: tuple[int, ...]  # per side (chiamata: caller side = 0, defenders = 1)
    winning_sides: tuple[int, ...]  # empty when void
    void: bool
    redeal: bool  # chiamata: everyone passed
    cappotto: bool
    deltas: tuple[int, ...]  # per seat, sums to zero

    def winners(self, side_of: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(s for s, side in enumerate(side_of) if side in self.winning_sides)


def match_deltas(side_of: tuple[int, ...], winning_sides: int | Collection[int]) -> tuple[int, ...]:
    """§10.2: each losing side pays 1 to each winning side; each member of a side pays and
    receives the side's amount. Two sides: +1 / -1. Three sides, one winner: +2 / -1 / -1;
    two tied winners (fixed5): +1 / +1 / -2. Four single players: +3 / -1 / -1 / -1. Sides
    are equal-sized in every variant, so the deltas are zero-sum."""
    won = {winning_sides} if isinstance(winning_sides, int) else set(winning_sides)
    n_won = len(won)
    n_lost = len(set(side_of)) - n_won
    return tuple(n_lost if side in won else -n_won for side in side_of)


def deal_cards(
    rules: Rules, seed: int | str, hand_index: int
) -> tuple[list[list[int]], list[int], int, list[int]]:
    """The deal of hand `hand_index`: hands by seat, the talon in drawing order, the turned card
    (-1 if none) and the cards removed from the deck (§1.4). Depends on nothing else."""
    rng = random.Random(f"{seed}:{hand_index}")
    deck = rules.deck
    cards = list(range(deck.size))
    removed: list[int] = []
    if rules.remove_twos:
        twos = [c for c in cards if deck.number[c] == 2]
        removed = sorted(twos) if rules.remove_twos >= len(twos) else [rng.choice(twos)]
        cards = [c for c in cards if c not in removed]
    rand = rng.random
    cards.sort(key=lambda _c: rand())  # uniform; twice as fast as rng.shuffle()
    n, h = rules.n_players, rules.hand_size
    hands = [cards[i * h : (i + 1) * h] for i in range(n)]
    rest = cards[n * h :]
    turned = -1
    if rules.turned_card:
        if rules.retrump:  # §3.6: an Ace or Three turned goes back into the talon
            for _ in range(1000):
                if deck.points[rest[0]] < 10:
                    break
                rng.shuffle(rest)
            else:  # pragma: no cover - astronomically unlikely; keep it deterministic anyway
                rest.sort(key=lambda c: deck.points[c] >= 10)
        turned = rest[0]
        rest = rest[1:]
    return hands, rest, turned, removed


@dataclass(slots=True)
class World:
    """Where every card a seat cannot see is, in one world it cannot tell from the real one
    (a determinization, for search): every seat's hand (its own included), the talon in
    drawing order (without the turned card) and the cards removed from the deck (§1.4)."""

    hands: list[list[int]]
    talon: list[int]
    removed: list[int]


class Snapshot:
    """What is stored as a snapshot (`to_dict`, read back by `from_dict`): `HandState` and
    `Match`. Each snapshot starts with its format's version, the options and the seed
    (`_head`, `_read_head`). Equal to another of the same class when their snapshots are;
    mutable, so unhashable."""

    __slots__ = ()
    options: Options
    seed: int | str

    def to_dict(self) -> dict[str, Any]:
        raise NotImplementedError

    def _head(self) -> dict[str, Any]:
        return {"v": 1, "options": self.options.explicit(), "seed": self.seed}

    @staticmethod
    def _read_head(data: dict[str, Any], what: str) -> Options:
        """The options of a snapshot of `what` ("state", "match"), once its version is known."""
        if data.get("v") != 1:
            raise ValueError(f"unknown {what} format version {data.get('v')!r}")
        return Options.model_validate(data["options"])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, type(self)):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]


class HandState(Snapshot):
    """The state of one hand. Mutable; `clone()` for search, `to_dict()` for storage."""

    __slots__ = (
        "_order",
        "_plain",
        "_points",
        "_seat_order",
        "_strength",
        "_suit",
        "actions",
        "bids",
        "briscola",
        "called_card",
        "caller",
        "carichi",
        "current",
        "dealer",
        "hand_index",
        "hands",
        "last_bidder",
        "leader",
        "options",
        "partner",
        "passed",
        "phase",
        "points_bid",
        "rank_bid",
        "removed",
        "reveal_trick",
        "rules",
        "seed",
        "signals",
        "taken",
        "talon",
        "talon_pos",
        "target",
        "trick",
        "tricks",
        "turned",
        "turned_to",
        "won",
    )

    rules: Rules
    options: Options
    seed: int | str
    hand_index: int
    dealer: int
    hands: list[list[int]]
    talon: list[int]
    talon_pos: int
    turned: int
    turned_to: int  # the seat that drew the turned briscola, -1 until then
    removed: list[int]
    briscola: int
    phase: Phase
    current: int
    leader: int
    _order: tuple[int, ...]  # seats to play the current trick, in order
    _plain: bool  # card plays need no check beyond "in hand" (no blind, no follow-suit)
    _suit: tuple[int, ...]
    _strength: tuple[int, ...]
    _points: tuple[int, ...]
    _seat_order: tuple[tuple[int, ...], ...]
    trick: list[int]
    tricks: list[Trick]
    taken: list[int]
    won: list[int]
    bids: list[tuple[int, int]]
    passed: list[bool]
    rank_bid: int
    points_bid: int
    last_bidder: int
    caller: int
    called_card: int
    partner: int
    carichi: bool
    target: int
    reveal_trick: int
    signals: list[tuple[int, int]]
    actions: list[tuple[int, int]]

    # ------------------------------------------------------------------ construction

    @classmethod
    def deal(
        cls, options: Options, seed: int | str = 0, hand_index: int = 0, dealer: int = 0
    ) -> HandState:
        rules = options.rules()
        if not 0 <= dealer < rules.n_players:
            raise ValueError(f"dealer must be a seat 0..{rules.n_players - 1}")
        s = cls.__new__(cls)
        s._init_common(options, rules, seed, hand_index, dealer)
        s.hands, s.talon, s.turned, s.removed = deal_cards(rules, seed, hand_index)
        if rules.chiamata:
            s.phase = AUCTION
            s.current = rules.first_bidder(dealer)  # §7.2, option auction_start
            s.briscola = -1
        else:
            s.phase = PLAY
            s.briscola = -1 if rules.no_briscola else rules.deck.suit[s.turned]
            s._start_trick((dealer + 1) % rules.n_players, None)  # §3.3: right of the dealer
        return s

    def world(self) -> World:
        """The real deal as a `World` (every hand, the talon still to draw, the cards removed
        from the deck): what `from_observation` takes, for tests and the bench's seers."""
        return World(
            [list(h) for h in self.hands], self.talon[self.talon_pos :], list(self.removed)
        )

    @classmethod
    def from_observation(cls, obs: Observation, world: World) -> HandState:
        """A state `obs.seat` cannot tell from the real one, with the cards it cannot see
        where `world` puts them (OpenSpiel's `ResampleFromInfostate`; for search). The
        auction, the tricks, the table and the signals are as observed; `world` must agree
        with `obs` on what the seat sees (its own hand, visible hands, the turned card).
        The seed (unknown to a seat) is 0 and `actions` is empty: the history is not
        replayed, so `to_dict` of such a state is no record of a real hand."""
        rules = obs.rules
        n = rules.n_players
        s = cls.__new__(cls)
        s._init_common(obs.options, rules, 0, obs.hand_index, obs.dealer)
        s.hands = [list(h) for h in world.hands]
        s.talon = list(world.talon)
        s.turned = obs.turned
        s.turned_to = obs.turned_to
        s.removed = list(world.removed)
        s.briscola = obs.briscola
        s.phase = obs.phase
        s.current = obs.current
        s.leader = obs.leader
        s._order = trick_order(obs)
        s.trick = [c for _, c in obs.trick]
        s.tricks = list(obs.tricks)
        taken = s.taken
        won = s.won
        for t in obs.tricks:
            taken[t.winner] += t.points
            won[t.winner] += 1
        s.bids = list(obs.bids)
        s.passed = list(obs.passed)
        s.caller = obs.caller
        s.called_card = obs.called_card
        s.carichi = obs.carichi
        s.target = obs.target
        s.signals = list(obs.signals)
        if rules.chiamata:
            s.rank_bid, s.points_bid, s.last_bidder = _auction_summary(rules, obs.bids)
            called = obs.called_card
            if obs.carichi:
                s.partner = obs.caller
            else:
                s.partner = next((p for p in range(n) if called in s.hands[p]), -1)
                if s.partner < 0:  # already played: from the public tricks
                    s.partner = obs.partner
            for i, t in enumerate(obs.tricks):
                if called in t.cards:
                    s.reveal_trick = i
            if s.reveal_trick < 0 and called in s.trick:
                s.reveal_trick = len(obs.tricks)
        return s

    def _init_common(
        self, options: Options, rules: Rules, seed: int | str, hand_index: int, dealer: int
    ) -> None:
        n = rules.n_players
        self.options = options
        self.rules = rules
        self.seed = seed
        self.hand_index = hand_index
        self.dealer = dealer
        self.talon_pos = 0
        self.turned_to = -1
        self.leader = -1
        self._order = ()
        self.trick = []
        self.tricks = []
        self.taken = [0] * n
        self.won = [0] * n
        self.bids = []
        self.passed = [False] * n
        self.rank_bid = 0
        self.points_bid = 0
        self.last_bidder = -1
        self.caller = -1
        self.called_card = -1
        self.partner = -1
        self.carichi = False
        self.target = 61
        self.reveal_trick = -1
        self.signals = []
        self.actions = []
        self._plain = not (rules.blind or rules.follow_suit)
        self._suit = rules.deck.suit
        self._strength = rules.deck.strength
        self._points = rules.deck.points
        self._seat_order = rules.seat_orders

    def clone(self) -> HandState:
        c = HandState.__new__(HandState)
        for name in HandState.__slots__:
            setattr(c, name, getattr(self, name))
        c.hands = [list(h) for h in self.hands]
        c.talon = self.talon  # never mutated after the deal
        c.removed = self.removed
        c.trick = list(self.trick)
        c.tricks = list(self.tricks)
        c.taken = list(self.taken)
        c.won = list(self.won)
        c.bids = list(self.bids)
        c.passed = list(self.passed)
        c.signals = list(self.signals)
        c.actions = list(self.actions)
        return c

    # ------------------------------------------------------------------ queries

    @property
    def n_players(self) -> int:
        return self.rules.n_players

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def talon_left(self) -> int:
        """Cards still to be drawn, the turned briscola included."""
        return len(self.talon) - self.talon_pos + (self.turned >= 0 and self.turned_to < 0)

    def talon_exhausted(self) -> bool:
        return self.talon_left() == 0

    @property
    def trick_order(self) -> tuple[int, ...]:
        """The seats that play the current trick, in order (a seat twice in doppia, §9.2;
        only those who drew after a short talon, §9.1)."""
        return self._order

    def trick_plays(self) -> tuple[tuple[int, int], ...]:
        """(seat, card) of the cards on the table now, in playing order."""
        return tuple(zip(self._order, self.trick, strict=False))

    def partner_known(self) -> bool:
        """Chiamata: whether the called card has been played (§7.6)."""
        return self.reveal_trick >= 0

    def forced_action(self) -> int | None:
        """The move of the one to act when they have nothing to choose: the hand's last
        trick (the tallone empty), their last card, and it their one legal action."""
        if self.phase != PLAY or self.talon_left() or len(self.hands[self.current]) != 1:
            return None
        legal = self.legal_actions()
        return legal[0] if len(legal) == 1 else None

    def legal_actions(self) -> list[int]:
        phase = self.phase
        if phase == PLAY:
            hand = self.hands[self.current]
            if self._plain:
                legal = hand[:]
            elif self.rules.blind:
                legal = [A.BLIND + i for i in range(len(hand))]
            elif self.rules.follow_suit and self.trick:
                suit = self.rules.deck.suit
                led = suit[self.trick[0]]
                legal = [c for c in hand if suit[c] == led] or list(hand)
            else:
                legal = list(hand)
            if self.rules.signals and self.tricks:
                legal.extend(self._signals_available(self.current))
            return legal
        if phase == AUCTION:
            return self._auction_actions()
        if phase == NAME_SUIT:
            return [A.NAME_SUIT + s for s in range(4)]
        if phase == CALL_CARD:
            return [A.CALL_CARD + c for c in range(self.rules.deck.size)]
        return []

    def _signals_available(self, seat: int) -> list[int]:
        """§5.3: after the first trick, a signal for each signal-worthy briscola held, once."""
        deck = self.rules.deck
        sent = {k for s, k in self.signals if s == seat}
        out = []
        for c in self.hands[seat]:
            if deck.suit[c] == self.briscola:
                k = _SIGNAL_OF_NUMBER.get(deck.number[c])
                if k is not None and k not in sent:
                    out.append(A.SIGNAL + k)
        return sorted(set(out))

    def _auction_actions(self) -> list[int]:
        rules = self.rules
        # §7.2 first_must_call: the first player's first word may not be a pass.
        may_pass = [] if rules.first_must_call and not self.bids else [A.PASS]
        if rules.auction == "points":
            low = max(61, self.points_bid + 1)
            return [*may_pass, *(A.BID_POINTS + p for p in range(low, 121))]
        if self.rank_bid == 2:  # after the Two: "Due a 62 .. 120" (§7.3)
            if not rules.two_caller_raises and self.current == self._two_caller():
                return [A.PASS]  # §7.3 two_caller_raises=false: the Two's caller only passes
            low = max(62, self.points_bid + 1)
            return [A.PASS, *(A.BID_POINTS + p for p in range(low, 121))]
        deck = rules.deck
        top = deck.rank_power(self.rank_bid) if self.rank_bid else 99
        ranks = deck.auction_ranks()
        legal = [*may_pass, *(A.CALL_RANK + n for n in ranks if deck.rank_power(n) < top)]
        # §7.8: carichi ends the auction; with carichi_mode=continues it is one more step below
        # the last rank named, so it cannot be called over a standing carichi.
        if rules.carichi and (rules.carichi_mode == "ends" or self._standing_bid() != A.CARICHI):
            legal.append(A.CARICHI)
        return legal

    def _standing_bid(self) -> int:
        """The last bid that was not a pass (-1 before any)."""
        for _, bid in reversed(self.bids):
            if bid != A.PASS:
                return bid
        return -1

    def _two_caller(self) -> int:
        """The seat that called the Two (§7.3), -1 if nobody did."""
        return next((s for s, bid in self.bids if bid == A.CALL_RANK + 2), -1)

    def observation(self, seat: int) -> Observation:
        """Exactly what `seat` may see now (see `bot.engine.observation`)."""
        return observe(self, seat)

    # ------------------------------------------------------------------ moves

    def apply(self, action: int, seat: int | None = None) -> None:
        """Apply `action` for the seat to act. `seat`, when given, must be that seat.
        Raises `IllegalAction` (and changes nothing) otherwise."""
        current = self.current
        if seat is None or seat == current:
            if self.phase == PLAY and self._plain and 0 <= action < A.BLIND:
                try:
                    self.hands[current].remove(action)
                except ValueError:
                    raise IllegalAction(f"seat {current} does not hold card {action}") from None
                self.actions.append((current, action))
                self._play(action)
                return
        else:
            if self.phase == OVER:
                raise IllegalAction("the hand is over")
            raise IllegalAction(f"seat {seat} cannot act: it is seat {current}'s turn")
        phase = self.phase
        if phase == PLAY:
            if 0 <= action < A.BLIND:
                hand = self.hands[current]
                if action not in hand:
                    raise IllegalAction(f"seat {current} does not hold card {action}")
                if self.rules.blind:
                    raise IllegalAction("coperta: play a card by its position, unseen")
                if self.rules.follow_suit and self.trick:
                    suit = self.rules.deck.suit
                    led = suit[self.trick[0]]
                    if suit[action] != led and any(suit[c] == led for c in hand):
                        raise IllegalAction("you must follow the led suit (§8.2)")
                hand.remove(action)
                self._play(action)
            elif A.BLIND <= action < A.CALL_RANK and self.rules.blind:
                hand = self.hands[current]
                pos = action - A.BLIND
                if pos >= len(hand):
                    raise IllegalAction(f"no card at position {pos + 1}")
                self._play(hand.pop(pos))
            elif A.SIGNAL <= action < A.SIGNAL + 5 and self.rules.signals:
                if not self.tricks or action not in self._signals_available(current):
                    raise IllegalAction("that signal is not available now (§5.3)")
                self.signals.append((current, action - A.SIGNAL))
            else:
                raise IllegalAction(f"action {action} is not a card play")
            self.actions.append((current, action))
            return
        if phase == OVER:
            raise IllegalAction("the hand is over")
        if action not in self.legal_actions():
            raise IllegalAction(
                f"{A.describe(action, self.rules.deck)} is not legal now for seat {current}"
            )
        self.actions.append((current, action))
        if phase == AUCTION:
            self._bid(current, action)
        elif phase == NAME_SUIT:
            self._set_called(card_id(self.rank_bid, action - A.NAME_SUIT))
        else:
            self._set_called(action - A.CALL_CARD)

    def _play(self, card: int) -> None:
        """The seat to act puts `card`, already taken from its hand, on the table."""
        trick = self.trick
        trick.append(card)
        if card == self.called_card:
            self.reveal_trick = len(self.tricks)
        order = self._order
        if len(trick) < len(order):
            self.current = order[len(trick)]
            return
        self._finish_trick()

    def _finish_trick(self, best: int = -1, pts: int = 0) -> None:
        """The trick is complete: it goes to its taker (`best`, `pts`: `take`'s answer when
        the caller already knows it), the seats draw, the next trick starts or the hand ends."""
        trick = self.trick
        order = self._order
        if best < 0:
            best, pts = take(trick, self._suit, self._strength, self._points, self.briscola)  # §2.3
        winner = order[best]
        self.taken[winner] += pts
        self.won[winner] += 1
        self.tricks.append(_new_trick(Trick, (self.leader, order, tuple(trick), winner, pts)))
        self.trick = []
        seats = self._seat_order[winner]
        talon = self.talon
        pos = self.talon_pos
        if pos + len(seats) <= len(talon) and self.rules.plays_per_trick == 1:
            hands = self.hands  # fast path: everyone draws from the talon (§3.4)
            for seat in seats:
                hands[seat].append(talon[pos])
                pos += 1
            self.talon_pos = pos
            self.leader = self.current = winner
            self._order = seats
            return
        drawers = None
        if pos < len(talon) or (self.turned >= 0 and self.turned_to < 0):
            drawers = self._draw(winner)
        if self.hands[winner]:
            self._start_trick(winner, drawers)
        else:
            self.phase = OVER
            self.current = -1

    def _draw(self, winner: int) -> list[int] | None:
        """§3.4: the winner draws first, then the others in playing order; the turned briscola
        is the last card drawn. Returns the drawers if not everyone could draw (§9.1)."""
        seats = self._seat_order[winner]
        drew: list[int] = []
        talon = self.talon
        for _ in range(self.rules.plays_per_trick):  # doppia draws two each (§9.2)
            for seat in seats:
                if self.talon_pos < len(talon):
                    self.hands[seat].append(talon[self.talon_pos])
                    self.talon_pos += 1
                elif self.turned >= 0 and self.turned_to < 0:
                    self.hands[seat].append(self.turned)
                    self.turned_to = seat
                else:
                    return drew
                if seat not in drew:
                    drew.append(seat)
        return None

    def _start_trick(self, leader: int, only: list[int] | None) -> None:
        self.leader = leader
        seats = self._seat_order[leader]
        if only is not None:  # §9.1: only those who drew play the next trick
            seats = tuple(s for s in seats if s in only)
        self._order = seats * self.rules.plays_per_trick
        self.current = leader

    def playout(self, rng: random.Random) -> None:
        """Play to the end, each move uniform among the legal actions: exactly the moves that
        ``legal = self.legal_actions(); self.apply(legal[int(rng.random() * len(legal))])``
        repeated would make, in one tight loop (random rollouts for benchmarks and search)."""
        r = rng.random
        rules = self.rules
        fast = not (rules.follow_suit or rules.signals)
        blind = rules.blind
        hands = self.hands
        actions = self.actions
        while self.phase != OVER:
            if self.phase != PLAY or not fast:
                legal = self.legal_actions()
                self.apply(legal[int(r() * len(legal))])
                continue
            # One trick: card i of the legal list is card i of the hand (or position i, blind).
            trick = self.trick
            order = self._order
            called = self.called_card
            for i in range(len(trick), len(order)):
                seat = order[i]
                hand = hands[seat]
                k = int(r() * len(hand))
                card = hand.pop(k)
                trick.append(card)
                actions.append((seat, A.BLIND + k if blind else card))
                if card == called:
                    self.reveal_trick = len(self.tricks)
            self._finish_trick()

    def play_unchecked(self, card: int) -> None:
        """The seat to act plays `card`, which it must hold: no legality check, and not
        recorded in `actions`. For search rollouts (their own policy, as `playout` plays
        random moves); `apply` is the checked move."""
        self.hands[self.current].remove(card)
        self._play(card)

    # ------------------------------------------------------------------ chiamata auction

    def _bid(self, seat: int, action: int) -> None:
        self.bids.append((seat, action))
        rules = self.rules
        if action == A.PASS:
            self.passed[seat] = True
        elif action == A.CARICHI:
            if rules.carichi_mode == "ends":  # §7.8: ends the auction, alone, no briscola
                self._carichi_stands(seat)
                return
            # §7.8 carichi_mode=continues: a standing bid like a rank; the others may go on
            # calling ranks lower than the last one named (rank_bid is left as it was).
            self.last_bidder = seat
        elif action < A.BID_POINTS:
            self.rank_bid = action - A.CALL_RANK
            self.last_bidder = seat
            if self.rank_bid == 2 and not rules.overbid:  # §7.3 with overbid off
                self._end_auction()
                return
        else:
            self.points_bid = action - A.BID_POINTS
            self.last_bidder = seat
        active = [s for s in range(rules.n_players) if not self.passed[s]]
        if not active:  # §7.4: everyone passed, the next dealer deals again
            self.phase = OVER
            self.current = -1
            return
        if len(active) == 1 and active[0] == self.last_bidder:
            self._end_auction()
            return
        nxt = (seat + 1) % rules.n_players
        while self.passed[nxt]:
            nxt = (nxt + 1) % rules.n_players
        self.current = nxt

    def _carichi_stands(self, seat: int) -> None:
        """§7.8: the carichi caller plays alone, without briscola."""
        self.caller = seat
        self.partner = seat
        self.carichi = True
        self.briscola = -1
        self._begin_play()

    def _end_auction(self) -> None:
        if self._standing_bid() == A.CARICHI:  # §7.8 carichi_mode=continues: carichi stood
            self._carichi_stands(self.last_bidder)
            return
        self.caller = self.last_bidder
        if self.points_bid:
            self.target = self.points_bid
        self.current = self.caller
        self.phase = NAME_SUIT if self.rules.auction == "rank" else CALL_CARD

    def assume_call(self, caller: int, called_card: int, target: int) -> None:
        """End the auction as if `caller` had won it at `target` and called `called_card`
        (-1: carichi, alone and without briscola, §7.8), and start the play (§7.5-7.10).
        For search over calls a seat might make (the real auction ends through `apply`)."""
        self.caller = caller
        self.target = target
        if called_card < 0:
            self.called_card = -1
            self._carichi_stands(caller)
        else:
            self._set_called(called_card)

    def _set_called(self, card: int) -> None:
        self.called_card = card
        self.briscola = self.rules.deck.suit[card]
        self.partner = next(s for s, h in enumerate(self.hands) if card in h)
        self._begin_play()

    def _begin_play(self) -> None:
        self.phase = PLAY
        first = (self.dealer + 1) % self.rules.n_players
        if self.rules.lead == "caller":  # §7.10
            first = self.caller
        self._start_trick(first, None)

    # ------------------------------------------------------------------ results

    def card_points(self) -> tuple[int, ...]:
        return tuple(self.taken)

    def sides(self) -> tuple[int, ...]:
        """Side index per seat. Chiamata: 0 for caller and partner, 1 for the others — only
        meaningful to the engine itself before the partner is revealed."""
        if self.rules.chiamata:
            return tuple(
                0 if s in (self.caller, self.partner) else 1 for s in range(self.n_players)
            )
        return self.rules.side_of

    def result(self) -> HandResult:
        if self.phase != OVER:
            raise ValueError("the hand is not over")
        n = self.n_players
        taken = tuple(self.taken)
        side_of = self.sides()
        n_sides = max(side_of) + 1
        side_points = [0] * n_sides
        for s in range(n):
            side_points[side_of[s]] += taken[s]
        if self.rules.chiamata:
            return self._chiamata_result(taken, tuple(side_points))
        top = max(side_points)
        leaders = [i for i, p in enumerate(side_points) if p == top]
        if len(leaders) > 1:  # §4.1 60-60, §4.2 40-40-40 or a tie for first: void
            return HandResult(taken, tuple(side_points), (), True, False, False, (0,) * n)
        return HandResult(
            taken,
            tuple(side_points),
            (leaders[0],),
            False,
            False,
            False,
            match_deltas(side_of, leaders[0]),
        )

    def _chiamata_result(self, taken: tuple[int, ...], side_points: tuple[int, ...]) -> HandResult:
        n = self.n_players
        if self.caller < 0:  # everyone passed (§7.4)
            return HandResult(taken, (0, 0), (), True, True, False, (0,) * n)
        won = side_points[0] >= self.target  # §7.11
        losing_side = 1 if won else 0
        if self.rules.cappotto == "all_tricks":
            losers_tricks = sum(self.won[s] for s in range(n) if self.sides()[s] == losing_side)
            cappotto = losers_tricks == 0
        else:
            cappotto = side_points[losing_side] == 0
        alone = self.partner == self.caller
        if n == 5:  # §7.12
            caller_gain, partner_gain = (4, 0) if alone else (2, 1)
        else:  # §7.12, 4-player form
            caller_gain, partner_gain = (3, 0) if alone else (1, 1)
        sign = 1 if won else -1
        mult = 2 if cappotto else 1
        deltas = []
        for s in range(n):
            if s == self.caller:
                d = caller_gain
            elif s == self.partner:
                d = partner_gain
            else:
                d = -1
            deltas.append(d * sign * mult)
        return HandResult(
            taken, side_points, (0,) if won else (1,), False, False, cappotto, tuple(deltas)
        )

    def returns(self) -> list[float]:
        """Per-seat payoff of the finished hand (the ledger deltas of `result()`)."""
        return [float(d) for d in self.result().deltas]

    # ------------------------------------------------------------------ invariants

    def all_cards(self) -> list[int]:
        """Every card of the deck, wherever it is now (hands, talon, table, piles, removed)."""
        out = [c for h in self.hands for c in h]
        out += self.talon[self.talon_pos :]
        if self.turned >= 0 and self.turned_to < 0:
            out.append(self.turned)
        out += self.trick
        for t in self.tricks:
            out += t.cards
        out += self.removed
        return out

    def holder_of(self, card: int) -> int:
        for s, h in enumerate(self.hands):
            if card in h:
                return s
        return -1

    # ------------------------------------------------------------------ serialisation

    def to_dict(self) -> dict[str, Any]:
        return {
            **self._head(),
            "hand_index": self.hand_index,
            "dealer": self.dealer,
            "hands": [list(h) for h in self.hands],
            "talon": list(self.talon),
            "talon_pos": self.talon_pos,
            "turned": self.turned,
            "turned_to": self.turned_to,
            "removed": list(self.removed),
            "briscola": self.briscola,
            "phase": _STORED_PHASES.index(self.phase),
            "current": self.current,
            "leader": self.leader,
            "order": list(self._order),
            "trick": list(self.trick),
            "tricks": [
                [t.leader, list(t.seats), list(t.cards), t.winner, t.points] for t in self.tricks
            ],
            "taken": list(self.taken),
            "won": list(self.won),
            "bids": [list(b) for b in self.bids],
            "passed": list(self.passed),
            "rank_bid": self.rank_bid,
            "points_bid": self.points_bid,
            "last_bidder": self.last_bidder,
            "caller": self.caller,
            "called_card": self.called_card,
            "partner": self.partner,
            "carichi": self.carichi,
            "target": self.target,
            "reveal_trick": self.reveal_trick,
            "signals": [list(x) for x in self.signals],
            "actions": [list(x) for x in self.actions],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HandState:
        options = cls._read_head(data, "state")
        rules = options.rules()
        s = cls.__new__(cls)
        s._init_common(options, rules, data["seed"], data["hand_index"], data["dealer"])
        s.hands = [list(h) for h in data["hands"]]
        s.talon = list(data["talon"])
        s.talon_pos = data["talon_pos"]
        s.turned = data["turned"]
        s.turned_to = data["turned_to"]
        s.removed = list(data["removed"])
        s.briscola = data["briscola"]
        phase = data["phase"]
        s.phase = _STORED_PHASES[phase] if isinstance(phase, int) else Phase(phase)
        s.current = data["current"]
        s.leader = data["leader"]
        s._order = tuple(data["order"])
        s.trick = list(data["trick"])
        s.tricks = [Trick(t[0], tuple(t[1]), tuple(t[2]), t[3], t[4]) for t in data["tricks"]]
        s.taken = list(data["taken"])
        s.won = list(data["won"])
        s.bids = [(b[0], b[1]) for b in data["bids"]]
        s.passed = list(data["passed"])
        s.rank_bid = data["rank_bid"]
        s.points_bid = data["points_bid"]
        s.last_bidder = data["last_bidder"]
        s.caller = data["caller"]
        s.called_card = data["called_card"]
        s.partner = data["partner"]
        s.carichi = data["carichi"]
        s.target = data["target"]
        s.reveal_trick = data["reveal_trick"]
        s.signals = [(x[0], x[1]) for x in data["signals"]]
        s.actions = [(x[0], x[1]) for x in data["actions"]]
        return s

    def __repr__(self) -> str:
        return (
            f"HandState({self.rules.variant}, hand {self.hand_index}, "
            f"{self.phase}, seat {self.current} to act)"
        )


def observe(state: HandState, seat: int) -> Observation:
    """Exactly what `seat` (or `SPECTATOR`) may see of `state` now (`bot.engine.observation`)."""
    rules = state.rules
    n = rules.n_players
    if not SPECTATOR <= seat < n:
        raise ValueError(f"no seat {seat} at a table of {n}")
    side_of = rules.side_of
    spectator = seat == SPECTATOR
    teammates = (
        () if spectator else tuple(s for s in range(n) if s != seat and side_of[s] == side_of[seat])
    )
    visible: dict[int, tuple[int, ...]] = {}
    talon_next = -1
    if rules.public_hands:  # §6.1
        for s in range(n):
            if s != seat:
                visible[s] = tuple(state.hands[s])
        if state.talon_pos < len(state.talon):
            talon_next = state.talon[state.talon_pos]
        elif state.turned >= 0 and state.turned_to < 0:
            talon_next = state.turned
    elif rules.reveal_partners and state.phase == PLAY and state.talon_exhausted():  # §5.2
        for s in teammates:
            visible[s] = tuple(state.hands[s])

    plays = state.trick_plays()
    own = () if spectator else state.hands[seat]
    in_hand = len(own) + sum(1 for p, _ in plays if p == seat)
    last_trick = (
        state.phase == PLAY and state.talon_exhausted() and in_hand <= rules.plays_per_trick
    )
    my_side = side_of[seat]
    my_points: int | None = None
    if spectator:
        pass
    elif rules.show_points or last_trick or state.phase == OVER:
        if rules.chiamata:
            my_points = state.taken[seat]
        else:
            my_points = sum(state.taken[s] for s in range(n) if side_of[s] == my_side)
    all_points = tuple(state.taken) if rules.show_points or state.phase == OVER else None

    revealed = state.reveal_trick >= 0
    if revealed or state.phase == OVER or seat == state.partner:
        partner = state.partner
    else:
        partner = -1
    signals = tuple((s, k) for s, k in state.signals if s == seat or (s in teammates))
    return Observation(
        options=state.options,
        rules=rules,
        seat=seat,
        hand_index=state.hand_index,
        dealer=state.dealer,
        phase=state.phase,
        current=state.current,
        legal=tuple(state.legal_actions()) if state.current == seat else (),
        hand=() if rules.blind else tuple(own),
        hand_sizes=tuple(len(h) for h in state.hands),
        visible_hands=visible,
        talon_left=state.talon_left(),
        talon_next=talon_next,
        turned=state.turned,
        turned_to=state.turned_to,
        briscola=state.briscola,
        leader=state.leader,
        trick=plays,
        tricks=tuple(state.tricks),
        my_points=my_points,
        all_points=all_points,
        teammates=teammates,
        signals=signals,
        bids=tuple(state.bids),
        passed=tuple(state.passed),
        caller=state.caller,
        called_card=state.called_card,
        carichi=state.carichi,
        target=state.target,
        partner=partner,
        partner_revealed=revealed,
    )


def _auction_summary(rules: Rules, bids: tuple[tuple[int, int], ...]) -> tuple[int, int, int]:
    """(rank_bid, points_bid, last_bidder) after `bids`, as `HandState._bid` leaves them."""
    rank = points = 0
    last = -1
    for seat, bid in bids:
        if A.CALL_RANK <= bid < A.BID_POINTS:
            rank, last = bid - A.CALL_RANK, seat
        elif A.BID_POINTS <= bid < A.PASS:
            points, last = bid - A.BID_POINTS, seat
        elif bid == A.CARICHI and rules.carichi_mode == "continues":  # §7.8
            last = seat
    return rank, points, last

"""Search on determinized hands (one sampled world, every card placed).

- `rollout(state, rng)`: play a `HandState` to the end with a fast greedy policy for every
  seat (the `simple` player's rules on the state itself, with a little noise).
- `Solver`: exact alpha-beta on card points for two-sided play (including the talon's draws,
  known in a determinized world), used when few cards are left.
"""

from __future__ import annotations

import random

from bot.engine.state import PLAY, HandState
from bot.engine.tricks import take
from bot.players.bounds import narrow, probe

INF = 10_000


def sides_of(state: HandState) -> tuple[int, ...]:
    """Side per seat in a determinized state (chiamata: 0 caller's side, 1 the others)."""
    if state.rules.chiamata:
        if state.caller < 0:
            return tuple(range(state.rules.n_players))
        return tuple(
            0 if s in (state.caller, state.partner) else 1 for s in range(state.rules.n_players)
        )
    return state.rules.side_of


def side_points(state: HandState, side: int, sides: tuple[int, ...]) -> int:
    taken = state.taken
    return sum(taken[s] for s in range(len(sides)) if sides[s] == side)


def rollout(
    state: HandState,
    rng: random.Random,
    eps: float = 0.08,
    stop_at_empty: bool = False,
    hide_socio: bool = True,
) -> None:
    """Play `state` to the end with the greedy policy (every seat); with `stop_at_empty`,
    stop at the start of the first trick after the talon is gone (to solve the rest).
    Plays are unchecked and not recorded in `state.actions` (as `HandState.play_unchecked`);
    each trick is played in one tight loop that keeps who is taking it as the cards fall,
    and handed to the engine's `_finish_trick` (its taker, the draws, the next trick).

    Each seat plays on what it knows of the sides: in chiamata, until the called card is
    played (§7.6), only the socio knows who the socio is; the caller and the defenders play
    as if the caller stood alone against the others (a defender feeds a hidden socio as a
    friend), so that staying hidden is worth something in the search.
    `hide_socio=False`: every seat knows the sides (the auction's estimates are tuned so)."""
    rules = state.rules
    suit = rules.deck.suit
    strength = rules.deck.strength
    points = rules.deck.points
    follow = rules.follow_suit
    b = state.briscola
    sides = sides_of(state)
    rand = rng.random
    hands = state.hands
    talon = state.talon
    n_talon = len(talon)
    socio = state.partner
    called = state.called_card
    hidden = (
        hide_socio
        and rules.chiamata
        and state.caller >= 0
        and not state.carichi
        and socio != state.caller
        and state.reveal_trick < 0
    )
    blind = tuple(0 if s == state.caller else 1 for s in range(len(sides)))
    view = sides
    while state.phase == PLAY:
        trick = state.trick
        order = state.trick_order
        if trick:  # a trick under way (only where the rollout starts)
            w, pts = take(trick, suit, strength, points, b)
            wc = trick[w]
        else:
            if (
                stop_at_empty
                and state.talon_pos >= n_talon
                and (state.turned < 0 or state.turned_to >= 0)
            ):
                return
            w, wc, pts = -1, -1, 0
        talon_empty = state.talon_pos >= n_talon
        n = len(order)
        last_i = n - 1
        for i in range(len(trick), n):
            seat = order[i]
            hand = hands[seat]
            if hidden:
                view = sides if seat == socio else blind
            # the greedy policy: the `simple` player's rules on the determinized hands
            if follow and i:
                led = suit[trick[0]]
                cand = [c for c in hand if suit[c] == led] or hand
            else:
                cand = hand
            if len(cand) == 1:
                card = cand[0]
            elif rand() < eps:
                card = cand[int(rand() * len(cand))]
            elif not i:
                card = _cheapest(cand, suit, strength, points, b)
            elif view[order[w]] == view[seat]:
                ws = suit[wc]
                if i == last_i or (ws == b and strength[wc] >= 9):
                    # Load the friend's trick with the richest plain card.
                    card = cand[0]
                    bk = (suit[card] != b) * 100 + points[card] * 5 - strength[card]
                    for c in cand:
                        k = (suit[c] != b) * 100 + points[c] * 5 - strength[c]
                        if k > bk:
                            card, bk = c, k
                else:
                    card = _cheapest(cand, suit, strength, points, b)
            else:
                card = _take_if_pays(
                    cand, wc, pts, i == last_i, talon_empty, b, suit, strength, points
                )
            hand.remove(card)
            trick.append(card)
            if card == called:
                state.reveal_trick = len(state.tricks)
                if hidden:
                    hidden = False
                    view = sides
            pts += points[card]
            if not i or _beats(card, wc, suit, strength, b):
                w, wc = i, card  # who takes the trick so far
        state._finish_trick(w, pts)


def _beats(card: int, wc: int, suit: tuple[int, ...], strength: tuple[int, ...], b: int) -> bool:
    """Whether `card`, played now, takes the trick from the card taking it, `wc` (§2.3: as
    `take` decides, one card at a time; checked against it by tests/test_properties.py)."""
    if suit[card] == suit[wc]:
        return strength[card] > strength[wc]
    return suit[card] == b


def _take_if_pays(
    cand: list[int],
    wc: int,
    pts: int,
    last: bool,
    talon_empty: bool,
    b: int,
    suit: tuple[int, ...],
    strength: tuple[int, ...],
    points: tuple[int, ...],
) -> int:
    """The greedy policy when an opponent is taking the trick (with `wc`, `pts` in it so
    far): take it with a card of its suit if that pays, with the cheapest briscola if the
    trick is rich (or has points once the talon is gone), else throw the cheapest card."""
    ws = suit[wc]
    plain = -1
    trump = -1
    for c in cand:
        sc = suit[c]
        if sc == ws:
            if strength[c] > strength[wc]:
                if sc == b:
                    if trump < 0 or strength[c] < strength[trump]:
                        trump = c
                elif (
                    plain < 0
                    or points[c] > points[plain]
                    or (points[c] == points[plain] and strength[c] < strength[plain])
                ):
                    plain = c
        elif (
            sc == b
            and ws != b
            and (trump < 0 or points[c] * 10 + strength[c] < points[trump] * 10 + strength[trump])
        ):
            trump = c
    if plain >= 0 and (last or points[plain] + pts > 0):
        return plain
    if trump >= 0 and (pts >= 10 or (pts > 0 and talon_empty)):
        return trump
    return _cheapest(cand, suit, strength, points, b)


def _cheapest(
    cand: list[int],
    suit: tuple[int, ...],
    strength: tuple[int, ...],
    points: tuple[int, ...],
    b: int,
) -> int:
    best = cand[0]
    bk = (suit[best] == b) * 100 + points[best] * 10 + strength[best]
    for c in cand:
        k = (suit[c] == b) * 100 + points[c] * 10 + strength[c]
        if k < bk:
            best, bk = c, k
    return best


class SolverLimit(Exception):
    """The search needed more nodes than allowed."""


class Solver:
    """Exact minimax of the card points still to be won, for two sides (`mine` per seat), on
    a determinized `HandState` in the play phase with one card per seat per trick. Draws
    from the talon (§3.4; the turned card last) follow the state's talon order. Positions at
    the start of a trick are cached (with alpha-beta bounds). A short talon that cannot serve
    everyone (§9.1) is not supported (see `applicable`); `max_nodes` bounds the effort
    (`SolverLimit` is raised beyond it)."""

    def __init__(
        self,
        state: HandState,
        mine: tuple[bool, ...],
        max_nodes: int = 1_000_000_000,
    ) -> None:
        rules = state.rules
        self.suit = rules.deck.suit
        self.strength = rules.deck.strength
        self.points = rules.deck.points
        self.follow = rules.follow_suit
        self.b = state.briscola
        self.mine = mine
        self.n = rules.n_players
        self.seat_orders = rules.seat_orders
        self.hands = [list(h) for h in state.hands]
        talon = list(state.talon[state.talon_pos :])
        if state.turned >= 0 and state.turned_to < 0:
            talon.append(state.turned)
        self.talon = talon
        self.tpos = 0
        self.order = state.trick_order
        self.trick = list(state.trick)
        self.nodes = 0
        self.max_nodes = max_nodes
        self.cache: dict[tuple[object, ...], tuple[float, float]] = {}
        self.use_cache = sum(len(h) for h in self.hands) + len(self.talon) > 8

    @staticmethod
    def applicable(state: HandState) -> bool:
        rules = state.rules
        if rules.plays_per_trick != 1 or rules.blind or state.phase != PLAY:
            return False
        left = state.talon_left()
        return left % rules.n_players == 0 and len(state.trick_order) == rules.n_players

    def value(self) -> float:
        """Exact points my side wins from now on."""
        return self._search(-INF, INF)

    def root_values(self, moves: list[int]) -> list[float]:
        """Exact points my side wins from now on after each of `moves` (the side to move's)."""
        out = []
        seat = self.order[len(self.trick)]
        hand = self.hands[seat]
        for c in moves:
            idx = hand.index(c)
            hand.pop(idx)
            out.append(self._after_play(seat, c, -INF, INF))
            hand.insert(idx, c)
        return out

    def _key(self) -> tuple[object, ...]:
        return (tuple(tuple(sorted(h)) for h in self.hands), self.order[0], self.tpos)

    def _search(self, alpha: float, beta: float) -> float:
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise SolverLimit
        key = None
        if not self.trick and self.use_cache:
            key = self._key()
            hit = self.cache.get(key)
            if hit is not None:
                known, value, alpha, beta = probe(*hit, alpha, beta)
                if known:
                    return value
            a0, b0 = alpha, beta
        seat = self.order[len(self.trick)]
        hand = self.hands[seat]
        moves = list(self._moves(hand))
        best: float
        if self.mine[seat]:
            best = -INF
            for c in moves:
                idx = hand.index(c)
                hand.pop(idx)
                v = self._after_play(seat, c, alpha, beta)
                hand.insert(idx, c)
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            break
        else:
            best = INF
            for c in moves:
                idx = hand.index(c)
                hand.pop(idx)
                v = self._after_play(seat, c, alpha, beta)
                hand.insert(idx, c)
                if v < best:
                    best = v
                    if v < beta:
                        beta = v
                        if alpha >= beta:
                            break
        if key is not None:
            self.cache[key] = narrow(best, a0, b0, *self.cache.get(key, (-INF, INF)))
        return best

    def _moves(self, hand: list[int]) -> list[int]:
        if self.follow and self.trick:
            led = self.suit[self.trick[0]]
            same = [c for c in hand if self.suit[c] == led]
            if same:
                return same
        return hand

    def _after_play(self, seat: int, card: int, alpha: float, beta: float) -> float:
        trick = self.trick
        trick.append(card)
        order = self.order
        if len(trick) < len(order):
            v = self._search(alpha, beta)
            trick.pop()
            return v
        w, pts = take(trick, self.suit, self.strength, self.points, self.b)  # §2.3
        winner = order[w]
        gain = pts if self.mine[winner] else 0
        seats = self.seat_orders[winner]
        saved_trick = trick
        self.trick = []
        self.order = seats
        v = gain + self._draw_known(seats, alpha - gain, beta - gain)
        self.order = order
        self.trick = saved_trick
        trick.pop()
        return v

    def _draw_known(self, seats: tuple[int, ...], alpha: float, beta: float) -> float:
        hands = self.hands
        drew = self.tpos < len(self.talon)
        if drew:
            pos = self.tpos
            for s in seats:
                hands[s].append(self.talon[pos])
                pos += 1
            self.tpos = pos
        v = self._search(alpha, beta) if hands[seats[0]] else 0.0
        if drew:
            for s in seats:
                hands[s].pop()
            self.tpos -= len(seats)
        return v


def solve_two(
    lead: tuple[int, ...],
    follow: tuple[int, ...],
    lead_is_mine: bool,
    b: int,
    suit: tuple[int, ...],
    strength: tuple[int, ...],
    points: tuple[int, ...],
    memo: dict[tuple[tuple[int, ...], tuple[int, ...], bool], int],
) -> int:
    """Two players, talon empty, no obligation to follow: the exact points my side still wins
    when `lead` (the leader's cards, sorted) and `follow` (sorted) are the two hands.
    Memoized in `memo` (keep one per briscola and deck)."""
    key = (lead, follow, lead_is_mine)
    hit = memo.get(key)
    if hit is not None:
        return hit
    last = len(lead) == 1
    best = -1 if lead_is_mine else INF
    for i, x in enumerate(lead):
        rest_l = lead[:i] + lead[i + 1 :]
        reply = INF if lead_is_mine else -1
        for j, y in enumerate(follow):
            pts = points[x] + points[y]
            # `trick_winner((x, y), ...) == 1` inlined (§2.3; tests/test_properties.py checks it)
            if (suit[y] == suit[x] and strength[y] > strength[x]) or (
                suit[y] == b and suit[x] != b
            ):  # the follower takes it and leads next
                v = 0 if lead_is_mine else pts
                if not last:
                    v += solve_two(
                        follow[:j] + follow[j + 1 :],
                        rest_l,
                        not lead_is_mine,
                        b,
                        suit,
                        strength,
                        points,
                        memo,
                    )
            else:
                v = pts if lead_is_mine else 0
                if not last:
                    v += solve_two(
                        rest_l,
                        follow[:j] + follow[j + 1 :],
                        lead_is_mine,
                        b,
                        suit,
                        strength,
                        points,
                        memo,
                    )
            if lead_is_mine:
                if v < reply:
                    reply = v
            elif v > reply:
                reply = v
        if lead_is_mine:
            if reply > best:
                best = reply
        elif reply < best:
            best = reply
    memo[key] = best
    return best

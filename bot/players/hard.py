"""`hard`: search over the worlds the seat cannot tell apart (PIMC).

Each move: sample a world (every hidden card placed consistently with what the seat has seen,
`Knowledge.sample_world`), evaluate every legal card in it — by exact alpha-beta on card points
when few cards are left (in chiamata the last four tricks, by the compiled `FastSolver`;
elsewhere from when the talon is gone, by `FastSolver`, or the last ten cards, by `Solver`
while the talon lasts), else by a greedy rollout to the end of the hand with the same random
stream for every card — and average over the worlds. Anytime: it samples until the time budget
(default 0.2 s) is spent, or has seen every world there is, or one card is left: after the
first worlds, a card is no longer evaluated once it can no longer be chosen (successive
elimination on differences paired over the same worlds: clearly worse than the best, or clearly
unable to beat the judgement's choice by `OVERRIDE`), which on most decisions ends the search
in a fraction of the budget; and the search stops once every difference that still decides the
choice is known to within a few points (`SE_STOP`, in chiamata; elsewhere close calls stop at
`MAX_WORLDS_POINTS` worlds instead, and a card overrides the judgement at one standard error,
`Z_OVERRIDE_POINTS`). When only one world is possible (two players, talon empty) it solves the
rest of the hand exactly. A fixed `iterations` (worlds per move) replaces the clock, for
reproducible tests. In due, before the last ten cards, it does not search: it plays the due
network's card (`learned.due`, as `normal` does), which measured better than its rollouts.
In chiamata two cards the rollouts misjudge are searched, before the tricks
solved exactly, only where the judgement would play them: a bare carico led into the briscole,
and the hidden socio's called card; and, with five players, a defender's carico thrown, someone
still to play, onto a trick the caller's side may be taking is not searched at all while
another card can be played.

Chiamata bidding: Monte Carlo over deals consistent with its hand (`hard_bidding`).
"""

from __future__ import annotations

import math
import random

from bot.engine import actions as A
from bot.engine.observation import Observation
from bot.engine.options import Rules
from bot.engine.state import PLAY, HandState, World
from bot.engine.tricks import trick_winner
from bot.players.common import card_actions, clock, obvious_move
from bot.players.fastsolve import FastSolver, SolveLimit, fast_solver
from bot.players.hard_bidding import HardBidder, recent_deals
from bot.players.heuristics import NORMAL, score_cards
from bot.players.knowledge import Knowledge
from bot.players.learned import card as card_net
from bot.players.learned import due as due_net
from bot.players.learned import value as value_net
from bot.players.partners import friend_takes
from bot.players.search import Solver, SolverLimit, rollout, side_points, sides_of, solve_two

DEFAULT_BUDGET = 0.2  # seconds per decision
# the bidding network learned `normal`'s play of a call; `hard`'s callers made theirs a little
# more often (train.calibrate_bid on 400 paired chiamata deals of hard-normal: +0.122)
BID_SHIFT = 0.12
SAFETY = 0.85  # share of the budget spent sampling; the rest covers the last world and setup
SOLVE_CARDS = 10  # exact search per world when at most this many cards are left in play,
# or (not chiamata) every card once the talon is gone: in quattro (12 cards) against
# `hard1127` (which solved the last ten), 300 paired deals a seed, +3.36 [+0.99, +5.72] and
# +1.47 [-1.05, +3.98] card points a game (seeds 2024, 2025); sei in teams of three (18):
# +2.67 [-0.72, +6.05] (200) and +3.00 [+0.82, +5.18] (400), the same thinking time.
# ... in chiamata from this many tricks out, by the compiled solver (`fastsolve`: no talon,
# §7.1); see `exact_cards`. Against `normal` (400 paired deals, seeds 2024-2026): from two
# tricks out +0.093, +0.086, +0.101 a seat-hand; three +0.117, +0.120; four +0.135, +0.127,
# +0.133. From five tricks out (25 cards) a world would take 56 ms at the median, 330 ms at
# p90 (`python -m bench.solver`).
SOLVE_TRICKS = 4
FAST_MAX_NODES = 400_000  # its limit per world, some 40 ms (four tricks out: p90 89,000 nodes)
MAX_NODES = 6000  # a world's exact search gives up beyond this (a few ms)
ENUMERATE = 48  # late in the hand, evaluate every world when there are at most this many
INDIFFERENT = 1.0  # exact values: stop when every other card is known to be this close
OVERRIDE = 1.0  # points a rollout estimate must beat the judgement's choice by
Z_OVERRIDE = 2.0  # ... by this many standard errors (chiamata)
Z_OVERRIDE_POINTS = 1.0  # elsewhere, where the search stops at `MAX_WORLDS_POINTS` worlds
Z_STOP = 2.6  # standard errors by which it must, for the search to stop on it early
# rollout estimates: the search stops once every difference that decides the choice is known
# to within this many points (one standard error); more worlds would only settle choices
# between cards this close (see `_precise`). Chiamata's values carry the hand's win
# (`CHIAMATA_WIN`): measured on close decisions of hands against `normal`, against 2,000-world
# values, the cards chosen lost 0.2 points a decision more (4 -> 0.75). Elsewhere the values
# are card points, where one point can decide the hand, and there is no such stop (0): in
# due, 1 point lost 0.07 card points a close decision (and 3 points, 4.5 card points a game
# against `hard1126`), 0.5 saved almost no worlds.
SE_STOP = 3.0
SE_STOP_POINTS = 0.0
# Elsewhere close calls stop at this many worlds instead (on the clock): in due they were an
# eighth of `hard`'s decisions and half its thinking, at a median of 505 worlds (p90 739).
# On 187 such decisions of hands against `normal`, against a 4,000-world evaluation, 250
# worlds lost 0.12 card points a decision more, at 57% of the CPU; with the override at one
# standard error (`Z_OVERRIDE_POINTS`), 0.08 less. Due against `hard1126` (400 paired deals,
# seeds 2024 and 2025): -0.26 [-2.69, +2.17] and +2.00 [-0.38, +4.38] card points a game,
# thinking 0.52 s a hand against 1.62 s (32%); the cap alone measured -1.78 [-3.76, +0.19].
MAX_WORLDS_POINTS = 250
# chiamata: winning the hand is worth this many card points more. Measured against normal
# (200 paired deals, §7.12 score per seat-hand): 30 -> +0.048, 60 -> +0.090, 100 -> +0.073.
CHIAMATA_WIN = 60.0
# The judgement the search is anchored on (and breaks ties with): `NORMAL` at every table.
# `normal`'s own chiamata judgement (`NORMAL_CHIAMATA`, which keeps its high briscole) measured
# no better as the anchor (hard-normal, 400 paired deals, seed 2024: +0.113 [+0.070, +0.155]
# a seat-hand, against +0.121 [+0.081, +0.161] with this one), and the rollouts, which spend
# high briscole freely, disagree with it a little more: the precision stop (`SE_STOP`) lost
# 0.41 and 0.58 card points a decision more than searching to the limit (on the 40 and 80
# decisions of `tests/test_search_cost.py`), 0.38 and 0.46 with this anchor.
ANCHOR = NORMAL


class HardPlayer:
    name = "hard"

    def __init__(
        self,
        rng: random.Random,
        budget: float = DEFAULT_BUDGET,
        iterations: int | None = None,
        min_worlds: int = 16,
        z: float = 1.25,
        z_override: float | None = None,
        *,
        guard_bare: bool = True,
        guard_called: bool = True,
        guard_load: bool = True,
        se_stop: float | None = None,
        max_worlds: int | None = None,
        solve_tricks: int = SOLVE_TRICKS,
        fast_nodes: int = FAST_MAX_NODES,
        learned_value: bool = False,
        learned_infer: bool = False,
        learned_bid: bool = False,
        bid_shift: float = BID_SHIFT,
        learned_due: bool = True,
        partner_judgement: bool = True,
        learned_card: bool = False,
    ) -> None:
        self._rng = rng
        self.budget = budget
        self.iterations = iterations
        self.min_worlds = min_worlds
        self.z = z
        self.z_override = z_override  # None: by variant (`Z_OVERRIDE`, `Z_OVERRIDE_POINTS`)
        self.guard_bare = guard_bare  # chiamata: no bare carico lead against the judgement
        self.guard_called = guard_called  # chiamata: the hidden socio's called card, likewise
        self.guard_load = guard_load  # chiamata: a defender's carico onto the caller's trick
        self.se_stop = se_stop  # None: by variant (`SE_STOP`, `SE_STOP_POINTS`)
        self.max_worlds = max_worlds  # on the clock; None: by variant (`MAX_WORLDS_POINTS`)
        self.solve_tricks = solve_tricks  # chiamata: tricks solved exactly (`exact_cards`)
        self.fast_nodes = fast_nodes  # ... and the compiled solver's node limit per world
        self.learned_value = learned_value  # chiamata: the value network, not rollouts
        self.learned_infer = learned_infer  # ... the inference network places the cards
        self.learned_bid = learned_bid  # ... the bidding network, not rollouts, bids
        self.bid_shift = bid_shift  # ... its logits moved by this much (`HardBidder`)
        self.learned_due = learned_due  # due: the due network's card before the exact tricks
        self.partner_judgement = partner_judgement  # chiamata: see `act` (`partners`)
        self.learned_card = learned_card  # chiamata (five): the card network's anchor
        self.last_worlds = 0  # worlds evaluated by the last decision (for tests and benches)
        self.last_means: dict[int, float] = {}  # ... and, if it chose among moves, their means

    def _deadline(self) -> float:
        if self.iterations is not None:
            return math.inf
        return clock() + self.budget * SAFETY

    def act(self, obs: Observation) -> int:
        deadline = self._deadline()
        self.last_worlds = 0
        self.last_means = {}
        legal = obs.legal
        if len(legal) == 1:
            return legal[0]
        if obs.phase != "play":
            # on the clock, the auction's earlier decisions' deals are reused (`recent_deals`);
            # with fixed iterations every decision samples its own, for reproducible tests
            deals = recent_deals(obs) if self.iterations is None else None
            bidder = HardBidder(
                self._rng,
                deadline,
                self.iterations,
                deals,
                learned=self.learned_bid,
                shift=self.bid_shift,
            )
            if obs.phase == "auction":
                return bidder.bid(obs)
            if obs.phase == "name_suit":
                return A.NAME_SUIT + bidder.name_suit(obs)
            return A.CALL_CARD + bidder.call_card(obs)
        move = obvious_move(obs, self._rng)
        if move is not None:
            return move
        cards = card_actions(obs)
        know = self._knowledge(obs)
        moves = distinct_moves(obs, know, cards)
        if len(moves) == 1:
            return moves[0]
        if self.learned_due and not self._exact_late(obs) and due_net.available(obs):
            # Due before the last ten cards: the due network's card (`normal`'s), not the
            # rollouts'. Its values are `normal`'s own play's, learned from 704,000 decisions
            # each played out; the greedy rollouts' are a weaker player's. Against `hard41`
            # (300 paired deals): the network as the search's anchor +1.97 [+0.17, +3.77]
            # card points a game, `normal` with it +3.80 [+2.04, +5.56].
            worth = due_net.card_values(obs, moves)
            scores = score_cards(obs, know, moves, ANCHOR)
            return max(moves, key=lambda c: (worth[c], scores[c], -c))
        if self.partner_judgement and obs.rules.chiamata and friend_takes(obs, know):
            # The trick is certainly the side's (a known partner takes it and
            # nothing unseen beats it): the judgement's card (a carico onto it, never a
            # briscola over it for nothing), not the worlds', which trumped such tricks
            # 1.7-2.7 times in 100 and loaded 95% of them (normal: never and 100%)
            scores = score_cards(obs, know, moves, NORMAL)
            return max(moves, key=lambda c: (scores[c], -c))
        return self._search(obs, know, moves, deadline)

    def _knowledge(self, obs: Observation) -> Knowledge:
        """What the seat knows of the hidden cards (the bench's seers know more)."""
        return Knowledge.of(obs, learned=self.learned_infer)

    def _playout(self, state: HandState, rng: random.Random, stop_at_empty: bool) -> None:
        """Play a world on from a card to be valued: the greedy `rollout` (the bench's
        models of the other seats, `bench.diagnose`, play it otherwise)."""
        rollout(state, rng, stop_at_empty=stop_at_empty)

    # ------------------------------------------------------------------ PIMC

    def _search(self, obs: Observation, know: Knowledge, moves: list[int], deadline: float) -> int:
        rng = self._rng
        play_rng = random.Random(0)
        me = obs.seat
        k = len(moves)
        target = obs.target if obs.rules.chiamata else 61
        rules = obs.rules
        deck = rules.deck
        suit, strength, points = deck.suit, deck.strength, deck.points
        n_players = rules.n_players
        memo: dict[tuple[tuple[int, ...], tuple[int, ...], bool], int] = {}
        se_stop = self.se_stop
        if se_stop is None:
            se_stop = SE_STOP if rules.chiamata else SE_STOP_POINTS
        z_override = self.z_override
        if z_override is None:
            z_override = Z_OVERRIDE if rules.chiamata else Z_OVERRIDE_POINTS

        solve_ok = [True]  # cleared if a world's tree is too big to solve in time
        learned: list[bool | None] = [None]  # the value network applies (its first world)
        # Two players without obligations: each rollout stops when the talon is gone and the
        # last tricks (everything known then) are solved exactly.
        finish = n_players == 2 and rules.plays_per_trick == 1 and not rules.follow_suit

        def evaluate(world: World, cards: list[int]) -> list[float]:
            state = HandState.from_observation(obs, world)
            sides = sides_of(state)
            my_side = sides[me]
            two = len(set(sides)) == 2
            mine = tuple(s == my_side for s in sides)
            if two and solve_ok[0] and self._solvable(state):
                base = side_points(state, my_side, sides)
                try:
                    if FastSolver.applicable(state):
                        exact = fast_solver().root_values(state, mine, cards, self.fast_nodes)
                    else:
                        exact = Solver(state, mine, max_nodes=MAX_NODES).root_values(cards)
                    return [_utility(base + v, my_side, target, two, obs) for v in exact]
                except (SolverLimit, SolveLimit):
                    solve_ok[0] = False  # rollouts from now on
            if self.learned_value and two:
                if learned[0] is None:
                    learned[0] = value_net.available(state)
                if learned[0]:
                    return value_net.card_values(state, cards, my_side == 0, CHIAMATA_WIN)
            seed = rng.getrandbits(32)
            stop = finish and two
            out = []
            for c in cards:
                s = state.clone()
                s.apply(c)
                play_rng.seed(seed)  # the same stream for every card: paired estimates
                self._playout(s, play_rng, stop)
                pts: float = side_points(s, my_side, sides)
                if s.phase == PLAY:  # stopped where the talon ran out: solve the rest
                    lead = s.current
                    pts += solve_two(
                        tuple(sorted(s.hands[lead])),
                        tuple(sorted(s.hands[1 - lead])),
                        mine[lead],
                        s.briscola,
                        suit,
                        strength,
                        points,
                        memo,
                    )
                out.append(_utility(pts, my_side, target, two, obs))
            return out

        prior = score_cards(obs, know, moves, ANCHOR)  # the judgement: anchor and tie-break
        judged = max(moves, key=lambda c: (prior[c], -c))  # the judgement's own card
        if self.learned_card and not self._exact_late(obs) and card_net.available(obs):
            # Chiamata with five, before the tricks solved exactly: the card network's
            # values (`normal`'s action values where the cards really lie) are the anchor the
            # rollouts must clearly beat, the judgement's only the tie-break.
            worth = card_net.card_values(obs, moves, CHIAMATA_WIN)
            prior = {c: worth[c] + 0.001 * prior[c] for c in moves}
        if self.guard_load and rules.chiamata and rules.n_players >= 5:
            # No defender's carico onto a trick the caller's side may be taking
            # with someone still to play, whatever the worlds or the judgement say: in them
            # the seats behind take such tricks back more often than real ones do. Five
            # players only: with four (two defenders) it measured no better (-0.025
            # [-0.057, +0.007] a seat-hand against `hard` without it, 300 paired deals).
            losing = carichi_onto_callers_side(obs)
            kept = [m for m in moves if m not in losing]
            if kept and len(kept) < len(moves):
                if len(kept) == 1:
                    return kept[0]
                moves = kept
                k = len(moves)
        if know.count_worlds() <= ENUMERATE and self._exact_late(obs):
            # Few worlds left, each solved exactly: weigh them all.
            totals = [0.0] * k
            weight = 0.0
            listed = know.enumerate_worlds()
            rng.shuffle(listed)
            for world, w in listed:
                if w <= 0.0:
                    continue
                vals = evaluate(world, moves)
                if not solve_ok[0]:
                    weight = 0.0
                    break
                for i, v in enumerate(vals):
                    totals[i] += w * v
                weight += w
                self.last_worlds += 1
                if clock() >= deadline:
                    break
            if weight > 0.0:
                best = max(range(k), key=lambda i: (totals[i], prior[moves[i]]))
                return moves[best]
        values: list[list[float]] = [[] for _ in range(k)]
        max_worlds = self.iterations or self.max_worlds
        if max_worlds is None:
            max_worlds = 100_000 if rules.chiamata else MAX_WORLDS_POINTS
        worlds = 0
        exact = False
        # The judgement's choice is the anchor: rollout estimates (biased by the rollout
        # policy, noisy) must beat it clearly to override it; exact ones just pick the best.
        anchor: int | None = max(range(k), key=lambda i: (prior[moves[i]], -moves[i]))
        active = list(range(k))  # the moves still evaluated (`_prune` drops the others)
        if self.guard_bare and rules.chiamata and not obs.trick and not self._exact_late(obs):
            # A bare carico led into the briscole is the rollouts' blind spot
            # (their greedy seats misjudge it); the search leads one only where the
            # judgement would. Not in the tricks solved exactly: guarding them too, from
            # four tricks out, measured +0.122 [+0.080, +0.163] a seat-hand against `normal`
            # instead of +0.135 [+0.094, +0.176] (400 paired deals, seed 2024).
            bare = [i for i in active if _bare_carico(obs, know, moves[i])]
            if anchor not in bare:
                active = [i for i in active if i not in bare]
                if len(active) == 1:
                    return moves[active[0]]
        called = obs.called_card
        if (
            self.guard_called
            and rules.chiamata
            and me == obs.partner != obs.caller
            and not obs.partner_revealed
            and called in moves
            and anchor is not None
            and judged != called
            and not self._exact_late(obs)
        ):
            # Playing the called card gives the socio away, which the rollouts
            # value at little (their seats' play hardly changes with it); the hidden socio
            # plays it only where the judgement would (the card network, anchor or not,
            # plays it early: in 12.7% of socios' first tricks against 2.3%).
            active = [i for i in active if moves[i] != called]
            if len(active) == 1:
                return moves[active[0]]
            if moves[anchor] == called:  # the card network's anchor
                anchor = max(active, key=lambda i: (prior[moves[i]], -moves[i]))
        while worlds < max_worlds:
            world = know.sample_world(rng)
            if worlds == 0:
                exact = self._exact_late(obs) and self._solvable(
                    HandState.from_observation(obs, world)
                )
            vals = evaluate(world, [moves[i] for i in active])
            for i, v in zip(active, vals, strict=True):
                values[i].append(v)
            exact = exact and solve_ok[0]
            worlds += 1
            if clock() >= deadline:
                break
            if worlds >= self.min_worlds and worlds % 4 == 0:
                # both stops of this search's own (chiamata): precision, and comparing the
                # rest once the anchor is beaten by all (elsewhere nothing was gained by it)
                active = self._prune(
                    values, active, None if exact else anchor, z_override, se_stop > 0
                )
                if anchor not in active:
                    anchor = None  # overridden beyond doubt: the best of the rest is chosen
                if len(active) == 1 or (
                    se_stop > 0 and not exact and _precise(values, active, anchor, se_stop)
                ):
                    break
        self.last_worlds = worlds
        anchor = None if exact else anchor
        return moves[self._choose(values, active, anchor, prior, moves, z_override)]

    def _choose(
        self,
        values: list[list[float]],
        active: list[int],
        anchor: int | None,
        prior: dict[int, float],
        moves: list[int],
        z_override: float = Z_OVERRIDE,
    ) -> int:
        """The move with the best mean among those still evaluated; with an anchor, another
        move only if it beats the anchor clearly (by `OVERRIDE`, `z_override` errors)."""
        if len(active) == 1:
            return active[0]
        means = {i: sum(values[i]) / len(values[i]) for i in active}
        self.last_means = {moves[i]: m for i, m in means.items()}
        best = max(active, key=lambda i: (means[i], prior[moves[i]]))
        if anchor is None or best == anchor:
            return best
        m, half = _paired(values[best], values[anchor], z_override)
        if m > OVERRIDE and m > half:
            return best
        return anchor

    def _exact_late(self, obs: Observation) -> bool:
        """Whether each world would be solved exactly (so enumerating them is exact)."""
        left = sum(obs.hand_sizes) + obs.talon_left
        exact = exact_cards(obs.rules, self.solve_tricks)
        return left <= exact and obs.rules.plays_per_trick == 1

    def _solvable(self, state: HandState) -> bool:
        """Whether this world is solved exactly: by `FastSolver` once the talon is gone
        (chiamata: always), else by `Solver` from `SOLVE_CARDS` cards."""
        left = sum(len(h) for h in state.hands) + state.talon_left()
        if left > exact_cards(state.rules, self.solve_tricks):
            return False
        return FastSolver.applicable(state) or (left <= SOLVE_CARDS and Solver.applicable(state))

    def _prune(
        self,
        values: list[list[float]],
        active: list[int],
        anchor: int | None,
        z_override: float = Z_OVERRIDE,
        drop_anchor: bool = True,
    ) -> list[int]:
        """The moves worth more worlds (successive elimination, on paired differences over
        the same worlds, `z` standard errors). Without an anchor: a move is dropped once the
        best one leads it clearly, or once it is known to be within `INDIFFERENT` points of
        the best (the choice between them no longer matters). With an anchor: a move is
        dropped once it clearly cannot beat the anchor by `OVERRIDE` — it could not be chosen
        over it — or once another move clearly beats it; the anchor is dropped once every
        move left beats it beyond doubt (with `drop_anchor`; else only once one move is left
        that does). Evaluation stops when one move is left."""
        z = self.z
        means = {i: sum(values[i]) / len(values[i]) for i in active}
        best = max(active, key=lambda i: means[i])
        keep = []
        for i in active:
            if i == anchor:
                keep.append(i)
                continue
            if i != best:
                m, half = _paired(values[best], values[i], z)
                if m > half or (anchor is None and half <= INDIFFERENT):
                    continue  # clearly worse than the best, or as good as it
            if anchor is not None:
                m, half = _paired(values[i], values[anchor], z)
                if m + half < OVERRIDE:
                    continue  # cannot be chosen over the anchor
            keep.append(i)
        if anchor is not None and len(keep) > 1:
            # the anchor is overridden beyond doubt by every move left (`_choose`'s test, but
            # at `Z_STOP`: looked at every few worlds, a looser test would stop on chance
            # leads and override the judgement too often): it goes, and the rest are compared
            # among themselves
            zs = max(Z_STOP, z_override)
            others = [i for i in keep if i != anchor]
            if (drop_anchor or len(others) == 1) and all(
                _beyond(values[i], values[anchor], zs) for i in others
            ):
                return others
        return keep


def exact_cards(rules: Rules, solve_tricks: int = SOLVE_TRICKS) -> int:
    """From how many cards in play (hands and talon) `hard` solves each world exactly: in
    chiamata the last `solve_tricks` tricks, elsewhere `SOLVE_CARDS` or, if more, every card
    once the talon is gone (a full hand each: quattro 12, sei 18)."""
    if rules.chiamata:
        return solve_tricks * rules.n_players
    return max(SOLVE_CARDS, rules.hand_size * rules.n_players)


def _paired(a: list[float], b: list[float], z: float) -> tuple[float, float]:
    """Mean of a - b over the worlds both were evaluated in (the first ones), and `z`
    standard errors of it."""
    n = min(len(a), len(b))
    if n <= 1:
        return 0.0, math.inf
    d = [a[j] - b[j] for j in range(n)]
    m = sum(d) / n
    var = sum((x - m) ** 2 for x in d) / n
    return m, z * math.sqrt(var / (n - 1.0))


def _precise(
    values: list[list[float]], active: list[int], anchor: int | None, se_stop: float
) -> bool:
    """Whether the rollout estimates already decide the choice to within `se_stop` points:
    every move's difference to the anchor (without one: to the best) is known to within that
    standard error. More worlds would only tell apart cards this close."""
    ref = anchor
    if ref is None:
        ref = max(active, key=lambda i: sum(values[i]) / len(values[i]))
    return all(_paired(values[i], values[ref], 1.0)[1] <= se_stop for i in active if i != ref)


def _beyond(a: list[float], b: list[float], z: float) -> bool:
    """Whether `a` beats `b` by more than `OVERRIDE`, by `z` standard errors."""
    m, half = _paired(a, b, z)
    return m - half > OVERRIDE


def _bare_carico(obs: Observation, know: Knowledge, card: int) -> bool:
    """A lead of a plain Asso, or a plain Tre while its Asso is still out."""
    deck = obs.rules.deck
    if deck.suit[card] == obs.briscola or deck.points[card] < 10:
        return False
    if deck.points[card] == 11:
        return True
    return any(deck.suit[x] == deck.suit[card] and deck.points[x] == 11 for x in know.unseen)


def carichi_onto_callers_side(obs: Observation) -> set[int]:
    """A defender's plain carichi (Asso, Tre) that would not take the trick in front of it
    when the caller's side may be taking it (the caller's, the revealed socio's, or, the socio
    hidden, one taken with a briscola) and someone is still to play after it; else none."""
    rules = obs.rules
    if (
        not obs.trick
        or obs.caller < 0
        or obs.carichi
        or obs.seat in (obs.caller, obs.partner)
        or len(obs.trick) >= rules.n_players - 1
    ):
        return set()
    deck = rules.deck
    suit, strength, points = deck.suit, deck.strength, deck.points
    b = obs.briscola
    cards = [c for _, c in obs.trick]
    w = trick_winner(cards, suit, strength, b)
    taker, w_card = obs.trick[w]
    if obs.partner_revealed:
        if taker not in (obs.caller, obs.partner):
            return set()
    elif taker != obs.caller and suit[w_card] != b:
        return set()
    return {
        c
        for c in obs.hand
        if suit[c] != b and points[c] >= 10 and trick_winner((w_card, c), suit, strength, b) == 0
    }


def _utility(pts: float, my_side: int, target: int, two_sides: bool, obs: Observation) -> float:
    if not two_sides:
        return float(pts)
    if obs.rules.chiamata:
        caller_side = my_side == 0
        won = pts >= target if caller_side else pts > 120 - target
        return pts + (CHIAMATA_WIN if won else -CHIAMATA_WIN)
    return float(pts)  # card points decide the hand (and the points formats, §4.3)


def distinct_moves(obs: Observation, know: Knowledge, cards: list[int]) -> list[int]:
    """Drop cards that play exactly like another one: same suit and points, and no card
    between them in strength that anyone else could play (keeps the weaker). The called card
    is never one of them until it has been played: it shows who the socio is (§7.6)."""
    deck = obs.rules.deck
    suit, strength, points = deck.suit, deck.strength, deck.points
    called = -1 if obs.partner_revealed else obs.called_card
    elsewhere = set(know.unseen)
    for cs in know.known.values():
        elsewhere.update(cs)
    elsewhere.update(c for _, c in obs.trick)
    out: list[int] = []
    for c in sorted(cards, key=lambda x: (suit[x], strength[x])):
        if c == called:
            continue
        if out:
            p = out[-1]
            if suit[p] == suit[c] and points[p] == points[c]:
                lo, hi = strength[p], strength[c]
                if not any(suit[x] == suit[c] and lo < strength[x] < hi for x in elsewhere):
                    continue
        out.append(c)
    if called in cards:
        out.append(called)
        out.sort(key=lambda x: (suit[x], strength[x]))
    return out

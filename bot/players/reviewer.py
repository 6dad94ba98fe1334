"""The judging of a review (issue 51, `bot.players.review`): `Reviewer` values the moves of
one decision (`Judgement`) in the worlds its player could not tell apart, or with every hand
seen; `Judgement.decision` says what the move made cost, within the noise (`NOISE`). The
bids, the suit named and the card called are valued on `bot.players.review_bids`' contracts."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from bot.engine import actions as A
from bot.engine.cards import card_id
from bot.engine.state import AUCTION, CALL_CARD, NAME_SUIT, PLAY, HandState
from bot.players.fastsolve import FastSolver, SolveLimit, fast_solver
from bot.players.hard import exact_cards
from bot.players.knowledge import Knowledge
from bot.players.review_bids import Contracts, worth
from bot.players.review_data import DEFAULT_BUDGET, INFO, OPEN, Budget, Decision, Judged, Kind
from bot.players.search import Solver, SolverLimit, rollout, side_points, sides_of

NOISE = 0.05
"""A cost is reported only when the best move beats the move made clearly: by more than the
estimate's standard error (worlds or deals sampled, rollouts) times the normal quantile of
1 - NOISE / 2 / (moves - 1) (two-sided, Bonferroni over the other moves: the best of many
noisy alternatives beats the move made by chance more often than one does). Within that,
the cost is 0: the move made is as good as any the review can tell apart."""


def noise_z(moves: int) -> float:
    """The standard errors a cost must clear among `moves` moves (`NOISE`)."""
    return NormalDist().inv_cdf(1.0 - NOISE / 2.0 / max(1, moves - 1))


UNSURE = 1.0
"""More worlds are sampled while a move trails the best one by between `UNSURE` and
`noise_z + UNSURE` standard errors: whether it would cost something is still open."""


def _unsure(table: Sequence[Sequence[float]], z: float) -> bool:
    """Whether a move's gap to the best one (`table`: per world, each move's value) is still
    too close to the noise threshold to tell (`UNSURE`); it does not depend on which move
    was made, so that the review's own choice is judged as it was chosen."""
    n = len(table)
    if n < 2:
        return False
    k = len(table[0])
    means = [sum(row[i] for row in table) / n for i in range(k)]
    best = max(range(k), key=lambda i: means[i])
    for i in range(k):
        gap = means[best] - means[i]
        if i == best or gap <= 0:
            continue
        d = [row[best] - row[i] for row in table]
        var = sum((x - gap) ** 2 for x in d) / n
        se = (var / (n - 1)) ** 0.5
        if se > 0 and UNSURE <= gap / se <= z + UNSURE:
            return True
    return False


@dataclass(frozen=True, slots=True)
class Judgement:
    """The values of the moves of one decision, before knowing which was made: one move per
    class of moves that play alike (`members`), its value per world (or deal, or rollout)
    in `samples`, averaged with `weights` into `values`."""

    seat: int
    index: int
    kind: Kind
    moves: tuple[int, ...]
    samples: tuple[tuple[float, ...], ...]  # per move, per world
    weights: tuple[float, ...]  # per world
    members: Mapping[int, tuple[int, ...]]  # a move of `moves` -> the moves it stands for
    judged: Judged
    exact: bool  # every world solved exactly
    complete: bool  # every world there is (no sampling error: exact values)

    @property
    def values(self) -> tuple[tuple[int, float], ...]:
        total = sum(self.weights)
        return tuple(
            (m, sum(w * v for w, v in zip(self.weights, row, strict=True)) / total)
            for m, row in zip(self.moves, self.samples, strict=True)
        )

    def best(self) -> int:
        """The move judged best (ties: the first in `moves`)."""
        values = self.values
        top = max(v for _, v in values)
        return next(a for a, v in values if v >= top)

    def representative(self, action: int) -> int:
        for rep, group in self.members.items():
            if action in group:
                return rep
        raise ValueError(f"action {action} was not judged")

    def error(self, a: int, b: int) -> float:
        """The standard error of value(a) - value(b), paired over the worlds (0 when every
        world was solved exactly)."""
        if self.complete:
            return 0.0
        ra = self.samples[self.moves.index(a)]
        rb = self.samples[self.moves.index(b)]
        w = self.weights
        total = sum(w)
        n_eff = total * total / sum(x * x for x in w)
        if n_eff <= 1.0:
            return 0.0
        d = [x - y for x, y in zip(ra, rb, strict=True)]
        mean = sum(wi * di for wi, di in zip(w, d, strict=True)) / total
        var = sum(wi * (di - mean) ** 2 for wi, di in zip(w, d, strict=True)) / total
        return float((var / (n_eff - 1.0)) ** 0.5)

    def decision(self, move: int, label: Callable[[int], str]) -> Decision:
        """The decision made with `move`: its cost against the best move, 0 within noise."""
        rep = self.representative(move)
        value = dict(self.values)
        made = value[rep]
        top = self.best()
        gap = value[top] - made
        cost = 0.0
        best = move
        error = self.error(top, rep) if top != rep else 0.0
        if top != rep and gap > 0 and gap > noise_z(len(self.moves)) * error:
            cost, best = gap, top
        others = [v for a, v in value.items() if a != rep]
        return Decision(
            seat=self.seat,
            index=self.index,
            kind=self.kind,
            move=move,
            best=best,
            cost=cost,
            margin=made - max(others) if others else 0.0,
            error=error,
            judged=self.judged,
            exact=self.exact,
            worlds=len(self.weights),
            move_value=made,
            best_value=made + cost,
            values=tuple(value.items()),
            move_label=label(move),
            best_label=label(best),
        )


@dataclass(frozen=True, slots=True)
class _Plan:
    """The worlds a card decision is judged in (a world repeated: rollouts of it)."""

    worlds: tuple[HandState, ...]
    weights: tuple[float, ...]
    seeds: tuple[int, ...]  # the rollout's random stream per world
    solve: bool  # each world solved exactly
    complete: bool  # every world there is


class Reviewer:
    """Judges the decisions of one hand (dealt as `start`), deterministically given `seed`.
    `judge(state)` may be asked for any position of that hand, in any order."""

    def __init__(
        self,
        start: HandState,
        *,
        seed: int | str = 0,
        budget: Budget = DEFAULT_BUDGET,
        mode: Judged = INFO,
    ) -> None:
        if mode not in (INFO, OPEN):
            raise ValueError(f"mode must be {INFO!r} or {OPEN!r}")
        self.start = start.clone()
        self.seed = seed
        self.budget = budget
        self.mode = mode
        self.rules = start.rules
        self._bids = Contracts(self.start, seed, budget, mode)
        self._play_rng = random.Random(0)

    def judge(self, state: HandState) -> Judgement | None:
        """The decision of the seat to act in `state`, or None when it has no choice that
        matters (one move, or only moves that play alike; a signal or a blind pick)."""
        if state.is_terminal():
            return None
        if state.phase == PLAY:
            return self._judge_card(state)
        return self._judge_bid(state)

    # ------------------------------------------------------------------ cards

    def _judge_card(self, state: HandState) -> Judgement | None:
        if self.rules.blind:
            return None
        seat = state.current
        cards = [a for a in state.legal_actions() if A.is_card(a)]
        members = move_classes(state, seat, cards)
        if len(members) < 2:
            return None
        reps = sorted(members)
        plan, table = self._evaluate(state, reps)
        return Judgement(
            seat=seat,
            index=len(state.actions),
            kind="card",
            moves=tuple(reps),
            samples=tuple(tuple(row[i] for row in table) for i in range(len(reps))),
            weights=plan.weights,
            members=members,
            judged=self.mode,
            exact=plan.solve,
            complete=plan.solve and plan.complete,
        )

    def _evaluate(self, state: HandState, reps: list[int]) -> tuple[_Plan, list[list[float]]]:
        """The worlds a card decision is judged in and each move's value in each: every
        world there is when they are few, else sampled ones, more of them (up to
        `Budget.extend` times) while the judgement is unsure of a move (`_unsure`)."""
        seat = state.current
        budget = self.budget
        rng = random.Random(f"review:{self.seed}:{len(state.actions)}")
        left = sum(len(h) for h in state.hands) + state.talon_left()
        z = noise_z(len(reps))
        if self.mode == OPEN:
            world = state.clone()
            world.hands = [sorted(h) for h in world.hands]  # the rollouts follow the order
            if left <= self._exact_limit(budget.open_exact_tricks) and _solvable(world):
                table = self._worlds_values([(world, 1.0)], seat, reps, True, [0])
                if table is not None:
                    return _Plan((world,), (1.0,), (0,), True, True), table

            def rollouts(n: int) -> list[tuple[HandState, int]]:
                return [(world, rng.getrandbits(32)) for _ in range(n)]

            return self._grow(rollouts, seat, reps, False, budget.open_rollouts, z)
        obs = state.observation(seat)
        know = Knowledge.of(obs)
        solve = left <= self._exact_limit(budget.exact_tricks)
        count = budget.exact_worlds if solve else budget.worlds
        if know.count_worlds() <= count:
            listed = [(HandState.from_observation(obs, w), p) for w, p in know.enumerate_worlds()]
            listed = [(w, p) for w, p in listed if p > 0]
            for w, _ in listed:
                w.hands = [sorted(h) for h in w.hands]
            seeds = [rng.getrandbits(32) for _ in listed]
            solve = solve and all(_solvable(w) for w, _ in listed)
            table = self._worlds_values(listed, seat, reps, solve, seeds) if solve else None
            if table is None:
                solve = False
                table = self._worlds_values(listed, seat, reps, False, seeds)
            if listed and table is not None:
                plan = _Plan(
                    tuple(w for w, _ in listed),
                    tuple(p for _, p in listed),
                    tuple(seeds),
                    solve,
                    True,
                )
                return plan, table

        def sampled(n: int) -> list[tuple[HandState, int]]:
            out = []
            for _ in range(n):
                w = HandState.from_observation(obs, know.sample_world(rng))
                w.hands = [sorted(h) for h in w.hands]  # the rollouts follow the order
                out.append((w, rng.getrandbits(32)))
            return out

        return self._grow(sampled, seat, reps, solve, count, z)

    def _grow(
        self,
        more: Callable[[int], list[tuple[HandState, int]]],
        seat: int,
        reps: list[int],
        solve: bool,
        count: int,
        z: float,
    ) -> tuple[_Plan, list[list[float]]]:
        """`count` worlds from `more` (each with its rollout seed), then half as many again
        at a time while `_unsure`, up to `Budget.extend` times `count`; solved exactly while
        every world can be, else by rollouts (the worlds already valued too)."""
        cap = max(count, round(count * self.budget.extend))
        step = max(1, count // 2)
        entries: list[tuple[HandState, int]] = []
        table: list[list[float]] = []
        want = count
        while True:
            new = more(want - len(entries))
            entries += new
            got = None
            if solve and all(_solvable(w) for w, _ in new):
                got = self._worlds_values(
                    [(w, 1.0) for w, _ in new], seat, reps, True, [0] * len(new)
                )
            if got is None and solve:  # beyond the node limit, or not solvable: rollouts
                solve = False
                new = entries
                table = []
            if got is None:
                got = self._worlds_values(
                    [(w, 1.0) for w, _ in new], seat, reps, False, [s for _, s in new]
                )
                assert got is not None
            table += got
            if len(entries) >= cap or not _unsure(table, z):
                break
            want = min(cap, len(entries) + step)
        plan = _Plan(
            tuple(w for w, _ in entries),
            (1.0,) * len(entries),
            tuple(s for _, s in entries),
            solve,
            False,
        )
        return plan, table

    def replay_value(self, state: HandState, move: int) -> float:
        """The value `judge(state)` gives the card `move`, found again by playing the hand
        out from `move` (or the card that stands for it, `move_classes`) in each of the
        decision's worlds: the same rollout, or, where the worlds are solved exactly, every
        seat playing the card the exact search values best for its side (the mover's side
        against the others) to the end of the hand."""
        seat = state.current
        cards = [a for a in state.legal_actions() if A.is_card(a)]
        members = move_classes(state, seat, cards)
        reps = sorted(members)
        move = next(rep for rep, group in members.items() if move in group)
        plan, _ = self._evaluate(state, reps)
        total = 0.0
        for world, weight, seed in zip(plan.worlds, plan.weights, plan.seeds, strict=True):
            sides = sides_of(world)
            my_side = sides[seat]
            st = world.clone()
            st.apply(move)
            if plan.solve:
                mine = tuple(s == my_side for s in sides)
                while not st.is_terminal():
                    legal = [a for a in st.legal_actions() if A.is_card(a)]
                    got = self._solve(st, mine, legal)
                    assert got is not None
                    pick = max if mine[st.current] else min
                    st.apply(legal[got.index(pick(got))])
            else:
                rng = random.Random(0)
                rng.seed(seed)
                rollout(st, rng)
            total += weight * worth(st, my_side, side_points(st, my_side, sides))
        return total / sum(plan.weights)

    def _solve(
        self, world: HandState, mine: tuple[bool, ...], cards: list[int]
    ) -> list[float] | None:
        """Exact card points `mine` still wins after each of `cards`; None beyond the limit."""
        limit = self.budget.max_nodes
        try:
            if FastSolver.applicable(world):
                return fast_solver().root_values(world, mine, cards, limit)
            return Solver(world, mine, max_nodes=limit).root_values(cards)
        except (SolveLimit, SolverLimit):
            return None

    def _exact_limit(self, tricks: int) -> int:
        rules = self.rules
        if rules.chiamata:
            return tricks * rules.n_players
        return exact_cards(rules)

    def _worlds_values(
        self,
        worlds: list[tuple[HandState, float]],
        seat: int,
        reps: list[int],
        solve: bool,
        seeds: list[int],
    ) -> list[list[float]] | None:
        out = []
        for (world, _), s in zip(worlds, seeds, strict=True):
            vals = self._world_values(world, seat, reps, solve, [s])
            if vals is None:
                return None
            out.append(vals)
        return out

    def _world_values(
        self, world: HandState, seat: int, reps: list[int], solve: bool, seeds: Sequence[int]
    ) -> list[float] | None:
        """Each move's value in one world: exact (None beyond the node limit), else the mean
        of one rollout per seed (the same seeds for every move)."""
        sides = sides_of(world)
        my_side = sides[seat]
        if solve:
            mine = tuple(s == my_side for s in sides)
            got = self._solve(world, mine, reps)
            if got is None:
                return None
            base = side_points(world, my_side, sides)
            return [worth(world, my_side, base + v) for v in got]
        rng = self._play_rng
        out = []
        for move in reps:
            total = 0.0
            for s in seeds:
                st = world.clone()
                st.play_unchecked(move)
                rng.seed(s)
                rollout(st, rng)
                total += worth(st, my_side, side_points(st, my_side, sides))
            out.append(total / len(seeds))
        return out

    # ------------------------------------------------------------------ bids

    def _judge_bid(self, state: HandState, made: int | None = None) -> Judgement | None:
        legal = state.legal_actions()
        if len(legal) < 2:
            return None
        seat = state.current
        c = self._bids
        count = self.budget.bid_deals
        cap = max(count, round(count * self.budget.bid_extend))
        c.n = count
        while True:
            kind, rows = self._bid_rows(state, seat, legal, made)
            moves = tuple(rows)
            table = [[rows[a][d] for a in moves] for d in range(c.n)]
            if c.n >= cap or not _unsure(table, noise_z(len(moves))):
                break
            c.n = min(cap, c.n + max(1, count // 2))
        return Judgement(
            seat=seat,
            index=len(state.actions),
            kind=kind,
            moves=moves,
            samples=tuple(tuple(rows[a]) for a in moves),
            weights=(1.0,) * c.n,
            members={a: (a,) for a in moves},
            judged=self.mode,
            exact=False,
            complete=False,
        )

    def _bid_rows(
        self, state: HandState, seat: int, legal: list[int], made: int | None
    ) -> tuple[Kind, dict[int, list[float]]]:
        """Per move, its value on each of the first `Contracts.n` deals."""
        c = self._bids
        rows: dict[int, list[float]] = {}
        if state.phase == AUCTION:
            for a in legal:
                rows[a] = c.bid_values(state, seat, a)
            return "bid", rows
        if state.phase == NAME_SUIT:
            for a in legal:
                card = card_id(state.rank_bid, a - A.NAME_SUIT)
                rows[a] = c.values(seat, seat, card, state.target)
            return "suit", rows
        cards = set(c.card_candidates(seat))
        if made is not None and A.CALL_CARD <= made < A.SIGNAL:
            cards.add(made - A.CALL_CARD)
        for card in sorted(cards):
            rows[A.CALL_CARD + card] = c.values(seat, seat, card, state.target)
        return "call", rows

    def judge_made(self, state: HandState, move: int) -> Judgement | None:
        """`judge(state)` for the decision made with `move` (a card called after a points
        auction, §7.9, is judged among the candidates and itself)."""
        if state.phase == CALL_CARD:
            return self._judge_bid(state, move)
        return self.judge(state)


def _solvable(world: HandState) -> bool:
    if FastSolver.applicable(world):
        return True
    left = sum(len(h) for h in world.hands) + world.talon_left()
    return left <= 10 and Solver.applicable(world)


def move_classes(state: HandState, seat: int, cards: Sequence[int]) -> dict[int, tuple[int, ...]]:
    """`cards` grouped by how they play: same suit and points and no card still in play
    elsewhere (another hand, the talon, the table) between them in strength; the weakest
    stands for its group. The hidden socio's called card is always alone (§7.6)."""
    deck = state.rules.deck
    suit, strength, points = deck.suit, deck.strength, deck.points
    hand = set(state.hands[seat])
    played = {c for t in state.tricks for c in t.cards}
    elsewhere = [c for c in range(deck.size) if c not in hand and c not in played]
    called = -1 if state.reveal_trick >= 0 else state.called_card
    out: dict[int, tuple[int, ...]] = {}
    prev = -1
    for c in sorted(cards, key=lambda x: (suit[x], strength[x])):
        if (
            c != called
            and prev >= 0
            and prev != called
            and suit[prev] == suit[c]
            and points[prev] == points[c]
            and not any(
                suit[x] == suit[c] and strength[prev] < strength[x] < strength[c] for x in elsewhere
            )
        ):
            rep = next(r for r, g in out.items() if prev in g)
            out[rep] = (*out[rep], c)
            prev = c
            continue
        out[c] = (c,)
        prev = c
    return out


__all__ = ["NOISE", "UNSURE", "Judgement", "Reviewer", "move_classes", "noise_z"]

"""The review of a finished hand: what each decision cost (issue 51, "il colpo della mano").

    review = review_hand(record, seed=7)          # a `hand_record` dict, or a finished HandState
    review.costliest, review.best_move, review.decisions[i].cost
    review.to_json()                              # plain data for another process

Pure and deterministic given `seed` (no I/O, no clock: the effort is a count of worlds,
deals and rollouts, `Budget`), so a worker process can run it on the record of a hand and
hand back plain data: `Review` and `Decision` are frozen dataclasses of ints, floats and
strings (they pickle), with `to_dict`/`from_dict` and `to_json`.

A decision is a turn with at least two moves that play differently: a bid, the suit named
(§7.5) or the card called (§7.9), a points bid over the Two (§7.3), a card. Forced moves,
cards that play exactly alike (same suit and points, no card still in play between them: the
weaker stands for both; never the hidden socio's called card, §7.6), signals (§5.3) and
coperta's blind picks (§6.2) are not decisions. Each decision is judged by a value per move,
in the hand's own currency, for the mover's side:

- chiamata: the §7.12 score of the mover's side (caller with a socio +3/-3 with five players,
  alone +4/-4; four players +2/-2 and +3/-3; cappotto doubles), from the caller's side's card
  points through the target (§7.11). Cappotto is read as "zero card points" whatever the
  `cappotto` option (with `all_tricks` a side with only lisci is counted as cappotto);
- every other variant: the card points the mover's side holds at the end of the hand (§1.2).
  With three or more sides (tre, sei in pairs, four single players) the exact search is
  paranoid: the mover's side against all the others as one.

The cost of the move made is the value of the best move found minus the value of the move
made: never negative, and 0 when the move made is as good as any the review can tell apart
(the best move must beat it by more than the noise of the estimate, `NOISE`). How a card is
valued:

- judged with the player's information (`INFO`, the default): the worlds that seat cannot
  tell from the real one at that moment (`Knowledge.sample_world`, as `hard` samples them;
  every world, weighted, when there are few), each move valued in each world, averaged;
- judged with every hand seen (`OPEN`, double-dummy): the real deal only, the talon's order
  included (where a talon lasts, that makes early costs large: who draws which card is known).

In a world the value is exact (alpha-beta, `FastSolver`, or the Python `Solver` while a talon
lasts) near the end (chiamata: the last `Budget.exact_tricks` tricks with the player's
information, `open_exact_tricks` with every hand seen; elsewhere the cards `hard` solves:
ten, or every card once the talon is gone), else a greedy rollout (`search.rollout`, the same
random stream for every move of a world: common random numbers); with every hand seen,
several rollouts of the one world. `Reviewer.replay_value` plays a move out again in the
same worlds (the exact search's line of play to the end where they are solved).

Bids, the suit named and the card called are judged more roughly, on deals of the other cards
consistent with the bidder's hand (the same deals for every decision of that seat; OPEN: the
real deal, rollouts of it), each contract played out by the rollout with the sides open (as
`hard` bids) and scored through its target (§7.11-7.12). The auction's competition is not
modelled: a call is valued as if it won the auction there (a rank in the suit `normal` would
name with that hand, §7.5, at target 61; a points bid at its target, with the Two that scores
best, §7.3; auction=points with the best of a few candidate cards, §7.9), a pass as the
standing bid winning it (its bidder naming, in each deal, the suit `normal` rates best for its
hand), and as a void hand (0) when nothing stands (§7.4). The suit named is judged among the
four; the card called after a points auction among a few candidates (per suit the two
strongest cards missing from the hand, the strongest held with four or more of the suit) and
the card called.

The estimates are noisy where worlds are sampled: measured on hands of `normal` players, the
same review with another seed names another costliest decision in about half the chiamata
hands and most hands of briscola a due, and more worlds did not change that (`Budget`).
`python -m bench.review` measures the CPU a hand and both disagreements.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from statistics import NormalDist
from typing import Any, Literal

from bot.engine import actions as A
from bot.engine.cards import SUITS, Deck, card_id
from bot.engine.options import Options, Rules
from bot.engine.state import AUCTION, CALL_CARD, NAME_SUIT, PLAY, HandState, IllegalAction
from bot.players.bidding import suit_rating
from bot.players.fastsolve import FastSolver, SolveLimit, fast_solver
from bot.players.hard import exact_cards
from bot.players.knowledge import Knowledge
from bot.players.search import Solver, SolverLimit, rollout, side_points, sides_of

Judged = Literal["info", "open"]
INFO: Judged = "info"
OPEN: Judged = "open"
Kind = Literal["bid", "suit", "call", "card"]


@dataclass(frozen=True, slots=True)
class Budget:
    """The effort of a review, in counts (never the clock, so that it is deterministic).
    The default took 0.51 s of one core a chiamata hand on average, 0.74 s at most, with
    five `normal` players' records (`python -m bench.review`, docs/players.md)."""

    worlds: int = 24  # card decisions before the exact tricks: worlds sampled (INFO)
    exact_worlds: int = 12  # ... in the exact tricks: worlds, each solved exactly (INFO)
    open_rollouts: int = 24  # OPEN, before the exact tricks: rollouts per move
    bid_deals: int = 24  # bids, the suit, the card called: deals per seat (rollouts in OPEN)
    # Sampled worlds (deals) grow to this many times while a move is unsure (`_unsure`). Off
    # by default: on 16 hands a variant (normal players), three times the worlds at most
    # doubled the CPU and named the same costliest decision with another seed no more often
    # (due 4 hands of 16 against 3, chiamata 6 against 6), as did 64 worlds throughout.
    extend: float = 1.0  # card decisions
    bid_extend: float = 1.0  # bids, the suit, the card called
    exact_tricks: int = 3  # chiamata, INFO: exact from this many tricks from the end
    open_exact_tricks: int = 4  # chiamata, OPEN: likewise
    max_nodes: int = 400_000  # exact search per world beyond this: rollouts for the decision

    def scaled(self, factor: float) -> Budget:
        """Every count times `factor` (at least 1); the exact tricks stay."""
        if not factor > 0:
            raise ValueError("the budget factor must be positive")

        def times(n: int) -> int:
            return max(1, round(n * factor))

        return replace(
            self,
            worlds=times(self.worlds),
            exact_worlds=times(self.exact_worlds),
            open_rollouts=times(self.open_rollouts),
            bid_deals=times(self.bid_deals),
        )


DEFAULT_BUDGET = Budget()


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of one seat and what it cost (in the review's currency)."""

    seat: int
    index: int  # in the hand's action list (`HandState.actions`)
    kind: Kind
    move: int  # the action made
    best: int  # the best move found (the move made when none was better)
    cost: float  # value(best) - value(move), >= 0
    margin: float  # value(move) - the best value of any other move (> 0: it beat them all)
    error: float  # the standard error of value(best) - value(move) (0: every world solved)
    judged: Judged  # INFO: with the player's information; OPEN: every hand seen
    exact: bool  # every world solved exactly (else rollouts)
    worlds: int  # worlds (deals) the values are averaged over
    move_value: float  # the value of the move made, in the review's currency
    best_value: float  # ... and of the best move (cost = best_value - move_value, or 0)
    values: tuple[tuple[int, float], ...]  # (move, value) of one move of each kind judged
    move_label: str
    best_label: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "index": self.index,
            "kind": self.kind,
            "move": self.move_label,
            "best": self.best_label,
            "cost": round(self.cost, 4),
            "margin": round(self.margin, 4),
            "error": round(self.error, 4),
            "judged": self.judged,
            "exact": self.exact,
            "worlds": self.worlds,
            "move_value": round(self.move_value, 4),
            "best_value": round(self.best_value, 4),
            "move_action": self.move,
            "best_action": self.best,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Decision:
        """A decision back from `to_dict` (its values rounded; `values` is not kept)."""
        return cls(
            seat=int(data["seat"]),
            index=int(data["index"]),
            kind=data["kind"],
            move=int(data["move_action"]),
            best=int(data["best_action"]),
            cost=float(data["cost"]),
            margin=float(data["margin"]),
            error=float(data["error"]),
            judged=data["judged"],
            exact=bool(data["exact"]),
            worlds=int(data["worlds"]),
            move_value=float(data["move_value"]),
            best_value=float(data["best_value"]),
            values=(),
            move_label=str(data["move"]),
            best_label=str(data["best"]),
        )


@dataclass(frozen=True, slots=True)
class Review:
    """A finished hand's review: every decision judged, the costliest, the best move."""

    variant: str
    seed: int | str  # the hand's deal seed
    hand_index: int
    dealer: int
    review_seed: int | str
    mode: Judged
    currency: str  # "card points" or "score" (§7.12)
    decisions: tuple[Decision, ...]

    @property
    def costliest(self) -> Decision | None:
        """The decision that cost most (the first such), None when none cost anything."""
        best: Decision | None = None
        for d in self.decisions:
            if d.cost > 0 and (best is None or d.cost > best.cost):
                best = d
        return best

    @property
    def best_move(self) -> Decision | None:
        """The card play whose move beat every other move by the most (its `margin`), None
        when no card play beat all the others."""
        best: Decision | None = None
        for d in self.decisions:
            if d.kind == "card" and d.margin > 0 and (best is None or d.margin > best.margin):
                best = d
        return best

    def to_dict(self) -> dict[str, Any]:
        costliest = self.costliest
        best_move = self.best_move
        return {
            "variant": self.variant,
            "seed": self.seed,
            "hand_index": self.hand_index,
            "dealer": self.dealer,
            "review_seed": self.review_seed,
            "judged": self.mode,
            "currency": self.currency,
            "decisions": [d.to_dict() for d in self.decisions],
            "costliest": None if costliest is None else costliest.to_dict(),
            "best_move": None if best_move is None else best_move.to_dict(),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Review:
        """A review back from `to_dict` (or `json.loads(to_json())`)."""
        return cls(
            variant=str(data["variant"]),
            seed=data["seed"],
            hand_index=int(data["hand_index"]),
            dealer=int(data["dealer"]),
            review_seed=data["review_seed"],
            mode=data["judged"],
            currency=str(data["currency"]),
            decisions=tuple(Decision.from_dict(d) for d in data["decisions"]),
        )


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


def _worth(state: HandState, my_side: int, points: float) -> float:
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


# ------------------------------------------------------------------------------ records


def replay(hand: HandState | Mapping[str, Any]) -> tuple[HandState, list[tuple[int, int]]]:
    """The hand's deal (before any action) and its actions in order, from a finished
    `HandState` (dealt from its seed) or a `hand_record` dict (the deal written in it; the
    signals, §5.3, whose moment a record does not keep, are put at their sender's first turn
    where they are legal). Raises ValueError when the record does not replay to its tricks."""
    if isinstance(hand, HandState):
        start = HandState.deal(hand.options, hand.seed, hand.hand_index, hand.dealer)
        actions = list(hand.actions)
        check = hand.clone()
        probe = start.clone()
        try:
            for seat, action in actions:
                probe.apply(action, seat)
        except IllegalAction as exc:
            raise ValueError(f"the hand does not replay from its seed: {exc}") from None
        if probe.tricks != check.tricks or probe.bids != check.bids:
            raise ValueError("the hand does not replay from its seed: review its record")
        return start, actions
    return _replay_record(hand)


def _replay_record(record: Mapping[str, Any]) -> tuple[HandState, list[tuple[int, int]]]:
    try:
        options = Options.model_validate(record["options"])
        rules = options.rules()
        deck = rules.deck
        start = HandState.deal(
            options, record["seed"], int(record["hand_index"]), int(record["dealer"])
        )
        start.hands = [[deck.card(x) for x in h] for h in record["hands"]]
        start.talon = [deck.card(x) for x in record["talon"]]
        start.removed = [deck.card(x) for x in record["removed"]]
        turned = record.get("turned")
        start.turned = deck.card(turned) if turned else -1
        if not rules.chiamata:
            start.briscola = (
                -1 if rules.no_briscola or start.turned < 0 else deck.suit[start.turned]
            )
        if sorted(start.all_cards()) != list(range(deck.size)):
            raise ValueError("the record's deal is not one deck")
        state = start.clone()
        for seat, bid in record.get("auction") or []:
            if bid == "pass":
                action = A.PASS
            elif bid == "carichi":
                action = A.CARICHI
            elif int(bid) > 10:
                action = A.BID_POINTS + int(bid)
            else:
                action = A.CALL_RANK + int(bid)
            state.apply(action, int(seat))
        called = record.get("called_card")
        if state.phase == NAME_SUIT and called:
            state.apply(A.NAME_SUIT + deck.suit[deck.card(called)])
        elif state.phase == CALL_CARD and called:
            state.apply(A.CALL_CARD + deck.card(called))
        signals = [(int(s), A.SIGNAL + A.SIGNAL_NAMES.index(k)) for s, k in record["signals"]]
        for trick in record.get("tricks") or []:
            for seat, label in trick["plays"]:
                seat = int(seat)
                while signals and signals[0][0] == seat and signals[0][1] in state.legal_actions():
                    state.apply(signals.pop(0)[1], seat)
                card = deck.card(label)
                if rules.blind:  # coperta (§6.2): the card at its position, unseen
                    state.apply(A.BLIND + state.hands[seat].index(card), seat)
                else:
                    state.apply(card, seat)
        if signals:
            raise ValueError("a signal of the record was never legal")
        if not state.is_terminal():
            raise ValueError("the record's hand is not finished")
        got = [(t.winner, t.points) for t in state.tricks]
        want = [(int(t["winner"]), int(t["points"])) for t in record.get("tricks") or []]
        if got != want:
            raise ValueError("the record's tricks do not follow from its plays")
    except (KeyError, TypeError, ValueError, IllegalAction) as exc:
        raise ValueError(f"not a replayable hand record: {exc}") from None
    return start, list(state.actions)


# ------------------------------------------------------------------------------ judgements


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
        self._bids = _Contracts(self.start, seed, budget, mode)
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
            total += weight * _worth(st, my_side, side_points(st, my_side, sides))
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
            return [_worth(world, my_side, base + v) for v in got]
        rng = self._play_rng
        out = []
        for move in reps:
            total = 0.0
            for s in seeds:
                st = world.clone()
                st.play_unchecked(move)
                rng.seed(s)
                rollout(st, rng)
                total += _worth(st, my_side, side_points(st, my_side, sides))
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
        """Per move, its value on each of the first `_Contracts.n` deals."""
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


class _Contracts:
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


# ------------------------------------------------------------------------------ the review


def review_hand(
    hand: HandState | Mapping[str, Any],
    *,
    seed: int | str = 0,
    budget: Budget | float = DEFAULT_BUDGET,
    mode: Judged = INFO,
    seats: Collection[int] | None = None,
) -> Review:
    """Judge every decision of a finished hand (of `seats` only, if given): a `hand_record`
    dict or a finished `HandState` dealt from its seed. `budget`: a `Budget`, or a factor
    on the default one. `mode`: INFO (each decision judged with the worlds its player could
    not tell apart; bids on deals consistent with the bidder's hand) or OPEN (every hand
    seen). Deterministic given `seed`."""
    if not isinstance(budget, Budget):
        budget = DEFAULT_BUDGET.scaled(float(budget))
    start, actions = replay(hand)
    rules = start.rules
    if seats is not None:
        bad = [s for s in seats if not 0 <= s < rules.n_players]
        if bad:
            raise ValueError(f"no seat {bad[0]} at a table of {rules.n_players}")
    reviewer = Reviewer(start, seed=seed, budget=budget, mode=mode)
    state = start.clone()
    decisions: list[Decision] = []
    deck = rules.deck
    for seat, action in actions:
        if (seats is None or seat in seats) and not A.SIGNAL <= action < A.SIGNAL + 5:
            judgement = reviewer.judge_made(state, action)
            if judgement is not None:
                decisions.append(judgement.decision(action, lambda a: describe(a, deck)))
        state.apply(action, seat)
    return Review(
        variant=rules.variant,
        seed=start.seed,
        hand_index=start.hand_index,
        dealer=start.dealer,
        review_seed=seed,
        mode=mode,
        currency="score" if rules.chiamata else "card points",
        decisions=tuple(decisions),
    )


def describe(action: int, deck: Deck) -> str:
    """A move as the records write it: a card (`1D`), a rank called (`call 3`), `pass`,
    `carichi`, points (`64 points`), the suit named (`suit D`), the card called (`call 1D`)."""
    if A.is_card(action):
        return str(deck.label(action))
    if A.CALL_RANK <= action < A.BID_POINTS:
        return f"call {action - A.CALL_RANK}"
    if A.NAME_SUIT <= action < A.CALL_CARD:
        return f"suit {SUITS[action - A.NAME_SUIT]}"
    return A.describe(action, deck)


def reviewer_move(reviewer: Reviewer, state: HandState) -> int:
    """The move the review judges best for the seat to act (the first card when it has no
    choice that matters): a hand played so at every seat costs nothing anywhere."""
    j = reviewer.judge(state)
    if j is not None:
        return j.best()
    legal = state.legal_actions()
    cards = [a for a in legal if A.is_card(a) or A.BLIND <= a < A.CALL_RANK]
    return (cards or legal)[0]


__all__ = [
    "DEFAULT_BUDGET",
    "INFO",
    "OPEN",
    "Budget",
    "Decision",
    "Judgement",
    "Review",
    "Reviewer",
    "chiamata_side_score",
    "describe",
    "move_classes",
    "replay",
    "review_hand",
    "reviewer_move",
]

"""The compiled exact solver (`bot.players.fastsolve`) against the reference `Solver` and
against plain minimax on the engine: the same value for every card, on positions of every
variant it applies to (the talon gone, one card per seat per trick: §2.3 trick taking, §7.1
chiamata's every card dealt and no talon, §8.2 briscolone's obligation to follow)."""

from __future__ import annotations

import numpy as np
import pytest

from bench.solver import positions
from bot.engine import PLAY, HandState, Options
from bot.engine.tricks import trick_winner
from bot.players import make_player
from bot.players.fastsolve import FastSolver, SolveLimit
from bot.players.hard import exact_cards
from bot.players.search import Solver, sides_of
from tests.support.players import brute_force


def mine_of(state: HandState) -> tuple[bool, ...]:
    sides = sides_of(state)
    return tuple(s == sides[state.current] for s in sides)


@pytest.mark.parametrize(
    ("variant", "left"),
    [("chiamata", 15), ("chiamata4", 12), ("due", 6), ("quattro", 12), ("briscolone", 6)],
)
def test_fast_solver_matches_the_reference_solver(variant: str, left: int) -> None:
    solver = FastSolver()
    checked = 0
    for state in positions(variant, 5, 30, left):
        assert FastSolver.applicable(state)
        mine = mine_of(state)
        moves = state.legal_actions()
        expected = Solver(state, mine).root_values(moves)
        assert solver.root_values(state, mine, moves, 10**9) == expected
        checked += 1
    assert checked >= 25


def test_fast_solver_matches_minimax_on_the_engine() -> None:
    """Independent of `Solver`: every card of chiamata positions two tricks from the end,
    valued by minimax over the engine's own `apply` (the points taken in the trick under way
    included)."""
    solver = FastSolver()
    for state in positions("chiamata", 8, 12, 10):
        mine = mine_of(state)
        before = sum(t for s, t in enumerate(state.taken) if mine[s])
        moves = state.legal_actions()
        values = solver.root_values(state, mine, moves, 10**9)
        for move, v in zip(moves, values, strict=True):
            child = state.clone()
            child.apply(move)
            gained = sum(t for s, t in enumerate(child.taken) if mine[s]) - before
            assert v == gained + brute_force(child, mine)


def test_fast_solver_gives_up_beyond_its_node_limit() -> None:
    solver = FastSolver()
    state = next(positions("chiamata", 3, 1, 20))
    moves = state.legal_actions()
    with pytest.raises(SolveLimit):
        solver.root_values(state, mine_of(state), moves, 50)
    # and the tables it left behind do not spoil the next solve
    assert solver.root_values(state, mine_of(state), moves, 10**9) == Solver(
        state, mine_of(state)
    ).root_values(moves)


def test_fast_solver_does_not_apply_while_the_talon_lasts() -> None:
    state = HandState.deal(Options.parse("due"), 1, 0, 0)
    assert state.talon_left() and not FastSolver.applicable(state)
    assert not FastSolver.applicable(HandState.deal(Options.parse("chiamata"), 1, 0, 0))  # §7.2


def test_kernel_trick_taking_matches_the_engine() -> None:
    """§2.3 (and §8.2's no-briscola table): the kernel's one-card step names the same taker as
    the engine's `trick_winner`, for every pair of cards and every briscola."""
    from bot.players import _solve_kernels

    for variant in ("chiamata", "briscolone", "briskula32"):
        deck = Options.parse(variant).rules().deck
        rows = np.zeros((4, 40), dtype=np.int64)  # the kernels' deck table: suit, strength
        rows[_solve_kernels.SUIT, : deck.size] = deck.suit
        rows[_solve_kernels.STRENGTH, : deck.size] = deck.strength
        for b in (-1, 0, 1, 2, 3):
            for led in range(deck.size):
                for card in range(deck.size):
                    if card == led:
                        continue
                    beats = _solve_kernels._beats(card, led, rows, b)
                    expected = trick_winner((led, card), deck.suit, deck.strength, b) == 1
                    assert beats == expected


@pytest.mark.parametrize(
    ("variant", "raw", "cards"),
    [
        ("chiamata", {}, 20),  # no talon (§7.1): the last four tricks of five cards
        ("quattro", {}, 12),  # from when the talon is gone (§3.4, §5.2): three tricks of four
        ("sei", {"teams": "threes"}, 18),  # likewise, three tricks of six (§5.4)
    ],
)
def test_hard_solves_worlds_exactly_late_in_the_hand(
    monkeypatch: pytest.MonkeyPatch, variant: str, raw: dict[str, str], cards: int
) -> None:
    """Each world of `hard`'s search is solved by the compiled solver once `exact_cards` or
    fewer cards are in play (hands and talon): in chiamata four tricks out, elsewhere from
    when the talon is gone (at least the last ten cards); before that it rolls out."""
    calls: list[int] = []
    real = FastSolver.root_values

    def spy(self: FastSolver, state: HandState, *args: object, **kw: object) -> list[float]:
        calls.append(sum(len(h) for h in state.hands) + state.talon_left())
        return real(self, state, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(FastSolver, "root_values", spy)
    options = Options.parse(variant, raw)
    n = options.rules().n_players
    exact = exact_cards(options.rules())
    assert exact == cards
    searched = {"early": 0, "late": 0}
    for k in range(6):
        state = HandState.deal(options, 21, k, k % n)
        bots = [make_player("hard", f"x{k}:{s}", iterations=6) for s in range(n)]
        while not state.is_terminal():
            seat = state.current
            before = len(calls)
            obs = state.observation(seat)
            action = bots[seat].act(obs)
            worlds = bots[seat].last_worlds  # type: ignore[attr-defined]
            if state.phase == PLAY and worlds:
                left = sum(len(h) for h in state.hands) + state.talon_left()
                if left <= exact:
                    searched["late"] += 1
                    assert len(calls) - before == worlds  # every world solved exactly
                else:
                    searched["early"] += 1
                    assert len(calls) == before
            state.apply(action, seat)
    assert searched["late"] >= 20 and searched["early"] >= 20
    assert calls and max(calls) <= exact

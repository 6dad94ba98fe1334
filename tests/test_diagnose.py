"""The diagnostic's bench-only players (issue 41 §1, `bench/hard_variants.py`)."""

from __future__ import annotations

import random
import time

from bench import frozen, hard_variants, seers
from bench.strength import BASELINES, ISSUE_41
from bot.engine import HandState, Options
from bot.engine.observation import Observation
from bot.players import make_player
from bot.players.common import use_clock
from bot.players.hard import HardPlayer, exact_cards
from bot.players.normal import NormalPlayer


class Spy:
    name = "spy"

    def __init__(self) -> None:
        self.phases: list[str] = []

    def act(self, obs: Observation) -> int:
        self.phases.append(str(obs.phase))
        return obs.legal[-1]


def test_split_bids_with_one_player_and_plays_with_the_other() -> None:
    """§7.2-7.5 go to the bidder (auction, naming the suit), §2 play to the player."""
    bidder, player = Spy(), Spy()
    split = hard_variants.Split(bidder, player)
    state = HandState.deal(Options.parse("chiamata"), 1, 0, 0)
    while not state.is_terminal():
        seat = state.current
        state.apply(split.act(state.observation(seat)), seat)
    assert bidder.phases and set(bidder.phases) <= {"auction", "name_suit"}
    assert "auction" in bidder.phases and set(player.phases) == {"play"}
    assert len(player.phases) == 40


def test_the_diagnostic_players_think_as_named() -> None:
    """10x and 100x the time, exact from five and six tricks out (§7.1: 25 and 30 cards)."""
    rules = Options.parse("chiamata").rules()
    assert set(hard_variants.PLAYERS) <= set(BASELINES)
    seer10 = hard_variants.hardseer10(random.Random(1), 0.2, None)
    seer100 = hard_variants.hardseer100(random.Random(1), 0.2, None)
    deep5 = hard_variants.harddeep5(random.Random(1), 0.2, None)
    assert isinstance(seer10, seers.Seer) and isinstance(seer100, seers.Seer)
    assert isinstance(deep5, HardPlayer) and not isinstance(deep5, seers.Seer)
    assert (seer10.budget, exact_cards(rules, seer10.solve_tricks)) == (2.0, 25)
    assert (seer100.budget, exact_cards(rules, seer100.solve_tricks)) == (20.0, 30)
    assert (deep5.budget, exact_cards(rules, deep5.solve_tricks)) == (2.0, 25)


def test_hard_measures_its_budget_on_the_clock_it_is_given() -> None:
    """`bench.strength --clock cpu` hands the players a clock (`use_clock`): `hard`'s budget
    runs out on it, whatever the wall time. A clock that jumps a second a reading ends each
    search after its first world; on the real clock the same decision searches more."""
    options = Options.parse("chiamata")
    state = HandState.deal(options, 4, 0, 0)
    bots = [make_player("normal", f"c{s}") for s in range(5)]
    while state.phase != "play" or len(state.tricks) < 1:
        seat = state.current
        state.apply(bots[seat].act(state.observation(seat)), seat)
    obs = state.observation(state.current)
    ticks = iter(range(10**6))
    try:
        use_clock(lambda: float(next(ticks)))
        jumpy = HardPlayer(random.Random(1), budget=0.2, guard_bare=False, guard_called=False)
        jumpy.act(obs)
        assert jumpy.last_worlds <= 1
        # the frozen baselines too (`bench.frozen`: today's clock in the code of that day)
        frozen41 = frozen.hard_at(ISSUE_41, random.Random(1), 0.2, None)
        frozen41.guard_bare = frozen41.guard_called = False
        frozen41.act(obs)
        assert frozen41.last_worlds <= 1
    finally:
        use_clock(time.perf_counter)
    steady = HardPlayer(random.Random(1), budget=0.2, guard_bare=False, guard_called=False)
    steady.act(obs)
    assert steady.last_worlds > 4


def _mid_trick_chiamata(seed: int) -> HandState:
    """A chiamata hand of `normal` players two tricks and two cards in (§7.6-7.9)."""
    state = HandState.deal(Options.parse("chiamata"), seed, 0, 0)
    bots = [make_player("normal", f"m{seed}:{s}") for s in range(5)]
    while state.phase != "play" or len(state.tricks) < 2 or len(state.trick) < 2:
        seat = state.current
        state.apply(bots[seat].act(state.observation(seat)), seat)
    return state


def test_the_normal_model_plays_the_worlds_as_normal_would() -> None:
    """`normal_playout`: every seat plays `normal`'s card on its own observation (the trick
    under way only, with `trick_only`, then the greedy rollout to the hand's end, §2.3)."""
    for seed in (3, 8):
        start = _mid_trick_chiamata(seed)
        base = random.Random(5).getrandbits(30)
        expected = start.clone()
        bots = [NormalPlayer(random.Random(base + s)) for s in range(5)]
        while not expected.is_terminal():
            seat = expected.current
            expected.apply(bots[seat].act(expected.observation(seat)), seat)
        whole = start.clone()
        hard_variants.normal_playout(whole, random.Random(5), False, False)
        assert whole.is_terminal()
        assert [t.cards for t in whole.tricks] == [t.cards for t in expected.tricks]
        assert whole.taken == expected.taken
        one = start.clone()
        hard_variants.normal_playout(one, random.Random(5), False, True)
        assert one.is_terminal() and sum(one.taken) == 120
        assert one.tricks[2].cards == expected.tricks[2].cards  # the trick under way


def test_the_model_players_value_cards_by_the_normal_model() -> None:
    """`hardn` and `hardseern` play each world on with `normal` (their `_playout`), and
    choose a legal card; `hard`'s own rollouts are not touched."""
    state = _mid_trick_chiamata(3)
    obs = state.observation(state.current)
    calls: list[bool] = []
    real = hard_variants.normal_playout

    def spy(state: HandState, rng: random.Random, stop: bool, trick_only: bool) -> None:
        calls.append(trick_only)
        real(state, rng, stop, trick_only)

    hard_variants.normal_playout = spy  # type: ignore[assignment]
    try:
        for name, trick_only in (("hardn", False), ("hardn1", True), ("hardseern1", True)):
            calls.clear()
            bot = BASELINES[name](random.Random(1), 0.2, 8)
            if isinstance(bot, seers.Seer):
                bot.state = state
            assert bot.act(obs) in obs.legal
            assert calls and set(calls) == {trick_only}
        calls.clear()
        assert HardPlayer(random.Random(1), 0.2, 8).act(obs) in obs.legal
        assert not calls
    finally:
        hard_variants.normal_playout = real
    assert BASELINES["hardn5"](random.Random(1), 0.2, None).budget == 1.0  # type: ignore[attr-defined]

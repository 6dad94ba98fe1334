"""The diagnostic's bench-only players (issue 41 §1, `bench/diagnose.py`)."""

from __future__ import annotations

import random
import time

from bench import diagnose, frozen, seers
from bench.strength import BASELINES, ISSUE_41
from bot.engine import HandState, Options
from bot.engine.observation import Observation
from bot.players import make_player
from bot.players.common import use_clock
from bot.players.hard import HardPlayer, exact_cards


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
    split = diagnose.Split(bidder, player)
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
    assert set(diagnose.PLAYERS) <= set(BASELINES)
    seer10 = diagnose.hardseer10(random.Random(1), 0.2, None)
    seer100 = diagnose.hardseer100(random.Random(1), 0.2, None)
    deep5 = diagnose.harddeep5(random.Random(1), 0.2, None)
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

"""The diagnostic's bench-only players (issue 41): `hard` split into its auction and its card
play, seers that see every hand, deeper searches, models of the opponents; `PLAYERS` names
them for `bench.strength`'s matchups and `bench.diagnose`'s table (see its docstring for what
each one is)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TypeVar

from bench.seers import Seer
from bot.engine.observation import Observation
from bot.engine.state import PLAY, HandState
from bot.players.base import Player
from bot.players.hard import HardPlayer
from bot.players.normal import NormalPlayer
from bot.players.search import rollout


class Split:
    """One player's auction (bids, the suit, the called card) and another's card play."""

    name = "split"

    def __init__(self, bidder: Player, player: Player) -> None:
        self.bidder = bidder
        self.player = player

    def act(self, obs: Observation) -> int:
        return (self.player if obs.phase == "play" else self.bidder).act(obs)


def hardbid(rng: random.Random, budget: float, iterations: int | None) -> Player:
    return Split(HardPlayer(rng, budget, iterations), NormalPlayer(rng))


def hardplay(rng: random.Random, budget: float, iterations: int | None) -> Player:
    return Split(NormalPlayer(rng), HardPlayer(rng, budget, iterations))


def hardseer10(rng: random.Random, budget: float, iterations: int | None) -> Player:
    return Seer(rng, 10 * budget, iterations, False, solve_tricks=5, fast_nodes=4_000_000)


def hardseer100(rng: random.Random, budget: float, iterations: int | None) -> Player:
    return Seer(rng, 100 * budget, iterations, False, solve_tricks=6, fast_nodes=150_000_000)


def harddeep5(rng: random.Random, budget: float, iterations: int | None) -> Player:
    return HardPlayer(rng, 10 * budget, iterations, solve_tricks=5, fast_nodes=4_000_000)


def normal_playout(
    state: HandState, rng: random.Random, stop_at_empty: bool, trick_only: bool
) -> None:
    """Play a world on with `normal` in every seat (each on its own observation of it), to
    the end of the hand or (`trick_only`) to the end of the trick under way, then the
    greedy `rollout`. Chiamata only (elsewhere the greedy rollout throughout)."""
    if state.rules.chiamata:
        base = rng.getrandbits(30)  # the card's stream (the same for every card of a world)
        bots = [NormalPlayer(random.Random(base + s)) for s in range(state.rules.n_players)]
        tricks = len(state.tricks)
        while state.phase == PLAY and not (trick_only and len(state.tricks) > tricks):
            seat = state.current
            state.apply(bots[seat].act(state.observation(seat)), seat)
    if state.phase == PLAY:
        rollout(state, rng, stop_at_empty=stop_at_empty)


class NormalModel:
    """For `HardPlayer` and its seers: the worlds played on by `normal` (`normal_playout`),
    for the trick under way only where `trick_only` (see `modelled`)."""

    trick_only = False

    def _playout(self, state: HandState, rng: random.Random, stop_at_empty: bool) -> None:
        normal_playout(state, rng, stop_at_empty, self.trick_only)


class HardModel(NormalModel, HardPlayer):
    """`hard` whose sampled worlds are played on by `normal`."""


class SeerModel(NormalModel, Seer):
    """The seer whose world (the real one) is played on by `normal`."""


Modelled = TypeVar("Modelled", bound=NormalModel)


def modelled(bot: Modelled, trick_only: bool) -> Modelled:
    bot.trick_only = trick_only
    return bot


def learned(level: str, **parts: bool) -> Callable[..., Player]:
    """`hard` or `normal` with some of their learned parts (issue 41 §2), to measure each
    (`learned_value`, `learned_infer`, `learned_bid`, `learned_due`, `learned_card`: see the
    players)."""

    def make(rng: random.Random, budget: float, iterations: int | None) -> Player:
        due, infer = parts.get("learned_due", False), parts.get("learned_infer", False)
        bid = parts.get("learned_bid", False)
        if level == "normal":
            return NormalPlayer(rng, learned_due=due, learned_infer=infer, learned_bid=bid)
        return HardPlayer(
            rng,
            budget,
            iterations,
            learned_value=parts.get("learned_value", False),
            learned_infer=infer,
            learned_bid=bid,
            learned_due=due,
            learned_card=parts.get("learned_card", False),
        )

    return make


PLAYERS = {
    "hardbid": hardbid,
    "hardplay": hardplay,
    "hardseer10": hardseer10,
    "hardseer100": hardseer100,
    "harddeep5": harddeep5,
    "hardseern": lambda rng, budget, iterations: SeerModel(rng, budget, iterations, False),
    "hardseern1": lambda rng, budget, iterations: modelled(
        SeerModel(rng, budget, iterations, False), True
    ),
    "hardn": lambda rng, budget, iterations: HardModel(rng, budget, iterations),
    "hardn1": lambda rng, budget, iterations: modelled(HardModel(rng, budget, iterations), True),
    "hardn5": lambda rng, budget, iterations: HardModel(rng, 5 * budget, iterations),
    "hardv": learned("hard", learned_value=True),
    "hardi": learned("hard", learned_infer=True),
    "hardb": learned("hard", learned_bid=True),
    "hardvib": learned("hard", learned_value=True, learned_infer=True, learned_bid=True),
    "hardd": learned("hard", learned_due=True),
    "hardc": learned("hard", learned_due=True, learned_card=True),
    "normald": learned("normal", learned_due=True),
    "normali": learned("normal", learned_infer=True),
    "normalb": learned("normal", learned_bid=True),
    "normalib": learned("normal", learned_infer=True, learned_bid=True),
}
MATCHUPS = ("hard", "hardbid", "hardplay", "hardseer", "hardseer10", "hardseer100", "harddeep5")

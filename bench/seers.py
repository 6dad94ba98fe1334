"""Bench-only `hard` players that see more than their seat may: the ceiling of what better
reading of the hidden cards could give `hard`'s search (issue 17).

- `hardseer`: in the play phase every world it searches is the real deal (it sees every hand).
- `hardsocio`: it knows who the socio is (chiamata): its worlds are sampled as `hard`'s are,
  keeping only those that give the called card to the real socio.

The bidding is `hard`'s own. `bench.strength` hands them the real state before each move
(`Seer.state`). Never a player of the bot: they cheat.
"""

from __future__ import annotations

import random
from typing import cast

from bot.engine.observation import Observation
from bot.engine.state import HandState, World
from bot.players.hard import FAST_MAX_NODES, SOLVE_TRICKS, HardPlayer
from bot.players.knowledge import Knowledge

# `hardsocio`: samples drawn to find one that gives the called card to the real socio
TRIES = 200


class _Seeing:
    """A seat's `Knowledge` whose worlds agree with the real deal (all of it, or only on who
    holds the called card); everything else is the seat's own knowledge."""

    def __init__(self, know: Knowledge, state: HandState, socio_only: bool) -> None:
        self._know = know
        self._state = state
        self._socio_only = socio_only

    def __getattr__(self, name: str) -> object:
        return getattr(self._know, name)

    def _agrees(self, world: World) -> bool:
        s = self._state
        if s.called_card < 0 or s.reveal_trick >= 0:
            return True
        return s.called_card in world.hands[s.partner]

    def count_worlds(self) -> int:
        return 1 if not self._socio_only else self._know.count_worlds()

    def enumerate_worlds(self) -> list[tuple[World, float]]:
        if not self._socio_only:
            return [(self._state.world(), 1.0)]
        listed = self._know.enumerate_worlds()
        return [(w, x) for w, x in listed if self._agrees(w)] or listed

    def sample_world(self, rng: random.Random) -> World:
        if not self._socio_only:
            return self._state.world()
        for _ in range(TRIES):
            world = self._know.sample_world(rng)
            if self._agrees(world):
                break
        return world


class Seer(HardPlayer):
    """`hard` whose card-play search sees the real deal (`socio_only`: only who the socio
    is); `state` is set by the bench before each move. `solve_tricks` and `fast_nodes` as
    `HardPlayer`'s (the diagnostic's seers that think longer, `bench.diagnose`)."""

    def __init__(
        self,
        rng: random.Random,
        budget: float,
        iterations: int | None,
        socio_only: bool,
        *,
        solve_tricks: int = SOLVE_TRICKS,
        fast_nodes: int = FAST_MAX_NODES,
    ) -> None:
        super().__init__(rng, budget, iterations, solve_tricks=solve_tricks, fast_nodes=fast_nodes)
        self.socio_only = socio_only
        self.state: HandState | None = None

    def _knowledge(self, obs: Observation) -> Knowledge:
        know = super()._knowledge(obs)
        if self.state is None:
            return know
        return cast(Knowledge, _Seeing(know, self.state, self.socio_only))

"""`random`: uniform over the legal actions."""

from __future__ import annotations

import random

from bot.engine.observation import Observation


class RandomPlayer:
    name = "random"

    def __init__(self, rng: random.Random) -> None:
        self._random = rng.random

    def act(self, obs: Observation) -> int:
        legal = obs.legal
        return legal[int(self._random() * len(legal))]

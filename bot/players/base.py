"""The player interface."""

from __future__ import annotations

from typing import Protocol

from bot.engine.observation import Observation


class Player(Protocol):
    """A computer player. `act` gets only what its seat may see and returns a legal action."""

    name: str

    def act(self, obs: Observation) -> int: ...

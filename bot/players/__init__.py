"""Computer players. A player sees only `observation(seat)` and answers with an action.

Levels: `easy`, `normal` (the default for the bot), `hard` (search, a time budget per move);
`random` and `simple` stay for tests and benchmarks.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from bot.players.base import Player
from bot.players.easy import EasyPlayer
from bot.players.hard import DEFAULT_BUDGET, HardPlayer
from bot.players.normal import NormalPlayer
from bot.players.random_player import RandomPlayer
from bot.players.simple import SimplePlayer

PLAYERS: dict[str, Callable[[random.Random], Player]] = {
    "random": RandomPlayer,
    "simple": SimplePlayer,
    "easy": EasyPlayer,
    "normal": NormalPlayer,
    "hard": HardPlayer,
}
LEVELS = ("easy", "normal", "hard")
DEFAULT_LEVEL = "normal"


_settings = {"budget": DEFAULT_BUDGET}


def configure(*, budget: float | None = None) -> None:
    """Process-wide defaults: `budget`, the `hard` player's seconds per decision."""
    if budget is not None:
        if not budget > 0:
            raise ValueError("the time budget must be positive")
        _settings["budget"] = budget


def make_player(
    name: str, seed: int | str = 0, *, budget: float | None = None, iterations: int | None = None
) -> Player:
    """Build the computer player `name` with its own random stream. `budget` (seconds per
    decision, default `configure`'s) and `iterations` (fixed worlds per decision instead of
    the clock) apply to `hard`."""
    try:
        factory = PLAYERS[name]
    except KeyError:
        known = ", ".join(sorted(PLAYERS))
        raise ValueError(f"unknown player {name!r}; known players: {known}") from None
    rng = random.Random(f"player:{name}:{seed}")
    if factory is HardPlayer:
        return HardPlayer(
            rng, budget=_settings["budget"] if budget is None else budget, iterations=iterations
        )
    return factory(rng)


__all__ = ["DEFAULT_LEVEL", "LEVELS", "PLAYERS", "Player", "configure", "make_player"]

"""Computer players. A player sees only `observation(seat)` and answers with an action."""

from __future__ import annotations

import random
from collections.abc import Callable

from bot.players.base import Player
from bot.players.random_player import RandomPlayer
from bot.players.simple import SimplePlayer

PLAYERS: dict[str, Callable[[random.Random], Player]] = {
    "random": RandomPlayer,
    "simple": SimplePlayer,
}


def make_player(name: str, seed: int | str = 0) -> Player:
    """Build the computer player `name` with its own random stream."""
    try:
        factory = PLAYERS[name]
    except KeyError:
        known = ", ".join(sorted(PLAYERS))
        raise ValueError(f"unknown player {name!r}; known players: {known}") from None
    return factory(random.Random(f"player:{name}:{seed}"))


__all__ = ["PLAYERS", "Player", "make_player"]

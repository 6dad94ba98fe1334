"""Small decisions every level above `easy` shares: signals (§5.3) and blind play (§6.2); the
clock of the players' time budgets."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from bot.engine import actions as A
from bot.engine.observation import Observation

# The clock `hard`'s budgets are measured on: wall time, a move's real delay at the table. A
# bench may count the process's CPU time instead (`bench.strength --clock cpu`), so that on a
# machine shared with other work the search gets the thinking it is measured at.
_clock: list[Callable[[], float]] = [time.perf_counter]


def clock() -> float:
    """Now, on the clock the players' time budgets are measured on (`use_clock`)."""
    return _clock[0]()


def use_clock(fn: Callable[[], float]) -> None:
    """Measure the players' time budgets on `fn` from now on (in this process)."""
    _clock[0] = fn


def signal_to_send(obs: Observation) -> int | None:
    """§5.3: tell the partner about the briscola Asso or Tre (once each), else nothing."""
    for k in (0, 1):
        if A.SIGNAL + k in obs.legal:
            return A.SIGNAL + k
    return None


def blind_choice(obs: Observation, rng: random.Random) -> int | None:
    """Coperta (§6.2): the cards are unseen, so any position is as good as another."""
    blind = [a for a in obs.legal if A.BLIND <= a < A.CALL_RANK]
    if not blind:
        return None
    return blind[int(rng.random() * len(blind))]


def card_actions(obs: Observation) -> list[int]:
    return [a for a in obs.legal if A.is_card(a)]


def obvious_move(obs: Observation, rng: random.Random) -> int | None:
    """A card-play move that needs no thought: a blind position (§6.2), a signal (§5.3), or the
    only card there is. None when the player must choose."""
    blind = blind_choice(obs, rng)
    if blind is not None:
        return blind
    signal = signal_to_send(obs)
    if signal is not None:
        return signal
    cards = card_actions(obs)
    return cards[0] if len(cards) == 1 else None

"""Tricks: a completed trick's record and who takes a trick (RULES.md §2.3, §8.3, §9.2)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple


class Trick(NamedTuple):
    leader: int
    seats: tuple[int, ...]  # in playing order (a seat appears twice in doppia)
    cards: tuple[int, ...]  # cards[i] was played by seats[i]
    winner: int
    points: int

    @property
    def plays(self) -> tuple[tuple[int, int], ...]:
        return tuple(zip(self.seats, self.cards, strict=True))


def take(
    cards: Sequence[int],
    suit: Sequence[int],
    strength: Sequence[int],
    points: Sequence[int],
    briscola: int,
) -> tuple[int, int]:
    """Who takes the trick `cards` (in playing order, the led card first), or would take it
    if it ended now, and the points in it: `(index in cards, points)`. The highest briscola
    takes, else the highest card of the led suit; a card of another suit that is not
    briscola never takes (§2.3, and §9.2 for doppia's two rounds). Without a briscola
    (`briscola` -1: Briscolone §8.3, carichi §7.8) the highest card of the led suit.
    `suit`, `strength` and `points` are the deck's tables.

    The one definition of the rule: the engine resolves tricks with it and players judge
    tricks with it. The two-card endgame solver (`search.solve_two`) keeps an inline copy for
    speed, and the rollout (`search.rollout`) follows the trick one card at a time with
    `search._beats`; a test checks both against this (`tests/test_properties.py`)."""
    best = 0
    best_card = cards[0]
    pts = points[best_card]
    for i in range(1, len(cards)):
        c = cards[i]
        pts += points[c]
        if suit[c] == suit[best_card]:
            if strength[c] > strength[best_card]:
                best, best_card = i, c
        elif suit[c] == briscola:
            best, best_card = i, c
    return best, pts


_NO_POINTS = (0,) * 40  # every deck's card ids are below 40 (bot/engine/cards.py)


def trick_winner(
    cards: Sequence[int], suit: Sequence[int], strength: Sequence[int], briscola: int
) -> int:
    """Index in `cards` of the card that takes the trick, or would take it if it ended now:
    `take` without the points."""
    return take(cards, suit, strength, _NO_POINTS, briscola)[0]

"""Decks, card ids and card notation (RULES.md §1, §9.1).

A card is a plain ``int``. For the 40-card Italian deck the id is ``suit * 10 + (n - 1)`` where
``n`` is the Italian number 1..10 (1 Asso, 8 Fante, 9 Cavallo, 10 Re) and the suits are
0 denari, 1 coppe, 2 spade, 3 bastoni. The 32-card Briškula deck numbers its ranks
A, T, K, Q, J, 9, 8, 7 as 0..7 and its ids are ``suit * 8 + rank``.

Every table the hot path needs (suit, strength, points) is a tuple indexed by card id.
"""

from __future__ import annotations

from dataclasses import dataclass

SUITS = "DCSB"
"""Suit letters in suit-index order: denari, coppe, spade, bastoni."""

SUIT_NAMES_IT = ("denari", "coppe", "spade", "bastoni")
SUIT_NAMES_FRENCH_EN = ("diamonds", "hearts", "spades", "clubs")
SUIT_NAMES_FRENCH_IT = ("quadri", "cuori", "picche", "fiori")
SUIT_NAMES_EN = ("coins", "cups", "swords", "batons")

# Italian numbers 1..10 -> trick strength (higher wins) and card points (§1.1, §1.2).
_STRENGTH_40 = {1: 10, 3: 9, 10: 8, 9: 7, 8: 6, 7: 5, 6: 4, 5: 3, 4: 2, 2: 1}
_POINTS_40 = {1: 11, 3: 10, 10: 4, 9: 3, 8: 2, 7: 0, 6: 0, 5: 0, 4: 0, 2: 0}
# §1.3 `southern`: the Jack (Fante, 8) ranks and scores above the Queen (Cavallo, 9).
_STRENGTH_40_SOUTHERN = {**_STRENGTH_40, 9: 6, 8: 7}
_POINTS_40_SOUTHERN = {**_POINTS_40, 9: 2, 8: 3}

RANK_NAMES_IT = {
    1: "Asso",
    2: "Due",
    3: "Tre",
    4: "Quattro",
    5: "Cinque",
    6: "Sei",
    7: "Sette",
    8: "Fante",
    9: "Cavallo",
    10: "Re",
}
RANK_NAMES_EN = {
    1: "Ace",
    2: "Two",
    3: "Three",
    4: "Four",
    5: "Five",
    6: "Six",
    7: "Seven",
    8: "Jack",
    9: "Knight",
    10: "King",
}
RANK_NAMES_FRENCH_IT = {**RANK_NAMES_IT, 9: "Donna"}
RANK_NAMES_FRENCH_EN = {**RANK_NAMES_EN, 9: "Queen"}

# 32-card deck (§9.1): rank symbols in descending strength, and their points.
_RANKS_32 = ("A", "T", "K", "Q", "J", "9", "8", "7")
_POINTS_32 = (11, 10, 4, 3, 2, 0, 0, 0)


@dataclass(frozen=True, slots=True)
class Deck:
    """One deck's card tables. Immutable and shared by every state that uses it."""

    name: str
    size: int
    suit: tuple[int, ...]
    strength: tuple[int, ...]
    points: tuple[int, ...]
    number: tuple[int, ...]
    """Italian number 1..10 for the 40-card deck; 0..7 rank index for the 32-card deck."""
    symbols: tuple[str, ...]

    @property
    def total_points(self) -> int:
        return sum(self.points)

    def card(self, text: str) -> int:
        """Parse notation such as ``1D``, ``10S`` (40 cards) or ``TD``, ``9S`` (32 cards)."""
        try:
            return self.symbols.index(text.strip().upper())
        except ValueError:
            raise ValueError(f"not a card of the {self.name} deck: {text!r}") from None

    def label(self, card: int) -> str:
        return self.symbols[card]

    def auction_ranks(self) -> tuple[int, ...]:
        """Italian numbers from the strongest to the weakest, as this deck ranks them: the
        chiamata auction's order (§7.2; `southern` puts the Fante above the Cavallo, §1.3)."""
        numbers = sorted({self.number[c] for c in range(self.size)})
        return tuple(sorted(numbers, key=lambda n: -self.rank_power(n)))

    def rank_power(self, number: int) -> int:
        """Trick strength of an Italian number in this deck (suit-independent)."""
        return self.strength[self.number.index(number)]


def _italian40(name: str, strength: dict[int, int], points: dict[int, int]) -> Deck:
    ids = range(40)
    return Deck(
        name=name,
        size=40,
        suit=tuple(c // 10 for c in ids),
        strength=tuple(strength[c % 10 + 1] for c in ids),
        points=tuple(points[c % 10 + 1] for c in ids),
        number=tuple(c % 10 + 1 for c in ids),
        symbols=tuple(f"{c % 10 + 1}{SUITS[c // 10]}" for c in ids),
    )


def _deck32() -> Deck:
    ids = range(32)
    return Deck(
        name="briskula32",
        size=32,
        suit=tuple(c // 8 for c in ids),
        strength=tuple(8 - c % 8 for c in ids),
        points=tuple(_POINTS_32[c % 8] for c in ids),
        number=tuple(c % 8 for c in ids),
        symbols=tuple(f"{_RANKS_32[c % 8]}{SUITS[c // 8]}" for c in ids),
    )


DECK40 = _italian40("italian40", _STRENGTH_40, _POINTS_40)
DECK40_SOUTHERN = _italian40("italian40-southern", _STRENGTH_40_SOUTHERN, _POINTS_40_SOUTHERN)
DECK32 = _deck32()


def card_id(number: int, suit: int) -> int:
    """The 40-card id of Italian number 1..10 in suit 0..3."""
    return suit * 10 + number - 1

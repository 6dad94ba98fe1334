"""The phases of a hand, one enum for the state and its observations."""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    """A `StrEnum`: each phase equals its name as a plain string (``Phase.PLAY == "play"``),
    which is how observations, renderers and JSON show it."""

    AUCTION = "auction"  # chiamata: the auction (§7.2-7.4, §7.9)
    NAME_SUIT = "name_suit"  # chiamata, auction by rank: the caller names the suit (§7.5)
    CALL_CARD = "call_card"  # chiamata, auction by points: the winner calls a card (§7.9)
    PLAY = "play"  # card play
    OVER = "over"  # the hand is over (or everyone passed, §7.4)

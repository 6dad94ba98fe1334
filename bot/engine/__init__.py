"""The pure rules engine: no I/O, no Telegram, deterministic given a seed."""

from bot.engine.cards import DECK32, DECK40, DECK40_SOUTHERN, Deck
from bot.engine.match import HandRecord, Match, first_dealer
from bot.engine.observation import SPECTATOR, Observation, trick_order
from bot.engine.options import (
    MATCH_FORMATS,
    VARIANTS,
    Options,
    OptionsError,
    Rules,
)
from bot.engine.phase import Phase
from bot.engine.state import (
    AUCTION,
    CALL_CARD,
    NAME_SUIT,
    OVER,
    PLAY,
    HandResult,
    HandState,
    IllegalAction,
    World,
    deal_cards,
    match_deltas,
    observe,
)
from bot.engine.tricks import Trick, trick_winner

__all__ = [
    "AUCTION",
    "CALL_CARD",
    "DECK32",
    "DECK40",
    "DECK40_SOUTHERN",
    "MATCH_FORMATS",
    "NAME_SUIT",
    "OVER",
    "PLAY",
    "SPECTATOR",
    "VARIANTS",
    "Deck",
    "HandRecord",
    "HandResult",
    "HandState",
    "IllegalAction",
    "Match",
    "Observation",
    "Options",
    "OptionsError",
    "Phase",
    "Rules",
    "Trick",
    "World",
    "deal_cards",
    "first_dealer",
    "match_deltas",
    "observe",
    "trick_order",
    "trick_winner",
]

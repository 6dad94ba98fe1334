"""The pure rules engine: no I/O, no Telegram, deterministic given a seed."""

from bot.engine.cards import DECK32, DECK40, DECK40_SOUTHERN, Deck
from bot.engine.match import HandRecord, Match, first_dealer
from bot.engine.observation import SPECTATOR, Observation, observe
from bot.engine.options import (
    MATCH_FORMATS,
    VARIANTS,
    Options,
    OptionsError,
    Rules,
)
from bot.engine.state import (
    AUCTION,
    CALL_CARD,
    NAME_SUIT,
    OVER,
    PLAY,
    HandResult,
    HandState,
    IllegalAction,
    Trick,
    deal_cards,
    match_deltas,
)

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
    "Rules",
    "Trick",
    "deal_cards",
    "first_dealer",
    "match_deltas",
    "observe",
]

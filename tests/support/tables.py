"""Tables of every variant and setting, seated with names that break naive HTML (`CONFIGS`,
`new_table`), for the rendering tests."""

from __future__ import annotations

import random
from collections.abc import Iterator

from bot.engine import VARIANTS, HandState, Options, OptionsError
from bot.table.settings import SETTING_CHOICES
from bot.table.table import Table

NAMES = [
    "<Luigi & Co>",
    "Ana_Maria*",
    "[x](y)",
    "🍕 Pino 🇮🇹",
    "Eve <b>bold</b> &amp; </i>",
    "Z" * 64,
]


TABLE_ID = 987_654_321_012  # a long id: callback data must still fit in 64 bytes
CHAT_ID = -1_001_234_567_890
USER_BASE = 7_000_000_000


def option_sets(variant: str) -> Iterator[dict[str, str]]:
    """The defaults, each single non-default setting the variant allows, and a few combos."""
    yield {}
    default = Options.parse(variant)
    for key, values in SETTING_CHOICES.items():
        if key == "timer":
            continue
        for value in values:
            try:
                opts = Options.parse(variant, {key: value})
            except OptionsError:
                continue
            if opts != default:
                yield {key: value}
    combos: list[dict[str, str]] = [
        {"deck": "french", "southern": "true", "show_points": "true"},
        {"players": "4", "teams": "pairs", "deck": "french"},
        {"auction": "points", "lead": "caller", "cappotto": "all_tricks"},
        {"carichi": "true", "overbid": "false"},
        {"teams": "threes", "signals": "true"},
        {"match": "single", "show_points": "true"},
    ]
    for combo in combos:
        try:
            Options.parse(variant, combo)
        except OptionsError:
            continue
        yield combo


CONFIGS = [
    (variant, opts, ("it", "en")[i % 2])
    for variant in VARIANTS
    for i, opts in enumerate(option_sets(variant))
]


def new_table(variant: str, opts: dict[str, str], lang: str, seed: str) -> Table:
    table = Table(TABLE_ID, CHAT_ID, USER_BASE, Options.parse(variant, opts), lang=lang)
    for i in range(table.n_players):
        table.join(USER_BASE + i, NAMES[i % len(NAMES)])
    table.start(seed)
    return table


def play_to_the_end(table: Table, rng: random.Random) -> HandState:
    """Play the table's hand to its end at random, unchecked, and finish it: the hand."""
    hand = table.hand
    assert hand is not None
    while not hand.is_terminal():
        table.apply(hand.current, rng.choice(hand.legal_actions()))
    table.finish_hand()
    return hand

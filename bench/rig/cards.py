"""Cards as the bot's chat messages name them (`bot.i18n.words.card_short`): one card "Asso 🪙"
(a briscola's button "★Asso 🪙"), or a hand by suit "🪙 Asso, Re · 🍷 3". The tests read them
back from a text to check what it shows (no hidden card, one's own hand, a trick); the
scripted people (`bench.rig.people`, the tests' and the benches') read their hand with them."""

from __future__ import annotations

import re
from functools import cache

from bot.engine.cards import DECK40, Deck
from bot.i18n.words import FRENCH_SUIT_SYMBOLS, SUIT_SYMBOLS, card_short, rank_name


def card(c: int, lang: str = "it") -> str:
    """An Italian-deck card as the chat names it: "Asso 🪙"."""
    return card_short(c, DECK40, lang)


@cache
def _patterns(
    deck: Deck, lang: str, french: bool
) -> list[tuple[re.Pattern[str], re.Pattern[str], dict[str, int]]]:
    out = []
    symbols = FRENCH_SUIT_SYMBOLS if french else SUIT_SYMBOLS
    for suit, symbol in enumerate(symbols):
        ranks = {
            rank_name(c, deck, lang, french=french): c
            for c in range(deck.size)
            if deck.suit[c] == suit
        }
        names = "|".join(re.escape(r) for r in sorted(ranks, key=len, reverse=True))
        one = re.compile(rf"(?<!\w)({names}) {re.escape(symbol)}")
        group = re.compile(rf"{re.escape(symbol)} ((?:{names})(?:, (?:{names}))*)(?!\w)")
        out.append((one, group, ranks))
    return out


def cards_named(
    text: str, deck: Deck = DECK40, lang: str = "it", *, french: bool = False
) -> set[int]:
    """The cards `text` names, in either form."""
    found: set[int] = set()
    for one, group, ranks in _patterns(deck, lang, french):
        found |= {ranks[m] for m in one.findall(text)}
        for m in group.findall(text):
            found |= {ranks[r] for r in m.split(", ")}
    return found

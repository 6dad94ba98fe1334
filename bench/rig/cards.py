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


_WORD = re.compile(r"\w")


@cache
def _patterns(
    deck: Deck, lang: str, french: bool
) -> list[tuple[str, list[str], re.Pattern[str], dict[str, int]]]:
    out = []
    symbols = FRENCH_SUIT_SYMBOLS if french else SUIT_SYMBOLS
    for suit, symbol in enumerate(symbols):
        ranks = {
            rank_name(c, deck, lang, french=french): c
            for c in range(deck.size)
            if deck.suit[c] == suit
        }
        longest_first = sorted(ranks, key=len, reverse=True)
        names = "|".join(re.escape(r) for r in longest_first)
        group = re.compile(rf"{re.escape(symbol)} ((?:{names})(?:, (?:{names}))*)(?!\w)")
        out.append((symbol, longest_first, group, ranks))
    return out


def _one_by_one(text: str, symbol: str, longest_first: list[str]) -> list[str]:
    r"""The rank names just before each " `symbol`" (" 🪙") that no word character precedes:
    what the pattern `(?<!\w)(names) 🪙` finds, found from the suit's symbol back (the pattern,
    tried at every position of the text, was the tests' busiest line)."""
    found = []
    key = f" {symbol}"
    at = text.find(key)
    while at >= 0:
        for name in longest_first:
            start = at - len(name)
            if (
                start >= 0
                and text.startswith(name, start)
                and (start == 0 or not _WORD.match(text, start - 1))
            ):
                found.append(name)
                break
        at = text.find(key, at + len(key))
    return found


def cards_named(
    text: str, deck: Deck = DECK40, lang: str = "it", *, french: bool = False
) -> set[int]:
    """The cards `text` names, in either form."""
    found: set[int] = set()
    for symbol, longest_first, group, ranks in _patterns(deck, lang, french):
        if symbol not in text:
            continue
        found |= {ranks[m] for m in _one_by_one(text, symbol, longest_first)}
        for m in group.findall(text):
            found |= {ranks[r] for r in m.split(", ")}
    return found

"""Words both fronts share: cards, suits, ranks, actions and bids, in Italian or English.

The Telegram bot (`bot.view.render`) and the terminal (`bot.cli.render`) name a card, a
bid or a signal with these functions, so they spell them alike. Plain text (no markup); the
words come from the catalogue (`bot.i18n`, keys `card_name`, `rank_<n>`, `suit_<s>`, `act_*`,
`bid_*`). A language the catalogue lacks raises ValueError.
"""

from __future__ import annotations

from bot.engine import actions as A
from bot.engine.cards import DECK32, Deck, card_id
from bot.engine.observation import Observation
from bot.i18n import check_lang, plain

# 32-card deck rank index 0..7 = A, T, K, Q, J, 9, 8, 7 (§9.1): the Italian number of the
# ranks with a name (Asso, Re, Cavallo / Donna, Fante), the figure of the others.
_RANKS32: tuple[int | str, ...] = (1, "10", 10, 9, 8, "9", "8", "7")


def is_french(obs: Observation) -> bool:
    """Whether the table plays with French cards (§1.3): only the names change."""
    return obs.options.deck == "french"


def rank_word(number: int, lang: str = "it", *, french: bool = False) -> str:
    """The name of the Italian number 1..10: ``Asso``, ``Due``, ``Re``; ``Donna`` / ``Queen``
    for 9 with French cards."""
    if french and number == 9:
        return plain(lang, "rank_french_9")
    return plain(lang, f"rank_{number}")


def called_rank(number: int, lang: str = "it", *, french: bool = False) -> str:
    """A rank as called in the auction, with its article: ``l'Asso``, ``il Re``, ``the King``."""
    if french and number == 9:
        return plain(lang, "called_rank_french_9")
    return plain(lang, f"called_rank_{number}")


def suit_name(suit: int, lang: str = "it", *, french: bool = False) -> str:
    """Suit name in lower case: ``denari`` / ``coins``, ``quadri`` / ``diamonds`` (french)."""
    return plain(lang, f"suit_french_{suit}" if french else f"suit_{suit}")


def rank_name(card: int, deck: Deck, lang: str = "it", *, french: bool = False) -> str:
    """``Asso``, ``Re``, ``Cavallo`` / ``Donna``, ``Fante``; digits for 2..7 (and 8..10 in the
    32-card deck). English: ``Ace``, ``King``, ``Knight`` / ``Queen``, ``Jack``."""
    check_lang(lang)
    number = deck.number[card]
    if deck is DECK32 or deck.size == 32:
        rank = _RANKS32[number]
        return rank if isinstance(rank, str) else rank_word(rank, lang, french=french)
    if number in (1, 8, 9, 10):
        return rank_word(number, lang, french=french)
    return str(number)


def card_name(card: int, deck: Deck, lang: str = "it", *, french: bool = False) -> str:
    """Full name: ``Asso di denari``, ``Re di spade``, ``3 di bastoni``; ``Ace of coins``."""
    rank = rank_name(card, deck, lang, french=french)
    suit = suit_name(deck.suit[card], lang, french=french)
    return plain(lang, "card_name", rank=rank, suit=suit)


# Suit symbols for chat messages (RULES §1.1, §1.3). Italian suits have no Unicode glyphs, so
# each is an emoji that reads as its suit: a coin for denari, a wine glass for coppe, a dagger
# for spade, a log for bastoni. Telegram's Android, desktop and web apps draw emoji from their
# own bundled set, and iOS from the system's: 🍷 (Unicode 6) and 🗡️ (7) render everywhere,
# 🪙 (13) from iOS 14.2 and 🪵 (14) from iOS 15.4, both from 2022 or older. The dagger carries
# VS16 (U+FE0F) so that it is drawn as an emoji, not as a text glyph. French suits keep their
# own symbols, in emoji presentation (♦️ ♥️ ♠️ ♣️, as Telegram's keyboards offer them).
SUIT_SYMBOLS = ("🪙", "🍷", "🗡️", "🪵")
FRENCH_SUIT_SYMBOLS = ("♦️", "♥️", "♠️", "♣️")


def suit_symbol(suit: int, *, french: bool = False) -> str:
    """The suit's symbol: 🪙 🍷 🗡️ 🪵 (denari, coppe, spade, bastoni), or ♦️ ♥️ ♠️ ♣️."""
    return (FRENCH_SUIT_SYMBOLS if french else SUIT_SYMBOLS)[suit]


def card_short(card: int, deck: Deck, lang: str = "it", *, french: bool = False) -> str:
    """A card at a glance, for chat messages and buttons: ``Asso 🪙``, ``7 🗡️``, ``Re 🍷``;
    ``King ♥️`` with French cards in English."""
    rank = rank_name(card, deck, lang, french=french)
    return f"{rank} {suit_symbol(deck.suit[card], french=french)}"


def card_text(card: int, obs: Observation, lang: str = "it") -> str:
    """Full name plus compact notation: ``Asso di denari (1D)``, ``10 of coins (TD)``."""
    deck = obs.rules.deck
    return f"{card_name(card, deck, lang, french=is_french(obs))} ({deck.label(card)})"


def signal_name(k: int, obs: Observation, lang: str) -> str:
    """The briscola signal `k` (§5.3) as its templates say it: ``l'Asso`` / ``Ace``."""
    number = A.SIGNAL_NUMBERS[k]
    if is_french(obs) and number == 9:
        return plain(lang, "signal_french_9")
    return plain(lang, f"signal_{number}")


def _last_rank_call(obs: Observation) -> int:
    """Italian number of the last rank called in the auction, 0 if none."""
    for _, a in reversed(obs.bids):
        if A.CALL_RANK <= a < A.BID_POINTS:
            return a - A.CALL_RANK
    return 0


def action_label(action: int, obs: Observation, lang: str = "it") -> str:
    """Label of any action, as offered to the player whose observation this is."""
    deck = obs.rules.deck
    fr = is_french(obs)
    check_lang(lang)
    if A.is_card(action):
        return card_text(action, obs, lang)
    if A.BLIND <= action < A.CALL_RANK:
        return plain(lang, "act_blind", n=action - A.BLIND + 1)
    if A.CALL_RANK <= action < A.BID_POINTS:
        return plain(lang, "act_call", what=called_rank(action - A.CALL_RANK, lang, french=fr))
    if A.BID_POINTS <= action < A.PASS:
        p = action - A.BID_POINTS
        if obs.rules.auction == "points":
            return plain(lang, "act_bid_points", p=p)
        return plain(lang, "act_two_at", p=p)
    if action == A.PASS:
        return plain(lang, "bid_pass")
    if action == A.CARICHI:
        return plain(lang, "act_carichi")
    if A.NAME_SUIT <= action < A.CALL_CARD:
        s = action - A.NAME_SUIT
        sname = suit_name(s, lang, french=fr).capitalize()
        rank = _last_rank_call(obs)
        if rank and deck.size == 40:
            return f"{sname}: {card_text(card_id(rank, s), obs, lang)}"
        return sname
    if A.CALL_CARD <= action < A.SIGNAL:
        return plain(lang, "act_call", what=card_text(action - A.CALL_CARD, obs, lang))
    if A.SIGNAL <= action < A.SIGNAL + len(A.SIGNAL_NAMES):
        return plain(lang, "act_signal", sig=signal_name(action - A.SIGNAL, obs, lang))
    return plain(lang, "act_other", n=action)


def bid_label(action: int, obs: Observation, lang: str = "it") -> str:
    """A bid as recorded in the auction history: ``Re``, ``Due a 64``, ``passo``, ``carichi``."""
    if A.CALL_RANK <= action < A.BID_POINTS:
        return rank_word(action - A.CALL_RANK, lang, french=is_french(obs))
    if action == A.PASS:
        return plain(lang, "bid_passed")
    if action == A.CARICHI:
        return plain(lang, "bid_carichi_word")
    if A.BID_POINTS <= action < A.PASS and obs.rules.auction == "points":
        return plain(lang, "bid_points_word", p=action - A.BID_POINTS)
    return action_label(action, obs, lang)

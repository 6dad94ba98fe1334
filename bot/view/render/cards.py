"""Cards in words and buttons: a card in a text (a briscola in bold), card buttons grouped by
suit, a hand as text; and the lines the group's message and a hand message both show of a
hand (the briscola, the open cards, the table, the last trick)."""

from __future__ import annotations

from collections.abc import Callable

from bot.engine import Observation
from bot.engine.options import Options
from bot.i18n import t
from bot.i18n.words import card_short, rank_name, suit_name, suit_symbol
from bot.view.render.common import Button, Keyboard, esc


def _french(options: Options) -> bool:
    return options.deck == "french"


BRISCOLA_MARK = "★"  # a briscola's button (in a text a briscola is in bold)


CARDS_PER_ROW = 4  # card buttons in one row, a suit's cards together


def _is_briscola(card: int, obs: Observation) -> bool:
    return obs.briscola >= 0 and obs.rules.deck.suit[card] == obs.briscola


def _card(card: int, obs: Observation, lang: str) -> str:
    """A card in a message (HTML): "Asso 🪙", in bold when it is a briscola."""
    text = esc(card_short(card, obs.rules.deck, lang, french=_french(obs.options)))
    return f"<b>{text}</b>" if _is_briscola(card, obs) else text


def _card_label(card: int, obs: Observation, lang: str) -> str:
    """A card's button: "Asso 🪙", "★Asso 🪙" for a briscola (plain text)."""
    label = card_short(card, obs.rules.deck, lang, french=_french(obs.options))
    return BRISCOLA_MARK + label if _is_briscola(card, obs) else label


def _suit_order(obs: Observation) -> list[int]:
    """The suits as a hand is shown: the briscola first, then the others in deck order."""
    suits = list(range(4))
    if obs.briscola >= 0:
        suits.remove(obs.briscola)
        suits.insert(0, obs.briscola)
    return suits


def _by_suit(cards: tuple[int, ...] | list[int], obs: Observation) -> list[list[int]]:
    """`cards` grouped by suit (`_suit_order`), each group strongest first; no empty group."""
    deck = obs.rules.deck
    groups = []
    for suit in _suit_order(obs):
        group = sorted((c for c in cards if deck.suit[c] == suit), key=lambda c: -deck.strength[c])
        if group:
            groups.append(group)
    return groups


def _card_rows(
    cards: tuple[int, ...] | list[int], obs: Observation, lang: str, data: Callable[[int], str]
) -> Keyboard:
    """Card buttons grouped by suit, one suit a row (`CARDS_PER_ROW` at most: a longer suit
    is split in even rows), the briscola's row first and its buttons marked."""
    rows: Keyboard = []
    for group in _by_suit(cards, obs):
        n_rows = -(-len(group) // CARDS_PER_ROW)
        size = -(-len(group) // n_rows)
        for i in range(0, len(group), size):
            rows.append([Button(_card_label(c, obs, lang), data(c)) for c in group[i : i + size]])
    return rows


def _hand_text(cards: tuple[int, ...] | list[int], obs: Observation, lang: str) -> str:
    """Cards as text, by suit: "🪙 Asso, Re · 🍷 3, 7", the briscola's in bold and first."""
    french = _french(obs.options)
    deck = obs.rules.deck
    parts = []
    for group in _by_suit(cards, obs):
        suit = deck.suit[group[0]]
        ranks = ", ".join(esc(rank_name(c, deck, lang, french=french)) for c in group)
        text = f"{suit_symbol(suit, french=french)} {ranks}"
        parts.append(f"<b>{text}</b>" if suit == obs.briscola else text)
    return " · ".join(parts)


def _suit_words(suit: int, lang: str, french: bool) -> str:
    """ "🪙 denari" (plain text)."""
    return f"{suit_symbol(suit, french=french)} {suit_name(suit, lang, french=french)}"


def _briscola_line(obs: Observation, lang: str) -> str:
    french = _french(obs.options)
    if obs.briscola >= 0:
        card_html = ""
        if obs.turned >= 0:
            card_html = f" ({_card(obs.turned, obs, lang)})"
        suit = _suit_words(obs.briscola, lang, french)
        return t(lang, "briscola_line", suit=suit, card_html=card_html)
    if obs.rules.chiamata and obs.phase in ("auction", "name_suit", "call_card"):
        return t(lang, "briscola_pending")
    return t(lang, "no_briscola")


def _open_lines(obs: Observation, names: list[str], lang: str) -> list[str]:
    """What everybody sees: the public hands (scoperta) and the talon's next card."""
    out = [
        t(lang, "visible_hand", who=names[seat], cards_html=_hand_text(cards, obs, lang))
        for seat, cards in sorted(obs.visible_hands.items())
    ]
    if obs.talon_next >= 0:
        out.append(t(lang, "talon_next", card_html=_card(obs.talon_next, obs, lang)))
    return out


def _last_trick_line(obs: Observation, names: list[str], lang: str, *, points: bool = False) -> str:
    """The last trick and who took it; its card points with `show_points`, or once the hand
    is over (`points`: §3.7)."""
    last = obs.tricks[-1]
    return t(
        lang,
        "last_trick_points" if obs.rules.show_points or points else "last_trick",
        plays_html=_plays(last.plays, obs, names, lang),
        winner=names[last.winner],
        points=last.points,
    )


def _plays(
    plays: tuple[tuple[int, int], ...], obs: Observation, names: list[str], lang: str
) -> str:
    return ", ".join(f"{esc(names[s])}: {_card(c, obs, lang)}" for s, c in plays)


def _points(points: tuple[int, ...], names: list[str]) -> str:
    return ", ".join(f"{esc(names[s])} {p}" for s, p in enumerate(points))

"""Action encoding. Every action is a plain ``int`` (OpenSpiel style).

0 .. 39        play that card id
100 + i        coperta: play the card at position i of one's hand, unseen (§6.2)
200 + n        chiamata rank auction: call Italian number n (§7.2)
300 + p        a points bid p (61..120): "Due a p" after the Two (§7.3), auction=points (§7.9)
500            pass (final for the hand, §7.2)
501            carichi (§7.8)
600 + s        the caller names suit s (§7.5)
700 + c        auction=points: the winner calls card c (§7.9)
800 + k        §5.3 signal k to the partner: 0 Asso, 1 Tre, 2 Re, 3 Cavallo, 4 Fante
"""

from __future__ import annotations

from bot.engine.cards import RANK_NAMES_IT, SUIT_NAMES_IT, Deck

BLIND = 100
CALL_RANK = 200
BID_POINTS = 300
PASS = 500
CARICHI = 501
NAME_SUIT = 600
CALL_CARD = 700
SIGNAL = 800

SIGNAL_NUMBERS = (1, 3, 10, 9, 8)
"""Italian number signalled by signal k (§5.3)."""
SIGNAL_NAMES = ("Asso", "Tre", "Re", "Cavallo", "Fante")


def is_card(action: int) -> bool:
    return 0 <= action < BLIND


def describe(action: int, deck: Deck) -> str:
    """Short text for logs and the terminal: ``1D``, ``call Re``, ``Due a 64``, ``pass``...
    Never raises: a number that names nothing is described as such."""
    try:
        return _describe(action, deck)
    except (IndexError, KeyError):
        return f"action {action}"


def _describe(action: int, deck: Deck) -> str:
    if is_card(action):
        return deck.label(action)
    if BLIND <= action < CALL_RANK:
        return f"blind #{action - BLIND + 1}"
    if CALL_RANK <= action < BID_POINTS:
        return f"call {RANK_NAMES_IT[action - CALL_RANK]}"
    if BID_POINTS <= action < PASS:
        return f"{action - BID_POINTS} points"
    if action == PASS:
        return "pass"
    if action == CARICHI:
        return "carichi"
    if NAME_SUIT <= action < CALL_CARD:
        return f"suit {SUIT_NAMES_IT[action - NAME_SUIT]}"
    if CALL_CARD <= action < SIGNAL:
        return f"call {deck.label(action - CALL_CARD)}"
    if SIGNAL <= action < SIGNAL + len(SIGNAL_NAMES):
        return f"signal {SIGNAL_NAMES[action - SIGNAL]}"
    return f"action {action}"

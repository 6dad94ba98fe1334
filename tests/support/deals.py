"""Arranged deals for the engine's rule tests: a real deal whose cards are replaced by the ones
a test names (card notation of the deck: `1D` Asso di denari, `10C` Re di coppe)."""

from __future__ import annotations

import pytest

from bot.engine import HandState, IllegalAction, Options


def opts(variant: str, **kw: object) -> Options:
    return Options.parse(variant, kw)


def arrange(
    options: Options,
    hands: list[str],
    turned: str | None = None,
    talon: str = "",
    dealer: int = 0,
    removed: str | None = None,
) -> HandState:
    """A real deal whose hands / turned card / talon head (and removed cards) are replaced by
    the given cards; every other card of the deck follows in the talon in id order. A turned
    card names the briscola where the variant turns one (§2.1)."""
    s = HandState.deal(options, 0, 0, dealer)
    deck = s.rules.deck
    hs = [[deck.card(x) for x in h.split()] for h in hands]
    rem = list(s.removed) if removed is None else [deck.card(x) for x in removed.split()]
    head = [deck.card(x) for x in talon.split()]
    t = deck.card(turned) if turned else -1
    used = [c for h in hs for c in h] + rem + head + ([t] if t >= 0 else [])
    assert len(used) == len(set(used)), "a card was given twice"
    s.hands = hs
    s.talon = head + [c for c in range(deck.size) if c not in used]
    s.talon_pos = 0
    s.turned = t
    s.removed = rem
    if t >= 0 and s.rules.turned_card:
        s.briscola = deck.suit[t]
    assert sorted(s.all_cards()) == list(range(deck.size))
    return s


def quattro(*hands: str, **kw: object) -> HandState:
    """A four-player deal (Options `kw`) with these hands: seat 3 deals, so seat 0 leads, and
    the turned 4 di denari makes denari briscola."""
    return arrange(opts("quattro", **kw), hands=list(hands), turned="4D", dealer=3)


def play(s: HandState, *cards: str) -> None:
    """The seats to act play these cards, in turn."""
    for text in cards:
        s.apply(s.rules.deck.card(text))


def assert_illegal(s: HandState, action: int, seat: int | None = None) -> None:
    """`action` is refused and changes nothing."""
    before = s.to_dict()
    with pytest.raises(IllegalAction):
        s.apply(action, seat)
    assert s.to_dict() == before

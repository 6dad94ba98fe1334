"""The bench's partner-play counts (issue 41 §3, `bench/partnerplay.py`): what a seat
knew when it played, counted on positions built by hand."""

from __future__ import annotations

import random

import pytest

from bench import partnerplay
from bot.engine import HandState, Options
from bot.engine.observation import Observation
from bot.players.hard import HardPlayer
from bot.players.normal import NormalPlayer
from tests.support.players import chiamata_state


def play(state: HandState, *cards: str) -> list[list[str]]:
    """Each of `cards` played in turn, with the bench's partner-play counts of each."""
    deck = state.rules.deck
    out = []
    for text in cards:
        seat = state.current
        obs: Observation = state.observation(seat)
        card = deck.card(text)
        out.append(partnerplay.card_events(obs, card))
        state.apply(card, seat)
    return out


LAST_SOCIO = {  # dealer 2: seat 3 leads, then 4, 0 (the caller), 1, 2 (the socio, last)
    0: ["1S", "7D"],
    2: ["1D", "3B", "6D", "4C"],
    3: ["2S"],
    4: ["4S"],
    1: ["5S", "2D"],
}


def test_partner_play_counts_a_load_on_the_callers_safe_trick() -> None:
    """§7.6: the socio knows the caller; in last seat, the caller's plain Asso taking the
    trick is safe: holding a plain Tre it has a chance to load, and loading it counts."""
    state = chiamata_state(LAST_SOCIO, 0, "1D", 2)
    events = play(state, "2S", "4S", "1S", "5S", "3B")
    assert events[:4] == [["def_leads"], [], [], []]  # seat 3 leads: a defender
    assert events[4] == ["friend_safe", "load_chances", "loads"]


def test_partner_play_counts_trumping_the_callers_safe_trick() -> None:
    """The same trick trumped by the socio with a small briscola while it held plain cards:
    a needless trump (and a load chance not taken)."""
    state = chiamata_state(LAST_SOCIO, 0, "1D", 2)
    events = play(state, "2S", "4S", "1S", "5S", "6D")
    assert events[4] == ["friend_safe", "load_chances", "needless_trumps"]


def test_partner_play_counts_nothing_the_seat_cannot_know() -> None:
    """§7.6: before the called card is played the caller does not know its socio, so the
    socio's trick is nobody's partner's trick to it, even in last seat with a carico in hand;
    a defender's lead counts as one, a briscola lead as one more, the socio's as none."""
    hands = {
        1: ["5S", "4B"],
        2: ["1S", "1D"],
        3: ["2S"],
        4: ["4S", "4D"],
        0: ["3B", "7S"],
    }
    # dealer 0: seat 1 leads, the socio (seat 2) takes it with its Asso, the caller last
    state = chiamata_state(hands, 0, "1D", 0)
    events = play(state, "5S", "1S", "2S", "4S", "3B")
    assert events == [["def_leads"], [], [], [], []]
    state = chiamata_state(hands, 0, "1D", 3)  # seat 4 leads
    assert play(state, "4D") == [["def_leads", "def_trump_leads"]]
    state = chiamata_state(hands, 0, "1D", 1)  # the socio leads
    assert play(state, "1D") == [[]]


def test_partner_play_needs_the_trick_safe() -> None:
    """Not last, the caller's plain Re taking the trick is not safe while an Asso or a Tre of
    that suit or a briscola may be behind: no chance counted; the caller's Asso of briscola,
    which nothing beats, is safe even with defenders still to play."""
    hands = {
        3: ["2S", "4D"],
        4: ["10S", "1D"],
        0: ["5S", "3B", "7D"],
        1: ["1S"],
        2: ["6S"],
    }
    # dealer 2: seat 3 leads, then the caller (4), then its socio (0, holding the 7D)
    state = chiamata_state(hands, 4, "7D", 2)
    assert play(state, "2S", "10S", "3B")[2] == []
    state = chiamata_state(hands, 4, "7D", 2)
    assert play(state, "4D", "1D", "3B")[2] == ["friend_safe", "load_chances", "loads"]


def test_hopeless_calls_are_the_hands_that_cannot_make_their_target() -> None:
    """§7.11: the bench's hopeless call: the weakest hand calling the Due reaches 61 in
    almost no deal; the strongest, calling a high briscola, in nearly all."""
    options = Options.parse("chiamata")
    deck = options.rules().deck
    weak = [deck.card(x) for x in ("2C", "4S", "5B", "6C", "7B", "4C", "5S", "6B")]
    strong = [deck.card(x) for x in ("1D", "3D", "10D", "9D", "8D", "1C", "1S", "3S")]
    low = partnerplay.call_chance(options, weak, 0, 4, deck.card("2D"), 61, "w", 12)
    high = partnerplay.call_chance(options, strong, 0, 4, deck.card("7D"), 61, "s", 12)
    assert low < partnerplay.HOPELESS < 0.8 < high


def test_hard_loads_its_partners_safe_trick_as_its_judgement_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 41 §3, §7.6: the socio in last seat, the caller's plain Asso taking the trick:
    `hard` gives the card `normal`'s judgement gives, a plain carico, not a briscola over
    its partner's card, without searching its worlds; the bench counts it as a load."""

    def no_search(*args: object) -> int:
        raise AssertionError("searched a trick certainly the side's")

    monkeypatch.setattr(HardPlayer, "_search", no_search)
    for seed in range(4):
        state = chiamata_state(LAST_SOCIO, 0, "1D", 2)
        play(state, "2S", "4S", "1S", "5S")
        obs = state.observation(2)
        deck = state.rules.deck
        card = HardPlayer(random.Random(seed), iterations=8).act(obs)
        assert card == NormalPlayer(random.Random(seed)).act(obs)
        assert deck.suit[card] != obs.briscola and deck.points[card] >= 10
        assert "loads" in partnerplay.card_events(obs, card)

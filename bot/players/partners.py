"""Partner play a club player respects: whether the trick on the table is
certainly this seat's side's, taken by a partner it knows and beyond the reach of every card
it cannot see. `hard` then gives the card its judgement gives (loading the trick, never
trumping it for nothing); `bench.partnerplay` counts such plays per level."""

from __future__ import annotations

from bot.engine.observation import Observation, trick_order
from bot.engine.tricks import trick_winner
from bot.players.knowledge import Knowledge, friend_probabilities


def known_friends(obs: Observation) -> set[int]:
    """The seats this seat knows for certain to be on its side (itself aside)."""
    fp = friend_probabilities(obs)
    return {s for s, p in enumerate(fp) if s != obs.seat and p >= 1.0}


def friend_takes(obs: Observation, know: Knowledge | None = None) -> tuple[int, int] | None:
    """The seat and card taking the trick on the table when that seat is a known partner
    (chiamata: the socio knows the caller; the caller and the defenders know their partners
    once the called card is played, §7.6; pairs: always, §5.1) and nothing this seat cannot
    rule out takes the trick from it: everyone still to play is a known partner, or no card
    that may be in such a seat's hand beats it. None otherwise (`know`: this seat's, if
    made already)."""
    if not obs.trick:
        return None
    friends = known_friends(obs)
    deck = obs.rules.deck
    beats = deck.suit, deck.strength, obs.briscola
    w_seat, w_card = obs.trick[trick_winner([c for _, c in obs.trick], *beats)]
    if w_seat not in friends:
        return None
    order = trick_order(obs)
    later = [s for s in order[len(obs.trick) + 1 :] if s != obs.seat]
    foes = [s for s in later if s not in friends]
    if not foes:
        return w_seat, w_card
    know = know or Knowledge.of(obs)
    maybe = set(know.unseen)
    for s in foes:
        maybe.update(know.known.get(s, ()))
    if any(trick_winner((w_card, c), *beats) == 1 for c in maybe):
        return None
    return w_seat, w_card

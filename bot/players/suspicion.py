"""The public plays of a chiamata hand that hint at who the socio is (§7.6: the socio is
secret until the called card is played): for each non-caller's card, the event it is around
the caller's trick or another's (loads the caller, takes from them, trumps another...).
`bot.players.knowledge` weighs them (`SUSPICION`); the inference network of
`bot.players.learned` counts them. Pure: the engine's types only."""

from __future__ import annotations

from collections.abc import Sequence

from bot.engine.observation import Observation
from bot.engine.tricks import trick_winner


def suspicion_events(obs: Observation) -> list[tuple[int, str]]:
    """Chiamata: the public plays of non-callers that `SUSPICION` weighs, as (seat, event),
    in every trick so far, this one too."""
    plays_list = [t.plays for t in obs.tricks]
    if obs.trick:
        plays_list.append(obs.trick)
    out: list[tuple[int, str]] = []
    for plays in plays_list:
        cards: list[int] = []
        for seat, c in plays:
            if seat != obs.caller:
                event = _suspicion_event(obs, plays, cards, c)
                if event:
                    out.append((seat, event))
            cards.append(c)
    return out


def _suspicion_event(
    obs: Observation, plays: Sequence[tuple[int, int]], cards: list[int], c: int
) -> str:
    """The `SUSPICION` event of a non-caller playing `c` after `cards` of `plays`, or ""."""
    deck = obs.rules.deck
    suit, strength, points = deck.suit, deck.strength, deck.points
    b = obs.briscola
    plain = suit[c] != b
    if not cards:
        return "" if plain else "leads_briscola"
    win = trick_winner(cards, suit, strength, b)
    wc = cards[win]
    beats = trick_winner((wc, c), suit, strength, b) == 1
    carico = plain and points[c] >= 10
    if plays[win][0] == obs.caller:
        if beats:
            if sum(points[x] for x in cards) < 4:
                return ""
            return "trumps_caller" if not plain and suit[wc] != b else "takes_caller"
        if carico:
            return "loads_caller"
        if points[c] >= 2:
            return "points_caller"
        return "liscio_caller_trump" if suit[wc] == b and plain else ""
    if beats:
        return "trumps_other" if not plain and suit[wc] != b else ""
    return "carico_other" if carico else ""

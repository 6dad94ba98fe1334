"""What the Mini App's replay of a finished hand shows (issue 51.3), plain JSON: the hand as
dealt, every hand face up (the hand is over: nothing is hidden any more), then each move in
the order made, the auction first, then the tricks card by card, with who took each trick
and its points, the cards drawn after it, and the review's mark on each decision it judged.
The page steps through it (forward, back, autoplay) by itself: the moves are sent once.

The texts are the bot's (`bot.i18n`), in the viewer's language, as plain text: the page
inserts them as text, never as markup.
"""

from __future__ import annotations

from typing import Any

from bot.engine import SPECTATOR, Observation, observe
from bot.engine import actions as A
from bot.engine.cards import card_id
from bot.engine.state import PLAY, HandState
from bot.i18n import t, variant_name
from bot.i18n.words import bid_label, card_name, suit_name
from bot.players.review_data import Decision, Review
from bot.table.replay import PlayedHand
from bot.view import render
from bot.webapp.snapshot import Cards, _kind, _level, _short_name, outcome, plain

# The page's own words, in the viewer's language: each key of the catalogue without its
# "replay_" (the marks' sentences and the refusals are built here)
WORDS = (
    "replay_tag",
    "replay_deal",
    "replay_trick",
    "replay_takes",
    "replay_points",
    "replay_step",
    "replay_start",
    "replay_back",
    "replay_play",
    "replay_pause",
    "replay_forward",
    "replay_end",
    "replay_marks",
    "replay_no_review",
    "replay_over",
    "replay_briscola",
    "replay_talon",
    "replay_caller",
    "replay_socio",
    "replay_dealer",
    "replay_called",
    "replay_target",
    "replay_alone",
    "replay_auction",
)


def _name(card: int, cards: Cards) -> str:
    return card_name(card, cards.deck, cards.lang, french=cards.french)


def _order(cards: Cards) -> Any:
    """A hand's order on the page: by suit, the strongest first (as the live page's)."""
    deck = cards.deck
    return lambda c: (deck.suit[c], -deck.strength[c])


def _suit(suit: int, lang: str, french: bool) -> dict[str, Any] | None:
    return {"suit": suit, "name": suit_name(suit, lang, french=french)} if suit >= 0 else None


def _draws(before: list[list[int]], state: HandState, winner: int) -> list[list[int]]:
    """The cards drawn after a trick, [seat, card] in the order drawn (§3.4: the taker first,
    then the others in playing order; doppia's two rounds one after the other, §9.2)."""
    new = {s: [c for c in state.hands[s] if c not in before[s]] for s in range(len(before))}
    order = state.rules.seat_orders[winner]
    rounds = max((len(v) for v in new.values()), default=0)
    return [[s, new[s][r]] for r in range(rounds) for s in order if r < len(new[s])]


def _label(action: int, hand: HandState, obs: Observation, cards: Cards, lang: str) -> str:
    """A move in words, as the replay says it: a card by its name ("Asso di denari"), a bid
    as the auction's history says it ("Re", "passo", "Due a 64"), the call by the card it
    calls ("chiama l'Asso di coppe")."""
    deck = hand.rules.deck
    if A.is_card(action):
        return _name(action, cards)
    if A.NAME_SUIT <= action < A.CALL_CARD:
        suit = action - A.NAME_SUIT
        if hand.rank_bid and deck.size == 40:
            return plain(t(lang, "replay_calls", card=_name(card_id(hand.rank_bid, suit), cards)))
        return suit_name(suit, lang, french=cards.french).capitalize()
    if A.CALL_CARD <= action < A.SIGNAL:
        return plain(t(lang, "replay_calls", card=_name(action - A.CALL_CARD, cards)))
    return bid_label(action, obs, lang)


def _mark(
    d: Decision,
    review: Review,
    hand: HandState,
    obs: Observation,
    cards: Cards,
    lang: str,
) -> dict[str, Any]:
    """The review's mark on one decision: what it cost and the better move, or that it was
    the hand's best play, the only good move, or as good as any."""
    cost = render.review_cost(lang, d.cost, review.currency)
    costliest = review.costliest
    best_move = review.best_move
    best = _label(d.best, hand, obs, cards, lang)
    if cost:
        key = (
            "replay_mark_costliest"
            if costliest is not None and costliest.index == d.index
            else "replay_mark_cost"
        )
        kind = "cost"
        text = t(lang, key, cost=cost, best=best)
    elif best_move is not None and best_move.index == d.index:
        kind, text = "best", t(lang, "replay_mark_best")
    elif d.margin > 0:
        kind, text = "only", t(lang, "replay_mark_only")
    else:
        kind, text = "ok", t(lang, "replay_mark_ok")
    if d.judged == "open":
        text += t(lang, "review_open")
    return {
        "kind": kind,
        "text": plain(text),
        "best": best if kind == "cost" else None,
        "best_card": cards(d.best) if kind == "cost" and A.is_card(d.best) else None,
    }


def replay_view(played: PlayedHand, lang: str) -> dict[str, Any]:
    """The replay of `played` in `lang` (module doc)."""
    table, start, hand, review = played.table, played.start, played.hand, played.review
    rules = hand.rules
    n = rules.n_players
    french = table.options.deck == "french"
    cards = Cards(rules.deck, lang, french)
    obs = observe(hand, SPECTATOR)  # the end: every card and the whole auction are known
    names = [render.seat_name(table, s, lang) for s in range(n)]
    marks = (
        {}
        if review is None
        else {d.index: _mark(d, review, hand, obs, cards, lang) for d in review.decisions}
    )
    in_play = [c for h in start.hands for c in h] + start.talon
    if start.turned >= 0:
        in_play.append(start.turned)
    steps: list[dict[str, Any]] = []
    state = start.clone()
    for index, (seat, action) in enumerate(hand.actions):
        before = [list(h) for h in state.hands]
        done, playing, called = len(state.tricks), state.phase == PLAY, state.called_card
        state.apply(action, seat)
        step: dict[str, Any] = {
            "seat": seat,
            "kind": _kind(action),
            "label": _label(action, hand, obs, cards, lang),
            "card": None,
            "trick": done + 1 if playing else 0,  # the trick it belongs to (1 the first)
            "taken": None,
            "draws": [],
            "talon": state.talon_left(),
            "called": None,
            "briscola": None,
            "mark": marks.get(index),
        }
        if playing and (A.is_card(action) or A.BLIND <= action < A.CALL_RANK):
            card = state.tricks[-1].cards[-1] if len(state.tricks) > done else state.trick[-1]
            step.update(kind="card", card=card, label=_name(card, cards))
        if len(state.tricks) > done:  # the trick is complete: its taker, then the draws
            trick = state.tricks[-1]
            step["taken"] = {"winner": trick.winner, "points": trick.points}
            step["draws"] = _draws(before, state, trick.winner)
        if called < 0 <= state.called_card:  # the call (§7.5, §7.9): the briscola is known
            step["called"] = cards(state.called_card)
            step["briscola"] = _suit(state.briscola, lang, french)
        steps.append(step)
    return {
        "table_id": table.table_id,
        "hand_index": hand.hand_index,
        "lang": lang,
        "french": french,
        "title": plain(
            t(
                lang,
                "miniapp_title",
                variant=variant_name(lang, table.options.variant),
                n=render.hand_label(table, lang),
            )
        ),
        "seats": [
            {
                "name": names[s],
                "short": _short_name(table, s),
                "level": _level(table, s, lang),
                "bot": table.seats[s].is_bot,
            }
            for s in range(n)
        ],
        "dealer": hand.dealer,
        "chiamata": rules.chiamata,
        "deck": [cards(c) for c in sorted(in_play, key=_order(cards))],
        "hands": [list(h) for h in start.hands],
        "turned": start.turned if start.turned >= 0 else None,
        "briscola": _suit(start.briscola, lang, french),
        "talon": start.talon_left(),
        "steps": steps,
        "auction": _auction(hand, cards) if rules.chiamata else None,
        "outcome": outcome(table, SPECTATOR, names, lang, group=False),
        "review": None if review is None else {"currency": review.currency, "judged": review.mode},
        # "{n}" kept for the page to fill in ("{n}ª presa")
        "words": {key.removeprefix("replay_"): plain(t(lang, key, n="{n}")) for key in WORDS},
    }


def _auction(hand: HandState, cards: Cards) -> dict[str, Any]:
    """Chiamata's outcome of the auction (§7): the caller, the card called, the target, the
    socio (known: the hand is over), alone, or carichi (§7.4)."""
    return {
        "caller": hand.caller,
        "called": cards.maybe(hand.called_card),
        "target": hand.target,
        "socio": hand.partner if hand.partner != hand.caller else -1,
        "alone": hand.partner == hand.caller and not hand.carichi and hand.caller >= 0,
        "carichi": hand.carichi,
    }

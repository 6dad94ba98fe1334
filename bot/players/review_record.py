"""A finished hand replayed for its review (issue 51, `bot.players.review`): its deal and its
actions in order, from a finished `HandState` or a `hand_record` dict."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.engine import actions as A
from bot.engine.options import Options
from bot.engine.state import CALL_CARD, NAME_SUIT, HandState, IllegalAction


def replay(hand: HandState | Mapping[str, Any]) -> tuple[HandState, list[tuple[int, int]]]:
    """The hand's deal (before any action) and its actions in order, from a finished
    `HandState` (dealt from its seed) or a `hand_record` dict (the deal written in it; the
    signals, §5.3, whose moment a record does not keep, are put at their sender's first turn
    where they are legal). Raises ValueError when the record does not replay to its tricks."""
    if isinstance(hand, HandState):
        start = HandState.deal(hand.options, hand.seed, hand.hand_index, hand.dealer)
        actions = list(hand.actions)
        check = hand.clone()
        probe = start.clone()
        try:
            for seat, action in actions:
                probe.apply(action, seat)
        except IllegalAction as exc:
            raise ValueError(f"the hand does not replay from its seed: {exc}") from None
        if probe.tricks != check.tricks or probe.bids != check.bids:
            raise ValueError("the hand does not replay from its seed: review its record")
        return start, actions
    return _replay_record(hand)


def _replay_record(record: Mapping[str, Any]) -> tuple[HandState, list[tuple[int, int]]]:
    try:
        options = Options.model_validate(record["options"])
        rules = options.rules()
        deck = rules.deck
        start = HandState.deal(
            options, record["seed"], int(record["hand_index"]), int(record["dealer"])
        )
        start.hands = [[deck.card(x) for x in h] for h in record["hands"]]
        start.talon = [deck.card(x) for x in record["talon"]]
        start.removed = [deck.card(x) for x in record["removed"]]
        turned = record.get("turned")
        start.turned = deck.card(turned) if turned else -1
        if not rules.chiamata:
            start.briscola = (
                -1 if rules.no_briscola or start.turned < 0 else deck.suit[start.turned]
            )
        if sorted(start.all_cards()) != list(range(deck.size)):
            raise ValueError("the record's deal is not one deck")
        state = start.clone()
        for seat, bid in record.get("auction") or []:
            if bid == "pass":
                action = A.PASS
            elif bid == "carichi":
                action = A.CARICHI
            elif int(bid) > 10:
                action = A.BID_POINTS + int(bid)
            else:
                action = A.CALL_RANK + int(bid)
            state.apply(action, int(seat))
        called = record.get("called_card")
        if state.phase == NAME_SUIT and called:
            state.apply(A.NAME_SUIT + deck.suit[deck.card(called)])
        elif state.phase == CALL_CARD and called:
            state.apply(A.CALL_CARD + deck.card(called))
        signals = [(int(s), A.SIGNAL + A.SIGNAL_NAMES.index(k)) for s, k in record["signals"]]
        for trick in record.get("tricks") or []:
            for seat, label in trick["plays"]:
                seat = int(seat)
                while signals and signals[0][0] == seat and signals[0][1] in state.legal_actions():
                    state.apply(signals.pop(0)[1], seat)
                card = deck.card(label)
                if rules.blind:  # coperta (§6.2): the card at its position, unseen
                    state.apply(A.BLIND + state.hands[seat].index(card), seat)
                else:
                    state.apply(card, seat)
        if signals:
            raise ValueError("a signal of the record was never legal")
        if not state.is_terminal():
            raise ValueError("the record's hand is not finished")
        got = [(t.winner, t.points) for t in state.tricks]
        want = [(int(t["winner"]), int(t["points"])) for t in record.get("tricks") or []]
        if got != want:
            raise ValueError("the record's tricks do not follow from its plays")
    except (KeyError, TypeError, ValueError, IllegalAction) as exc:
        raise ValueError(f"not a replayable hand record: {exc}") from None
    return start, list(state.actions)


__all__ = ["replay"]

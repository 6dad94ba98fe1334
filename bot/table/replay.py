"""A finished hand played again from the move log (issue 51.3, the Mini App's replay): dealt
from the match's seed as the match dealt it (`Match.deal`: the seed, the hand's index, its
dealer as the match recorded it), then each stored move applied through the engine's own
checks, in the order they were made. The hand must end as the match recorded it (the card
points of every seat), else it is refused as broken rather than shown wrong.

Only a hand that is over may be replayed: the table's hand still being played is refused
(`REPLAY_IN_PLAY`) before any move is read, so that nothing of it can be seen.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace

from bot.engine.match import HandRecord, Match
from bot.engine.state import HandState, IllegalAction
from bot.players.review_data import Review
from bot.table.table import PLAYING, Table

REPLAY_IN_PLAY = "replay_in_play"  # the table's hand, still being played
REPLAY_NO_HAND = "replay_no_hand"  # no such hand (or one never finished: a cancelled table)
REPLAY_BROKEN = "replay_broken"  # the log does not play to the recorded end


class ReplayError(Exception):
    """The hand cannot be replayed: `key` is the text that says why."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


@dataclass(frozen=True, slots=True)
class PlayedHand:
    """A finished hand replayed: `start` as dealt, `hand` at its end, `table` as it stood when
    the hand ended (its hand this one, its match up to it), and the review kept of it."""

    table: Table
    start: HandState
    hand: HandState
    review: Review | None


def finished_record(table: Table, hand_index: int) -> HandRecord:
    """The match's record of hand `hand_index` if that hand is over, else ReplayError (the
    table's hand still being played: `REPLAY_IN_PLAY`; any other: `REPLAY_NO_HAND`)."""
    hand, match = table.hand, table.match
    if (
        table.status == PLAYING
        and hand is not None
        and hand.hand_index == hand_index
        and not hand.is_terminal()
    ):
        raise ReplayError(REPLAY_IN_PLAY)
    for record in match.records if match is not None else ():
        if record.hand_index == hand_index:
            return record
    raise ReplayError(REPLAY_NO_HAND)


def _match_until(match: Match, hand_index: int) -> Match:
    """The match as it stood once hand `hand_index` was recorded (its later hands unplayed)."""
    data = match.to_dict()
    data["records"] = [r for r in data["records"] if r[0] <= hand_index]
    data["hand_index"] = hand_index + 1
    data["over"] = False
    data["winners"] = []
    return Match.from_dict(data)


def _review(review_json: str | None, hand: HandState) -> Review | None:
    """The review kept for the hand, if it is one of this hand (else none: never marks on
    moves it did not judge)."""
    if not review_json:
        return None
    try:
        review = Review.from_dict(json.loads(review_json))
    except (ValueError, KeyError, TypeError):
        return None
    n = len(hand.actions)
    if review.hand_index != hand.hand_index or any(
        not 0 <= d.index < n or hand.actions[d.index] != (d.seat, d.move) for d in review.decisions
    ):
        return None
    return review


def replay_hand(
    table: Table,
    hand_index: int,
    moves: Sequence[tuple[int, int]],
    review_json: str | None = None,
) -> PlayedHand:
    """Hand `hand_index` of the table dealt again and played with `moves` ((seat, action) in
    the order made), or ReplayError (module doc)."""
    record = finished_record(table, hand_index)
    match = table.match
    assert match is not None
    try:
        start = HandState.deal(match.options, match.seed, hand_index, record.dealer)
        hand = start.clone()
        for seat, action in moves:
            hand.apply(action, seat)
    except (IllegalAction, ValueError):
        raise ReplayError(REPLAY_BROKEN) from None
    if not hand.is_terminal() or hand.result().card_points != record.card_points:
        raise ReplayError(REPLAY_BROKEN)
    then = replace(table, hand=hand, match=_match_until(match, hand_index))
    return PlayedHand(then, start, hand, _review(review_json, hand))

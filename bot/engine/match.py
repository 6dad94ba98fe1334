"""A match: a sequence of hands under one format (RULES.md §3.1, §4, §7.13, §8.4).

`Match` deals hand k with `HandState.deal(options, seed, k, dealer)`, takes each finished hand
back with `record()`, rotates the dealer (kept after a void hand, §4.1; advanced after an
all-pass chiamata redeal, §7.4) and says when the match is over and who won.
Pure and JSON-serialisable like `HandState`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from bot.engine.options import Options
from bot.engine.state import HandResult, HandState, Snapshot, match_deltas

_POINT_TARGETS = {"points120": 120, "points121": 121, "points151": 151}
_HANDS_TO_WIN = {"single": 1, "best3": 2, "best5": 3}


@dataclass(frozen=True, slots=True)
class HandRecord:
    hand_index: int
    dealer: int
    void: bool
    redeal: bool
    winning_sides: tuple[int, ...]
    side_points: tuple[int, ...]
    card_points: tuple[int, ...]
    deltas: tuple[int, ...]


def first_dealer(seed: int | str, n_players: int) -> int:
    """§3.1: the first dealer is chosen at random (from the seed, so replays agree)."""
    return random.Random(f"{seed}:dealer").randrange(n_players)


class Match(Snapshot):
    def __init__(self, options: Options, seed: int | str, dealer: int | None = None) -> None:
        self.options = options
        self.rules = options.rules()
        self.seed = seed
        n = self.rules.n_players
        self.dealer = first_dealer(seed, n) if dealer is None else dealer
        self.hand_index = 0
        self.records: list[HandRecord] = []
        self.hands_won = [0] * self.rules.n_sides
        self.side_points = [0] * self.rules.n_sides
        self.scores = [0] * n  # chiamata: running §7.12 scores per seat
        self.over = False
        # The winning sides (chiamata: the winning seat). More than one only when fixed5 with
        # three or more sides ends on a tie for most hands won (§4.3).
        self.winners: tuple[int, ...] = ()

    @property
    def winner(self) -> int:
        """The winning side (chiamata: seat), -1 while the match runs or on a tie (§4.3)."""
        return self.winners[0] if len(self.winners) == 1 else -1

    @property
    def format(self) -> str:
        if self.rules.chiamata:
            return "hands" if self.rules.hands else "target"
        return self.rules.match

    @property
    def open_league(self) -> bool:
        """§7.13: chiamata with `target` 0 and no fixed hands never ends; the players stop
        after a hand."""
        return self.rules.chiamata and not self.rules.hands and self.rules.target == 0

    def deal(self) -> HandState:
        if self.over:
            raise ValueError("the match is over")
        return HandState.deal(self.options, self.seed, self.hand_index, self.dealer)

    def counted_hands(self) -> int:
        return sum(1 for r in self.records if not r.void)

    def record(self, state: HandState) -> HandRecord:
        """Take a finished hand into the match. Returns what was recorded."""
        if self.over:
            raise ValueError("the match is over")
        if state.hand_index != self.hand_index or state.dealer != self.dealer:
            raise ValueError("that hand does not belong to this match at this point")
        res: HandResult = state.result()
        rec = HandRecord(
            hand_index=state.hand_index,
            dealer=state.dealer,
            void=res.void,
            redeal=res.redeal,
            winning_sides=res.winning_sides,
            side_points=res.side_points,
            card_points=res.card_points,
            deltas=res.deltas,
        )
        self.records.append(rec)
        self.hand_index += 1
        n = self.rules.n_players
        if res.void and not res.redeal:
            return rec  # §4.1-4.2: replayed with the same dealer; never counted (§4.4)
        self.dealer = (self.dealer + 1) % n  # §3.1 counter-clockwise; §7.4 redeal: next dealer
        if res.redeal:
            return rec
        if self.rules.chiamata:
            for s, d in enumerate(res.deltas):
                self.scores[s] += d
        else:
            self.hands_won[res.winning_sides[0]] += 1
            for side, p in enumerate(res.side_points):
                self.side_points[side] += p
        self._check_over()
        return rec

    def _check_over(self) -> None:
        fmt = self.rules.match
        if self.rules.chiamata:
            target = self.rules.target
            if self.rules.hands:
                # §7.13: a fixed number of counted hands (redeals are void, never counted,
                # §4.4); then the highest score wins, and equal highest scores play one more
                # hand, and another while they stay equal. `target` does not apply.
                if self.counted_hands() >= self.rules.hands:
                    self._finish_if_unique_top(self.scores, max(self.scores))
            elif target > 0:
                # §7.13: several players at the target on the same hand: the highest score
                # wins; equal highest scores play one more hand.
                self._finish_if_unique_top(self.scores, target)
        elif fmt in _HANDS_TO_WIN:
            self._finish_if_unique_top(self.hands_won, _HANDS_TO_WIN[fmt])
        elif fmt in _POINT_TARGETS:
            # §4.3: two sides at the target on the same hand: the higher total wins; equal
            # totals play one more hand.
            self._finish_if_unique_top(self.side_points, _POINT_TARGETS[fmt])
        elif fmt == "fixed5" and self.counted_hands() >= 5:
            # §4.3: exactly five counted hands. A tie for most hands won (possible with three
            # or more sides) stands: the tied sides are all winners (§10.2).
            top = max(self.hands_won)
            self.over = True
            self.winners = tuple(i for i, v in enumerate(self.hands_won) if v == top)

    def _finish_if_unique_top(self, values: list[int], target: int) -> None:
        top = max(values)
        if top >= target and values.count(top) == 1:
            self.over = True
            self.winners = (values.index(top),)

    def ledger_deltas(self) -> tuple[int, ...]:
        """Per seat. Chiamata: the sum of its hands' §7.12 deltas (written hand by hand);
        other variants: §10.2 for the finished match, zero while it runs."""
        if self.rules.chiamata:
            return tuple(self.scores)
        if not self.over:
            return (0,) * self.rules.n_players
        return match_deltas(self.rules.side_of, self.winners)

    def to_dict(self) -> dict[str, Any]:
        return {
            **self._head(),
            "dealer": self.dealer,
            "hand_index": self.hand_index,
            "records": [
                [
                    r.hand_index,
                    r.dealer,
                    r.void,
                    r.redeal,
                    list(r.winning_sides),
                    list(r.side_points),
                    list(r.card_points),
                    list(r.deltas),
                ]
                for r in self.records
            ],
            "hands_won": list(self.hands_won),
            "side_points": list(self.side_points),
            "scores": list(self.scores),
            "over": self.over,
            "winner": self.winner,  # kept for snapshots read by older code
            "winners": list(self.winners),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Match:
        m = cls(cls._read_head(data, "match"), data["seed"], data["dealer"])
        m.hand_index = data["hand_index"]
        m.records = [
            HandRecord(r[0], r[1], r[2], r[3], tuple(r[4]), tuple(r[5]), tuple(r[6]), tuple(r[7]))
            for r in data["records"]
        ]
        m.hands_won = list(data["hands_won"])
        m.side_points = list(data["side_points"])
        m.scores = list(data["scores"])
        m.over = data["over"]
        if "winners" in data:
            m.winners = tuple(data["winners"])
        else:  # a snapshot from before tied winners (§4.3 fixed5)
            m.winners = (data["winner"],) if data["winner"] >= 0 else ()
        return m

"""A hand's end, and the records of play that stats and ratings read: the record of a finished
hand, and of a finished match, of a table that writes the group's ledger. Pure values: storage
stores and hands back these (`storage.stats` re-exports them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final, Literal

Family = Literal["two", "multi", "chiamata"]
"""The family a record is stored under (`bot.table.stats.family_of`): two sides, three or more
sides, chiamata."""

FAMILIES: Final = ("one", "two", "multi", "chiamata")
"""The rating families, as rated and shown (`rated_family`): one against one (two single
players), two teams (two pairs, two threes), three or more sides (single players or pairs),
chiamata."""


def rated_family(family: str, side_of: Sequence[int]) -> str:
    """The rating family of a stored record: its stored family, except that two sides of one
    player each are "one" (one against one), not "two" (two teams). Read from each record,
    so records stored before the split are rated the same way."""
    if family == "two" and len(set(side_of)) == len(side_of):
        return "one"
    return family


@dataclass(frozen=True, slots=True)
class HandEnd:
    """What happened when a hand ended, computed once (`bot.table.stats.end_of_hand`, with the
    move that ended it) and handed to what stores it: the group's ledger
    (`bot.service.play.ledger_record`) and the stats (`bot.service.play.play_record`), neither
    of which reads the table again."""

    chat_id: int
    table_id: int
    hand_index: int
    variant: str
    family: Family
    chiamata: bool
    finished_at: datetime
    # what the group's ledger gets now, per ledger id (chiamata every hand, §10.1; the other
    # variants when the match ends, §10.2; a computer never, §10.5), and their names
    deltas: Mapping[int, int]
    names: Mapping[int, str]
    # the stats' records (`hand_data`, `match_data`): None for a table that writes none
    # (§10.5), `match` also while the match goes on
    hand: Mapping[str, Any] | None
    match: Mapping[str, Any] | None


@dataclass(frozen=True, slots=True)
class PlayRecord:
    """Written by `TableStore.save_move` with the move that finished a hand, in the same
    transaction as the ledger entry: the hand's record (`bot.table.stats.hand_data`) and, when
    the match ended with that hand, the match's (`bot.table.stats.match_data`)."""

    chat_id: int
    table_id: int
    hand_index: int
    variant: str
    family: str
    finished_at: datetime
    hand: Mapping[str, Any]
    match: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class StoredPlay:
    """A stored hand record (`hand_index` >= 0) or match record (`hand_index` None)."""

    chat_id: int
    epoch: int
    table_id: int
    hand_index: int | None
    variant: str
    family: str
    finished_at: datetime
    data: dict[str, Any] = field(default_factory=dict)


Role = Literal["caller", "partner", "other"]
"""A seat's role in a chiamata hand (RULES §7.4-7.7): the chiamante (alone too, §7.7), the
socio, one of the others."""
ROLES: Final = ("caller", "partner", "other")


@dataclass(frozen=True, slots=True)
class ReviewCost:
    """What one seat gave away in a reviewed hand (issue 51, "in the numbers"): the sum of
    its decisions' costs (`bot.players.review_data.Decision.cost`, in the hand's currency: card
    points, in chiamata the side's score, §7.12), written when the review arrives
    (`bot.table.stats.review_costs`). `user_id` is the person who made every move of the seat,
    None for a computer (then `level` is its level); `role` only in chiamata; `ledger_key`
    the ledger entry the hand belongs to (an undone one counts nowhere, /undo)."""

    chat_id: int
    table_id: int
    hand_index: int
    seat: int
    variant: str
    ledger_key: str
    user_id: int | None
    level: str | None
    role: Role | None
    cost: float
    decisions: int
    finished_at: datetime


@dataclass(frozen=True, slots=True)
class ReviewSum:
    """Stored review costs added up, per chat, variant and role (`StatsStore.review_sums`):
    `hands` reviewed seat-hands, `cost` their costs' sum."""

    chat_id: int
    variant: str
    role: Role | None
    hands: int
    cost: float

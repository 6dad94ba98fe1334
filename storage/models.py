"""Rows the storage layer returns (frozen dataclasses) and the values it takes."""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any, Final

from bot.table.status import ACTIVE_STATUSES, TableStatus


class _Unset(enum.Enum):
    UNSET = enum.auto()

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Final = _Unset.UNSET
"""Default of the keyword arguments of `TableStore.update_lobby`: leave that column alone."""

Unset = _Unset


@dataclass(frozen=True, slots=True)
class TableRow:
    table_id: int
    chat_id: int
    creator_id: int
    status: TableStatus
    variant: str
    options_json: str
    seats_json: str
    match_json: str | None
    hand_json: str | None
    move_no: int
    """The table's version: bumped by every `save_move` and every game-relevant
    `update_lobby`; pass it back as `expected_move_no`."""
    table_message_id: int | None
    lang: str | None
    created_at: datetime
    updated_at: datetime
    timers_json: str | None = None
    """What the table waits for (`bot.table.deadlines.Pending`), or None."""

    @property
    def active(self) -> bool:
        return self.status in ACTIVE_STATUSES

    @property
    def options(self) -> Any:
        return json.loads(self.options_json)

    @property
    def seats(self) -> Any:
        return json.loads(self.seats_json)

    @property
    def match(self) -> Any:
        """The `Match.to_dict()` snapshot, or None before the first deal."""
        return None if self.match_json is None else json.loads(self.match_json)

    @property
    def hand(self) -> Any:
        """The `HandState.to_dict()` snapshot, or None."""
        return None if self.hand_json is None else json.loads(self.hand_json)


@dataclass(frozen=True, slots=True)
class Move:
    """A move to append with `TableStore.save_move` (its move_no is the table's new one)."""

    hand_index: int
    seat: int
    action: int
    user_id: int | None = None  # None: a computer player or a timeout


@dataclass(frozen=True, slots=True)
class MoveRow:
    """A stored move. `move_no` is the table version the move produced, so the log is
    ordered by it; it can have gaps where a snapshot was saved without a move."""

    table_id: int
    move_no: int
    hand_index: int
    seat: int
    user_id: int | None
    action: int
    created_at: datetime


@dataclass(frozen=True, slots=True)
class PrivateMessage:
    table_id: int
    user_id: int
    chat_id: int
    message_id: int


@dataclass(frozen=True, slots=True)
class UserRow:
    user_id: int
    name: str
    lang: str | None
    can_dm: bool
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class ChatRow:
    chat_id: int
    lang: str | None
    league_epoch: int
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class Balance:
    user_id: int
    name: str
    balance: int


@dataclass(frozen=True, slots=True)
class LedgerRecord:
    """One write to a group's ledger (RULES.md §10.1-10.2): a finished chiamata hand, or a
    finished match of another variant. `hand_key` identifies it within the chat forever."""

    chat_id: int
    hand_key: str
    table_id: int | None
    variant: str
    deltas: Mapping[int, int]
    names: Mapping[int, str]
    finished_at: datetime


@dataclass(frozen=True, slots=True)
class LedgerHand:
    """A stored ledger write; `deltas` and `names` keep the order they were recorded in."""

    chat_id: int
    epoch: int
    hand_key: str
    table_id: int | None
    variant: str
    finished_at: datetime
    deltas: dict[int, int]
    names: dict[int, str]


@dataclass(frozen=True, slots=True)
class TableHead:
    """A table's version and what changes without a new one (`TableStore.table_head`)."""

    move_no: int
    status: TableStatus
    timers_json: str | None
    table_message_id: int | None
    lang: str | None


@dataclass(frozen=True, slots=True)
class MessageState:
    """One of a table's messages as stored (`TableStore.message_state`)."""

    message_id: int | None
    digest: str | None  # what it shows; None if unknown, or an edit was not confirmed
    version: int  # the table version it was last rendered from; -1 if never
    sent_at: float = 0.0  # when a worker last called Telegram for it (epoch seconds; 0 never)
    pace: float = 0.0  # a group's message: seconds between its edits, as read at that call
    moment: str = ""  # ... and the moment it shows (`TelegramOutbox.show_table`)
    unsure: Shown | None = None  # the stored digests when an edit was not confirmed
    # the group's message: the table's version as stored now, while the table is open (every
    # write of it owes its render, `SHOWN_GRACE`); -1 once it is closed, and for a hand message
    open_version: int = -1


@dataclass(frozen=True, slots=True)
class Shown:
    """What a message was noted to show (`MessageStore.shown_states`): `digest`, or, while
    `editing` is set, either `digest` or `editing` (an edit noted and not yet confirmed: a
    crash in between leaves the message showing one of the two)."""

    digest: str
    editing: str | None = None


class UpdateClaim(StrEnum):
    """What `UpdateStore.claim_update` says of a delivered update (webhook mode)."""

    NEW = "new"  # claimed now: apply it
    DONE = "done"  # applied already: answer Telegram and do nothing
    BUSY = "busy"  # another process is applying it: let Telegram deliver it again later

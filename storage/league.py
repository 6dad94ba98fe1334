"""What storage hands back about a group's seasons (RULES.md §10): the ledger's
entries with their kind, and the audit trail of undos, payments and new seasons."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Final, Literal

GAME: Final = "game"
UNDO: Final = "undo"
PAYMENT: Final = "payment"
SEASON: Final = "season"

EntryKind = Literal["game", "undo", "payment"]
AuditAction = Literal["undo", "payment", "season"]

# What a write asked of the ledger came to.
DONE: Final = "done"  # written
STALE: Final = "stale"  # the ledger moved on since the button was shown: nothing written
ALREADY: Final = "already"  # this very write was made before (a double tap): nothing written
Outcome = Literal["done", "stale", "already"]


def undo_key(hand_key: str) -> str:
    """The key of the entry that undoes `hand_key` (one per entry: it can be undone once)."""
    return f"undo:{hand_key}"


def payment_key(epoch: int, version: int, debtor: int, creditor: int, done: int = 0) -> str:
    """The key of a payment of the settlement shown at `version` of the season `epoch`, made
    when `done` of it was paid already (a payment may be paid in parts, one beer at a time):
    each part is written at most once."""
    key = f"pay:{epoch}:{version}:{debtor}:{creditor}"
    return f"{key}:{done}" if done else key


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """One stored ledger write with its place in the ledger (`hand_id`, growing with every
    write of the chat) and its kind; `deltas` and `names` keep the order they were recorded
    in. `undone_by` is the key of the entry that undid it, if any."""

    hand_id: int
    chat_id: int
    epoch: int
    hand_key: str
    table_id: int | None
    variant: str
    kind: EntryKind
    finished_at: datetime
    deltas: dict[int, int] = field(default_factory=dict)
    names: dict[int, str] = field(default_factory=dict)
    undone_by: str | None = None


@dataclass(frozen=True, slots=True)
class AuditRow:
    """Who did what to the ledger, when: an undo (`hand_key` the entry written, `target_key`
    the one undone), a payment marked paid (`hand_key` its entry), a new season (`epoch` the
    season it began, no entry)."""

    audit_id: int
    chat_id: int
    epoch: int
    action: AuditAction
    hand_key: str | None
    target_key: str | None
    actor_id: int
    actor_name: str
    at: datetime

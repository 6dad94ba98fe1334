"""Exceptions raised by the storage layer."""

from __future__ import annotations


class StorageError(Exception):
    """Base class of every error this package raises on purpose."""


class SchemaTooNew(StorageError):
    """The database was written by a newer version of the bot (user_version above ours)."""

    def __init__(self, found: int, known: int) -> None:
        super().__init__(f"database schema version {found} is newer than this code knows ({known})")
        self.found = found
        self.known = known


class TableNotFound(StorageError, LookupError):
    def __init__(self, table_id: int) -> None:
        super().__init__(f"no table {table_id}")
        self.table_id = table_id


class TableExists(StorageError):
    """The chat already has a table in the lobby or playing (one active table per chat)."""

    def __init__(self, chat_id: int, table_id: int | None) -> None:
        super().__init__(f"chat {chat_id} already has an active table ({table_id})")
        self.chat_id = chat_id
        self.table_id = table_id


class StaleMove(StorageError):
    """Optimistic concurrency: the table's stored move_no is not the one the caller read.
    Nothing was written; reload the table and decide again."""

    def __init__(self, table_id: int, expected: int, actual: int) -> None:
        super().__init__(f"table {table_id} is at move {actual}, not {expected}")
        self.table_id = table_id
        self.expected = expected
        self.actual = actual


class TableClosed(StorageError):
    """A move was saved for a table that is already finished or cancelled."""

    def __init__(self, table_id: int, status: str) -> None:
        super().__init__(f"table {table_id} is {status}")
        self.table_id = table_id
        self.status = status


class LedgerNotZeroSum(StorageError, ValueError):
    """RULES.md §10.1-10.2: every write to the ledger sums to zero."""

    def __init__(self, total: int) -> None:
        super().__init__(f"ledger deltas sum to {total}, not 0")
        self.total = total


class Conflict(StorageError):
    """A statement broke a constraint of the schema (unique, foreign key, check, or the
    append-only triggers), whichever backend ran it. The transaction is rolled back when
    this leaves it."""

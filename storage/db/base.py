"""What every part of the database shares: the helpers for database URLs, timestamps and a
ledger record's checks, and the chat row each part's writes may need first (`ensure_chat`,
inside the caller's transaction).
"""

from __future__ import annotations

from dataclasses import MISSING, fields
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final, TypeVar

from storage.backend import Conn, Row
from storage.errors import LedgerNotZeroSum
from storage.models import LedgerRecord

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

Model = TypeVar("Model", bound="DataclassInstance")

POSTGRES_SCHEMES: Final = ("postgresql://", "postgres://")


def describe_url(url: str) -> str:
    """A database URL for messages and logs: a PostgreSQL URL without its password."""
    if url.startswith(POSTGRES_SCHEMES):
        from storage.postgres import redacted

        return redacted(url)
    return url


def driver_errors() -> tuple[type[Exception], ...]:
    """What the database drivers raise when a database cannot be reached or read (not a
    database, locked, refused, gone), for a command line to report."""
    import sqlite3

    import asyncpg

    return (sqlite3.Error, asyncpg.PostgresError, asyncpg.InterfaceError, OSError)


def utc_iso(when: datetime) -> str:
    """ISO-8601 in UTC; naive datetimes are refused rather than guessed."""
    if when.tzinfo is None or when.utcoffset() is None:
        raise ValueError("timestamps must be timezone-aware (use datetime.now(UTC))")
    return when.astimezone(UTC).isoformat()


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _dt(text: str) -> datetime:
    return datetime.fromisoformat(text)


def from_row(cls: type[Model], row: Row, **given: Any) -> Model:
    """The model `cls` (a dataclass) of a result row: each field without a default is the
    column of its name, but those `given` (a value worked out: a timestamp parsed, a field
    from elsewhere); a field with a default keeps it unless `given`."""
    columns = {
        f.name: row[f.name]
        for f in fields(cls)
        if f.name not in given and f.default is MISSING and f.default_factory is MISSING
    }
    return cls(**columns, **given)


def _check_ledger(record: LedgerRecord) -> None:
    if not record.deltas:
        raise ValueError("a ledger write needs at least one player")
    total = sum(record.deltas.values())
    if total != 0:
        raise LedgerNotZeroSum(total)
    missing = [uid for uid in record.deltas if uid not in record.names]
    if missing:
        raise ValueError(f"no name given for user(s) {missing}")
    utc_iso(record.finished_at)


async def ensure_chat(conn: Conn, chat_id: int) -> None:
    """The chat's row, inserted if it has none, in the caller's transaction."""
    await conn.execute(
        "INSERT INTO chats (chat_id, updated_at) VALUES (?, ?) ON CONFLICT DO NOTHING",
        (chat_id, _now()),
    )

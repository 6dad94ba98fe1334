"""What every section of the database shares: the backend and its transactions, opening and
closing, the helpers for timestamps, and the writes one section makes inside another's
transaction (a move stores its ledger entry, its hand record and its webhook update with it).
"""

from __future__ import annotations

import json
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime
from typing import Any, Final, Self

from storage.backend import NORMAL, Backend, Conn
from storage.errors import LedgerNotZeroSum
from storage.league import GAME
from storage.models import LedgerRecord
from storage.sqlite import SCHEMES as SQLITE_SCHEMES
from storage.sqlite import SqliteBackend
from storage.stats import PlayRecord

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


class Store:
    """The backend and its transactions: the base of each section's class."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.path = backend.where
        self._group_calls_since_prune = 0

    # ------------------------------------------------------------------ lifecycle

    @classmethod
    async def open(cls, url: str, *, create: bool = True) -> Self:
        """Connect and apply pending migrations: `sqlite:///file.db` (with `create=False` a
        missing file raises FileNotFoundError instead of being created) or
        `postgresql://user:password@host:port/database` (the database must exist)."""
        if url.startswith(POSTGRES_SCHEMES):
            from storage.postgres import PostgresBackend  # asyncpg only when it is used

            return cls(await PostgresBackend.open(url))
        if not url.startswith(SQLITE_SCHEMES):
            raise ValueError(
                f"not a database URL: {describe_url(url)!r} (want sqlite:///file.db or"
                " postgresql://user:password@host:port/database)"
            )
        return cls(await SqliteBackend.open(url, create=create))

    async def close(self) -> None:
        await self.backend.close()

    async def ping(self) -> None:
        """A trivial read: raises if the database cannot be read (health checks)."""
        async with self._read() as conn:
            await conn.one("SELECT 1")

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def schema_version(self) -> int:
        return await self.backend.schema_version()

    async def pragmas(self) -> dict[str, Any]:
        """SQLite: journal_mode, busy_timeout, foreign_keys and user_version."""
        assert isinstance(self.backend, SqliteBackend), "pragmas are SQLite's"
        return await self.backend.pragmas()

    # ------------------------------------------------------------------ transactions

    def _write(self, priority: int = NORMAL) -> AbstractAsyncContextManager[Conn]:
        return self.backend.write(priority)

    def _read(self, priority: int = NORMAL) -> AbstractAsyncContextManager[Conn]:
        return self.backend.read(priority)

    @staticmethod
    async def _ensure_chat(conn: Conn, chat_id: int) -> None:
        await conn.execute(
            "INSERT INTO chats (chat_id, updated_at) VALUES (?, ?) ON CONFLICT DO NOTHING",
            (chat_id, _now()),
        )

    # ---------------------------------------- written inside another section's transaction

    @staticmethod
    async def _applied(conn: Conn, update_id: int) -> None:
        await conn.execute(
            "UPDATE webhook_updates SET state = 'done' WHERE update_id = ?", (update_id,)
        )

    async def _insert_ledger(self, conn: Conn, record: LedgerRecord, kind: str = GAME) -> bool:
        await self._ensure_chat(conn, record.chat_id)
        chat = await conn.one("SELECT league_epoch FROM chats WHERE chat_id = ?", (record.chat_id,))
        assert chat is not None
        epoch: int = chat["league_epoch"]
        deltas_json = json.dumps({str(uid): d for uid, d in record.deltas.items()})
        changed = await conn.execute(
            "INSERT INTO ledger_hands (chat_id, epoch, hand_key, table_id, variant, finished_at,"
            " deltas_json, kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (chat_id, hand_key) DO NOTHING",
            (
                record.chat_id,
                epoch,
                record.hand_key,
                record.table_id,
                record.variant,
                utc_iso(record.finished_at),
                deltas_json,
                kind,
            ),
        )
        if changed != 1:
            return False
        await conn.executemany(
            "INSERT INTO ledger_entries (chat_id, epoch, hand_key, user_id, name, delta)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            [
                (record.chat_id, epoch, record.hand_key, uid, record.names[uid], delta)
                for uid, delta in record.deltas.items()
            ],
        )
        return True

    @staticmethod
    async def _insert_play(conn: Conn, record: PlayRecord) -> None:
        """The hand's record (and the match's, if it ended) under the chat's current season;
        a hand or match recorded already is left as it was (append-only)."""
        await Store._ensure_chat(conn, record.chat_id)
        chat = await conn.one("SELECT league_epoch FROM chats WHERE chat_id = ?", (record.chat_id,))
        assert chat is not None
        when = utc_iso(record.finished_at)
        head = (record.chat_id, chat["league_epoch"], record.variant, record.family, when)
        await conn.execute(
            "INSERT INTO hand_records (table_id, hand_index, chat_id, epoch, variant, family,"
            " finished_at, record_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (table_id, hand_index) DO NOTHING",
            (record.table_id, record.hand_index, *head, json.dumps(record.hand)),
        )
        if record.match is not None:
            await conn.execute(
                "INSERT INTO match_records (table_id, chat_id, epoch, variant, family,"
                " finished_at, record_json) VALUES (?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (table_id) DO NOTHING",
                (record.table_id, *head, json.dumps(record.match)),
            )

"""The bot's database: every SQL statement of the bot, written once for both backends.

`Database.open(url)` picks the backend from the URL: SQLite (`storage.sqlite`, the embedded
default) or PostgreSQL (`storage.postgres`); `storage.backend` says what a backend provides
and how transactions behave. The SQL here is the common dialect of the two: `?`
placeholders, `ON CONFLICT`, `CAST(... AS BIGINT)` where PostgreSQL would widen a type.
Timestamps are stored as ISO-8601 UTC text and returned as aware datetimes.

`Database` is composed of parts, one a section, each a plain class in its own module given the
backend (`storage.backend.Backend`: its transactions) and any other part it writes through;
a caller reaches the part it needs (`db.ledger.balances(chat_id)`):

- `tables`: a table's row and move log, and what several workers agree on through it (a move
  writes its ledger entry, its hand's record and its webhook update through `ledger`, `stats`
  and `updates`, in its own transaction);
- `messages`: the players' hand messages and what each Telegram message shows;
- `updates`: webhook updates applied once;
- `people`: users and chats;
- `tournaments`: tournaments and their fixtures;
- `ledger`: the zero-sum ledger, its seasons, undos and payments;
- `stats`: the records of play behind stats and ratings;
- `replays`: a finished hand's moves and its review, for the Mini App's replay.

`Database` itself opens and closes the backend; `base` holds the helpers the parts share
(timestamps, a ledger record's checks, a chat's row written first: `ensure_chat`).
"""

from __future__ import annotations

from typing import Any, Self

from storage.backend import BACKGROUND, NORMAL, URGENT, Backend
from storage.db.base import POSTGRES_SCHEMES, describe_url, driver_errors, utc_iso
from storage.db.ledger import LedgerStore
from storage.db.messages import MessageStore
from storage.db.people import PeopleStore
from storage.db.replays import ReplayStore
from storage.db.stats import StatsStore
from storage.db.tables import _ACTIVE_SQL as _ACTIVE_SQL
from storage.db.tables import TableStore
from storage.db.tables import next_at as next_at
from storage.db.tournaments import TournamentStore
from storage.db.updates import UpdateStore
from storage.sqlite import SCHEMES as SQLITE_SCHEMES
from storage.sqlite import SqliteBackend, sqlite_path

# storage.db also gives `next_at` and `_ACTIVE_SQL` (a test reads it), as before the split
__all__ = [
    "BACKGROUND",
    "NORMAL",
    "URGENT",
    "Database",
    "describe_url",
    "driver_errors",
    "sqlite_path",
    "utc_iso",
]


class Database:
    """Open with `await Database.open(url)`; close with `await db.close()` (or `async with`).
    Its parts share the backend; each is one section's statements."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.path = backend.where
        self.updates = UpdateStore(backend)
        self.people = PeopleStore(backend)
        self.ledger = LedgerStore(backend)
        self.stats = StatsStore(backend)
        self.tables = TableStore(backend, self.ledger, self.stats, self.updates)
        self.messages = MessageStore(backend)
        self.tournaments = TournamentStore(backend)
        self.replays = ReplayStore(backend)

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
        async with self.backend.read() as conn:
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

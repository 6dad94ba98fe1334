"""What `storage.db.Database` needs of a database: two backends, SQLite and PostgreSQL.

SQL is written once, in `storage.db`, with `?` placeholders; a backend that binds
otherwise (PostgreSQL: `$1`) rewrites them. Every statement runs inside a transaction
opened by `Backend.write` or `Backend.read`:

- `write`: one write transaction at a time across every process sharing the database
  (SQLite: `BEGIN IMMEDIATE`; PostgreSQL: a transaction-scoped advisory lock), so a
  read-check-write inside it sees no interleaved writer, as with SQLite.
- `read`: one consistent snapshot for all its statements.

A constraint broken by a statement raises `storage.errors.Conflict`. On PostgreSQL an
error aborts the transaction, so a statement whose failure is handled inside the same
transaction runs under `Conn.guarded()` (a savepoint; nothing on SQLite).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

# Who goes first when several coroutines of one process wait for the database: a person's
# move (the tap is answered once it is stored), then everything else (BACKGROUND: what may
# wait without harm).
URGENT, NORMAL, BACKGROUND = 0, 1, 2


class Row(Protocol):
    """A result row, by column name or position (sqlite3.Row, asyncpg.Record)."""

    def __getitem__(self, key: str | int, /) -> Any: ...

    def keys(self) -> Iterable[str]: ...


class Conn(Protocol):
    """A connection inside a transaction."""

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; the number of rows it changed."""
        ...

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...

    async def insert(self, sql: str, params: Sequence[Any], key: str) -> int:
        """Run one INSERT of one row; the value of its generated `key` column."""
        ...

    async def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None: ...

    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...

    def guarded(self) -> AbstractAsyncContextManager[None]:
        """Statements inside may fail with Conflict and leave the transaction usable."""
        ...


class Backend(Protocol):
    kind: str  # "sqlite" or "postgresql"
    where: str  # for messages: the file, or the server and database (never a password)

    def write(self, priority: int = NORMAL) -> AbstractAsyncContextManager[Conn]: ...

    def read(self, priority: int = NORMAL) -> AbstractAsyncContextManager[Conn]: ...

    def hold(self, key: tuple[int, int]) -> AbstractAsyncContextManager[None]:
        """A lock on `key` across every process sharing the database, held until the block
        ends or the process dies (SQLite, which one process uses: within the process)."""
        ...

    async def schema_version(self) -> int: ...

    async def close(self) -> None: ...

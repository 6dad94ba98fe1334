"""The PostgreSQL backend, through asyncpg: for a public instance whose workers share one
database (`postgresql://user:password@host:port/database`).

asyncpg rather than psycopg 3: it is asyncio-native (no thread or libpq underneath), keeps
prepared statements per connection (every statement here is a fixed text, so each is parsed
once per connection), and ships as a wheel with nothing else to install.

Transactions keep the behaviour the SQLite backend has (`storage.backend`):

- A write transaction takes a transaction-scoped advisory lock first, so write transactions
  run one at a time across every process: a read-check-write such as `claim_update` or
  `LedgerStore.insert` sees no writer in between, exactly as under SQLite's `BEGIN IMMEDIATE`.
  Within a process an in-process priority lock goes first (a person's move before the bot's
  own writes), so a process holds at most one pool connection waiting for the database lock.
- A read transaction is `REPEATABLE READ READ ONLY`: one snapshot for all its statements,
  and it never waits for a writer.

The schema is `storage.schema`'s, the same steps as SQLite's with the dialect differences
filled in from its `DIALECTS["postgresql"]` (`STEPS`). The version is kept in the table
`schema_version`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import logging
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from typing import Any, Final, cast
from urllib.parse import urlsplit

import asyncpg

from storage.backend import NORMAL, Row
from storage.errors import Conflict, SchemaTooNew
from storage.schema import Migration, migrations
from storage.sqlite import KeyedLocks, PriorityLock

log = logging.getLogger(__name__)

# pg_advisory_xact_lock keys: "briscola" and its write and migration locks
WRITE_LOCK: Final = 0x62726973_636F6C61
MIGRATION_LOCK: Final = WRITE_LOCK + 1
POOL_SIZE: Final = 8
HOLD_POLL: Final = 0.02  # seconds between two tries of a `hold` lock


@functools.lru_cache(maxsize=1024)
def dollar_params(sql: str) -> str:
    """`?` placeholders as `$1, $2, ...`, leaving quoted text alone."""
    out: list[str] = []
    n = 0
    quote: str | None = None
    for ch in sql:
        if quote is not None:
            if ch == quote:
                quote = None
        elif ch in ("'", '"'):
            quote = ch
        elif ch == "?":
            n += 1
            out.append(f"${n}")
            continue
        out.append(ch)
    return "".join(out)


def _count(status: str) -> int:
    """The number of rows from a command status ("UPDATE 1", "INSERT 0 1", "DELETE 0")."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


# The schema in PostgreSQL's words (`storage.schema.DIALECTS["postgresql"]`), by version:
# `STEPS[i]` takes it from version i to i + 1, as SQLite's `MIGRATIONS[i]` does.
STEPS: Final[tuple[Migration, ...]] = migrations("postgresql")


def redacted(url: str) -> str:
    """The server and database of a URL, for messages: never the password."""
    parts = urlsplit(url)
    host = parts.hostname or "localhost"
    port = f":{parts.port}" if parts.port else ""
    return f"postgresql://{host}{port}{parts.path}"


class PostgresConn:
    """`storage.backend.Conn` over an asyncpg connection inside a transaction."""

    def __init__(self, conn: asyncpg.Connection) -> None:
        self._conn = conn

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        try:
            status = await self._conn.execute(dollar_params(sql), *params)
        except asyncpg.IntegrityConstraintViolationError as exc:
            raise Conflict(str(exc)) from exc
        return _count(status)

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        try:
            await self._conn.executemany(dollar_params(sql), list(rows))
        except asyncpg.IntegrityConstraintViolationError as exc:
            raise Conflict(str(exc)) from exc

    async def insert(self, sql: str, params: Sequence[Any], key: str) -> int:
        try:
            value = await self._conn.fetchval(f"{dollar_params(sql)} RETURNING {key}", *params)
        except asyncpg.IntegrityConstraintViolationError as exc:
            raise Conflict(str(exc)) from exc
        return int(value)

    async def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        return cast("Row | None", await self._conn.fetchrow(dollar_params(sql), *params))

    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return cast("list[Row]", await self._conn.fetch(dollar_params(sql), *params))

    @asynccontextmanager
    async def guarded(self) -> AsyncIterator[None]:
        async with self._conn.transaction():  # nested: a savepoint
            yield


class _Locker:
    """The process's one connection for `PostgresBackend.hold`'s advisory locks, opened when
    first needed, one statement at a time. If it is lost, the locks it held are gone with
    it (logged; the next statement opens a new one)."""

    def __init__(self, url: str) -> None:
        self._url = url
        self._conn: asyncpg.Connection | None = None
        self._use = asyncio.Lock()

    async def fetch(self, sql: str, key: int) -> Any:
        async with self._use:
            if self._conn is None or self._conn.is_closed():
                if self._conn is not None:
                    log.warning("the advisory lock connection was lost; opening another")
                self._conn = await asyncpg.connect(self._url)
            return await self._conn.fetchval(sql, key)

    async def close(self) -> None:
        async with self._use:
            if self._conn is not None and not self._conn.is_closed():
                await self._conn.close()
            self._conn = None


class PostgresBackend:
    kind = "postgresql"

    def __init__(self, pool: asyncpg.Pool, where: str, url: str = "") -> None:
        self._pool = pool
        self._url = url
        self._locker = _Locker(url)
        self._held = KeyedLocks()  # `hold`: one holder per key within the process
        self.where = where
        self._write_lock = PriorityLock()

    @classmethod
    async def open(cls, url: str, *, pool_size: int = POOL_SIZE) -> PostgresBackend:
        """Connect a pool and bring the schema up to date (one process at a time)."""
        pool = await asyncpg.create_pool(url, min_size=1, max_size=pool_size)
        try:
            async with pool.acquire() as conn:
                await migrate(conn)
        except BaseException:
            await pool.close()
            raise
        return cls(pool, redacted(url), url)

    async def close(self) -> None:
        async with self._write_lock.hold(NORMAL):
            await self._pool.close()
        await self._locker.close()

    async def schema_version(self) -> int:
        async with self._pool.acquire() as conn:
            return await current_version(conn)

    @asynccontextmanager
    async def write(self, priority: int = NORMAL) -> AsyncIterator[PostgresConn]:
        async with (
            self._write_lock.hold(priority),
            self._pool.acquire() as conn,
            conn.transaction(),
        ):
            await conn.execute("SELECT pg_advisory_xact_lock($1)", WRITE_LOCK)
            yield PostgresConn(conn)

    @asynccontextmanager
    async def hold(self, key: tuple[int, int]) -> AsyncIterator[None]:
        """A session advisory lock on `key`, held on the process's one lock connection
        (`_Locker`): any number of messages may be waiting for Telegram under their locks at
        once without holding a server connection each. Within the process a lock per key
        comes first (a session's advisory locks are re-entrant, so they exclude other
        processes only); tried every `HOLD_POLL` seconds rather than awaited, so a waiter
        holds no place in a server lock queue. A process that dies lets go with its
        connection."""
        digest = hashlib.blake2b(f"{key[0]}:{key[1]}".encode(), digest_size=8).digest()
        lock_key = int.from_bytes(digest, "big", signed=True)
        async with self._held.hold(lock_key):
            try:
                while not await self._locker.fetch("SELECT pg_try_advisory_lock($1)", lock_key):
                    await asyncio.sleep(HOLD_POLL)
                yield
            finally:  # also when given up while trying: the lock may have been taken anyway
                # (no other holder of `key` in this process to let go for: `_held`)
                with contextlib.suppress(Exception):
                    await self._locker.fetch("SELECT pg_advisory_unlock($1)", lock_key)

    @asynccontextmanager
    async def read(self, priority: int = NORMAL) -> AsyncIterator[PostgresConn]:
        async with (
            self._pool.acquire() as conn,
            conn.transaction(isolation="repeatable_read", readonly=True),
        ):
            yield PostgresConn(conn)


async def current_version(conn: asyncpg.Connection) -> int:
    exists = await conn.fetchval("SELECT to_regclass('schema_version') IS NOT NULL")
    if not exists:
        return 0
    return int(await conn.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_version"))


async def migrate(conn: asyncpg.Connection, steps: Sequence[Migration] = STEPS) -> list[int]:
    """Bring the schema to version `len(steps)`, every pending step in one transaction; the
    versions applied (empty when it was up to date). Raises SchemaTooNew if the database is
    ahead of `steps`."""
    applied: list[int] = []
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
        current = await current_version(conn)
        if current > len(steps):
            raise SchemaTooNew(current, len(steps))
        if current == 0:  # a new database (or one left at version 0 by an empty `steps`)
            await conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)"
            )
        for version in range(current + 1, len(steps) + 1):
            for statement in steps[version - 1]:
                await conn.execute(statement)
            applied.append(version)
        if applied:
            await conn.execute("DELETE FROM schema_version")
            await conn.execute("INSERT INTO schema_version (version) VALUES ($1)", applied[-1])
    return applied

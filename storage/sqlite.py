"""The SQLite backend, through aiosqlite: the embedded default (`sqlite:///briscola.db`).

One connection per process, in autocommit mode; every transaction is explicit.
Writes: an in-process lock is held around every write transaction, which starts with
`BEGIN IMMEDIATE` (so another process, such as `python -m bot export`, waits on
`busy_timeout` instead of failing half-way). Reads take the same lock and run in a deferred
transaction: with a single connection a read must not see another coroutine's uncommitted
write, and a multi-statement read sees one snapshot. Everything here is short, so the bot
never waits long on the lock; a person's move goes first (`URGENT`).

Journal mode WAL (file databases; `:memory:` cannot use it), busy_timeout 5000 ms, foreign
keys on. The schema is `storage.schema`'s, in SQLite's words (its dialect differences are
`storage.schema.DIALECTS`), applied by `storage.migrations`, numbered by `PRAGMA user_version`.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import sqlite3
from collections.abc import AsyncIterator, Hashable, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any, Final, cast

import aiosqlite

from storage.backend import NORMAL, Row
from storage.errors import Conflict
from storage.migrations import migrate, schema_version

BUSY_TIMEOUT_MS: Final = 5000
MEMORY: Final = ":memory:"
SCHEMES: Final = ("sqlite:///", "sqlite+aiosqlite:///")


def sqlite_path(url: str) -> str:
    """The file path of a `sqlite:///...` URL: `sqlite:///briscola.db` is relative to the
    working directory, `sqlite:////abs/path.db` is absolute, `sqlite:///:memory:` is
    `":memory:"`. Raises ValueError for anything else."""
    for scheme in SCHEMES:
        if url.startswith(scheme):
            path = url[len(scheme) :]
            if "?" in path or "#" in path:
                raise ValueError(f"query strings are not supported in the database URL {url!r}")
            if not path:
                raise ValueError(f"the database URL {url!r} names no file")
            return path
    raise ValueError(f"not a SQLite URL: {url!r} (want sqlite:///relative.db or sqlite:////abs.db)")


class PriorityLock:
    """A lock handed out by (priority, arrival)."""

    def __init__(self) -> None:
        self._held = False
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self._seq = itertools.count()

    @asynccontextmanager
    async def hold(self, priority: int) -> AsyncIterator[None]:
        if self._held or self._waiting:
            fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            heapq.heappush(self._waiting, (priority, next(self._seq), fut))
            try:
                await fut
            except asyncio.CancelledError:
                if fut.done() and not fut.cancelled():  # handed over, then cancelled
                    self._release()
                else:
                    self._waiting = [w for w in self._waiting if w[2] is not fut]
                    heapq.heapify(self._waiting)
                raise
        else:
            self._held = True
        try:
            yield
        finally:
            self._release()

    def _release(self) -> None:
        while self._waiting:
            _, _, fut = heapq.heappop(self._waiting)
            if not fut.done():
                fut.set_result(None)  # handed over: _held stays True
                return
        self._held = False


class KeyedLocks:
    """An asyncio lock per key, made when first wanted and dropped once nobody holds or
    waits for it (`SqliteBackend.hold`, and `PostgresBackend.hold` within its process)."""

    def __init__(self) -> None:
        self._locks: dict[Hashable, tuple[asyncio.Lock, list[int]]] = {}

    @asynccontextmanager
    async def hold(self, key: Hashable) -> AsyncIterator[None]:
        lock, users = self._locks.setdefault(key, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:
                yield
        finally:
            users[0] -= 1
            if not users[0]:
                self._locks.pop(key, None)


# `SqliteBackend.hold`: locks by (database file, key), for every backend of the process on
# that file
_KEYED = KeyedLocks()


class SqliteConn:
    """`storage.backend.Conn` over the one aiosqlite connection (one trip to the database
    thread per statement: execute_fetchall rather than execute, fetch and close)."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        try:
            cur = await self._conn.execute(sql, params)
        except sqlite3.IntegrityError as exc:
            raise Conflict(str(exc)) from exc
        return int(cur.rowcount)

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        try:
            await self._conn.executemany(sql, rows)
        except sqlite3.IntegrityError as exc:
            raise Conflict(str(exc)) from exc

    async def insert(self, sql: str, params: Sequence[Any], key: str) -> int:
        try:
            cur = await self._conn.execute(sql, params)
        except sqlite3.IntegrityError as exc:
            raise Conflict(str(exc)) from exc
        assert cur.lastrowid is not None
        return int(cur.lastrowid)  # `key` is the rowid alias of every table inserted so

    async def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        rows = await self.all(sql, params)
        return rows[0] if rows else None

    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return cast("list[Row]", list(await self._conn.execute_fetchall(sql, params)))

    @asynccontextmanager
    async def guarded(self) -> AsyncIterator[None]:
        yield  # a failed statement leaves a SQLite transaction usable


class SqliteBackend:
    kind = "sqlite"

    @asynccontextmanager
    async def hold(self, key: tuple[int, int]) -> AsyncIterator[None]:
        """SQLite serves one process: a lock within it, on the file and `key`."""
        async with _KEYED.hold((self.where, key)):
            yield

    def __init__(self, conn: aiosqlite.Connection, path: str) -> None:
        self.conn = conn
        self.where = path
        self._lock = PriorityLock()
        self._wrapped = SqliteConn(conn)

    @classmethod
    async def open(cls, url: str, *, create: bool = True) -> SqliteBackend:
        """Connect, set the pragmas and apply pending migrations. With `create=False` a
        missing database file raises FileNotFoundError instead of being created."""
        path = sqlite_path(url)
        memory = path == MEMORY
        if not memory and not create and not Path(path).is_file():
            raise FileNotFoundError(f"no database file at {path}")
        conn = await aiosqlite.connect(path, isolation_level=None)
        try:
            conn.row_factory = sqlite3.Row
            await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS:d}")
            await conn.execute("PRAGMA foreign_keys = ON")
            if not memory:
                async with conn.execute("PRAGMA journal_mode = WAL") as cur:
                    row = await cur.fetchone()
                if row is None or str(row[0]).lower() != "wal":
                    raise sqlite3.OperationalError(f"could not switch {path} to WAL mode")
            await migrate(conn)
        except BaseException:
            await conn.close()
            raise
        return cls(conn, path)

    async def close(self) -> None:
        async with self._lock.hold(NORMAL):
            await self.conn.close()

    async def schema_version(self) -> int:
        async with self._lock.hold(NORMAL):
            return await schema_version(self.conn)

    async def pragmas(self) -> dict[str, Any]:
        """journal_mode, busy_timeout, foreign_keys and user_version, for checks and logs."""
        out: dict[str, Any] = {}
        async with self._lock.hold(NORMAL):
            for name in ("journal_mode", "busy_timeout", "foreign_keys", "user_version"):
                async with self.conn.execute(f"PRAGMA {name}") as cur:
                    row = await cur.fetchone()
                out[name] = None if row is None else row[0]
        return out

    async def _complete(self, sql: str) -> None:
        """Run a transaction-control statement to completion even if we are cancelled.
        aiosqlite runs it on its own thread regardless, so a cancelled BEGIN would otherwise
        leave the connection inside a transaction that nobody owns."""

        async def run() -> None:
            await self.conn.execute(sql)

        task = asyncio.ensure_future(run())
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await task
            raise

    @asynccontextmanager
    async def _transaction(
        self, priority: int, begin: str, failed: str
    ) -> AsyncIterator[SqliteConn]:
        """One transaction under the lock, at `priority`: `begin`, the body, COMMIT; if any of
        it raises, `failed` ends the transaction (if one is open)."""
        async with self._lock.hold(priority):
            try:
                await self._complete(begin)
                yield self._wrapped
                await self._complete("COMMIT")
            except BaseException:
                if self.conn.in_transaction:
                    await self._complete(failed)
                raise

    def write(self, priority: int = NORMAL) -> AbstractAsyncContextManager[SqliteConn]:
        return self._transaction(priority, "BEGIN IMMEDIATE", "ROLLBACK")

    def read(self, priority: int = NORMAL) -> AbstractAsyncContextManager[SqliteConn]:
        return self._transaction(priority, "BEGIN", "COMMIT")  # nothing to undo

"""The two storage backends for the storage tests (issue 15): SQLite, and PostgreSQL from the
`pgserver` wheel, one server per test run, started on first use, with a fresh database for
each test (`fresh_url`). `raw_sql` runs a statement past `storage.Database`, as another
program could, to show what the schema itself refuses."""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
import os
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

import asyncpg

from storage.postgres import dollar_params, redacted
from storage.sqlite import sqlite_path

BACKENDS = ("sqlite", "postgresql")
# what a broken constraint raises on each backend, past storage.Database
RAW_CONFLICT = (sqlite3.IntegrityError, asyncpg.IntegrityConstraintViolationError)

_server: Any = None
_names = itertools.count()


def postgres_server() -> Any:
    """The test run's PostgreSQL server (a Unix socket in a temporary directory), removed
    when the run ends."""
    global _server
    if _server is None:
        from pgserver import get_server  # type: ignore[attr-defined]

        _server = get_server(tempfile.mkdtemp(prefix="pg-"), cleanup_mode="delete")
    return _server


def fresh_url(backend: str, tmp_path: Path) -> str:
    """The URL of an empty database on `backend`."""
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / f'b{next(_names)}.db'}"
    server = postgres_server()
    name = f"t{os.getpid()}_{next(_names)}"
    server.psql(f"CREATE DATABASE {name};")
    return str(server.get_uri(name))


async def raw_sql(url: str, sql: str, params: tuple[Any, ...] = ()) -> None:
    """Run one statement (`?` placeholders) on the database at `url`, outside the bot."""
    if url.startswith("sqlite"):
        with sqlite3.connect(sqlite_path(url)) as conn:
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute(sql, params)
        return
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(dollar_params(sql), *params)
    finally:
        await conn.close()


async def raw_rows(url: str, sql: str) -> list[tuple[Any, ...]]:
    """The rows of one query on the database at `url`, outside the bot."""
    if url.startswith("sqlite"):
        with sqlite3.connect(sqlite_path(url)) as conn:
            return list(conn.execute(sql).fetchall())
    conn = await asyncpg.connect(url)
    try:
        return [tuple(r) for r in await conn.fetch(sql)]
    finally:
        await conn.close()


class PgStore:
    """`tests.test_e2e.Store`'s `rows` on PostgreSQL, for code that looks at the bot's
    database synchronously (the load bench): each query runs on its own thread and loop."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.path = redacted(url)

    def rows(self, sql: str, *args: Any) -> list[Any]:
        async def fetch() -> list[Any]:
            conn = await asyncpg.connect(self.url)
            try:
                return list(await conn.fetch(dollar_params(sql), *args))
            finally:
                await conn.close()

        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, fetch()).result()

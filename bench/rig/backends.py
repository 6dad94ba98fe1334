"""The two storage backends for the storage tests (issue 15): SQLite, and PostgreSQL from the
`pgserver` wheel, one server per test run, started on first use, with a fresh database for
each test (`fresh_url`). `raw_sql` runs a statement past `storage.Database`, as another
program could, to show what the schema itself refuses. The load bench runs the bot on the same
PostgreSQL server (`bench.load.run`) and reads its database with `PgStore`."""

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
    """`bench.rig.bot_process.Store`'s `rows` on PostgreSQL, for code that looks at the bot's
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


# What a PostgreSQL schema is made of, from its catalog: the columns in their order (type,
# NOT NULL, default, identity), the constraints, indexes and triggers with their definitions,
# the functions and the sequences.
_PG_CATALOG = {
    "columns": "SELECT c.relname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod),"
    " a.attnotnull, pg_get_expr(d.adbin, d.adrelid), a.attidentity, a.attgenerated"
    " FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid"
    " LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum"
    " WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'"
    " AND a.attnum > 0 AND NOT a.attisdropped ORDER BY 1, 2",
    "constraints": "SELECT conrelid::regclass::text, conname, contype,"
    " pg_get_constraintdef(oid) FROM pg_constraint"
    " WHERE connamespace = current_schema()::regnamespace ORDER BY 1, 2",
    "indexes": "SELECT tablename, indexname, indexdef FROM pg_indexes"
    " WHERE schemaname = current_schema() ORDER BY 1, 2",
    "triggers": "SELECT tgrelid::regclass::text, tgname, pg_get_triggerdef(oid)"
    " FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1, 2",
    "functions": "SELECT proname, pg_get_functiondef(oid) FROM pg_proc"
    " WHERE pronamespace = current_schema()::regnamespace ORDER BY 1",
    "sequences": "SELECT sequencename, data_type::text, start_value, increment_by, max_value,"
    " cycle FROM pg_sequences WHERE schemaname = current_schema() ORDER BY 1",
}


async def schema_of(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """The schema of the database at `url`, to compare two databases by: SQLite's every
    object with the statement it keeps for it, PostgreSQL's catalog (`_PG_CATALOG`)."""
    if url.startswith("sqlite"):
        rows = await raw_rows(url, "SELECT type, name, tbl_name, sql FROM sqlite_master")
        return {"sqlite_master": sorted(rows, key=lambda r: (r[0], r[1]))}
    return {part: await raw_rows(url, sql) for part, sql in _PG_CATALOG.items()}

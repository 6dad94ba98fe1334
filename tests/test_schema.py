"""The schema (storage/schema.py), written once for both backends with its dialect differences
in `storage.schema.DIALECTS`: what each released step renders to on each backend, the
upgrade of a database from every version that shipped, and the two backends' runners
(`storage.migrations` for SQLite, `storage.postgres.migrate`). The older databases are made
by the schema's own first steps, as the bot that shipped them made them."""

from __future__ import annotations

import contextlib
import hashlib
import re
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import aiosqlite
import asyncpg
import pytest

from bench.rig.backends import BACKENDS, fresh_url, raw_rows, raw_sql, schema_of
from storage import MIGRATIONS, SCHEMA_VERSION, Database, SchemaTooNew, migrate, sqlite_path
from storage.postgres import STEPS
from storage.postgres import migrate as pg_migrate
from storage.schema import DIALECTS, UPGRADES, Dialect, Migration, migrations

CHAT = -1001

# What each released step renders to, by dialect (the first 10 hex digits of the SHA-256 of
# its statements joined by NUL): a released step is never edited, since databases already
# went through it. A new step is appended to `storage.schema.UPGRADES`, and its digests here.
RELEASED: dict[Dialect, str] = {
    "sqlite": "6511b01ef8 a59c1b911f e11cba396a 20a46ae299 3ecfc74263 3c2b99f140 ddc73be6a3"
    " 91229e840f 1335796b8f e40f628d12 1306a35a9a 7f60a54522 dcb11b31a0 72c6a0c9fa"
    " 291209db01 cee264311f 89f872df36 18416f8494",
    "postgresql": "cbbbe448ed 3e8a5f7320 e11cba396a 20a46ae299 75f003c663 b40ef6cc2b f82ead65e5"
    " 1598b4834c 1335796b8f 4a49e670f0 fa8bee5d5d 7f60a54522 dcb11b31a0 5cdad14485"
    " 291209db01 c8ba0b4a08 1209c8d92b aa8f79f667",
}
# The versions each backend's databases can be at: SQLite's every one; PostgreSQL's from 9,
# the version it came with (0: a new database).
SHIPPED: dict[str, list[int]] = {
    "sqlite": list(range(SCHEMA_VERSION)),
    "postgresql": [0, *range(9, SCHEMA_VERSION)],
}
STEPS_OF: dict[str, Sequence[Migration]] = {"sqlite": MIGRATIONS, "postgresql": STEPS}


def digest(step: Migration) -> str:
    return hashlib.sha256("\0".join(step).encode()).hexdigest()[:10]


async def upgrade(url: str, steps: Sequence[Migration]) -> list[int]:
    """Bring the database at `url` to version `len(steps)` with its backend's runner."""
    if url.startswith("sqlite"):
        async with aiosqlite.connect(sqlite_path(url), isolation_level=None) as lite:
            return await migrate(lite, steps)
    conn = await asyncpg.connect(url)
    try:
        return await pg_migrate(conn, steps)
    finally:
        await conn.close()


async def version_of(url: str) -> int:
    """The schema version of the database at `url`, past `Database` (which refuses a newer
    one)."""
    lite = url.startswith("sqlite")
    [(version,)] = await raw_rows(
        url, "PRAGMA user_version" if lite else "SELECT version FROM schema_version"
    )
    return int(version)


async def table_names(url: str) -> set[str]:
    if url.startswith("sqlite"):
        sql = "SELECT name FROM sqlite_master WHERE type = 'table'"
    else:
        sql = "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
    return {str(r[0]) for r in await raw_rows(url, sql)}


# ---------------------------------------------------------------------- the steps


def test_released_steps_render_as_they_shipped() -> None:
    for dialect, pinned in RELEASED.items():
        released = pinned.split()
        found = [digest(step) for step in migrations(dialect)]
        for version, (now, then) in enumerate(zip(found, released, strict=False), 1):
            assert now == then, f"step {version} changed on {dialect}: append a new step instead"
        assert len(found) == len(released), (
            f"a new step: add its digests to RELEASED ({dialect}: {found[len(released) :]})"
        )


def test_each_placeholder_is_named_once_for_both_dialects() -> None:
    """Both dialects name the same placeholders, each of them used by some step, and every
    placeholder a step uses is named: nothing is left to fill in."""
    assert DIALECTS["sqlite"].keys() == DIALECTS["postgresql"].keys()
    used = {name for step in UPGRADES for sql in step for name in re.findall(r"\{(\w+)\}", sql)}
    assert used == DIALECTS["sqlite"].keys()
    for dialect in DIALECTS:
        for step in migrations(dialect):
            assert all(sql.strip() and not re.search(r"\{[A-Z_]+\}", sql) for sql in step)


def test_a_postgresql_only_statement_is_left_out_of_sqlite() -> None:
    assert len(MIGRATIONS[0]) == len(STEPS[0]) - 1  # the function the append-only triggers call
    assert all(len(a) == len(b) for a, b in zip(MIGRATIONS[1:], STEPS[1:], strict=True))


# ---------------------------------------------------------------------- upgrades


@pytest.mark.parametrize(
    ("backend", "version"), [(b, v) for b in BACKENDS for v in SHIPPED[b]], ids=str
)
async def test_a_database_at_any_version_upgrades_to_the_new_schema(
    backend: str, version: int, tmp_path: Path
) -> None:
    """A database made at `version` (by the schema's first steps, with a group in it from
    version 1 on) is upgraded on open to exactly the schema a new database gets, every table,
    column, type, default, key, constraint, index and trigger, and its group is still there."""
    url = fresh_url(backend, tmp_path)
    if version:
        assert await upgrade(url, STEPS_OF[backend][:version]) == list(range(1, version + 1))
        await raw_sql(
            url,
            "INSERT INTO chats (chat_id, lang, league_epoch, updated_at) VALUES (?, 'it', 3, 'x')",
            (CHAT,),
        )
    async with await Database.open(url) as db:
        assert await db.schema_version() == SCHEMA_VERSION
    new = fresh_url(backend, tmp_path)
    await (await Database.open(new)).close()
    assert await schema_of(url) == await schema_of(new)
    chats = await raw_rows(url, "SELECT chat_id, lang, league_epoch FROM chats")
    assert chats == ([(CHAT, "it", 3)] if version else [])


async def test_migrates_from_version_zero(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    sqlite3.connect(path).close()  # an empty database: user_version 0
    async with await Database.open(f"sqlite:///{path}") as db:
        assert (await db.pragmas())["user_version"] == SCHEMA_VERSION == len(MIGRATIONS)
    with sqlite3.connect(path) as conn:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert {
        "chats",
        "users",
        "tables",
        "moves",
        "private_messages",
        "ledger_hands",
        "ledger_entries",
        "tables_one_active_per_chat",
    } <= names


@pytest.mark.parametrize("backend", BACKENDS)
async def test_migrations_are_idempotent_and_incremental(backend: str, tmp_path: Path) -> None:
    url = fresh_url(backend, tmp_path)
    await (await Database.open(url)).close()
    steps = STEPS_OF[backend]
    assert await upgrade(url, steps) == []  # up to date: nothing applied
    extra = (*steps, ("CREATE TABLE extra (x INTEGER)", "INSERT INTO extra VALUES (1)"))
    assert await upgrade(url, extra) == [SCHEMA_VERSION + 1]
    assert await upgrade(url, extra) == []
    assert await version_of(url) == SCHEMA_VERSION + 1
    assert await raw_rows(url, "SELECT COUNT(*) FROM extra") == [(1,)]  # ran exactly once


@pytest.mark.parametrize("backend", BACKENDS)
async def test_failed_migration_step_rolls_back(backend: str, tmp_path: Path) -> None:
    url = fresh_url(backend, tmp_path)
    await (await Database.open(url)).close()
    broken = (*STEPS_OF[backend], ("CREATE TABLE half (x INTEGER)", "THIS IS NOT SQL"))
    with pytest.raises((sqlite3.OperationalError, asyncpg.PostgresSyntaxError)):
        await upgrade(url, broken)
    assert await version_of(url) == SCHEMA_VERSION
    assert "half" not in await table_names(url)


async def test_newer_schema_is_refused(tmp_path: Path) -> None:
    url = fresh_url("sqlite", tmp_path)
    with sqlite3.connect(sqlite_path(url)) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    with pytest.raises(SchemaTooNew):
        await Database.open(url)


async def test_postgresql_schema_is_made_once_and_a_newer_one_refused(tmp_path: Path) -> None:
    """Opening twice migrates once; a database from a newer bot is refused, as on SQLite."""
    url = fresh_url("postgresql", tmp_path)
    async with await Database.open(url) as db:
        assert db.backend.kind == "postgresql" and "@" not in db.path
        assert await db.schema_version() == SCHEMA_VERSION
    async with await Database.open(url) as db:
        assert await db.schema_version() == SCHEMA_VERSION
        assert [b.balance for b in await db.ledger.balances(CHAT)] == []
    await raw_sql(url, "UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    with pytest.raises(SchemaTooNew):
        await Database.open(url)


# ---------------------------------------------------------------------- both backends


async def test_both_backends_have_the_same_tables_and_columns(tmp_path: Path) -> None:
    """Issue 40: the schema's two renderings (`storage.schema.DIALECTS`) agree table by
    table, column by column (name, type, NOT NULL), at the same schema version."""

    Columns = dict[str, dict[str, tuple[str, bool]]]  # table -> column -> (type, not null)

    async def columns(url: str, query: str) -> tuple[int, Columns]:
        db = await Database.open(url)
        try:
            async with db.backend.read(0) as conn:
                rows = await conn.all(query)
            found: Columns = {}
            for r in rows:
                kind = SAME_TYPE.get(str(r["k"]).lower(), str(r["k"]).lower())
                found.setdefault(str(r["t"]), {})[str(r["c"])] = (kind, bool(r["n"]))
            return await db.schema_version(), found
        finally:
            await db.close()

    lite = await columns(
        fresh_url("sqlite", tmp_path),
        # a PRIMARY KEY column never holds NULL in PostgreSQL; in SQLite unless declared so
        # it may (an old quirk), though no row of ours ever does: both count as NOT NULL
        'SELECT m.name AS t, p.name AS c, p.type AS k, (p."notnull" OR p.pk > 0) AS n'
        " FROM sqlite_master m, pragma_table_info(m.name) p"
        " WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'",
    )
    pg = await columns(
        fresh_url("postgresql", tmp_path),
        "SELECT table_name AS t, column_name AS c, data_type AS k,"
        " (is_nullable = 'NO') AS n FROM information_schema.columns"
        " WHERE table_schema = current_schema()",
    )
    assert lite[0] == pg[0], (lite[0], pg[0])
    # PostgreSQL keeps its schema's version in a table, SQLite in PRAGMA user_version
    assert pg[1].pop("schema_version", None) is not None
    assert sorted(lite[1]) == sorted(pg[1])
    # ... and PostgreSQL spells out the `rowid` SQLite gives every table not WITHOUT ROWID
    implicit = await implicit_rowids(f"sqlite:///{tmp_path / 'again.db'}", sorted(lite[1]))
    for table in lite[1]:
        theirs = {c: v for c, v in pg[1][table].items() if not (c == "rowid" and table in implicit)}
        assert lite[1][table] == theirs, table


# SQLite's declared types and PostgreSQL's for the same column (64-bit integers, doubles, text)
SAME_TYPE = {"bigint": "integer", "double precision": "real"}


async def implicit_rowids(url: str, tables: list[str]) -> set[str]:
    db = await Database.open(url)
    try:
        found = set()
        async with db.backend.read(0) as conn:
            for table in tables:
                with contextlib.suppress(Exception):
                    await conn.all(f"SELECT rowid FROM {table} LIMIT 0")
                    found.add(table)
        return found
    finally:
        await db.close()

"""SQLite's schema migrations: the schema of `storage.schema` in SQLite's words (its
`DIALECTS["sqlite"]`, where the dialect differences live), numbered by `PRAGMA user_version`.

`MIGRATIONS[i]` takes the schema from version i to version i + 1. Each step is a tuple of
single SQL statements, applied in order inside one `BEGIN IMMEDIATE` transaction together
with the new `user_version`, so a failed step leaves the database at the previous version.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import aiosqlite

from storage.errors import SchemaTooNew
from storage.schema import SCHEMA_VERSION, Migration, migrations

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "Migration", "migrate", "schema_version"]

MIGRATIONS: Final[tuple[Migration, ...]] = migrations("sqlite")


async def schema_version(conn: aiosqlite.Connection) -> int:
    async with conn.execute("PRAGMA user_version") as cur:
        row = await cur.fetchone()
    return 0 if row is None else int(row[0])


async def migrate(
    conn: aiosqlite.Connection, migrations: Sequence[Migration] = MIGRATIONS
) -> list[int]:
    """Bring the database up to `len(migrations)`; returns the versions applied (empty when
    it was up to date). `conn` must be in autocommit mode (isolation_level=None).
    Raises SchemaTooNew if the database is ahead of `migrations`."""
    applied: list[int] = []
    while True:
        current = await schema_version(conn)
        if current > len(migrations):
            raise SchemaTooNew(current, len(migrations))
        if current == len(migrations):
            return applied
        await conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated between the read above and our lock.
            if await schema_version(conn) != current:
                await conn.execute("ROLLBACK")
                continue
            for statement in migrations[current]:
                await conn.execute(statement)
            await conn.execute(f"PRAGMA user_version = {current + 1:d}")
            await conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                await conn.execute("ROLLBACK")
            raise
        applied.append(current + 1)

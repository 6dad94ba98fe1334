"""Schema migrations, numbered by SQLite's `PRAGMA user_version`.

`MIGRATIONS[i]` takes the schema from version i to version i + 1. Each step is a tuple of
single SQL statements, applied in order inside one `BEGIN IMMEDIATE` transaction together
with the new `user_version`, so a failed step leaves the database at the previous version.
Never edit a released step: append a new one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import aiosqlite

from storage.errors import SchemaTooNew

Migration = tuple[str, ...]

_V1: Final[Migration] = (
    # Per-group settings; league_epoch numbers the group's leagues (RULES.md §10.4).
    """
    CREATE TABLE chats (
        chat_id      INTEGER PRIMARY KEY,
        lang         TEXT,
        league_epoch INTEGER NOT NULL DEFAULT 0,
        updated_at   TEXT NOT NULL
    )
    """,
    # can_dm: the user has opened a private chat with the bot, so it may send them their hand.
    """
    CREATE TABLE users (
        user_id    INTEGER PRIMARY KEY,
        name       TEXT NOT NULL,
        lang       TEXT,
        can_dm     INTEGER NOT NULL DEFAULT 0 CHECK (can_dm IN (0, 1)),
        updated_at TEXT NOT NULL
    )
    """,
    """
    CREATE TABLE tables (
        table_id         INTEGER PRIMARY KEY AUTOINCREMENT,
        chat_id          INTEGER NOT NULL REFERENCES chats (chat_id),
        creator_id       INTEGER NOT NULL,
        status           TEXT NOT NULL
                         CHECK (status IN ('lobby', 'playing', 'finished', 'cancelled')),
        variant          TEXT NOT NULL,
        options_json     TEXT NOT NULL,
        seats_json       TEXT NOT NULL,
        match_json       TEXT,
        hand_json        TEXT,
        move_no          INTEGER NOT NULL DEFAULT 0,
        table_message_id INTEGER,
        lang             TEXT,
        created_at       TEXT NOT NULL,
        updated_at       TEXT NOT NULL
    )
    """,
    # At most one table per chat in the lobby or playing.
    """
    CREATE UNIQUE INDEX tables_one_active_per_chat
        ON tables (chat_id) WHERE status IN ('lobby', 'playing')
    """,
    "CREATE INDEX tables_by_status ON tables (status)",
    """
    CREATE TABLE moves (
        table_id   INTEGER NOT NULL REFERENCES tables (table_id),
        move_no    INTEGER NOT NULL,
        hand_index INTEGER NOT NULL,
        seat       INTEGER NOT NULL,
        user_id    INTEGER,
        action     INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (table_id, move_no)
    ) WITHOUT ROWID
    """,
    """
    CREATE TRIGGER moves_append_only_update BEFORE UPDATE ON moves
    BEGIN SELECT RAISE(ABORT, 'moves are append-only'); END
    """,
    """
    CREATE TRIGGER moves_append_only_delete BEFORE DELETE ON moves
    BEGIN SELECT RAISE(ABORT, 'moves are append-only'); END
    """,
    """
    CREATE TABLE private_messages (
        table_id   INTEGER NOT NULL REFERENCES tables (table_id),
        user_id    INTEGER NOT NULL,
        chat_id    INTEGER NOT NULL,
        message_id INTEGER NOT NULL,
        PRIMARY KEY (table_id, user_id)
    )
    """,
    # RULES.md §10: one row per ledger write; hand_key is unique per chat across all epochs,
    # so the same hand can never be written twice. table_id is informational (no foreign key).
    """
    CREATE TABLE ledger_hands (
        hand_id     INTEGER PRIMARY KEY,
        chat_id     INTEGER NOT NULL REFERENCES chats (chat_id),
        epoch       INTEGER NOT NULL,
        hand_key    TEXT NOT NULL,
        table_id    INTEGER,
        variant     TEXT NOT NULL,
        finished_at TEXT NOT NULL,
        deltas_json TEXT NOT NULL,
        UNIQUE (chat_id, hand_key)
    )
    """,
    "CREATE INDEX ledger_hands_by_epoch ON ledger_hands (chat_id, epoch, finished_at)",
    """
    CREATE TABLE ledger_entries (
        chat_id  INTEGER NOT NULL,
        epoch    INTEGER NOT NULL,
        hand_key TEXT NOT NULL,
        user_id  INTEGER NOT NULL,
        name     TEXT NOT NULL,
        delta    INTEGER NOT NULL,
        PRIMARY KEY (chat_id, hand_key, user_id),
        FOREIGN KEY (chat_id, hand_key) REFERENCES ledger_hands (chat_id, hand_key)
    )
    """,
    "CREATE INDEX ledger_entries_by_epoch ON ledger_entries (chat_id, epoch, user_id)",
    # RULES.md §10.4: nothing is ever deleted; a reset starts a new epoch instead.
    """
    CREATE TRIGGER ledger_hands_append_only_update BEFORE UPDATE ON ledger_hands
    BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END
    """,
    """
    CREATE TRIGGER ledger_hands_append_only_delete BEFORE DELETE ON ledger_hands
    BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END
    """,
    """
    CREATE TRIGGER ledger_entries_append_only_update BEFORE UPDATE ON ledger_entries
    BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END
    """,
    """
    CREATE TRIGGER ledger_entries_append_only_delete BEFORE DELETE ON ledger_entries
    BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END
    """,
)

_V2: Final[Migration] = (
    # What each message the bot keeps up to date shows now (a digest of its text and
    # buttons), so a restarted bot edits only what changed and never earns "message is not
    # modified". Keyed by the Telegram message, whichever table or person it belongs to.
    """
    CREATE TABLE shown_messages (
        chat_id    INTEGER NOT NULL,
        message_id INTEGER NOT NULL,
        digest     TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (chat_id, message_id)
    ) WITHOUT ROWID
    """,
    # When the bot last called Telegram about each group (Unix time): Telegram counts about
    # 20 calls a minute per group, also across a restart, so a restarted bot starts from the
    # calls its previous run made. Rows older than a few minutes are pruned.
    """
    CREATE TABLE group_calls (
        chat_id INTEGER NOT NULL,
        at      REAL NOT NULL
    )
    """,
    "CREATE INDEX group_calls_by_time ON group_calls (at)",
)

_V3: Final[Migration] = (
    # What each table waits for (bot.table.deadlines): deadlines as absolute Unix times and what
    # they were set for, and a pending request to cancel the match, as JSON. Written with the
    # move that sets them, so a restarted bot re-arms what is left of each wait.
    "ALTER TABLE tables ADD COLUMN timers_json TEXT",
)

_V4: Final[Migration] = (
    # The digest of the content a message is being edited to, written before the edit and
    # cleared when it is confirmed: a restarted bot does not trust the stored digest of a
    # message whose edit was under way when the previous run died.
    "ALTER TABLE shown_messages ADD COLUMN editing TEXT",
)

MIGRATIONS: Final[tuple[Migration, ...]] = (_V1, _V2, _V3, _V4)
SCHEMA_VERSION: Final[int] = len(MIGRATIONS)


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

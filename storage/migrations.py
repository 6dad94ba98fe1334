"""SQLite's schema migrations, numbered by its `PRAGMA user_version` (PostgreSQL's schema
is `storage.postgres`, at the same version numbers).

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


def _append_only(table: str, refusal: str) -> Migration:
    """The triggers that refuse to update or delete a row of `table`, with `refusal`."""
    return tuple(
        f"""
    CREATE TRIGGER {table}_append_only_{op} BEFORE {op.upper()} ON {table}
    BEGIN SELECT RAISE(ABORT, '{refusal}'); END
    """
        for op in ("update", "delete")
    )


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
    *_append_only("moves", "moves are append-only"),
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
    *_append_only("ledger_hands", "the ledger is append-only"),
    *_append_only("ledger_entries", "the ledger is append-only"),
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

_V5: Final[Migration] = (
    # The ledger from the chat. What kind of write each ledger entry is: a game
    # (a hand or a match, §10.1-10.2), an undo (the negated deltas of the entry it undoes: the
    # ledger stays append-only and zero-sum), or a settled payment (+amount to the payer,
    # -amount to the payee, §10.3). Entries written before are games.
    """
    ALTER TABLE ledger_hands ADD COLUMN kind TEXT NOT NULL DEFAULT 'game'
        CHECK (kind IN ('game', 'undo', 'payment'))
    """,
    # The audit trail: who did what to the ledger, and when. An undo names the entry it wrote
    # (hand_key) and the one it undid (target_key, at most once per entry); a payment the
    # entry it wrote; a new season (§10.4) the season it began (epoch). Append-only too.
    """
    CREATE TABLE ledger_audit (
        audit_id   INTEGER PRIMARY KEY,
        chat_id    INTEGER NOT NULL REFERENCES chats (chat_id),
        epoch      INTEGER NOT NULL,
        action     TEXT NOT NULL CHECK (action IN ('undo', 'payment', 'season')),
        hand_key   TEXT,
        target_key TEXT,
        actor_id   INTEGER NOT NULL,
        actor_name TEXT NOT NULL,
        at         TEXT NOT NULL,
        FOREIGN KEY (chat_id, hand_key) REFERENCES ledger_hands (chat_id, hand_key)
    )
    """,
    """
    CREATE UNIQUE INDEX ledger_audit_one_undo
        ON ledger_audit (chat_id, target_key) WHERE target_key IS NOT NULL
    """,
    "CREATE INDEX ledger_audit_by_epoch ON ledger_audit (chat_id, epoch, audit_id)",
    *_append_only("ledger_audit", "the audit trail is append-only"),
)

_V6: Final[Migration] = (
    # Stats and ratings: one record per finished hand of a table that writes the
    # ledger (bot.table.record's hand record, plus each seat's user id, None for a computer,
    # and the deltas the ledger got), and one per finished match (its result). Written in the
    # same transaction as the move and the ledger entry; `epoch` is the group's season then.
    # Hands finished before this version have no record and count in no stat.
    """
    CREATE TABLE hand_records (
        table_id    INTEGER NOT NULL,
        hand_index  INTEGER NOT NULL,
        chat_id     INTEGER NOT NULL REFERENCES chats (chat_id),
        epoch       INTEGER NOT NULL,
        variant     TEXT NOT NULL,
        family      TEXT NOT NULL CHECK (family IN ('two', 'multi', 'chiamata')),
        finished_at TEXT NOT NULL,
        record_json TEXT NOT NULL,
        PRIMARY KEY (table_id, hand_index)
    ) WITHOUT ROWID
    """,
    "CREATE INDEX hand_records_by_chat ON hand_records (chat_id, epoch, finished_at)",
    """
    CREATE TABLE match_records (
        table_id    INTEGER PRIMARY KEY,
        chat_id     INTEGER NOT NULL REFERENCES chats (chat_id),
        epoch       INTEGER NOT NULL,
        variant     TEXT NOT NULL,
        family      TEXT NOT NULL CHECK (family IN ('two', 'multi', 'chiamata')),
        finished_at TEXT NOT NULL,
        record_json TEXT NOT NULL
    )
    """,
    "CREATE INDEX match_records_by_chat ON match_records (chat_id, epoch, finished_at)",
    *_append_only("hand_records", "hand records are append-only"),
    *_append_only("match_records", "match records are append-only"),
    # /stats @name, /h2h @a @b: a person's Telegram username, as last seen (NULL: none known).
    "ALTER TABLE users ADD COLUMN username TEXT",
    "CREATE INDEX users_by_username ON users (username COLLATE NOCASE)",
)

_V7: Final[Migration] = (
    # RULES §11: a tournament in a group (at most one registering or running per group), its
    # variant (quattro: teams of two; a 2-player variant: single players), its teams and
    # their members now (JSON), its match-points table (§11.2, by hands won 0..5).
    """
    CREATE TABLE tournaments (
        tournament_id  INTEGER PRIMARY KEY AUTOINCREMENT,
        chat_id        INTEGER NOT NULL REFERENCES chats (chat_id),
        organiser_id   INTEGER NOT NULL,
        organiser_name TEXT NOT NULL,
        status         TEXT NOT NULL
                       CHECK (status IN ('registering', 'running', 'finished', 'cancelled')),
        lang           TEXT,
        variant        TEXT NOT NULL DEFAULT 'quattro',
        points_json    TEXT NOT NULL,
        teams_json     TEXT NOT NULL,
        message_id     INTEGER,
        version        INTEGER NOT NULL DEFAULT 0,
        created_at     TEXT NOT NULL,
        updated_at     TEXT NOT NULL
    )
    """,
    """
    CREATE UNIQUE INDEX tournaments_one_active_per_chat
        ON tournaments (chat_id) WHERE status IN ('registering', 'running')
    """,
    # The schedule (§11.1, written when the tournament starts), each match's table once it
    # opens, the members who played it, per seat (§11.3), and its result (hands won, card
    # points of each side; NULL until played).
    """
    CREATE TABLE tournament_matches (
        tournament_id INTEGER NOT NULL REFERENCES tournaments (tournament_id),
        match_no      INTEGER NOT NULL,
        round         INTEGER NOT NULL,
        team_a        INTEGER NOT NULL,
        team_b        INTEGER NOT NULL,
        table_id      INTEGER,
        seats_json    TEXT,
        hands_a       INTEGER,
        hands_b       INTEGER,
        cards_a       INTEGER,
        cards_b       INTEGER,
        finished_at   TEXT,
        PRIMARY KEY (tournament_id, match_no)
    ) WITHOUT ROWID
    """,
)

_V8: Final[Migration] = (
    # Webhook mode: every update Telegram delivered, by its update_id, so that a redelivered
    # update (Telegram retries a request it got no answer to, and may deliver one twice) is
    # applied once. `claimed`: a process is applying it since `claimed_at` (Unix time); if
    # that process died, another may claim it again after a lease. `done`: applied.
    """
    CREATE TABLE webhook_updates (
        update_id  INTEGER PRIMARY KEY,
        state      TEXT NOT NULL CHECK (state IN ('claimed', 'done')),
        claimed_at REAL NOT NULL
    )
    """,
    "CREATE INDEX webhook_updates_by_time ON webhook_updates (claimed_at)",
)

_V9: Final[Migration] = (
    # /stats @name looks usernames up with lower(), which PostgreSQL has too (it has no
    # NOCASE collation); Telegram usernames are ASCII, where the two agree.
    "DROP INDEX users_by_username",
    "CREATE INDEX users_by_username ON users (lower(username))",
)

# Several workers on one database: the earliest deadline of an active table as a
# column any worker can poll (`Database.due_tables`, claimed by `claim_deadline`), filled from
# timers_json by every write of it; 0 for a table that has deadlines stored before this step
# (due at once: the worker that claims it stores the real time). `rendered`: the table version
# each of a table's messages last showed (user 0: the group's table message), so two workers
# never put an older state over a newer one, and when a worker last called Telegram for it
# (Telegram's one call a second into a private chat counts the bot's calls, whichever worker).
_V10: Final[Migration] = (
    "ALTER TABLE tables ADD COLUMN next_at REAL",
    """
    UPDATE tables SET next_at = 0
    WHERE status IN ('lobby', 'playing') AND timers_json IS NOT NULL
    """,
    "CREATE INDEX tables_by_next_at ON tables (next_at) WHERE status IN ('lobby', 'playing')",
    """
    CREATE TABLE rendered (
        table_id INTEGER NOT NULL REFERENCES tables (table_id),
        user_id  INTEGER NOT NULL,
        version  INTEGER NOT NULL,
        sent_at  REAL NOT NULL DEFAULT 0,
        PRIMARY KEY (table_id, user_id)
    )
    """,
)

# Hand messages a newer one replaced on the person's turn, deleted in one call per chat
# when the hand ends (Telegram's deleteMessages) instead of one call per turn: kept here so
# that a restarted bot, or another worker, still deletes them.
_V11: Final[Migration] = (
    """
    CREATE TABLE replaced_messages (
        table_id   INTEGER NOT NULL,
        chat_id    INTEGER NOT NULL,
        message_id INTEGER NOT NULL,
        PRIMARY KEY (chat_id, message_id)
    )
    """,
    "CREATE INDEX replaced_messages_by_table ON replaced_messages (table_id)",
)

# A group's own settings and what the bot remembers of it, as JSON: its name as
# Telegram gives it, what a beer is worth in points, whether the auction's Due was explained.
_V12: Final[Migration] = ("ALTER TABLE chats ADD COLUMN settings_json TEXT",)

# Every worker asks the database before a call about a group (`claim_group_call`): the
# group's calls of the last minute, found by chat.
_V13: Final[Migration] = ("CREATE INDEX group_calls_by_chat ON group_calls (chat_id, at)",)

# The pace of a group's table message at its last edit, so that whichever worker edits it
# next waits as long after that edit (`TelegramOutbox._edit_wait`).
_V14: Final[Migration] = ("ALTER TABLE rendered ADD COLUMN pace REAL NOT NULL DEFAULT 0",)

# ... and the moment it shows (a trick taken, the call: `bot.service.core._moment`), so that
# any worker tells a routine change from one that matters by what the message shows.
_V15: Final[Migration] = ("ALTER TABLE rendered ADD COLUMN moment TEXT NOT NULL DEFAULT ''",)

# RULES §10.5 for a tournament: whether its matches with a computer at the table write to the
# group's ledger (only the people's deltas), as the organiser chose before the start; its
# tables take it as their `counts`.
_V16: Final[Migration] = (
    "ALTER TABLE tournaments ADD COLUMN counts INTEGER NOT NULL DEFAULT 0 CHECK (counts IN (0, 1))",
)

# Issue 51, "in the numbers": per seat of each reviewed hand, what the review found it gave
# away (the sum of its decisions' costs: card points, in chiamata the side's score, §7.12),
# with who played it (a person who made every move of the seat, or a computer and its level),
# its role in chiamata (§7.4-7.7), the group's season then and the ledger entry the hand
# belongs to (an undone one counts nowhere). Written when the review arrives; a hand whose
# review was skipped has no row.
_V17: Final[Migration] = (
    """
    CREATE TABLE review_costs (
        table_id    INTEGER NOT NULL,
        hand_index  INTEGER NOT NULL,
        seat        INTEGER NOT NULL,
        chat_id     INTEGER NOT NULL REFERENCES chats (chat_id),
        epoch       INTEGER NOT NULL,
        variant     TEXT NOT NULL,
        ledger_key  TEXT NOT NULL,
        user_id     INTEGER,
        level       TEXT,
        role        TEXT CHECK (role IN ('caller', 'partner', 'other')),
        cost        REAL NOT NULL CHECK (cost >= 0),
        decisions   INTEGER NOT NULL,
        finished_at TEXT NOT NULL,
        CHECK ((user_id IS NULL) <> (level IS NULL)),
        PRIMARY KEY (table_id, hand_index, seat)
    ) WITHOUT ROWID
    """,
    "CREATE INDEX review_costs_by_chat ON review_costs (chat_id, epoch, user_id)",
    "CREATE INDEX review_costs_by_user ON review_costs (user_id, variant)",
    *_append_only("review_costs", "review costs are append-only"),
)

# Issue 51.3, the Mini App's replay of a finished hand: the hand's review as the bot made it
# when the hand ended (`bot.players.review_data.Review.to_json`: each decision judged, its cost and
# the better move), so that the replay shows its marks without judging anything again.
_V18: Final[Migration] = (
    """
    CREATE TABLE hand_reviews (
        table_id    INTEGER NOT NULL REFERENCES tables (table_id),
        hand_index  INTEGER NOT NULL,
        review_json TEXT NOT NULL,
        created_at  TEXT NOT NULL,
        PRIMARY KEY (table_id, hand_index)
    ) WITHOUT ROWID
    """,
)

MIGRATIONS: Final[tuple[Migration, ...]] = (
    _V1,
    _V2,
    _V3,
    _V4,
    _V5,
    _V6,
    _V7,
    _V8,
    _V9,
    _V10,
    _V11,
    _V12,
    _V13,
    _V14,
    _V15,
    _V16,
    _V17,
    _V18,
)
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

"""The bot's database: every SQL statement of the bot, written once for both backends.

`Database.open(url)` picks the backend from the URL: SQLite (`storage.sqlite`, the embedded
default) or PostgreSQL (`storage.postgres`); `storage.backend` says what a backend provides
and how transactions behave. The SQL here is the common dialect of the two: `?`
placeholders, `ON CONFLICT`, `CAST(... AS BIGINT)` where PostgreSQL would widen a type.
Timestamps are stored as ISO-8601 UTC text and returned as aware datetimes.

`Database` is one class for its callers, written as one class per section, each in its own
module on the shared `Store` (`base`: the backend, opening, transactions):

- `tables`: a table's row and move log, and what several workers agree on through it;
- `messages`: the players' hand messages and what each Telegram message shows;
- `updates`: webhook updates applied once;
- `people`: users and chats;
- `tournaments`: tournaments and their fixtures;
- `ledger`: the zero-sum ledger, its seasons, undos and payments;
- `stats`: the records of play behind stats and ratings.
"""

from __future__ import annotations

import json

from storage.backend import BACKGROUND, NORMAL, URGENT, Row
from storage.db.base import _dt, _now, describe_url, driver_errors, utc_iso
from storage.db.ledger import LedgerStore
from storage.db.messages import MessageStore
from storage.db.people import PeopleStore
from storage.db.tables import _ACTIVE_SQL as _ACTIVE_SQL
from storage.db.tables import TableStore
from storage.db.tables import next_at as next_at
from storage.db.tournaments import TournamentStore
from storage.db.updates import UpdateStore
from storage.sqlite import sqlite_path
from storage.stats import PlayRecord, StoredPlay

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


class Database(TableStore, MessageStore, UpdateStore, PeopleStore, TournamentStore, LedgerStore):
    """Open with `await Database.open(url)`; close with `await db.close()` (or `async with`)."""

    # ------------------------------------------- stats and ratings

    async def record_play(self, record: PlayRecord) -> None:
        """Write a hand's (and match's) record on its own (tests, imports): the bot writes it
        with the move, through `save_move(record=...)`."""
        if record.finished_at.tzinfo is None:
            raise ValueError("finished_at must be timezone-aware")
        async with self._write() as conn:
            await self._insert_play(conn, record)

    async def plays(
        self, chat_id: int | None = None, epoch: int | None = None
    ) -> tuple[list[StoredPlay], list[StoredPlay]]:
        """(hand records, match records) of a chat (None: every chat), of one season
        (`epoch`; None: all of them), in the order they finished (then table, hand)."""
        where, params = [], []
        if chat_id is not None:
            where.append("chat_id = ?")
            params.append(chat_id)
        if epoch is not None:
            where.append("epoch = ?")
            params.append(epoch)
        cond = f" WHERE {' AND '.join(where)}" if where else ""
        async with self._read() as conn:
            hands = await conn.all(
                "SELECT chat_id, epoch, table_id, hand_index, variant, family, finished_at,"
                f" record_json FROM hand_records{cond}"
                " ORDER BY finished_at, table_id, hand_index",
                params,
            )
            matches = await conn.all(
                "SELECT chat_id, epoch, table_id, NULL AS hand_index, variant, family,"
                f" finished_at, record_json FROM match_records{cond}"
                " ORDER BY finished_at, table_id",
                params,
            )

        def stored(r: Row) -> StoredPlay:
            return StoredPlay(
                chat_id=r["chat_id"],
                epoch=r["epoch"],
                table_id=r["table_id"],
                hand_index=r["hand_index"],
                variant=r["variant"],
                family=r["family"],
                finished_at=_dt(r["finished_at"]),
                data=json.loads(r["record_json"]),
            )

        return [stored(r) for r in hands], [stored(r) for r in matches]

    async def undone_keys(self, chat_id: int | None = None) -> set[tuple[int, str]]:
        """(chat_id, hand_key) of every ledger entry an admin undid (/undo): the hands and
        matches behind them count in no stat and no rating."""
        cond, params = ("", ()) if chat_id is None else (" AND chat_id = ?", (chat_id,))
        async with self._read() as conn:
            rows = await conn.all(
                "SELECT chat_id, target_key FROM ledger_audit"
                f" WHERE action = 'undo' AND target_key IS NOT NULL{cond}",
                params,
            )
        return {(int(r["chat_id"]), str(r["target_key"])) for r in rows}

    async def note_username(self, user_id: int, name: str, username: str | None) -> None:
        """Remember a person's Telegram @username (None: they have none), for /stats @name."""
        async with self._write(BACKGROUND) as conn:
            await conn.execute(
                "INSERT INTO users (user_id, name, username, updated_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET username = excluded.username",
                (user_id, name, username, _now()),
            )

    async def user_by_username(self, username: str) -> tuple[int, str] | None:
        """(user_id, name) of the person last seen with `username` (no @; any case)."""
        async with self._read() as conn:
            r = await conn.one(
                "SELECT user_id, name FROM users WHERE lower(username) = lower(?)"
                " ORDER BY updated_at DESC LIMIT 1",
                (username,),
            )
        return None if r is None else (int(r["user_id"]), str(r["name"]))

    async def plays_version(self) -> tuple[int, int, int]:
        """Changes whenever a record or an undo is written (the tables are append-only):
        (hand records, match records, undos), for caching what is computed from them."""
        async with self._read() as conn:
            row = await conn.one(
                "SELECT (SELECT COUNT(*) FROM hand_records) AS h,"
                " (SELECT COUNT(*) FROM match_records) AS m,"
                " (SELECT COUNT(*) FROM ledger_audit WHERE action = 'undo') AS u",
            )
        assert row is not None
        return int(row["h"]), int(row["m"]), int(row["u"])

"""The records of play behind stats and ratings: each finished hand and match as the table
layer recorded it, the entries an admin undid (they count nowhere), people by @username.
A record is written by `StatsStore.insert`, with the move that finished its hand. And what
each seat of a reviewed hand gave away (issue 51), written when its review arrives.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from storage.backend import BACKGROUND, Backend, Conn, Row
from storage.db.base import _dt, _now, ensure_chat, from_row, utc_iso
from storage.stats import PlayRecord, ReviewCost, ReviewSum, StoredPlay

# a hand whose ledger entry an admin undid (/undo) counts in no stat: its review neither
_NOT_UNDONE = (
    "NOT EXISTS (SELECT 1 FROM ledger_audit a WHERE a.action = 'undo'"
    " AND a.chat_id = r.chat_id AND a.target_key = r.ledger_key)"
)


def _chat_season(
    chat_id: int | None, epoch: int | None, prefix: str = ""
) -> tuple[list[str], list[int]]:
    """The conditions (and their parameters) that keep one chat's rows (None: every chat)
    of one season (`epoch`; None: all of them); `prefix` names the table ("r.")."""
    where: list[str] = []
    params: list[int] = []
    if chat_id is not None:
        where.append(f"{prefix}chat_id = ?")
        params.append(chat_id)
    if epoch is not None:
        where.append(f"{prefix}epoch = ?")
        params.append(epoch)
    return where, params


class StatsStore:
    """Records of play, undone entries and @usernames."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    @staticmethod
    async def insert(conn: Conn, record: PlayRecord) -> None:
        """The hand's record (and the match's, if it ended) under the chat's current season;
        a hand or match recorded already is left as it was (append-only)."""
        await ensure_chat(conn, record.chat_id)
        chat = await conn.one("SELECT league_epoch FROM chats WHERE chat_id = ?", (record.chat_id,))
        assert chat is not None
        when = utc_iso(record.finished_at)
        head = (record.chat_id, chat["league_epoch"], record.variant, record.family, when)
        await conn.execute(
            "INSERT INTO hand_records (table_id, hand_index, chat_id, epoch, variant, family,"
            " finished_at, record_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (table_id, hand_index) DO NOTHING",
            (record.table_id, record.hand_index, *head, json.dumps(record.hand)),
        )
        if record.match is not None:
            await conn.execute(
                "INSERT INTO match_records (table_id, chat_id, epoch, variant, family,"
                " finished_at, record_json) VALUES (?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (table_id) DO NOTHING",
                (record.table_id, *head, json.dumps(record.match)),
            )

    async def record_play(self, record: PlayRecord) -> None:
        """Write a hand's (and match's) record on its own (tests, imports): the bot writes it
        with the move, through `save_move(record=...)`."""
        if record.finished_at.tzinfo is None:
            raise ValueError("finished_at must be timezone-aware")
        async with self.backend.write() as conn:
            await self.insert(conn, record)

    async def plays(
        self, chat_id: int | None = None, epoch: int | None = None
    ) -> tuple[list[StoredPlay], list[StoredPlay]]:
        """(hand records, match records) of a chat (None: every chat), of one season
        (`epoch`; None: all of them), in the order they finished (then table, hand)."""
        where, params = _chat_season(chat_id, epoch)
        cond = f" WHERE {' AND '.join(where)}" if where else ""
        async with self.backend.read() as conn:
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
            return from_row(
                StoredPlay,
                r,
                finished_at=_dt(r["finished_at"]),
                data=json.loads(r["record_json"]),
            )

        return [stored(r) for r in hands], [stored(r) for r in matches]

    async def record_review_costs(self, costs: Sequence[ReviewCost]) -> int:
        """Write what each seat of a reviewed hand gave away (issue 51), under the chat's
        season now; a seat written already is left as it was (append-only). Returns how
        many rows were written."""
        written = 0
        if not costs:
            return written
        async with self.backend.write(BACKGROUND) as conn:
            epochs: dict[int, int] = {}
            for c in costs:
                if c.finished_at.tzinfo is None:
                    raise ValueError("finished_at must be timezone-aware")
                if c.chat_id not in epochs:
                    await ensure_chat(conn, c.chat_id)
                    chat = await conn.one(
                        "SELECT league_epoch FROM chats WHERE chat_id = ?", (c.chat_id,)
                    )
                    assert chat is not None
                    epochs[c.chat_id] = int(chat["league_epoch"])
                written += await conn.execute(
                    "INSERT INTO review_costs (table_id, hand_index, seat, chat_id, epoch,"
                    " variant, ledger_key, user_id, level, role, cost, decisions, finished_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT (table_id, hand_index, seat) DO NOTHING",
                    (
                        c.table_id,
                        c.hand_index,
                        c.seat,
                        c.chat_id,
                        epochs[c.chat_id],
                        c.variant,
                        c.ledger_key,
                        c.user_id,
                        c.level,
                        c.role,
                        float(c.cost),
                        c.decisions,
                        utc_iso(c.finished_at),
                    ),
                )
        return written

    async def review_sums(
        self,
        *,
        user_id: int | None = None,
        computers: bool = False,
        chat_id: int | None = None,
        epoch: int | None = None,
    ) -> list[ReviewSum]:
        """The reviews' costs of one person (`user_id`) or of every computer (`computers`),
        added up per chat, variant and role (None: no role, or not chiamata), in one chat
        (None: every chat) and season (`epoch`; None: all of them); hands whose ledger entry
        was undone left out."""
        if (user_id is None) == (not computers):
            raise ValueError("review_sums: a person's user_id, or computers, not both")
        where = ["r.user_id IS NULL" if computers else "r.user_id = ?", _NOT_UNDONE]
        params: list[int] = [] if computers else [user_id or 0]
        season, args = _chat_season(chat_id, epoch, "r.")
        where += season
        params += args
        async with self.backend.read() as conn:
            rows = await conn.all(
                "SELECT r.chat_id, r.variant, r.role, COUNT(*) AS hands, SUM(r.cost) AS cost"
                f" FROM review_costs r WHERE {' AND '.join(where)}"
                " GROUP BY r.chat_id, r.variant, r.role ORDER BY r.chat_id, r.variant, r.role",
                params,
            )
        return [
            ReviewSum(
                chat_id=int(r["chat_id"]),
                variant=str(r["variant"]),
                role=r["role"],
                hands=int(r["hands"]),
                cost=float(r["cost"]),
            )
            for r in rows
        ]

    async def undone_keys(self, chat_id: int | None = None) -> set[tuple[int, str]]:
        """(chat_id, hand_key) of every ledger entry an admin undid (/undo): the hands and
        matches behind them count in no stat and no rating."""
        cond, params = ("", ()) if chat_id is None else (" AND chat_id = ?", (chat_id,))
        async with self.backend.read() as conn:
            rows = await conn.all(
                "SELECT chat_id, target_key FROM ledger_audit"
                f" WHERE action = 'undo' AND target_key IS NOT NULL{cond}",
                params,
            )
        return {(int(r["chat_id"]), str(r["target_key"])) for r in rows}

    async def ledger_chats(self, user_id: int) -> list[int]:
        """The chats whose ledger names `user_id` (any season), for their own /stats."""
        async with self.backend.read() as conn:
            rows = await conn.all(
                "SELECT DISTINCT chat_id FROM ledger_entries WHERE user_id = ? ORDER BY chat_id",
                (user_id,),
            )
        return [int(r["chat_id"]) for r in rows]

    async def note_username(self, user_id: int, name: str, username: str | None) -> None:
        """Remember a person's Telegram @username (None: they have none), for /stats @name."""
        async with self.backend.write(BACKGROUND) as conn:
            await conn.execute(
                "INSERT INTO users (user_id, name, username, updated_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET username = excluded.username",
                (user_id, name, username, _now()),
            )

    async def user_by_username(self, username: str) -> tuple[int, str] | None:
        """(user_id, name) of the person last seen with `username` (no @; any case)."""
        async with self.backend.read() as conn:
            r = await conn.one(
                "SELECT user_id, name FROM users WHERE lower(username) = lower(?)"
                " ORDER BY updated_at DESC LIMIT 1",
                (username,),
            )
        return None if r is None else (int(r["user_id"]), str(r["name"]))

    async def plays_version(self) -> tuple[int, int, int]:
        """Changes whenever a record or an undo is written (the tables are append-only):
        (hand records, match records, undos), for caching what is computed from them."""
        async with self.backend.read() as conn:
            row = await conn.one(
                "SELECT (SELECT COUNT(*) FROM hand_records) AS h,"
                " (SELECT COUNT(*) FROM match_records) AS m,"
                " (SELECT COUNT(*) FROM ledger_audit WHERE action = 'undo') AS u",
            )
        assert row is not None
        return int(row["h"]), int(row["m"]), int(row["u"])

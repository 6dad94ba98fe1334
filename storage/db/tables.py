"""A table's row and its move log: a new table, the lobby's changes, each move (with its ledger
entry and hand record, in the same transaction) and its deadlines; and what several workers
sharing the database agree on through it: the table's version, the deadlines due, the
version and content each of its messages was last rendered with.
"""

from __future__ import annotations

import json
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import Any, Final

from bot.table.status import ACTIVE_STATUSES, TABLE_STATUSES, TableStatus
from storage.backend import NORMAL, URGENT, Backend, Row
from storage.db.base import _check_ledger, _dt, _now, ensure_chat, from_row, utc_iso
from storage.db.ledger import LedgerStore
from storage.db.stats import StatsStore
from storage.db.updates import UpdateStore
from storage.errors import Conflict, StaleMove, TableClosed, TableExists, TableNotFound
from storage.models import (
    UNSET,
    LedgerRecord,
    MessageState,
    Move,
    MoveRow,
    Shown,
    TableHead,
    TableRow,
    Unset,
)
from storage.stats import PlayRecord


def _table(row: Row) -> TableRow:
    return from_row(
        TableRow,
        row,
        status=TableStatus(row["status"]),
        created_at=_dt(row["created_at"]),
        updated_at=_dt(row["updated_at"]),
        timers_json=row["timers_json"],
    )


def next_at(timers_json: str | None) -> float | None:
    """The earliest deadline in a table's `timers_json` (`bot.table.deadlines.Pending`: its
    "at" map of kind to Unix time), stored beside it as `tables.next_at` so that any worker can
    find what is due with one indexed query; None when it waits for nothing."""
    if not timers_json:
        return None
    at = json.loads(timers_json).get("at") or {}
    return min((float(v) for v in at.values()), default=None)


def _given(**columns: Any) -> dict[str, Any]:
    """The columns an update sets: those given a value (not UNSET), in their order."""
    return {col: value for col, value in columns.items() if not isinstance(value, Unset)}


def _check_status(status: str) -> None:
    if status not in TABLE_STATUSES:
        raise ValueError(f"unknown table status {status!r}; one of {', '.join(TABLE_STATUSES)}")


# A table in the lobby or playing. Literals, written from the enum: SQLite uses the partial
# index `tables_one_active_per_chat` (WHERE status IN ('lobby', 'playing')) only for a query
# whose WHERE names the same values, which bound parameters would not.
_ACTIVE_SQL: Final = f"status IN ({', '.join(repr(str(s)) for s in ACTIVE_STATUSES)})"


class TableStore:
    """Tables, moves and deadlines."""

    def __init__(
        self, backend: Backend, ledger: LedgerStore, stats: StatsStore, updates: UpdateStore
    ) -> None:
        """`ledger`, `stats` and `updates` write a move's ledger entry, its hand's record and
        its webhook update in the move's own transaction."""
        self.backend = backend
        self.ledger = ledger
        self.stats = stats
        self.updates = updates

    # ------------------------------------------------------------------ tables

    async def create_table(
        self,
        chat_id: int,
        creator_id: int,
        variant: str,
        options_json: str,
        seats_json: str,
        lang: str | None,
        timers_json: str | None = None,
    ) -> TableRow:
        """A new table in the lobby (move_no 0). Raises TableExists if the chat already has
        a table in the lobby or playing."""
        now = _now()
        async with self.backend.write() as conn:
            await ensure_chat(conn, chat_id)
            existing = await conn.one(
                f"SELECT table_id FROM tables WHERE chat_id = ? AND {_ACTIVE_SQL}",
                (chat_id,),
            )
            if existing is not None:
                raise TableExists(chat_id, existing["table_id"])
            try:
                table_id = await conn.insert(
                    "INSERT INTO tables (chat_id, creator_id, status, variant, options_json,"
                    " seats_json, lang, created_at, updated_at, timers_json, next_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        chat_id,
                        creator_id,
                        TableStatus.LOBBY,
                        variant,
                        options_json,
                        seats_json,
                        lang,
                        now,
                        now,
                        timers_json,
                        next_at(timers_json),
                    ),
                    "table_id",
                )
            except Conflict as exc:  # the partial unique index, as a backstop
                raise TableExists(chat_id, None) from exc
            row = await conn.one("SELECT * FROM tables WHERE table_id = ?", (table_id,))
        assert row is not None
        return _table(row)

    async def get_table(self, table_id: int) -> TableRow | None:
        async with self.backend.read() as conn:
            row = await conn.one("SELECT * FROM tables WHERE table_id = ?", (table_id,))
        return None if row is None else _table(row)

    async def active_table(self, chat_id: int) -> TableRow | None:
        """The chat's table in the lobby or playing, if any."""
        async with self.backend.read() as conn:
            row = await conn.one(
                f"SELECT * FROM tables WHERE chat_id = ? AND {_ACTIVE_SQL}",
                (chat_id,),
            )
        return None if row is None else _table(row)

    async def unfinished_tables(self) -> list[TableRow]:
        """Every table in the lobby or playing, oldest first: what to restore after a restart."""
        async with self.backend.read() as conn:
            rows = await conn.all(f"SELECT * FROM tables WHERE {_ACTIVE_SQL} ORDER BY table_id")
        return [_table(r) for r in rows]

    async def closed_tables_since(self, since: datetime) -> list[TableRow]:
        """Tables finished or cancelled at or after `since`, oldest first: after a crash
        their last message may not have been sent yet."""
        async with self.backend.read() as conn:
            rows = await conn.all(
                f"SELECT * FROM tables WHERE NOT ({_ACTIVE_SQL}) AND updated_at >= ?"
                " ORDER BY table_id",
                (utc_iso(since),),
            )
        return [_table(r) for r in rows]

    async def update_lobby(
        self,
        table_id: int,
        *,
        seats_json: str | Unset = UNSET,
        options_json: str | Unset = UNSET,
        variant: str | Unset = UNSET,
        status: TableStatus | Unset = UNSET,
        table_message_id: int | Unset | None = UNSET,
        lang: str | Unset | None = UNSET,
        timers_json: str | Unset | None = UNSET,
        expected_move_no: int | None = None,
        update_id: int | None = None,
    ) -> TableRow:
        """Set only the columns given. Changing seats, options, variant or status bumps
        move_no (the table's version) so a concurrent `save_move` or `update_lobby` that read
        the old version fails with StaleMove; table_message_id, lang and timers_json alone
        do not.
        With `expected_move_no`, raises StaleMove (writing nothing) unless it matches.
        `update_id`: the webhook update this change applies, marked done in the same
        transaction (`claim_update`). Raises TableExists if the new status would give the
        chat a second active table."""
        if not isinstance(status, Unset):
            _check_status(status)
        changes = _given(
            seats_json=seats_json, options_json=options_json, variant=variant, status=status
        )
        bump = bool(changes)
        changes |= _given(table_message_id=table_message_id, lang=lang, timers_json=timers_json)
        if not isinstance(timers_json, Unset):
            changes["next_at"] = next_at(timers_json)
        async with self.backend.write() as conn:
            row = await conn.one("SELECT * FROM tables WHERE table_id = ?", (table_id,))
            if row is None:
                raise TableNotFound(table_id)
            if expected_move_no is not None and row["move_no"] != expected_move_no:
                raise StaleMove(table_id, expected_move_no, row["move_no"])
            if update_id is not None:
                await self.updates.applied(conn, update_id)
            if not changes:
                return _table(row)
            changes["updated_at"] = _now()
            if bump:
                changes["move_no"] = row["move_no"] + 1
            assignments = ", ".join(f"{col} = ?" for col in changes)
            try:
                await conn.execute(
                    f"UPDATE tables SET {assignments} WHERE table_id = ?",
                    (*changes.values(), table_id),
                )
            except Conflict as exc:
                raise TableExists(row["chat_id"], None) from exc
            new = await conn.one("SELECT * FROM tables WHERE table_id = ?", (table_id,))
        assert new is not None
        return _table(new)

    async def save_move(
        self,
        table_id: int,
        expected_move_no: int,
        *,
        match_json: str | None,
        hand_json: str | None,
        status: TableStatus,
        move: Move | None,
        ledger: LedgerRecord | None = None,
        urgent: bool = False,
        seats_json: str | None = None,
        timers_json: str | None = None,
        record: PlayRecord | None = None,
        update_id: int | None = None,
    ) -> int:
        """In one transaction: check the stored move_no is `expected_move_no` (else
        StaleMove, nothing written), write the snapshot and status, append `move` to the log
        under the new move_no, and, if given, write `ledger` (ignored if that hand_key is
        already recorded; LedgerNotZeroSum is raised before anything is written).
        Returns the new move_no (expected_move_no + 1). A finished or cancelled table
        refuses further saves with TableClosed. `urgent`: a person waits for it (their
        move goes before the bot's own writes). `seats_json` and `timers_json`, if given,
        are written too (a seat the turn timer handed to a computer; the new deadlines).
        `record`, if given, is the finished hand's record for stats (`StatsStore.insert`).
        `update_id`: the webhook update this move applies, marked done in the same
        transaction, so a redelivered copy is never applied again (`claim_update`)."""
        _check_status(status)
        if ledger is not None:
            _check_ledger(ledger)
        new_no = expected_move_no + 1
        now = _now()
        extra_sql, extra = "", list[Any]()
        if seats_json is not None:
            extra_sql += ", seats_json = ?"
            extra.append(seats_json)
        if timers_json is not None:
            extra_sql += ", timers_json = ?, next_at = ?"
            extra.extend((timers_json, next_at(timers_json)))
        async with self.backend.write(URGENT if urgent else NORMAL) as conn:
            changed = await conn.execute(
                "UPDATE tables SET match_json = ?, hand_json = ?, status = ?, move_no = ?,"
                f" updated_at = ?{extra_sql} WHERE table_id = ? AND move_no = ?"
                f" AND {_ACTIVE_SQL}",
                (
                    match_json,
                    hand_json,
                    status,
                    new_no,
                    now,
                    *extra,
                    table_id,
                    expected_move_no,
                ),
            )
            if changed != 1:  # say why: no such table, another version, or closed
                row = await conn.one(
                    "SELECT move_no, status FROM tables WHERE table_id = ?", (table_id,)
                )
                if row is None:
                    raise TableNotFound(table_id)
                if row["move_no"] != expected_move_no:
                    raise StaleMove(table_id, expected_move_no, row["move_no"])
                raise TableClosed(table_id, row["status"])
            if move is not None:
                await conn.execute(
                    "INSERT INTO moves (table_id, move_no, hand_index, seat, user_id, action,"
                    " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (table_id, new_no, move.hand_index, move.seat, move.user_id, move.action, now),
                )
            if ledger is not None:
                await self.ledger.insert(conn, ledger)
            if record is not None:
                await self.stats.insert(conn, record)
            if update_id is not None:
                await self.updates.applied(conn, update_id)
        return new_no

    async def set_timers(
        self, table_id: int, timers_json: str | None, expected_move_no: int | None = None
    ) -> bool:
        """Store what an active table waits for (`bot.table.deadlines`) without changing its
        version: a deadline that passed (a mention sent) or a request to cancel. False if
        the table is no longer active, or (with `expected_move_no`) no longer at that
        version: another worker wrote it, with deadlines of its own."""
        sql = f"UPDATE tables SET timers_json = ?, next_at = ? WHERE table_id = ? AND {_ACTIVE_SQL}"
        params: list[Any] = [timers_json, next_at(timers_json), table_id]
        if expected_move_no is not None:
            sql += " AND move_no = ?"
            params.append(expected_move_no)
        async with self.backend.write() as conn:
            return await conn.execute(sql, params) == 1

    # ------------------------------------------------------------------ several workers

    async def table_head(self, table_id: int) -> TableHead | None:
        """What changes of a table without a new version, and the version: enough for a
        worker to tell whether the table it holds in memory is still the stored one."""
        async with self.backend.read() as conn:
            row = await conn.one(
                "SELECT move_no, status, timers_json, table_message_id, lang FROM tables"
                " WHERE table_id = ?",
                (table_id,),
            )
        if row is None:
            return None
        return from_row(TableHead, row, status=TableStatus(row["status"]))

    async def due_tables(self, now: float, limit: int = 50) -> list[int]:
        """Active tables whose earliest deadline is at or before Unix time `now`."""
        async with self.backend.read() as conn:
            rows = await conn.all(
                f"SELECT table_id FROM tables WHERE {_ACTIVE_SQL} AND next_at <= ?"
                " ORDER BY next_at LIMIT ?",
                (now, limit),
            )
        return [int(r["table_id"]) for r in rows]

    async def claim_deadline(self, table_id: int, now: float, lease: float) -> bool:
        """Whether this worker fires the table's due deadline: True for exactly one of the
        workers asking (its `next_at` moves `lease` seconds on, so the others find nothing
        due; the write that follows the firing stores the real next deadline, and a worker
        that died meanwhile leaves it to be claimed again once the lease is over)."""
        async with self.backend.write() as conn:
            changed = await conn.execute(
                f"UPDATE tables SET next_at = ? WHERE table_id = ? AND {_ACTIVE_SQL}"
                " AND next_at <= ?",
                (now + lease, table_id, now),
            )
        return changed == 1

    async def message_state(self, table_id: int, user_id: int | None) -> MessageState:
        """A table's message (user None: the group's table message; else that person's hand
        message) as stored: its id, the digest it shows (None if unknown or being edited)
        and the table version it was rendered from (-1 if never); for the group's message,
        the table's version as stored now while it is open (`MessageState.open_version`)."""
        open_version = -1
        async with self.backend.read() as conn:
            if user_id is None:
                row = await conn.one(
                    "SELECT chat_id, table_message_id AS message_id, move_no, status FROM tables"
                    " WHERE table_id = ?",
                    (table_id,),
                )
                if row is not None and row["status"] in ACTIVE_STATUSES:
                    open_version = int(row["move_no"])
            else:
                row = await conn.one(
                    "SELECT chat_id, message_id FROM private_messages"
                    " WHERE table_id = ? AND user_id = ?",
                    (table_id, user_id),
                )
            mid = None if row is None else row["message_id"]
            shown = unsure = None
            if mid is not None:
                got = await conn.one(
                    "SELECT digest, editing FROM shown_messages"
                    " WHERE chat_id = ? AND message_id = ?",
                    (row["chat_id"] if row is not None else 0, mid),
                )
                if got is not None and got["editing"] is None:
                    shown = str(got["digest"])
                elif got is not None:
                    unsure = Shown(str(got["digest"]), str(got["editing"]))
            ver = await conn.one(
                "SELECT version, sent_at, pace, moment FROM rendered"
                " WHERE table_id = ? AND user_id = ?",
                (table_id, user_id or 0),
            )
        return MessageState(
            message_id=None if mid is None else int(mid),
            digest=shown,
            version=-1 if ver is None else int(ver["version"]),
            sent_at=0.0 if ver is None else float(ver["sent_at"]),
            pace=0.0 if ver is None else float(ver["pace"]),
            moment="" if ver is None else str(ver["moment"]),
            unsure=unsure,
            open_version=open_version,
        )

    async def note_rendered(
        self,
        table_id: int,
        user_id: int | None,
        version: int,
        chat_id: int,
        message_id: int,
        digest: str,
        sent_at: float = 0.0,
        pace: float = 0.0,
        moment: str = "",
    ) -> None:
        """The message now shows `digest`, rendered from table version `version` (a newer
        version stays), Telegram last called for it at `sent_at` (epoch seconds), when the
        group's pace was `pace` (seconds between edits, `TelegramOutbox._too_soon`), and
        it shows `moment` (a group's message, `TelegramOutbox.show_table`)."""
        async with self.backend.write() as conn:
            await conn.execute(
                "INSERT INTO shown_messages (chat_id, message_id, digest, updated_at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (chat_id, message_id) DO UPDATE SET"
                " digest = excluded.digest, editing = NULL, updated_at = excluded.updated_at",
                (chat_id, message_id, digest, _now()),
            )
            await conn.execute(
                "INSERT INTO rendered (table_id, user_id, version, sent_at, pace, moment)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (table_id, user_id) DO UPDATE SET"
                " version = CASE WHEN rendered.version < excluded.version"
                " THEN excluded.version ELSE rendered.version END,"
                " pace = CASE WHEN rendered.sent_at < excluded.sent_at"
                " THEN excluded.pace ELSE rendered.pace END,"
                " moment = CASE WHEN rendered.version < excluded.version"
                " THEN excluded.moment ELSE rendered.moment END,"
                " sent_at = CASE WHEN rendered.sent_at < excluded.sent_at"
                " THEN excluded.sent_at ELSE rendered.sent_at END",
                (table_id, user_id or 0, version, sent_at, pace, moment),
            )

    async def note_private_call(self, table_id: int, user_id: int, at: float) -> None:
        """A call into the person's chat about the table at `at` (epoch seconds) other than
        a render of their hand message (a sweep's deleteMessages): the next call waits the
        chat's gap after it, as after a render (`MessageState.sent_at`)."""
        async with self.backend.write() as conn:
            await conn.execute(
                "INSERT INTO rendered (table_id, user_id, version, sent_at) VALUES (?, ?, -1, ?)"
                " ON CONFLICT (table_id, user_id) DO UPDATE SET"
                " sent_at = CASE WHEN rendered.sent_at < excluded.sent_at"
                " THEN excluded.sent_at ELSE rendered.sent_at END",
                (table_id, user_id, at),
            )

    def message_lock(self, table_id: int, user_id: int | None) -> AbstractAsyncContextManager[None]:
        """Held while one of a table's messages is sent or edited, across every worker
        sharing the database (a process that dies lets go at once)."""
        return self.backend.hold((table_id, user_id or 0))

    async def hand_movers(self, table_id: int, hand_index: int) -> list[tuple[int, int | None]]:
        """Who made each move of one hand, in order: (seat, user_id; None for a computer or
        a turn the timer played)."""
        async with self.backend.read() as conn:
            rows = await conn.all(
                "SELECT seat, user_id FROM moves WHERE table_id = ? AND hand_index = ?"
                " ORDER BY move_no",
                (table_id, hand_index),
            )
        return [(int(r["seat"]), None if r["user_id"] is None else int(r["user_id"])) for r in rows]

    async def moves(self, table_id: int) -> list[MoveRow]:
        """The table's move log in order."""
        async with self.backend.read() as conn:
            rows = await conn.all(
                "SELECT * FROM moves WHERE table_id = ? ORDER BY move_no", (table_id,)
            )
        return [from_row(MoveRow, r, created_at=_dt(r["created_at"])) for r in rows]

"""A group's zero-sum ledger (RULES §10): an entry set written once per hand, seasons, an undo
as a compensating entry, payments of a settlement, the audit trail of who did what, and the
balances. The entry set itself is written by `LedgerStore.insert`, which a move also calls
in its own transaction.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol, TypeVar

from storage.backend import Backend, Conn, Row
from storage.db.base import _check_ledger, _dt, _now, ensure_chat, from_row, utc_iso
from storage.league import (
    ALREADY,
    DONE,
    GAME,
    PAYMENT,
    SEASON,
    STALE,
    UNDO,
    AuditRow,
    LedgerEntry,
    Outcome,
    payment_key,
    undo_key,
)
from storage.models import Balance, LedgerHand, LedgerRecord


class _Written(Protocol):
    @property
    def deltas(self) -> dict[int, int]: ...
    @property
    def names(self) -> dict[int, str]: ...


Written = TypeVar("Written", bound=_Written)


def _by_hand(rows: list[Row], hand: Callable[[Row], Written]) -> list[Written]:
    """The hands of `rows` (a row per player, a hand's rows together, by `hand_id`) in their
    order: `hand` of its first row, each player's delta and name filled in."""
    hands: dict[int, Written] = {}
    for r in rows:
        got = hands.get(r["hand_id"])
        if got is None:
            got = hands[r["hand_id"]] = hand(r)
        got.deltas[r["user_id"]] = r["delta"]
        got.names[r["user_id"]] = r["name"]
    return list(hands.values())


class LedgerStore:
    """The ledger, its seasons, undos and payments."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    # ------------------------------------------------------------------ ledger (RULES §10)

    @staticmethod
    async def insert(conn: Conn, record: LedgerRecord, kind: str = GAME) -> bool:
        """Write a checked entry set (`_check_ledger`) of `kind` under the chat's current
        epoch, in the caller's transaction (a move writes its hand's entry with it); False,
        writing nothing, if (chat_id, hand_key) was recorded already."""
        await ensure_chat(conn, record.chat_id)
        chat = await conn.one("SELECT league_epoch FROM chats WHERE chat_id = ?", (record.chat_id,))
        assert chat is not None
        epoch: int = chat["league_epoch"]
        deltas_json = json.dumps({str(uid): d for uid, d in record.deltas.items()})
        changed = await conn.execute(
            "INSERT INTO ledger_hands (chat_id, epoch, hand_key, table_id, variant, finished_at,"
            " deltas_json, kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (chat_id, hand_key) DO NOTHING",
            (
                record.chat_id,
                epoch,
                record.hand_key,
                record.table_id,
                record.variant,
                utc_iso(record.finished_at),
                deltas_json,
                kind,
            ),
        )
        if changed != 1:
            return False
        await conn.executemany(
            "INSERT INTO ledger_entries (chat_id, epoch, hand_key, user_id, name, delta)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            [
                (record.chat_id, epoch, record.hand_key, uid, record.names[uid], delta)
                for uid, delta in record.deltas.items()
            ],
        )
        return True

    async def record_ledger(
        self,
        chat_id: int,
        hand_key: str,
        table_id: int | None,
        variant: str,
        deltas: Mapping[int, int],
        names: Mapping[int, str],
        finished_at: datetime,
    ) -> bool:
        """Write one zero-sum ledger entry set (§10.1-10.2) under the chat's current epoch,
        in one transaction. Raises LedgerNotZeroSum (nothing written) if the deltas do not
        sum to zero, ValueError if a name is missing or `finished_at` is naive. Returns
        False, writing nothing, if (chat_id, hand_key) was already recorded in any epoch."""
        record = LedgerRecord(chat_id, hand_key, table_id, variant, deltas, names, finished_at)
        _check_ledger(record)
        async with self.backend.write() as conn:
            return await self.insert(conn, record)

    async def new_league(self, chat_id: int) -> int:
        """RULES.md §10.4: start a new league (reset/archive) by bumping the chat's epoch;
        returns the new epoch. Old ledger rows stay, readable with `epoch=`."""
        async with self.backend.write() as conn:
            await ensure_chat(conn, chat_id)
            await conn.execute(
                "UPDATE chats SET league_epoch = league_epoch + 1, updated_at = ?"
                " WHERE chat_id = ?",
                (_now(), chat_id),
            )
            row = await conn.one("SELECT league_epoch FROM chats WHERE chat_id = ?", (chat_id,))
        assert row is not None
        return int(row["league_epoch"])

    # ---------------------------------------------- seasons, undo, payments (RULES §10)

    async def new_season(
        self, chat_id: int, expected_epoch: int, actor_id: int, actor_name: str, at: datetime
    ) -> int | None:
        """§10.4 from the chat: start a new season if the current one is still
        `expected_epoch` (a confirm button shown for it), with an audit row; returns the new
        epoch, or None (nothing changed) if the season had moved on already."""
        async with self.backend.write() as conn:
            await ensure_chat(conn, chat_id)
            changed = await conn.execute(
                "UPDATE chats SET league_epoch = league_epoch + 1, updated_at = ?"
                " WHERE chat_id = ? AND league_epoch = ?",
                (_now(), chat_id, expected_epoch),
            )
            if changed != 1:
                return None
            await self._audit(
                conn, chat_id, expected_epoch + 1, SEASON, None, None, actor_id, actor_name, at
            )
        return expected_epoch + 1

    @staticmethod
    async def _audit(
        conn: Conn,
        chat_id: int,
        epoch: int,
        action: str,
        hand_key: str | None,
        target_key: str | None,
        actor_id: int,
        actor_name: str,
        at: datetime,
    ) -> None:
        await conn.execute(
            "INSERT INTO ledger_audit (chat_id, epoch, action, hand_key, target_key, actor_id,"
            " actor_name, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (chat_id, epoch, action, hand_key, target_key, actor_id, actor_name, utc_iso(at)),
        )

    @staticmethod
    async def _entries(
        conn: Conn, chat_id: int, where: str, params: Sequence[Any]
    ) -> list[LedgerEntry]:
        """The chat's ledger entries matching `where` (on `h`, ledger_hands), in the order
        they were written, each with the key of the entry that undid it."""
        rows = await conn.all(
            f"""
            SELECT h.hand_id, h.epoch, h.hand_key, h.table_id, h.variant, h.kind, h.finished_at,
                   e.user_id, e.name, e.delta, a.hand_key AS undone_by
            FROM ledger_hands h
            JOIN ledger_entries e ON e.chat_id = h.chat_id AND e.hand_key = h.hand_key
            LEFT JOIN ledger_audit a ON a.chat_id = h.chat_id AND a.target_key = h.hand_key
            WHERE h.chat_id = ? AND ({where})
            ORDER BY h.hand_id, e.rowid
            """,
            (chat_id, *params),
        )
        return _by_hand(
            rows,
            lambda r: from_row(
                LedgerEntry,
                r,
                chat_id=chat_id,
                finished_at=_dt(r["finished_at"]),
                undone_by=r["undone_by"],
            ),
        )

    async def season_entries(self, chat_id: int, epoch: int | None = None) -> list[LedgerEntry]:
        """The season's ledger entries (default: the current season), in the order written:
        games, undos and payments, each with its kind and whether it was undone."""
        async with self.backend.read() as conn:
            ep = await self._epoch(conn, chat_id, epoch)
            return await self._entries(conn, chat_id, "h.epoch = ?", (ep,))

    async def ledger_audit(self, chat_id: int, epoch: int | None = None) -> list[AuditRow]:
        """The season's audit trail (default: the current season), oldest first: its undos,
        payments, and the new-season row that began it (none for the first)."""
        async with self.backend.read() as conn:
            ep = await self._epoch(conn, chat_id, epoch)
            rows = await conn.all(
                "SELECT * FROM ledger_audit WHERE chat_id = ? AND epoch = ? ORDER BY audit_id",
                (chat_id, ep),
            )
        return [from_row(AuditRow, r, chat_id=chat_id, at=_dt(r["at"])) for r in rows]

    _UNDOABLE = (
        "h.epoch = ? AND h.kind != 'undo' AND NOT EXISTS (SELECT 1 FROM ledger_audit u"
        " WHERE u.chat_id = h.chat_id AND u.target_key = h.hand_key)"
    )

    async def _last_undoable(self, conn: Conn, chat_id: int) -> LedgerEntry | None:
        epoch = await self._epoch(conn, chat_id, None)
        row = await conn.one(
            f"SELECT h.hand_id FROM ledger_hands h WHERE h.chat_id = ? AND {self._UNDOABLE}"
            " ORDER BY h.hand_id DESC LIMIT 1",
            (chat_id, epoch),
        )
        if row is None:
            return None
        (entry,) = await self._entries(conn, chat_id, "h.hand_id = ?", (row["hand_id"],))
        return entry

    async def last_undoable(self, chat_id: int) -> LedgerEntry | None:
        """What /undo would undo: the current season's newest entry that is not an undo and
        was not undone (a game or a payment), or None."""
        async with self.backend.read() as conn:
            return await self._last_undoable(conn, chat_id)

    async def undo_entry(
        self, chat_id: int, hand_id: int, actor_id: int, actor_name: str, at: datetime
    ) -> tuple[Outcome, LedgerEntry | None]:
        """Undo the entry `hand_id` if it is still what /undo would undo: a compensating
        entry (the negated deltas, so still zero-sum; kind undo) and an audit row (who, when,
        which entry), in one transaction. ("already", the entry) if it was undone before,
        ("stale", None) if it is not the last undoable entry (any more), else ("done", the
        compensating entry). The ledger stays append-only: nothing is deleted."""
        async with self.backend.write() as conn:
            found = await self._entries(conn, chat_id, "h.hand_id = ?", (hand_id,))
            if found and found[0].undone_by is not None:
                return ALREADY, found[0]
            last = await self._last_undoable(conn, chat_id)
            if last is None or last.hand_id != hand_id:
                return STALE, None
            record = LedgerRecord(
                chat_id=chat_id,
                hand_key=undo_key(last.hand_key),
                table_id=last.table_id,
                variant=last.variant,
                deltas={uid: -d for uid, d in last.deltas.items()},
                names=dict(last.names),
                finished_at=at,
            )
            _check_ledger(record)
            if not await self.insert(conn, record, UNDO):
                return ALREADY, last
            await self._audit(
                conn,
                chat_id,
                last.epoch,
                UNDO,
                record.hand_key,
                last.hand_key,
                actor_id,
                actor_name,
                at,
            )
            (entry,) = await self._entries(conn, chat_id, "h.hand_key = ?", (record.hand_key,))
        return DONE, entry

    async def ledger_version(self, chat_id: int) -> int:
        """The newest entry's `hand_id` in the chat (0 if none): a settlement shown with it
        stays valid while nothing but its own payments is written."""
        async with self.backend.read() as conn:
            row = await conn.one(
                "SELECT MAX(hand_id) AS v FROM ledger_hands WHERE chat_id = ?", (chat_id,)
            )
        return int(row["v"] or 0) if row is not None else 0

    async def balances_at(self, chat_id: int, epoch: int, version: int) -> dict[int, int]:
        """§10.3: each player's balance in the season `epoch` counting the entries up to
        `version` (a `hand_id`) only; players at zero included."""
        async with self.backend.read() as conn:
            rows = await conn.all(
                "SELECT e.user_id, CAST(SUM(e.delta) AS BIGINT) AS balance FROM ledger_entries e"
                " JOIN ledger_hands h ON h.chat_id = e.chat_id AND h.hand_key = e.hand_key"
                " WHERE e.chat_id = ? AND e.epoch = ? AND h.hand_id <= ?"
                " GROUP BY e.user_id ORDER BY e.user_id",
                (chat_id, epoch, version),
            )
        return {int(r["user_id"]): int(r["balance"]) for r in rows}

    async def record_payment(
        self,
        chat_id: int,
        epoch: int,
        version: int,
        payment: tuple[int, int, int],
        names: Mapping[int, str],
        actor_id: int,
        actor_name: str,
        at: datetime,
        *,
        done: int = 0,
    ) -> Outcome:
        """§10.3: the payment (debtor, creditor, amount) of the settlement shown at `version`
        of the season `epoch` was made (or a part of it: `done` was paid of it before): an
        entry (+amount to the debtor, -amount to the creditor: zero-sum, kind payment) and an
        audit row (who marked it, when), in one transaction. "already" if this payment of
        that settlement, after `done`, was written before; "stale" (nothing written) if the
        season changed or anything but that settlement's own payments was written since
        `version`. The caller checks the payment belongs to the settlement (`balances_at`)."""
        debtor, creditor, amount = payment
        if amount <= 0 or debtor == creditor or done < 0:
            raise ValueError(f"not a payment: {payment}")
        key = payment_key(epoch, version, debtor, creditor, done)
        async with self.backend.write() as conn:
            if await conn.one(
                "SELECT 1 FROM ledger_hands WHERE chat_id = ? AND hand_key = ?",
                (chat_id, key),
            ):
                return ALREADY
            if await self._epoch(conn, chat_id, None) != epoch:
                return STALE
            prefix = payment_key(epoch, version, 0, 0).removesuffix("0:0")
            other = await conn.one(
                "SELECT 1 FROM ledger_hands WHERE chat_id = ? AND hand_id > ?"
                " AND NOT (kind = 'payment' AND substr(hand_key, 1, ?) = ?) LIMIT 1",
                (chat_id, version, len(prefix), prefix),
            )
            if other is not None:
                return STALE
            record = LedgerRecord(
                chat_id=chat_id,
                hand_key=key,
                table_id=None,
                variant="",
                deltas={debtor: amount, creditor: -amount},
                names={debtor: names[debtor], creditor: names[creditor]},
                finished_at=at,
            )
            _check_ledger(record)
            if not await self.insert(conn, record, PAYMENT):
                return ALREADY
            await self._audit(conn, chat_id, epoch, PAYMENT, key, None, actor_id, actor_name, at)
        return DONE

    async def _epoch(self, conn: Conn, chat_id: int, epoch: int | None) -> int:
        if epoch is not None:
            return epoch
        row = await conn.one("SELECT league_epoch FROM chats WHERE chat_id = ?", (chat_id,))
        return 0 if row is None else int(row["league_epoch"])

    async def balances(self, chat_id: int, epoch: int | None = None) -> list[Balance]:
        """§10.3: each player's sum of deltas in the epoch (default: the current one), sorted
        by balance descending, then name, then user_id. The name is the user's current name
        from `users` if known, else the one in their latest ledger entry in this chat."""
        async with self.backend.read() as conn:
            ep = await self._epoch(conn, chat_id, epoch)
            rows = await conn.all(
                """
                SELECT e.user_id AS user_id, CAST(SUM(e.delta) AS BIGINT) AS balance,
                COALESCE(u.name, (
                    SELECT e2.name FROM ledger_entries e2
                    JOIN ledger_hands h2 ON h2.chat_id = e2.chat_id AND h2.hand_key = e2.hand_key
                    WHERE e2.chat_id = e.chat_id AND e2.user_id = e.user_id
                    ORDER BY h2.finished_at DESC, h2.hand_id DESC LIMIT 1
                )) AS name
                FROM ledger_entries e LEFT JOIN users u ON u.user_id = e.user_id
                WHERE e.chat_id = ? AND e.epoch = ?
                GROUP BY e.chat_id, e.user_id, u.name
                """,
                (chat_id, ep),
            )
        out = [Balance(r["user_id"], r["name"], int(r["balance"])) for r in rows]
        out.sort(key=lambda b: (-b.balance, b.name.casefold(), b.name, b.user_id))
        return out

    async def ledger_hands(self, chat_id: int, epoch: int | None = None) -> list[LedgerHand]:
        """The epoch's ledger writes (default: the current epoch), oldest first."""
        async with self.backend.read() as conn:
            ep = await self._epoch(conn, chat_id, epoch)
            rows = await conn.all(
                """
                SELECT h.hand_id, h.hand_key, h.table_id, h.variant, h.finished_at,
                       e.user_id, e.name, e.delta
                FROM ledger_hands h
                JOIN ledger_entries e ON e.chat_id = h.chat_id AND e.hand_key = h.hand_key
                WHERE h.chat_id = ? AND h.epoch = ?
                ORDER BY h.finished_at, h.hand_id, e.rowid
                """,
                (chat_id, ep),
            )
        return _by_hand(
            rows,
            lambda r: from_row(
                LedgerHand,
                r,
                chat_id=chat_id,
                epoch=ep,
                finished_at=_dt(r["finished_at"]),
                deltas={},
                names={},
            ),
        )

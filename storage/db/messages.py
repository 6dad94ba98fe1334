"""The Telegram messages the bot keeps track of: each player's private hand message, what a
message shows (so an unchanged one is not edited again, even after a crash mid-edit), hand
messages replaced and still to be deleted, and the calls made about each group (the group
limit is shared by all workers).
"""

from __future__ import annotations

from collections.abc import Sequence

from storage.backend import NORMAL, Backend, Conn
from storage.db.base import _now
from storage.models import PrivateMessage, Shown


class MessageStore:
    """Hand messages and the bookkeeping of Telegram calls."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self._group_calls_since_prune = 0

    # ------------------------------------------------------------------ private messages

    async def set_private_message(
        self, table_id: int, user_id: int, chat_id: int, message_id: int
    ) -> None:
        """Remember (replace) the private message that shows `user_id` their hand."""
        async with self.backend.write() as conn:
            await conn.execute(
                "INSERT INTO private_messages (table_id, user_id, chat_id, message_id)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (table_id, user_id) DO UPDATE SET"
                " chat_id = excluded.chat_id, message_id = excluded.message_id",
                (table_id, user_id, chat_id, message_id),
            )

    async def forget_private_message(self, table_id: int, user_id: int) -> None:
        """The person's hand message stays in their chat as it is (a hand's summary): the
        next one is a new message."""
        async with self.backend.write() as conn:
            await conn.execute(
                "DELETE FROM private_messages WHERE table_id = ? AND user_id = ?",
                (table_id, user_id),
            )

    async def private_messages(self, table_id: int) -> list[PrivateMessage]:
        return await self.private_messages_of([table_id])

    async def private_messages_of(self, table_ids: Sequence[int]) -> list[PrivateMessage]:
        """The hand messages of these tables, by table and user."""
        out: list[PrivateMessage] = []
        async with self.backend.read() as conn:
            for i in range(0, len(table_ids), 500):
                chunk = list(table_ids[i : i + 500])
                marks = ", ".join("?" for _ in chunk)
                rows = await conn.all(
                    f"SELECT * FROM private_messages WHERE table_id IN ({marks})"
                    " ORDER BY table_id, user_id",
                    chunk,
                )
                out.extend(
                    PrivateMessage(r["table_id"], r["user_id"], r["chat_id"], r["message_id"])
                    for r in rows
                )
        return out

    # ------------------------------------------------------------------ Telegram bookkeeping

    async def write_notes(
        self,
        *,
        shown: Sequence[tuple[int, int, str]] = (),
        group_calls: Sequence[tuple[int, float]] = (),
        editing: Sequence[tuple[int, int, str]] = (),
        replaced: Sequence[tuple[int, int, int]] = (),
        deleted: Sequence[tuple[int, int]] = (),
    ) -> None:
        """In one transaction: what messages show now (chat_id, message_id, digest), calls
        made about groups (chat_id, Unix time), and messages about to be edited (chat_id,
        message_id, digest of the new content: until its edit is confirmed by a later
        `shown`, the message may show either, so `shown_many` knows nothing of it); hand
        messages a newer one replaced (table_id, chat_id, message_id), to be deleted, and
        those deleted since (chat_id, message_id). Calls older than five minutes are
        forgotten now and then."""
        if not shown and not group_calls and not editing and not replaced and not deleted:
            return
        now = _now()
        # in turn with the computers' moves (a lower priority could wait for a long time
        # while they move one after another, and a crash would then lose more notes)
        async with self.backend.write(NORMAL) as conn:
            if shown:
                await conn.executemany(
                    "INSERT INTO shown_messages (chat_id, message_id, digest, updated_at)"
                    " VALUES (?, ?, ?, ?) ON CONFLICT (chat_id, message_id) DO UPDATE SET"
                    " digest = excluded.digest, editing = NULL, updated_at = excluded.updated_at",
                    [(c, m, d, now) for c, m, d in shown],
                )
            if editing:  # after `shown`: an edit noted here comes after those confirmed
                await conn.executemany(
                    "INSERT INTO shown_messages (chat_id, message_id, digest, editing, updated_at)"
                    " VALUES (?, ?, '', ?, ?) ON CONFLICT (chat_id, message_id) DO UPDATE SET"
                    " editing = excluded.editing, updated_at = excluded.updated_at",
                    [(c, m, d, now) for c, m, d in editing],
                )
            if replaced:
                await conn.executemany(
                    "INSERT INTO replaced_messages (table_id, chat_id, message_id)"
                    " VALUES (?, ?, ?) ON CONFLICT (chat_id, message_id) DO NOTHING",
                    replaced,
                )
            if deleted:
                await conn.executemany(
                    "DELETE FROM replaced_messages WHERE chat_id = ? AND message_id = ?", deleted
                )
            if group_calls:
                await conn.executemany(
                    "INSERT INTO group_calls (chat_id, at) VALUES (?, ?)", group_calls
                )
                newest = max(at for _, at in group_calls)
                await self._prune_group_calls(conn, len(group_calls), newest)

    async def replaced_messages(self, table_id: int) -> list[tuple[int, int]]:
        """The table's hand messages that newer ones replaced and that are still to be
        deleted (`write_notes`), as (chat_id, message_id)."""
        async with self.backend.read() as conn:
            rows = await conn.all(
                "SELECT chat_id, message_id FROM replaced_messages WHERE table_id = ?"
                " ORDER BY chat_id, message_id",
                (table_id,),
            )
        return [(int(r[0]), int(r[1])) for r in rows]

    async def shown(self, chat_id: int, message_id: int) -> str | None:
        """The digest stored by `write_notes`, or None if nothing is known."""
        return (await self.shown_many([(chat_id, message_id)])).get((chat_id, message_id))

    async def shown_many(self, keys: Sequence[tuple[int, int]]) -> dict[tuple[int, int], str]:
        """The stored digests of these (chat_id, message_id), for those that have one and
        were not being edited when last noted (a crash may have come between the edit and its
        confirmation: then the message shows the old content or the new one)."""
        states = await self.shown_states(keys)
        return {key: s.digest for key, s in states.items() if s.editing is None}

    async def shown_states(self, keys: Sequence[tuple[int, int]]) -> dict[tuple[int, int], Shown]:
        """What was noted of these (chat_id, message_id), an edit not yet confirmed included
        (`Shown.editing`), for those noted at all."""
        out: dict[tuple[int, int], Shown] = {}
        async with self.backend.read() as conn:
            for i in range(0, len(keys), 300):
                chunk = keys[i : i + 300]
                values = ", ".join("(CAST(? AS BIGINT), CAST(? AS BIGINT))" for _ in chunk)
                rows = await conn.all(
                    "SELECT chat_id, message_id, digest, editing FROM shown_messages"
                    f" WHERE (chat_id, message_id) IN (VALUES {values})",
                    [x for key in chunk for x in key],
                )
                for r in rows:
                    editing = None if r["editing"] is None else str(r["editing"])
                    out[(r["chat_id"], r["message_id"])] = Shown(str(r["digest"]), editing)
        return out

    async def claim_group_call(
        self, chat_id: int, at: float, room: int, period: float
    ) -> tuple[bool, list[float]]:
        """A call about group `chat_id` at Unix time `at`, made by whichever worker of the bot
        asks: noted, and True, if fewer than `room` calls about the group were noted in the
        `period` seconds before `at`; False if not. Either way the group's calls noted in that
        period (Unix times, oldest first; the one claimed included). One write transaction, so
        two workers never both take the group's last place (Telegram counts a group's calls
        for the bot as a whole)."""
        async with self.backend.write(NORMAL) as conn:
            rows = await conn.all(
                "SELECT at FROM group_calls WHERE chat_id = ? AND at > ? ORDER BY at",
                (chat_id, at - period),
            )
            times = [float(r[0]) for r in rows]
            if len(times) >= room:
                return False, times
            await conn.execute("INSERT INTO group_calls (chat_id, at) VALUES (?, ?)", (chat_id, at))
            await self._prune_group_calls(conn, 1, at)
        return True, sorted([*times, at])

    async def group_calls_of(self, chat_id: int, since: float) -> list[float]:
        """The calls about group `chat_id` noted since Unix time `since`, oldest first."""
        async with self.backend.read() as conn:
            rows = await conn.all(
                "SELECT at FROM group_calls WHERE chat_id = ? AND at > ? ORDER BY at",
                (chat_id, since),
            )
        return [float(r[0]) for r in rows]

    async def _prune_group_calls(self, conn: Conn, added: int, newest: float) -> None:
        """Forget calls older than five minutes, now and then (every 500 noted)."""
        self._group_calls_since_prune += added
        if self._group_calls_since_prune >= 500:
            self._group_calls_since_prune = 0
            await conn.execute("DELETE FROM group_calls WHERE at < ?", (newest - 300.0,))

    async def recent_group_calls(self, since: float) -> dict[int, list[float]]:
        """The calls noted since Unix time `since`, per group, oldest first."""
        async with self.backend.read() as conn:
            rows = await conn.all(
                "SELECT chat_id, at FROM group_calls WHERE at >= ? ORDER BY at",
                (since,),
            )
        out: dict[int, list[float]] = {}
        for r in rows:
            out.setdefault(int(r["chat_id"]), []).append(float(r["at"]))
        return out

"""Where the outbox's messages are and what they show, as the database has them: each table's
hand messages by person, read once per table however many ask at the same time, and what each
message was last noted to show (`bot.telegram.shown.known`), read when the message is first
sent to. A bot alone reads both for all the open tables at once at start-up (`preload`), not
one query per message; with other workers each send reads its message as stored then, under
the message's lock (`TelegramOutbox._send_shared`), and keeps the hand messages' ids here."""

from __future__ import annotations

import asyncio

from bot.service.types import TableRef
from bot.telegram.shown import known
from storage import Database


class StoredMessages:
    def __init__(self, db: Database) -> None:
        self.db = db
        self._private_ids: dict[int, dict[int, int]] = {}
        self._private_loads: dict[int, asyncio.Task[dict[int, int]]] = {}
        self._shown_known: dict[tuple[int, int], str | None] = {}  # preloaded (`known`)

    def hand(self, tid: int, user_id: int) -> int | None:
        """The person's hand message at the table, if read already."""
        return self._private_ids.get(tid, {}).get(user_id)

    def set_hand(self, tid: int, user_id: int, message_id: int) -> None:
        self._private_ids.setdefault(tid, {})[user_id] = message_id

    def drop_hand(self, tid: int, user_id: int) -> None:
        self._private_ids.get(tid, {}).pop(user_id, None)

    async def hands(self, tid: int) -> dict[int, int]:
        """The table's hand messages by user: read once, however many ask at the same time."""
        if tid in self._private_ids:
            return self._private_ids[tid]
        task = self._private_loads.get(tid)
        if task is None:

            async def load() -> dict[int, int]:
                rows = await self.db.messages.private_messages(tid)
                found = {r.user_id: r.message_id for r in rows}
                return self._private_ids.setdefault(tid, found)

            task = self._private_loads[tid] = asyncio.create_task(load())
        return await task

    async def shows(self, chat_id: int, message_id: int) -> str | None:
        """What the message is known to show (`known`): preloaded, or read now."""
        key = (chat_id, message_id)
        if key in self._shown_known:
            return self._shown_known.pop(key)
        return known((await self.db.messages.shown_states([key])).get(key))

    async def preload(self, tables: list[TableRef]) -> None:
        rows = await self.db.messages.private_messages_of([tb.table_id for tb in tables])
        for tb in tables:
            self._private_ids.setdefault(tb.table_id, {})
        for r in rows:
            self._private_ids[r.table_id][r.user_id] = r.message_id
        keys = [(r.chat_id, r.message_id) for r in rows]
        keys += [(tb.chat_id, tb.table_message_id) for tb in tables if tb.table_message_id]
        states = await self.db.messages.shown_states(keys)
        self._shown_known.update({key: known(s) for key, s in states.items()})

    def forget(self, tid: int) -> None:
        """The table is done with: its hand messages are read again if it is ever shown."""
        self._private_ids.pop(tid, None)
        self._private_loads.pop(tid, None)

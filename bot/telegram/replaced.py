"""Messages a newer one replaced: a person's hand message when their turn comes, the
group's table message when /table posts it anew.

Your turn (`show_private(..., turn=key)`): an edit notifies nobody, so when a person's turn
comes their hand is sent as a new message (which notifies). The one it replaces is not
deleted at once but noted, and all of a hand's replaced messages go in one deleteMessages per
chat when the hand ends (`Sweeper.sweep`, called by the service through the outbox): one call
per person and hand instead of one per turn. The table message that /table re-posts goes at
once (`drop_replaced`)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from telegram import Bot
from telegram.error import BadRequest, Forbidden, TelegramError

from bot.i18n import t
from bot.service.types import TableRef
from bot.telegram.notes import Notes
from storage import Database

log = logging.getLogger(__name__)

SWEEP_WAIT = 10.0  # seconds a hand's sweep waits for its turn messages still being sent


class Sweeper:
    """The hand messages that newer turn messages replaced, by table and chat, until the
    hand's sweep deletes them. `shared`: other workers (or, always, the run before a restart)
    may have noted some, read from the database at the sweep. `shown(table_id, chat_id)`: the
    hand message the chat shows now, never deleted; `closing()`: the outbox is shutting down
    (a sweep no longer waits for turn messages on their way). `private_gap`: with other
    workers, the seconds kept between any two calls into a person's chat (as for their hand
    message: `TelegramOutbox.private_gap`)."""

    def __init__(
        self,
        bot: Bot,
        db: Database,
        notes: Notes,
        *,
        shared: bool,
        shown: Callable[[int, int], int | None],
        closing: Callable[[], bool],
        private_gap: float = 0.0,
    ) -> None:
        self.private_gap = private_gap
        self.bot = bot
        self.db = db
        self.notes = notes
        self.shared = shared
        self.shown = shown
        self.closing = closing
        # table -> chat -> hand messages a newer turn message replaced, not yet deleted
        self._replaced: dict[int, dict[int, list[int]]] = {}
        self._replaced_read: set[int] = set()  # tables whose stored ones were read
        self._sweeps: set[asyncio.Task[None]] = set()
        self._replacing: dict[int, int] = {}  # turn messages being sent, by table

    def sweep(self, tid: int) -> None:
        """Delete the table's replaced hand messages, in a task of its own."""
        task = asyncio.create_task(self._sweep(tid), name=f"sweep:{tid}")
        self._sweeps.add(task)
        task.add_done_callback(self._sweeps.discard)

    def pending(self) -> int:
        """Sweeps under way."""
        return len(self._sweeps)

    def sending(self, tid: int) -> None:
        """A turn message that replaces one is on its way: a sweep of the table waits for it
        (until `sent`)."""
        self._replacing[tid] = self._replacing.get(tid, 0) + 1

    def sent(self, tid: int) -> None:
        self._replacing[tid] -= 1
        if not self._replacing[tid]:
            del self._replacing[tid]

    def replace(self, tid: int, chat_id: int, message_id: int) -> None:
        """A newer turn message replaced this hand message: deleted with the hand's sweep
        (noted, so that a restarted bot or another worker deletes it)."""
        self._replaced.setdefault(tid, {}).setdefault(chat_id, []).append(message_id)
        self.notes.replaced(tid, chat_id, message_id)

    def holds(self, tid: int) -> bool:
        """Some of the table's replaced messages are still to delete."""
        return tid in self._replaced

    def forget(self, tid: int) -> None:
        """The table is done with: its next sweep, if any, reads the stored ones again."""
        self._replaced_read.discard(tid)

    async def _sweep(self, tid: int) -> None:
        # a turn message still on its way (the private chat's pace) replaces one as it lands:
        # that one goes with this sweep, not the next hand's
        loop = asyncio.get_running_loop()
        deadline = loop.time() + SWEEP_WAIT
        while self._replacing.get(tid) and loop.time() < deadline and not self.closing():
            await asyncio.sleep(0.05)
        chats = self._replaced.pop(tid, {})
        if self.shared or tid not in self._replaced_read:
            # another worker, or the run before a restart, may have noted some
            self._replaced_read.add(tid)
            await self.notes.flush()  # with what this one deleted already
            for chat_id, message_id in await self.db.messages.replaced_messages(tid):
                found = chats.setdefault(chat_id, [])
                if message_id not in found:
                    found.append(message_id)
        for chat_id, ids in chats.items():
            # a message shown now is never among them (a turn message replaced it)
            shown = self.shown(tid, chat_id)
            ids = [m for m in ids if m != shown]
            for i in range(0, len(ids), 100):  # Telegram takes up to 100 at once
                chunk = ids[i : i + 100]
                try:
                    await self._delete(tid, chat_id, chunk)
                except TelegramError as exc:
                    log.info("deleting %d messages in %s failed: %s", len(chunk), chat_id, exc)
                    if not isinstance(exc, BadRequest | Forbidden):
                        continue  # kept: the next sweep tries again
                self.notes.deleted(chat_id, chunk)

    async def _delete(self, tid: int, chat_id: int, ids: list[int]) -> None:
        """One deleteMessages. With other workers, into a person's chat: under their hand
        message's lock, `private_gap` after any worker's last call for it, and noted as one
        (a worker's sweep right after another's edit of the hand was refused for the chat's
        one call a second)."""
        if not (self.shared and self.private_gap > 0 and chat_id > 0):
            await self.bot.delete_messages(chat_id, ids)
            return
        async with self.db.tables.message_lock(tid, chat_id):
            state = await self.db.tables.message_state(tid, chat_id)
            wait = state.sent_at + self.private_gap - time.time()
            if wait > 0:
                await asyncio.sleep(min(wait, self.private_gap))
            try:
                await self.bot.delete_messages(chat_id, ids)
            finally:
                await self.db.tables.note_private_call(tid, chat_id, time.time())


async def drop_replaced(
    bot: Bot, table: TableRef, chat_id: int, user_id: int | None, message_id: int
) -> None:
    """Delete a message that a newer one replaced at once (the group's table message that
    /table posts anew). Telegram refuses for a message over 48 hours old: it is then edited
    into a pointer to the new one (no buttons). A failure changes nothing else: the new
    message is the one kept up to date."""
    try:
        await bot.delete_message(chat_id, message_id)
        return
    except TelegramError as exc:
        if "not found" in str(exc).lower():
            return  # the person deleted it
        log.info("deleting %s/%s failed (%s): editing it", chat_id, message_id, exc)
    title = f"#{table.table_id}"
    text = f"{t(table.lang, 'pm_replaced')} ({title})"
    if user_id is None:  # the group's table message, re-posted by /table
        text = t(table.lang, "table_moved")
    try:
        await bot.edit_message_text(text, chat_id=chat_id, message_id=message_id)
    except TelegramError as exc:
        log.info("editing the replaced %s/%s failed: %s", chat_id, message_id, exc)

"""The Outbox on Telegram: coalesced message edits and Telegram's errors, handled as sent.

Each message (the group's table message, each player's hand message) has at most one pending
send: `show_*` only stores the newest content and wakes the message's sender task, which
sends the newest content it finds and skips what equals the last one sent. The group message
waits `group_interval` seconds between sends (Telegram allows about 20 messages a minute in a
group), so a burst of moves costs one edit. PTB's AIORateLimiter handles RetryAfter.

- "message is not modified": counted as sent.
- "message to edit not found": sent anew, and the new message id is stored.
- Forbidden on a private message: reported once to `on_blocked` (the group is told).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TelegramError

from bot.render_tg import Keyboard, Rendered
from bot.tables import CANCELLED, FINISHED, Table
from storage import Database

log = logging.getLogger(__name__)

MAX_RETRIES = 5  # transient failures (network, flood control) of one message in a row


def markup(keyboard: Keyboard | None) -> InlineKeyboardMarkup | None:
    if not keyboard:
        return None
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(b.text, url=b.url)
                if b.url
                else InlineKeyboardButton(b.text, callback_data=b.data)
                for b in row
            ]
            for row in keyboard
        ]
    )


@dataclass
class _Slot:
    table: Table
    chat_id: int
    user_id: int | None  # None: the group's table message
    desired: Rendered | None = None
    sent: object = None
    message_id: int | None = None
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None


class TelegramOutbox:
    def __init__(
        self,
        bot: Bot,
        db: Database,
        *,
        group_interval: float = 3.0,
        on_blocked: Callable[[Table, int], Awaitable[None]] | None = None,
    ) -> None:
        self.bot = bot
        self.db = db
        self.group_interval = group_interval
        self.on_blocked = on_blocked
        self._slots: dict[tuple[int, int | None], _Slot] = {}
        self._blocked: set[tuple[int, int]] = set()
        self._private_ids: dict[int, dict[int, int]] = {}

    # ------------------------------------------------------------------ Outbox

    def show_table(self, table: Table, content: Rendered) -> None:
        self._put(table, table.chat_id, None, content)

    def show_private(self, table: Table, user_id: int, content: Rendered) -> None:
        self._put(table, user_id, user_id, content)

    def unblock(self, user_id: int) -> None:
        self._blocked = {k for k in self._blocked if k[1] != user_id}

    async def say(self, chat_id: int, text: str, keyboard: Keyboard | None = None) -> None:
        try:
            await self.bot.send_message(
                chat_id, text, parse_mode=ParseMode.HTML, reply_markup=markup(keyboard)
            )
        except TelegramError as exc:
            log.warning("send to %s failed: %s", chat_id, exc)

    async def flush(self, timeout: float = 10.0) -> None:
        """Wait until every pending send is done (shutdown, tests)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            busy = [s for s in self._slots.values() if s.desired is not None or s.wake.is_set()]
            if not busy:
                return
            await asyncio.sleep(0.05)

    async def close(self) -> None:
        await self.flush()
        for slot in self._slots.values():
            if slot.task is not None:
                slot.task.cancel()

    # ------------------------------------------------------------------ internals

    def _put(self, table: Table, chat_id: int, user_id: int | None, content: Rendered) -> None:
        key = (table.table_id, user_id)
        slot = self._slots.get(key)
        if slot is None:
            slot = _Slot(table, chat_id, user_id)
            self._slots[key] = slot
        slot.table = table
        if user_id is not None and (table.table_id, user_id) in self._blocked:
            return
        slot.desired = content
        slot.wake.set()
        if slot.task is None or slot.task.done():
            slot.task = asyncio.create_task(self._run(slot), name=f"outbox:{key}")

    async def _run(self, slot: _Slot) -> None:
        failures = 0
        while True:
            await slot.wake.wait()
            slot.wake.clear()
            content = slot.desired
            if content is not None and content.key() == slot.sent:
                slot.desired = content = None
            if content is not None:
                try:
                    delivered = await self._send(slot, content)
                except BadRequest:  # a BadRequest is a NetworkError, but a retry won't help
                    log.exception("outbox: sending to %s failed", slot.chat_id)
                    delivered = False
                except (NetworkError, RetryAfter) as exc:  # transient (TimedOut included)
                    failures += 1
                    if failures <= MAX_RETRIES:
                        log.warning(
                            "outbox: sending to %s failed (%s), retrying", slot.chat_id, exc
                        )
                        await asyncio.sleep(min(30.0, 0.5 * 2**failures))
                        slot.wake.set()  # the newest content is tried again
                        continue
                    log.error("outbox: giving up on %s after %d tries", slot.chat_id, failures)
                    delivered = False
                except Exception:
                    log.exception("outbox: sending to %s failed", slot.chat_id)
                    delivered = False
                failures = 0
                if delivered:
                    slot.sent = content.key()
                if slot.desired is content:
                    slot.desired = None
                if slot.user_id is None and self.group_interval:
                    await asyncio.sleep(self.group_interval)
            if self._retire(slot):
                return

    def _retire(self, slot: _Slot) -> bool:
        """Forget the slot of a finished or cancelled table once its last content is out
        (no await between the check and the removal: a concurrent `_put` either comes first,
        and the slot stays, or after, and starts a new slot)."""
        if slot.desired is not None or slot.wake.is_set():
            return False
        if slot.table.status not in (FINISHED, CANCELLED):
            return False
        tid = slot.table.table_id
        self._slots.pop((tid, slot.user_id), None)
        if not any(key[0] == tid for key in self._slots):
            self._private_ids.pop(tid, None)
            self._blocked = {k for k in self._blocked if k[0] != tid}
        return True

    async def _message_id(self, slot: _Slot) -> int | None:
        if slot.message_id is not None:
            return slot.message_id
        if slot.user_id is None:
            slot.message_id = slot.table.table_message_id
        else:
            tid = slot.table.table_id
            if tid not in self._private_ids:
                rows = await self.db.private_messages(tid)
                self._private_ids[tid] = {r.user_id: r.message_id for r in rows}
            slot.message_id = self._private_ids[tid].get(slot.user_id)
        return slot.message_id

    async def _send(self, slot: _Slot, content: Rendered) -> bool:
        """Send or edit the slot's message. True once Telegram shows `content`; False if it
        cannot (a person who has not started the bot). Transient errors are raised."""
        mid = await self._message_id(slot)
        reply_markup = markup(content.keyboard)
        for attempt in range(3):
            try:
                if mid is None:
                    msg = await self.bot.send_message(
                        slot.chat_id,
                        content.text,
                        parse_mode=ParseMode.HTML,
                        reply_markup=reply_markup,
                        disable_notification=slot.user_id is None,
                    )
                    await self._remember(slot, msg)
                else:
                    await self.bot.edit_message_text(
                        content.text,
                        chat_id=slot.chat_id,
                        message_id=mid,
                        parse_mode=ParseMode.HTML,
                        reply_markup=reply_markup,
                    )
                return True
            except BadRequest as exc:
                text = str(exc).lower()
                if "not modified" in text:
                    return True
                if "message to edit not found" in text or "message can't be edited" in text:
                    mid = slot.message_id = None
                    continue
                raise
            except Forbidden:
                if slot.user_id is None:
                    raise
                self._blocked.add((slot.table.table_id, slot.user_id))
                slot.desired = None
                if self.on_blocked is not None:
                    await self.on_blocked(slot.table, slot.user_id)
                return False
            except RetryAfter as exc:
                if attempt == 2:
                    raise
                delay = exc.retry_after
                await asyncio.sleep(
                    delay if isinstance(delay, int | float) else delay.total_seconds()
                )
        return False

    async def _remember(self, slot: _Slot, msg: Message) -> None:
        slot.message_id = msg.message_id
        tid = slot.table.table_id
        if slot.user_id is None:
            slot.table.table_message_id = msg.message_id
            await self.db.update_lobby(tid, table_message_id=msg.message_id)
        else:
            self._private_ids.setdefault(tid, {})[slot.user_id] = msg.message_id
            await self.db.set_private_message(tid, slot.user_id, slot.chat_id, msg.message_id)

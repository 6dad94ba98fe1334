"""One-off messages: sent, perhaps edited once, and forgotten. Notices and results (`say`,
`announce`), requests with buttons (`post`, later `edit`ed or stripped of their buttons), pins,
and messages no longer true, deleted in batches (`delete_soon`). Unlike the table's own
messages (`bot.telegram.outbox`), nothing here is kept up to date or noted: a failure is
logged, and the caller goes on."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import TelegramError

from bot.telegram.rate_limiter import Stopping
from bot.view.render import Keyboard, Rendered

log = logging.getLogger(__name__)

DELETE_GATHER = 0.5  # seconds notices to delete in one chat are gathered into one call
DELETE_MAX = 100  # message ids in one deleteMessages call (the Bot API's limit)


def markup(keyboard: Keyboard | None) -> InlineKeyboardMarkup | None:
    """Telegram's inline keyboard for a rendered one: a button with a URL opens it, any
    other sends its callback data."""
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


class OneOff:
    """Sends through `bot`; `closing()`: the outbox is shutting down (deletions asked for
    then go without gathering)."""

    def __init__(self, bot: Bot, *, closing: Callable[[], bool]) -> None:
        self.bot = bot
        self.closing = closing
        self._doomed: dict[int, set[int]] = {}  # chat -> message ids to delete (`delete_soon`)
        self._deleting: asyncio.Task[None] | None = None
        # (chat, message) -> the content it should show next (`edit_soon`), and the tasks
        # that edit them
        self._wanted: dict[tuple[int, int], Rendered] = {}
        self._editing: dict[tuple[int, int], asyncio.Task[None]] = {}

    async def say(self, chat_id: int, text: str, keyboard: Keyboard | None = None) -> bool:
        """Send a new message; False only if the bot is stopping and it was not sent (the
        caller may leave it to the next run), True otherwise (sent, or failed for good)."""
        try:
            await self.bot.send_message(chat_id, text, reply_markup=markup(keyboard))
        except Stopping:
            log.info("send to %s: not sent, the bot is stopping", chat_id)
            return False
        except TelegramError as exc:
            log.warning("send to %s failed: %s", chat_id, exc)
        return True

    async def edit(self, chat_id: int, message_id: int, content: Rendered) -> None:
        """Edit a message the outbox does not keep (the variant picker after a choice)."""
        try:
            await self.bot.edit_message_text(
                content.text,
                chat_id=chat_id,
                message_id=message_id,
                reply_markup=markup(content.keyboard),
            )
        except TelegramError as exc:
            log.info("editing %s/%s failed: %s", chat_id, message_id, exc)

    def edit_soon(self, chat_id: int, message_id: int, content: Rendered) -> None:
        """Edit a message the outbox does not keep, off the caller's path (a tap is answered
        first; the group's budget may make the edit wait): edits of one message go in order,
        and while one waits only the newest content asked for is kept."""
        key = (chat_id, message_id)
        self._wanted[key] = content
        task = self._editing.get(key)
        if task is None or task.done():
            task = asyncio.create_task(self._edit_wanted(key), name=f"outbox:edit:{chat_id}")
            self._editing[key] = task

    async def _edit_wanted(self, key: tuple[int, int]) -> None:
        try:
            while (content := self._wanted.pop(key, None)) is not None:
                await self.edit(key[0], key[1], content)
        finally:
            self._editing.pop(key, None)

    async def post(self, chat_id: int, content: Rendered) -> int | None:
        """Send a new message the outbox does not keep (a request with buttons, edited
        later with `edit`); its id, or None if it could not be sent."""
        try:
            msg = await self.bot.send_message(
                chat_id,
                content.text,
                reply_markup=markup(content.keyboard),
            )
        except TelegramError as exc:
            log.warning("send to %s failed: %s", chat_id, exc)
            return None
        return msg.message_id

    async def announce(
        self, chat_id: int, content: Rendered, *, silent: bool = False
    ) -> int | None:
        """Send a message of its own that the outbox does not keep up to date (a hand's
        result, the match's end, a notice); `silent`: it does not ring (Telegram's
        `disable_notification`). Its id, or None if it could not be sent."""
        try:
            msg = await self.bot.send_message(
                chat_id,
                content.text,
                reply_markup=markup(content.keyboard),
                disable_notification=silent,
            )
        except TelegramError as exc:
            log.warning("send to %s failed: %s", chat_id, exc)
            return None
        return msg.message_id

    async def delete_now(self, chat_id: int, message_ids: list[int]) -> None:
        """Delete these messages now, in one call (a message already gone is skipped; a
        refusal is only logged)."""
        try:
            await self.bot.delete_messages(chat_id, message_ids)
        except TelegramError as exc:
            log.info("deleting %d messages in %s failed: %s", len(message_ids), chat_id, exc)

    def delete_soon(self, chat_id: int, message_ids: list[int]) -> None:
        """Delete these messages (notices no longer true): the ids asked for in the same
        moment go in one `deleteMessages` call per chat (up to 100 ids). A message already
        gone, or one Telegram will not delete, is skipped."""
        self._doomed.setdefault(chat_id, set()).update(message_ids)
        if self._deleting is None or self._deleting.done():
            self._deleting = asyncio.create_task(self._delete_doomed(), name="outbox:delete")

    async def _delete_doomed(self) -> None:
        if not self.closing():
            await asyncio.sleep(DELETE_GATHER)
        while self._doomed:
            chat_id, ids = self._doomed.popitem()
            ordered = sorted(ids)
            for i in range(0, len(ordered), DELETE_MAX):
                try:
                    await self.bot.delete_messages(chat_id, ordered[i : i + DELETE_MAX])
                except TelegramError as exc:
                    log.info("deleting %d messages in %s failed: %s", len(ids), chat_id, exc)

    async def clear_buttons(self, chat_id: int, message_id: int) -> None:
        """A message the outbox does not keep loses its buttons (a rematch opened)."""
        try:
            await self.bot.edit_message_reply_markup(chat_id, message_id, reply_markup=None)
        except TelegramError as exc:
            log.info("clearing the buttons of %s/%s failed: %s", chat_id, message_id, exc)

    async def pin(self, chat_id: int, message_id: int) -> None:
        """Pin the message, silently (best effort: a refusal is only logged)."""
        try:
            await self.bot.pin_chat_message(chat_id, message_id, disable_notification=True)
        except TelegramError as exc:
            log.info("pinning %s/%s failed: %s", chat_id, message_id, exc)

    def pending(self) -> bool:
        """Deletions gathered or under way."""
        deleting = self._deleting is not None and not self._deleting.done()
        return deleting or bool(self._doomed) or bool(self._wanted) or bool(self._editing)

    async def close(self, timeout: float) -> None:
        """Let the deletions under way end, for at most `timeout` seconds."""
        waiting = [t for t in (self._deleting, *self._editing.values()) if t and not t.done()]
        if waiting:  # gathered deletions go at once
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(asyncio.gather(*waiting)), timeout)

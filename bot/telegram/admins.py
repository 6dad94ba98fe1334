"""Who is an admin of a group, asked of Telegram sparingly.

Every getChatMember names the group, so it spends the group's call budget (about 20 a minute,
shared with the table message). Answers are kept for `ttl` seconds (a failed question for
`error_ttl`), one question per person and group is under way at a time however fast they tap,
and a caller waits at most `timeout` seconds (then `AdminUnknown`; the answer still arrives
for the next tap).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from telegram import Bot
from telegram.constants import ChatMemberStatus
from telegram.error import TelegramError


class AdminUnknown(Exception):
    """Telegram has not answered yet."""


class AdminCache:
    def __init__(
        self,
        bot: Bot,
        *,
        ttl: float = 300.0,
        error_ttl: float = 30.0,
        timeout: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.bot = bot
        self.ttl = ttl
        self.error_ttl = error_ttl
        self.timeout = timeout
        self.clock = clock
        self._known: dict[tuple[int, int], tuple[bool, float]] = {}
        self._asking: dict[tuple[int, int], asyncio.Task[bool]] = {}
        self.questions = 0  # calls made to Telegram

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        key = (chat_id, user_id)
        known = self._known.get(key)
        if known is not None and known[1] > self.clock():
            return known[0]
        task = self._asking.get(key)
        if task is None:
            task = asyncio.create_task(self._ask(key), name=f"admin:{chat_id}:{user_id}")
            self._asking[key] = task
        try:
            return await asyncio.wait_for(asyncio.shield(task), self.timeout)
        except TimeoutError:
            raise AdminUnknown from None

    def remember(self, chat_id: int, user_id: int, admin: bool) -> None:
        """What Telegram just told unasked (a my_chat_member update: the bot's own rights)."""
        self._known[(chat_id, user_id)] = (admin, self.clock() + self.ttl)

    async def _ask(self, key: tuple[int, int]) -> bool:
        chat_id, user_id = key
        self.questions += 1
        try:
            member = await self.bot.get_chat_member(chat_id, user_id)
        except TelegramError:
            self._known[key] = (False, self.clock() + self.error_ttl)
            return False
        finally:
            self._asking.pop(key, None)
        admin = member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)
        self._known[key] = (admin, self.clock() + self.ttl)
        if len(self._known) > 10_000:
            now = self.clock()
            self._known = {k: v for k, v in self._known.items() if v[1] > now}
        return admin


__all__ = ["AdminCache", "AdminUnknown"]

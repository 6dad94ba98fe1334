"""Button taps, for every feature: a tap parsed (`Tap`), the handler that answers it once
(`answering`), the guard of a tap that needs its chat (`chat_tap`), and the fallback for data no
feature knows. Each feature module lists its own kinds of tap (`TAPS`: a `CB_*` pattern of
`bot.view.callback_data` and its action) and builds their handlers with `tap_handlers`;
`handlers.register` adds the fallback after them all.

Every query is answered exactly once, whatever happens, and promptly: the service stores the
action and returns (computer players move afterwards), and nothing here waits on a call that
spends a group's budget for longer than the admin cache's short timeout."""

from __future__ import annotations

import functools
import logging
import re
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

from telegram import Chat, Update
from telegram.ext import CallbackQueryHandler

from bot.i18n import t
from bot.service import AdminCheck, Person, Reply
from bot.service.types import REPLY_LANG
from bot.telegram.admins import AdminUnknown
from bot.telegram.context import BotContext
from handlers.common import Handler, admin_check, person, send_to

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Tap:
    """A tap, parsed: who tapped, where (None when the message is too old to say), and the
    fields of its data (the pattern's groups)."""

    update: Update
    context: BotContext
    who: Person
    chat: Chat | None
    fields: tuple[str, ...]

    def ints(self) -> list[int]:
        """The fields, for a pattern whose fields are all numbers."""
        return [int(f) for f in self.fields]

    def bad(self) -> Reply:
        return Reply(t(REPLY_LANG.get() or self.context.service.langs.default, "err_bad_data"))

    def admin(self, chat: Chat) -> AdminCheck:
        """Whether the tapping user administers `chat` (asked when the service needs it)."""
        query = self.update.callback_query
        assert query is not None
        return admin_check(self.context, chat, query.from_user)

    @property
    def message_id(self) -> int | None:
        """The message whose button was tapped (None when it is too old to say)."""
        query = self.update.callback_query
        return query.message.message_id if query is not None and query.message else None


Action = Callable[[Tap], Awaitable[Reply]]
TapRoute = tuple[re.Pattern[str], Action]


def answering(action: Action) -> Handler:
    """The handler of one kind of tap: runs `action` and answers the query, once."""

    async def on_tap(update: Update, context: BotContext) -> None:
        # the tap's arrival, as near as the handler knows it: PTB keeps no time of an
        # update's arrival, and with concurrent updates a handler starts at once
        began = time.perf_counter()
        query = update.callback_query
        if query is None:
            return
        lang = REPLY_LANG.get() or context.service.langs.default
        reply = Reply(t(lang, "err_bad_data"), alert=False)
        try:
            chat = query.message.chat if query.message is not None else None
            # No match: the fallback, or a tap without data (PTB hands that to the first
            # handler, with `True` for a match).
            match = context.match if isinstance(context.match, re.Match) else None
            fields = match.groups() if match is not None else ()
            tap = Tap(update, context, person(query.from_user), chat, fields)
            reply = await (action if match is not None else unknown)(tap)
        except AdminUnknown:  # Telegram is slow to say who the admins are: the next tap knows
            reply = Reply(t(lang, "err_busy"))
        except Exception:
            log.exception("callback %r failed", query.data)
            reply = Reply(t(lang, "err_busy"))
        finally:
            try:
                await query.answer(reply.text[:200] or None, show_alert=reply.alert)
                if (metrics := context.bot_data.metrics) is not None:
                    metrics.tap_answer.observe(time.perf_counter() - began)
            except Exception as exc:  # an expired query cannot be answered; nothing else to do
                log.info("answering a callback failed: %s", exc)
        # A reply with buttons (the deep link to the private chat) cannot ride on the answer:
        # it goes to the chat as a message.
        if reply.keyboard and query.message is not None:
            await send_to(context, query.message.chat.id, reply)
        if reply.repost is not None and query.message is not None:  # a /new picker came late
            await context.service.lobby.repost(query.message.chat.id, reply.repost)

    return on_tap


def chat_tap(action: Callable[[Tap, Chat], Awaitable[Reply]]) -> Action:
    """A tap on a message in a chat (the group's): without the chat, the data is not enough."""

    @functools.wraps(action)
    async def in_chat(tap: Tap) -> Reply:
        if tap.chat is None:
            return tap.bad()
        return await action(tap, tap.chat)

    return in_chat


async def unknown(tap: Tap) -> Reply:  # forged or stale data, or none
    return tap.bad()


def tap_handlers(routes: Iterable[TapRoute]) -> list[CallbackQueryHandler[BotContext, None]]:
    """One handler per kind of tap (the first handler that matches answers)."""
    return [CallbackQueryHandler(answering(action), pattern=p) for p, action in routes]


def fallback() -> CallbackQueryHandler[BotContext, None]:
    """The handler (no pattern) for forged or stale data: it must come after every feature's
    taps."""
    return CallbackQueryHandler(answering(unknown))

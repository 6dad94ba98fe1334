"""Button taps. The data names the table and the action; the actor is always the tapping user. Each
kind of tap has its `CallbackQueryHandler`, routed by the data's pattern
(`bot.telegram.callback_data`, next to the encoder); a tap that matches none (forged or stale
data) gets the fallback's answer. Every query is answered exactly once, whatever happens, and
promptly: the service stores the action and returns (computer players move afterwards), and
nothing here waits on a call that spends a group's budget for longer than the admin cache's
short timeout."""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from telegram import Chat, Update
from telegram.ext import CallbackQueryHandler

from bot.i18n import t
from bot.players import DEFAULT_LEVEL
from bot.service import AdminCheck, Person, Reply
from bot.service.types import REPLY_LANG
from bot.telegram import callback_data as cb
from bot.telegram.admins import AdminUnknown
from bot.telegram.context import BotContext
from handlers.common import admin_check, bot_admin_check, is_group, person, send_to
from handlers.league import paid_tap, season_tap, undo_tap
from handlers.tournament import tour_join_tap, tour_tap

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
        return Reply(t(REPLY_LANG.get() or self.context.service.default_lang, "err_bad_data"))

    def admin(self, chat: Chat) -> AdminCheck:
        """Whether the tapping user administers `chat` (asked when the service needs it)."""
        query = self.update.callback_query
        assert query is not None
        return admin_check(self.context, chat, query.from_user)


Action = Callable[[Tap], Awaitable[Reply]]
Handler = Callable[[Update, BotContext], Coroutine[Any, Any, None]]


def answering(action: Action) -> Handler:
    """The handler of one kind of tap: runs `action` and answers the query, once."""

    async def on_tap(update: Update, context: BotContext) -> None:
        query = update.callback_query
        if query is None:
            return
        lang = REPLY_LANG.get() or context.service.default_lang
        reply = Reply(t(lang, "err_bad_data"), alert=False)
        try:
            chat = query.message.chat if query.message is not None else None
            # No match: the fallback, or a tap without data (PTB hands that to the first
            # handler, with `True` for a match).
            match = context.match if isinstance(context.match, re.Match) else None
            fields = match.groups() if match is not None else ()
            tap = Tap(update, context, person(query.from_user), chat, fields)
            reply = await (action if match is not None else _unknown)(tap)
        except AdminUnknown:  # Telegram is slow to say who the admins are: the next tap knows
            reply = Reply(t(lang, "err_busy"))
        except Exception:
            log.exception("callback %r failed", query.data)
            reply = Reply(t(lang, "err_busy"))
        finally:
            try:
                await query.answer(reply.text[:200] or None, show_alert=reply.alert)
            except Exception as exc:  # an expired query cannot be answered; nothing else to do
                log.info("answering a callback failed: %s", exc)
        # A reply with buttons (the deep link to the private chat) cannot ride on the answer:
        # it goes to the chat as a message.
        if reply.keyboard and query.message is not None:
            await send_to(context, query.message.chat.id, reply)
        if reply.repost is not None and query.message is not None:  # a /new picker came late
            await context.service.repost(query.message.chat.id, reply.repost)

    return on_tap


# The taps that need no chat: they name the table, and work from the private chat too.


async def _act(tap: Tap) -> Reply:
    table_id, hand_index, stamp, action = tap.ints()
    return await tap.context.service.act(tap.who, table_id, hand_index, stamp, action)


async def _next_hand(tap: Tap) -> Reply:
    table_id, hand_index = tap.ints()
    return await tap.context.service.next_hand(tap.who, table_id, hand_index)


async def _bid_page(tap: Tap) -> Reply:  # points bids: the screen with every value
    table_id, hand_index, stamp, page = tap.ints()
    return await tap.context.service.bid_page(tap.who, table_id, hand_index, stamp, page)


async def _resume(tap: Tap) -> Reply:  # "Riprendo il posto" (issue 11 §3)
    return await tap.context.service.resume(tap.who, int(tap.fields[0]))


# The taps on a message in a chat (the group's): without the chat, the data is not enough.


def _in_chat(action: Callable[[Tap, Chat], Awaitable[Reply]]) -> Action:
    async def in_chat(tap: Tap) -> Reply:
        if tap.chat is None:
            return tap.bad()
        return await action(tap, tap.chat)

    return in_chat


async def _cancel_vote(tap: Tap, chat: Chat) -> Reply:  # cancel consent
    table, vote = tap.fields
    return await tap.context.service.cancel_vote(chat.id, tap.who, int(table), vote == "y")


async def _variant(tap: Tap, chat: Chat) -> Reply:
    return await tap.context.service.new_table(
        chat.id, tap.who, tap.fields[0], is_group(chat), picker_message_id=_tapped(tap)
    )


async def _lobby_bot(tap: Tap, chat: Chat) -> Reply:
    table, level = tap.fields
    return await tap.context.service.add_bot(chat.id, level, int(table))


async def _lobby(tap: Tap, chat: Chat) -> Reply:
    svc, who = tap.context.service, tap.who
    table_id, op = int(tap.fields[0]), tap.fields[1]
    if op == "join":
        return await svc.join(chat.id, who, table_id)
    if op == "leave":
        return await svc.leave(chat.id, who, table_id)
    if op == "bot":
        return await svc.add_bot(chat.id, DEFAULT_LEVEL, table_id)
    admin = tap.admin(chat)
    if op == "settings":  # from the lobby: a panel of its own; from a panel: its list again
        return await svc.show_settings(
            chat.id, table_id, person=who, is_admin=admin, message_id=_tapped(tap)
        )
    if op == "back":
        return await svc.back_to_lobby(chat.id, table_id, _tapped(tap))
    if op == "cancel":
        return await svc.cancel(chat.id, who, is_admin=admin, table_id=table_id)
    return await svc.start(chat.id, who, is_admin=admin, fill=op == "fill", table_id=table_id)


def _tapped(tap: Tap) -> int | None:
    """The message whose button was tapped (None when it is too old to say)."""
    query = tap.update.callback_query
    return query.message.message_id if query is not None and query.message else None


async def _setting(tap: Tap, chat: Chat) -> Reply:
    table, key, value = tap.fields
    return await tap.context.service.set_option(
        chat.id,
        tap.who,
        key,
        value,
        int(table),
        is_admin=tap.admin(chat),
        bot_admin=bot_admin_check(tap.context, chat),
        message_id=_tapped(tap),
    )


async def _option(tap: Tap, chat: Chat) -> Reply:  # the settings panel: one setting's screen
    table, key = tap.fields
    return await tap.context.service.show_option(chat.id, int(table), key, _tapped(tap))


async def _rematch(tap: Tap, chat: Chat) -> Reply:  # a rematch: same seats, same settings
    return await tap.context.service.rematch(chat.id, tap.who, int(tap.fields[0]), _tapped(tap))


async def _unknown(tap: Tap) -> Reply:  # forged or stale data, or none
    return tap.bad()


ROUTES: tuple[tuple[re.Pattern[str], Action], ...] = (
    (cb.CB_ACT, _act),
    (cb.CB_NEXT, _next_hand),
    (cb.CB_BIDS, _bid_page),
    (cb.CB_RESUME, _resume),
    (cb.CB_CANCEL_VOTE, _in_chat(_cancel_vote)),
    (cb.CB_VARIANT, _in_chat(_variant)),
    (cb.CB_LOBBY_BOT, _in_chat(_lobby_bot)),
    (cb.CB_LOBBY, _in_chat(_lobby)),
    (cb.CB_SETTING, _in_chat(_setting)),
    (cb.CB_OPTION, _in_chat(_option)),
    (cb.CB_REMATCH, _in_chat(_rematch)),
    (cb.CB_TOUR, _in_chat(tour_tap)),  # a tournament's message (handlers/tournament.py)
    (cb.CB_TOUR_JOIN, _in_chat(tour_join_tap)),
    (cb.CB_SEASON, _in_chat(season_tap)),  # the ledger's buttons (handlers/league.py)
    (cb.CB_UNDO, _in_chat(undo_tap)),
    (cb.CB_PAID, _in_chat(paid_tap)),
)


def callback_handlers() -> list[CallbackQueryHandler[BotContext, None]]:
    """One handler per kind of tap, then the fallback (no pattern) for forged or stale data:
    it must come last (the first handler that matches answers)."""
    handlers = [CallbackQueryHandler(answering(action), pattern=p) for p, action in ROUTES]
    handlers.append(CallbackQueryHandler(answering(_unknown)))
    return handlers

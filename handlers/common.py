"""What the handlers share: the service, the person, admin checks, sending a reply."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Protocol

from telegram import Chat, ReplyParameters, Update, User
from telegram.error import TelegramError

from bot.i18n import lang_of, t
from bot.service import AdminCheck, Person, Reply
from bot.service.types import REPLY_LANG
from bot.telegram.context import BotContext
from bot.telegram.oneoff import markup

log = logging.getLogger(__name__)


def person(user: User) -> Person:
    name = user.full_name or user.username or str(user.id)
    return Person(user.id, name, lang_of(user.language_code))


def is_group(chat: Chat) -> bool:
    return chat.type in (Chat.GROUP, Chat.SUPERGROUP)


Callback = Callable[[Update, BotContext], Coroutine[Any, Any, Any]]
Handler = Callable[[Update, BotContext], Coroutine[Any, Any, None]]


def in_their_language(callback: Callback) -> Callback:
    """`callback` with the service's replies in the language of the person the update comes
    from (their /lang, else their Telegram language) wherever they alone read them: a tap's
    answer, anything in their private chat (`REPLY_LANG`). A command in a group is answered
    in the group's language: everybody reads it."""

    async def personal(update: Update, context: BotContext) -> Any:
        user, chat = update.effective_user, update.effective_chat
        lang = None
        alone = update.callback_query is not None or (chat is not None and not is_group(chat))
        if user is not None and alone and context.bot_data.service is not None:
            lang = await context.service.langs.person(person(user))
        token = REPLY_LANG.set(lang)
        try:
            return await callback(update, context)
        finally:
            REPLY_LANG.reset(token)

    return personal


# The guards of a handler: an update without the chat (or the person) it needs is let be, and
# a group's command sent in a private chat is answered with the refusal.

InChat = Callable[[Update, BotContext, Chat], Awaitable[None]]
BySender = Callable[[Update, BotContext, Chat, User], Awaitable[None]]


def with_chat(handler: InChat) -> Handler:
    """`handler`, given the update's chat; without one, nothing happens."""

    @functools.wraps(handler)
    async def guarded(update: Update, context: BotContext) -> None:
        chat = update.effective_chat
        if chat is None:
            return
        await handler(update, context, chat)

    return guarded


def with_sender(handler: BySender) -> Handler:
    """`handler`, given the update's chat and the person who sent it; without either,
    nothing happens."""

    @functools.wraps(handler)
    async def guarded(update: Update, context: BotContext) -> None:
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None:
            return
        await handler(update, context, chat, user)

    return guarded


def group_only(handler: BySender) -> Handler:
    """`handler` for a group's command, as `with_sender`; in a private chat the refusal is
    sent instead."""

    @with_sender
    @functools.wraps(handler)
    async def guarded(update: Update, context: BotContext, chat: Chat, user: User) -> None:
        if not is_group(chat):
            lang = await context.service.langs.chat(chat.id)
            await send(update, Reply(t(lang, "err_group_only")))
            return
        await handler(update, context, chat, user)

    return guarded


def admin_check(context: BotContext, chat: Chat, user: User) -> AdminCheck:
    """Asks (through the cache) whether `user` administers `chat`, when the service needs
    to know; in a private chat nobody is."""
    admins = context.admins

    async def check() -> bool:
        return is_group(chat) and await admins.is_admin(chat.id, user.id)

    return check


def bot_admin_check(context: BotContext, chat: Chat) -> AdminCheck:
    """Asks (through the cache) whether the bot itself administers `chat` (to pin)."""
    admins = context.admins

    async def check() -> bool:
        return is_group(chat) and await admins.is_admin(chat.id, context.bot.id)

    return check


class AdminCall(Protocol):
    """A service call told whether the person is a group admin (`start`, `ask_undo`, ...)."""

    async def __call__(
        self, chat_id: int, person: Person, /, *, is_admin: bool | AdminCheck
    ) -> Reply: ...


async def send_admin_call(
    update: Update, context: BotContext, chat: Chat, user: User, call: AdminCall
) -> None:
    """/go, /season, /undo: `call`'s answer to the command's sender `user` in `chat` (the
    service asks, when it needs to, whether they administer `chat`)."""
    await send(update, await call(chat.id, person(user), is_admin=admin_check(context, chat, user)))


def reply_parameters(update: Update) -> ReplyParameters | None:
    """A reply to the command (sent all the same if it was deleted); None without one."""
    message = update.effective_message
    if message is None:
        return None
    return ReplyParameters(message.message_id, allow_sending_without_reply=True)


async def send(update: Update, reply: Reply, context: BotContext | None = None) -> int | None:
    """Reply to a command in its chat (nothing when the service has nothing to say). In a
    group the answer is a reply to the command, so it is clear whom it speaks to. A reply
    that asks for it (`Reply.repost`, with `context`) is followed by the table message,
    re-posted below. The id of the reply sent, if one was."""
    chat = update.effective_chat
    if chat is None:
        return None
    sent = None
    if reply.text:
        try:
            sent = await chat.send_message(
                reply.text,
                reply_markup=markup(reply.keyboard),
                reply_parameters=reply_parameters(update) if is_group(chat) else None,
                # in a group the asker reads the answer at once: nobody else is rung for it
                disable_notification=is_group(chat),
            )
        except TelegramError as exc:  # the rate limiter already tried again
            log.warning("replying in %s failed: %s", chat.id, exc)
    if reply.repost is not None and context is not None:
        await context.service.lobby.repost(chat.id, reply.repost)
    return None if sent is None else sent.message_id


async def send_to(context: BotContext, chat_id: int, reply: Reply) -> None:
    """Send a reply as a message in `chat_id` (for replies to a button tap)."""
    if not reply.text:
        return
    try:
        await context.bot.send_message(chat_id, reply.text, reply_markup=markup(reply.keyboard))
    except TelegramError as exc:
        log.warning("sending to %s failed: %s", chat_id, exc)

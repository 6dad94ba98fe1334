"""What the handlers share: the service, the person, admin checks, sending a reply."""

from __future__ import annotations

import logging

from telegram import Chat, ReplyParameters, Update, User
from telegram.error import TelegramError

from bot.i18n import lang_of
from bot.service import AdminCheck, Person, Reply
from bot.telegram.context import BotContext
from bot.telegram.outbox import markup

log = logging.getLogger(__name__)


def person(user: User) -> Person:
    name = user.full_name or user.username or str(user.id)
    return Person(user.id, name, lang_of(user.language_code))


def is_group(chat: Chat) -> bool:
    return chat.type in (Chat.GROUP, Chat.SUPERGROUP)


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


async def send(update: Update, reply: Reply, context: BotContext | None = None) -> None:
    """Reply to a command in its chat (nothing when the service has nothing to say). In a
    group the answer is a reply to the command, so it is clear whom it speaks to. A reply
    that asks for it (`Reply.repost`, with `context`) is followed by the table message,
    re-posted below."""
    chat = update.effective_chat
    if chat is None:
        return
    if reply.text:
        message = update.effective_message
        reply_to = (
            ReplyParameters(message.message_id, allow_sending_without_reply=True)
            if is_group(chat) and message is not None
            else None
        )
        try:
            await chat.send_message(
                reply.text,
                reply_markup=markup(reply.keyboard),
                reply_parameters=reply_to,
            )
        except TelegramError as exc:  # the rate limiter already tried again
            log.warning("replying in %s failed: %s", chat.id, exc)
    if reply.repost is not None and context is not None:
        await context.service.repost(chat.id, reply.repost)


async def send_to(context: BotContext, chat_id: int, reply: Reply) -> None:
    """Send a reply as a message in `chat_id` (for replies to a button tap)."""
    if not reply.text:
        return
    try:
        await context.bot.send_message(chat_id, reply.text, reply_markup=markup(reply.keyboard))
    except TelegramError as exc:
        log.warning("sending to %s failed: %s", chat_id, exc)

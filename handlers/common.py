"""What the handlers share: the service, the person, admin checks, sending a reply."""

from __future__ import annotations

import logging

from telegram import Chat, ReplyParameters, Update, User
from telegram.constants import ParseMode
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from bot.admins import AdminCache
from bot.i18n import lang_of
from bot.service import AdminCheck, Person, Reply, TableService
from bot.telegram_out import markup

log = logging.getLogger(__name__)


def service(context: ContextTypes.DEFAULT_TYPE) -> TableService:
    svc: TableService = context.application.bot_data["service"]
    return svc


def person(user: User) -> Person:
    name = user.full_name or user.username or str(user.id)
    return Person(user.id, name, lang_of(user.language_code))


def is_group(chat: Chat) -> bool:
    return chat.type in (Chat.GROUP, Chat.SUPERGROUP)


def admin_check(context: ContextTypes.DEFAULT_TYPE, chat: Chat, user: User) -> AdminCheck:
    """Asks (through the cache) whether `user` administers `chat`, when the service needs
    to know; in a private chat nobody is."""
    admins: AdminCache = context.application.bot_data["admins"]

    async def check() -> bool:
        return is_group(chat) and await admins.is_admin(chat.id, user.id)

    return check


def bot_admin_check(context: ContextTypes.DEFAULT_TYPE, chat: Chat) -> AdminCheck:
    """Asks (through the cache) whether the bot itself administers `chat` (to pin)."""
    admins: AdminCache = context.application.bot_data["admins"]

    async def check() -> bool:
        return is_group(chat) and await admins.is_admin(chat.id, context.bot.id)

    return check


async def send(
    update: Update, reply: Reply, context: ContextTypes.DEFAULT_TYPE | None = None
) -> None:
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
                parse_mode=ParseMode.HTML,
                reply_markup=markup(reply.keyboard),
                reply_parameters=reply_to,
            )
        except TelegramError as exc:  # the rate limiter already tried again
            log.warning("replying in %s failed: %s", chat.id, exc)
    if reply.repost is not None and context is not None:
        await service(context).repost(chat.id, reply.repost)


async def send_to(context: ContextTypes.DEFAULT_TYPE, chat_id: int, reply: Reply) -> None:
    """Send a reply as a message in `chat_id` (for replies to a button tap)."""
    if not reply.text:
        return
    try:
        await context.bot.send_message(
            chat_id, reply.text, parse_mode=ParseMode.HTML, reply_markup=markup(reply.keyboard)
        )
    except TelegramError as exc:
        log.warning("sending to %s failed: %s", chat_id, exc)

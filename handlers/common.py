"""What the handlers share: the service, the person, admin checks, sending a reply."""

from __future__ import annotations

import logging

from telegram import Chat, Update, User
from telegram.constants import ParseMode
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from bot.admins import AdminCache
from bot.service import AdminCheck, Person, Reply, TableService
from bot.telegram_out import markup

log = logging.getLogger(__name__)


def service(context: ContextTypes.DEFAULT_TYPE) -> TableService:
    svc: TableService = context.application.bot_data["service"]
    return svc


def person(user: User) -> Person:
    return Person(user.id, user.full_name or user.username or str(user.id))


def is_group(chat: Chat) -> bool:
    return chat.type in (Chat.GROUP, Chat.SUPERGROUP)


def admin_check(context: ContextTypes.DEFAULT_TYPE, chat: Chat, user: User) -> AdminCheck:
    """Asks (through the cache) whether `user` administers `chat`, when the service needs
    to know; in a private chat nobody is."""
    admins: AdminCache = context.application.bot_data["admins"]

    async def check() -> bool:
        return is_group(chat) and await admins.is_admin(chat.id, user.id)

    return check


async def send(update: Update, reply: Reply) -> None:
    """Reply to a command in its chat (nothing when the service has nothing to say)."""
    if not reply.text or update.effective_chat is None:
        return
    try:
        await update.effective_chat.send_message(
            reply.text, parse_mode=ParseMode.HTML, reply_markup=markup(reply.keyboard)
        )
    except TelegramError as exc:  # the rate limiter already tried again
        log.warning("replying in %s failed: %s", update.effective_chat.id, exc)


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

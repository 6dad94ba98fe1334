"""The group's ledger from the chat (issue 14, RULES §10): parse, call the service
(`bot/service/league.py`), send.

    /score [last|ultima|N]          the standings of the current season, the previous one,
                                    or season N, and who buys the beer
    /season, /stagione              (admins) a new season, after a confirm button (§10.4)
    /export [csv|json] [last|N]     the season's ledger as a file, with its audit trail
    /undo                           (admins) undo the ledger's last entry, after a confirm
    /beer, /birra                   the settlement alone, a "pagato" button per payment

The buttons' taps (`L:` data, `bot.telegram.callback_data`) are routed by
`handlers/callbacks.py` to `season_tap`, `undo_tap` and `paid_tap` here.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from telegram import Chat, InputFile, ReplyParameters, Update
from telegram.error import TelegramError
from telegram.ext import CommandHandler

from bot.i18n import t
from bot.service import Reply
from bot.service.league import Document
from bot.telegram.context import BotContext
from handlers.common import admin_check, is_group, person, send

if TYPE_CHECKING:
    from handlers.callbacks import Tap

log = logging.getLogger(__name__)


async def _group(update: Update, context: BotContext) -> Chat | None:
    """The group the command was sent in; in a private chat, the refusal is sent."""
    chat = update.effective_chat
    if chat is None or update.effective_user is None:
        return None
    if not is_group(chat):
        lang = await context.service.chat_lang(chat.id)
        await send(update, Reply(t(lang, "err_group_only")))
        return None
    return chat


async def cmd_score(update: Update, context: BotContext) -> None:
    chat = update.effective_chat
    if chat is None:
        return
    arg = " ".join(context.args or [])
    await send(update, await context.service.season_score(chat.id, arg))


async def cmd_season(update: Update, context: BotContext) -> None:
    chat = await _group(update, context)
    user = update.effective_user
    if chat is None or user is None:
        return
    admin = admin_check(context, chat, user)
    await send(update, await context.service.ask_new_season(chat.id, person(user), is_admin=admin))


async def cmd_undo(update: Update, context: BotContext) -> None:
    chat = await _group(update, context)
    user = update.effective_user
    if chat is None or user is None:
        return
    admin = admin_check(context, chat, user)
    await send(update, await context.service.ask_undo(chat.id, person(user), is_admin=admin))


async def cmd_beer(update: Update, context: BotContext) -> None:
    chat = await _group(update, context)
    if chat is None:
        return
    await send(update, await context.service.beer(chat.id))


async def cmd_export(update: Update, context: BotContext) -> None:
    chat = await _group(update, context)
    if chat is None:
        return
    result = await context.service.export_season(chat.id, list(context.args or []))
    if isinstance(result, Reply):
        await send(update, result)
        return
    await send_document(update, context, chat, result)


async def send_document(
    update: Update, context: BotContext, chat: Chat, document: Document
) -> None:
    """The file as a reply to the command (through the bot, so the rate limiter paces it)."""
    message = update.effective_message
    reply_to = (
        ReplyParameters(message.message_id, allow_sending_without_reply=True)
        if message is not None
        else None
    )
    try:
        await context.bot.send_document(
            chat.id,
            InputFile(document.data, filename=document.filename),
            caption=document.caption,
            reply_parameters=reply_to,
        )
    except TelegramError as exc:  # the rate limiter already tried again
        log.warning("sending the export to %s failed: %s", chat.id, exc)


# ---------------------------------------------------------------------- taps (handlers/callbacks)


def _message_id(tap: Tap) -> int | None:
    query = tap.update.callback_query
    return query.message.message_id if query is not None and query.message else None


async def season_tap(tap: Tap, chat: Chat) -> Reply:
    """L:s:<epoch>:<y|n>: an admin confirms (or not) the new season."""
    query, message_id = tap.update.callback_query, _message_id(tap)
    if query is None or message_id is None:
        return tap.bad()
    epoch, yes = int(tap.fields[0]), tap.fields[1] == "y"
    return await tap.context.service.confirm_new_season(
        chat.id,
        message_id,
        tap.who,
        epoch,
        yes,
        is_admin=admin_check(tap.context, chat, query.from_user),
    )


async def undo_tap(tap: Tap, chat: Chat) -> Reply:
    """L:u:<entry>:<y|n>: an admin confirms (or not) undoing the entry."""
    query, message_id = tap.update.callback_query, _message_id(tap)
    if query is None or message_id is None:
        return tap.bad()
    hand_id, yes = int(tap.fields[0]), tap.fields[1] == "y"
    return await tap.context.service.confirm_undo(
        chat.id,
        message_id,
        tap.who,
        hand_id,
        yes,
        is_admin=admin_check(tap.context, chat, query.from_user),
    )


async def paid_tap(tap: Tap, chat: Chat) -> Reply:
    """L:p:<epoch>:<version>:<debtor>:<creditor>:<amount>: a payment marked as made."""
    query, message_id = tap.update.callback_query, _message_id(tap)
    if query is None or message_id is None:
        return tap.bad()
    epoch, version, debtor, creditor, amount = tap.ints()
    return await tap.context.service.mark_paid(
        chat.id,
        message_id,
        tap.who,
        epoch,
        version,
        (debtor, creditor, amount),
        is_admin=admin_check(tap.context, chat, query.from_user),
    )


def league_handlers() -> list[CommandHandler[BotContext, None]]:
    """The commands (`handlers.register` adds them after `/score chart`'s handler)."""
    return [
        CommandHandler("score", cmd_score),
        CommandHandler(["season", "stagione"], cmd_season),
        CommandHandler("export", cmd_export),
        CommandHandler("undo", cmd_undo),
        CommandHandler(["beer", "birra"], cmd_beer),
    ]

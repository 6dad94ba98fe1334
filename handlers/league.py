"""The group's ledger from the chat (RULES §10): parse, call the service
(`bot/service/league.py`), send.

    /score [last|ultima|N]          the standings of the current season, the previous one,
                                    or season N, and who buys the beer
    /season, /stagione              (admins) a new season, after a confirm button (§10.4)
    /export [csv|json] [last|N]     the season's ledger as a file, with its audit trail
    /undo                           (admins) undo the ledger's last entry, after a confirm
    /beer, /birra                   the settlement alone, a "Segna pagato" button per
                                    payment (and one beer at a time);
    /beer 10, /birra vale 10        (admins) what a beer is worth, in points

and the buttons' taps (`L:` data, `bot.view.callback_data`): `season_tap`, `undo_tap` and
`paid_tap`.
"""

from __future__ import annotations

import logging
from typing import Protocol

from telegram import Chat, InputFile, Update, User
from telegram.error import TelegramError
from telegram.ext import BaseHandler, CommandHandler

from bot.service import AdminCheck, Person, Reply
from bot.service.league import Document
from bot.telegram.context import BotContext
from bot.view import callback_data as cb
from handlers.common import (
    admin_check,
    group_only,
    person,
    reply_parameters,
    send,
    with_chat,
)
from handlers.taps import Tap, TapRoute, chat_tap, tap_handlers

log = logging.getLogger(__name__)


@with_chat
async def cmd_score(update: Update, context: BotContext, chat: Chat) -> None:
    arg = " ".join(context.args or [])
    await send(update, await context.service.league.season_score(chat.id, arg))


@group_only
async def cmd_season(update: Update, context: BotContext, chat: Chat, user: User) -> None:
    admin = admin_check(context, chat, user)
    reply = await context.service.league.ask_new_season(chat.id, person(user), is_admin=admin)
    await send_live(update, context, reply)


@group_only
async def cmd_undo(update: Update, context: BotContext, chat: Chat, user: User) -> None:
    admin = admin_check(context, chat, user)
    await send_live(
        update,
        context,
        await context.service.league.ask_undo(chat.id, person(user), is_admin=admin),
    )


@group_only
async def cmd_beer(update: Update, context: BotContext, chat: Chat, user: User) -> None:
    args = list(context.args or [])
    admin = admin_check(context, chat, user)
    await send_live(
        update, context, await context.service.league.beer(chat.id, args, is_admin=admin)
    )


async def send_live(update: Update, context: BotContext, reply: Reply) -> None:
    """Send `reply`; if its buttons act on the ledger (`Reply.live`), the league keeps the
    message true as the ledger changes."""
    message_id = await send(update, reply)
    chat = update.effective_chat
    if message_id is not None and chat is not None and reply.live is not None:
        context.service.league.shown(chat.id, message_id, reply.live)


@group_only
async def cmd_export(update: Update, context: BotContext, chat: Chat, user: User) -> None:
    result = await context.service.league.export_season(chat.id, list(context.args or []))
    if isinstance(result, Reply):
        await send(update, result)
        return
    await send_document(update, context, chat, result)


async def send_document(
    update: Update, context: BotContext, chat: Chat, document: Document
) -> None:
    """The file as a reply to the command (through the bot, so the rate limiter paces it)."""
    try:
        await context.bot.send_document(
            chat.id,
            InputFile(document.data, filename=document.filename),
            caption=document.caption,
            reply_parameters=reply_parameters(update),
        )
    except TelegramError as exc:  # the rate limiter already tried again
        log.warning("sending the export to %s failed: %s", chat.id, exc)


# ------------------------------------------------------------------ the buttons (`L:` data)


class _Confirm(Protocol):
    """The service's answer to an admin's yes or no (`confirm_new_season`, `confirm_undo`)."""

    async def __call__(
        self,
        chat_id: int,
        message_id: int,
        person: Person,
        number: int,
        yes: bool,
        /,
        *,
        is_admin: bool | AdminCheck,
    ) -> Reply: ...


async def _confirm(tap: Tap, chat: Chat, confirm: _Confirm) -> Reply:
    """<number>:<y|n> (the season's epoch, the entry): an admin's yes or no on the message."""
    message_id = tap.message_id
    if message_id is None:
        return tap.bad()
    number, yes = int(tap.fields[0]), tap.fields[1] == "y"
    return await confirm(chat.id, message_id, tap.who, number, yes, is_admin=tap.admin(chat))


@chat_tap
async def season_tap(tap: Tap, chat: Chat) -> Reply:
    """L:s:<epoch>:<y|n>: an admin confirms (or not) the new season."""
    return await _confirm(tap, chat, tap.context.service.league.confirm_new_season)


@chat_tap
async def undo_tap(tap: Tap, chat: Chat) -> Reply:
    """L:u:<entry>:<y|n>: an admin confirms (or not) undoing the entry."""
    return await _confirm(tap, chat, tap.context.service.league.confirm_undo)


@chat_tap
async def paid_tap(tap: Tap, chat: Chat) -> Reply:
    """L:p:<epoch>:<version>:<debtor>:<creditor>:<amount>: a payment marked as made."""
    message_id = tap.message_id
    if message_id is None:
        return tap.bad()
    epoch, version, debtor, creditor, amount = (int(f) for f in tap.fields[:5])
    done = int(tap.fields[5]) if tap.fields[5] is not None else 0
    return await tap.context.service.league.mark_paid(
        chat.id,
        message_id,
        tap.who,
        epoch,
        version,
        (debtor, creditor, amount),
        done,
        is_admin=tap.admin(chat),
    )


TAPS: tuple[TapRoute, ...] = (
    (cb.CB_SEASON, season_tap),
    (cb.CB_UNDO, undo_tap),
    (cb.CB_PAID, paid_tap),
)


def handlers() -> list[BaseHandler[Update, BotContext, None]]:
    """The commands (`handlers.register` adds them after `/score chart`'s handler), then the
    taps."""
    commands: list[BaseHandler[Update, BotContext, None]] = [
        CommandHandler("score", cmd_score),
        CommandHandler(["season", "stagione"], cmd_season),
        CommandHandler("export", cmd_export),
        CommandHandler("undo", cmd_undo),
        CommandHandler(["beer", "birra"], cmd_beer),
    ]
    return [*commands, *tap_handlers(TAPS)]

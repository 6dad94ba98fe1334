"""Stats, ratings, head to head and charts from the chat: parse, call the service
(`bot/service/stats.py`, `rankings.py`, `records.py`), send.

    /stats [@person] [last|N|all] [chart]   (/statistiche) a person's numbers, per variant;
                                            in a private chat, the sender's own in every group
    /top [two|multi|chiamata]               (/classifica) the group's rating leaderboard
    /h2h @a [@b]                            (/scontri) head to head
    /score chart [last|N]                   (/score grafico) the season's balances, a picture

A person is named by @username, by the name they play under, by replying to one of their
messages with the command, or by a mention of someone without a username. Every message's
author's @username is noted (`note_username`, once per run and person) so that @name finds them.
"""

from __future__ import annotations

import logging

from telegram import Chat, InputFile, Message, MessageEntity, Update, User
from telegram.error import TelegramError
from telegram.ext import BaseHandler, CommandHandler, MessageHandler, filters

from bot.service import Reply
from bot.service.records import Chart
from bot.telegram.context import BotContext
from handlers.common import group_only, is_group, person, reply_parameters, send, with_sender

log = logging.getLogger(__name__)

SCORE_CHART = filters.Regex(r"(?i)^/score(@\w+)?\s+(.+\s+)?(chart|grafico|graph)(\s|$)")


def _named(message: Message | None, args: list[str]) -> tuple[list[int], list[str]]:
    """(user ids named by a reply or by mentions without a username, the other words)."""
    if message is None:
        return [], args
    ids: list[int] = []
    replied = message.reply_to_message
    # in a forum topic every message "replies" to the topic's first message: not a choice
    topic_start = (
        message.is_topic_message
        and replied is not None
        and (replied.message_id == message.message_thread_id)
    )
    if (
        replied is not None
        and not topic_start
        and replied.from_user is not None
        and not replied.from_user.is_bot
    ):
        ids.append(replied.from_user.id)
    covered: set[str] = set()
    for entity, text in message.parse_entities([MessageEntity.TEXT_MENTION]).items():
        if entity.user is not None:
            ids.append(entity.user.id)
            covered.update(text.split())
    return ids, [a for a in args if a not in covered]


async def send_chart(update: Update, context: BotContext, chat: Chat, chart: Chart) -> None:
    """The picture as a reply to the command (through the bot: the rate limiter paces it)."""
    try:
        await context.bot.send_photo(
            chat.id,
            InputFile(chart.png, filename="chart.png"),
            caption=chart.caption,
            reply_parameters=reply_parameters(update),
        )
    except TelegramError as exc:  # the rate limiter already tried again
        log.warning("sending a chart to %s failed: %s", chat.id, exc)


async def _answer(update: Update, context: BotContext, chat: Chat, result: Reply | Chart) -> None:
    if isinstance(result, Chart):
        await send_chart(update, context, chat, result)
    else:
        await send(update, result)


@with_sender
async def cmd_stats(update: Update, context: BotContext, chat: Chat, user: User) -> None:
    if not is_group(chat):  # privately: their own numbers, in every group they play in
        await send(update, await context.service.stats.mine(person(user)))
        return
    ids, words = _named(update.effective_message, list(context.args or []))
    await _answer(
        update, context, chat, await context.service.stats.stats(chat.id, person(user), words, ids)
    )


@group_only
async def cmd_top(update: Update, context: BotContext, chat: Chat, user: User) -> None:
    await send(update, await context.service.rankings.top(chat.id, list(context.args or [])))


@group_only
async def cmd_h2h(update: Update, context: BotContext, chat: Chat, user: User) -> None:
    ids, words = _named(update.effective_message, list(context.args or []))
    await send(update, await context.service.rankings.h2h(chat.id, person(user), words, ids))


@group_only
async def cmd_score_chart(update: Update, context: BotContext, chat: Chat, user: User) -> None:
    result = await context.service.rankings.score_chart(chat.id, list(context.args or []))
    await _answer(update, context, chat, result)


async def note_username(update: Update, context: BotContext) -> None:
    """Every message's author: their @username noted (the service writes it once per run);
    and a group's name, for the private messages of its tables."""
    user, chat = update.effective_user, update.effective_chat
    if user is None or user.is_bot:
        return
    try:
        await context.service.records.note_username(user.id, person(user).name, user.username)
        if chat is not None and chat.id < 0:
            await context.service.registry.note_chat(chat.id, chat.title)
    except Exception:  # noting is a courtesy: never in the way of the message
        log.exception("noting the username of %s failed", user.id)


def handlers() -> list[BaseHandler[Update, BotContext, None]]:
    """The commands (group 0, before the ledger's /score: `/score chart` is answered here)."""
    return [
        CommandHandler("score", cmd_score_chart, filters=SCORE_CHART),
        CommandHandler(["stats", "statistiche"], cmd_stats),
        CommandHandler(["top", "classifica"], cmd_top),
        CommandHandler(["h2h", "scontri"], cmd_h2h),
    ]


def username_handler() -> MessageHandler[BotContext, None]:
    """Registered in a group of its own (-1), before every other handler, for every message."""
    return MessageHandler(filters.ALL, note_username)

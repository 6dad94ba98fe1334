"""The table's button taps (lobby, settings, moves, hands, rematch): each kind's action, routed
by its data's pattern (`bot.view.callback_data`, next to the encoder). The data names the
table and the action; the actor is always the tapping user. A tap is parsed and answered in
`handlers/taps.py`."""

from __future__ import annotations

from telegram import Chat
from telegram.ext import CallbackQueryHandler

from bot.players import DEFAULT_LEVEL
from bot.service import Reply
from bot.telegram.context import BotContext
from bot.view import callback_data as cb
from handlers.common import bot_admin_check, is_group
from handlers.taps import Tap, TapRoute, chat_tap, tap_handlers

# The taps that need no chat: they name the table, and work from the private chat too.


async def _act(tap: Tap) -> Reply:
    table_id, hand_index, stamp, action = tap.ints()
    return await tap.context.service.play.act(tap.who, table_id, hand_index, stamp, action)


async def _next_hand(tap: Tap) -> Reply:
    table_id, hand_index = tap.ints()
    return await tap.context.service.play.next_hand(tap.who, table_id, hand_index)


async def _bid_page(tap: Tap) -> Reply:  # points bids: the screen with every value
    table_id, hand_index, stamp, page = tap.ints()
    return await tap.context.service.play.bid_page(tap.who, table_id, hand_index, stamp, page)


async def _resume(tap: Tap) -> Reply:  # "Riprendo il posto"
    return await tap.context.service.lobby.resume(tap.who, int(tap.fields[0]))


# The taps on a message in a chat (the group's): without the chat, the data is not enough.


@chat_tap
async def _cancel_vote(tap: Tap, chat: Chat) -> Reply:  # cancel consent
    table, vote = tap.fields
    return await tap.context.service.closing.cancel_vote(chat.id, tap.who, int(table), vote == "y")


@chat_tap
async def _variant(tap: Tap, chat: Chat) -> Reply:
    return await tap.context.service.lobby.new_table(
        chat.id, tap.who, tap.fields[0], is_group(chat), picker_message_id=tap.message_id
    )


@chat_tap
async def _lobby_bot(tap: Tap, chat: Chat) -> Reply:
    table, level = tap.fields
    return await tap.context.service.lobby.add_bot(chat.id, level, int(table))


@chat_tap
async def _lobby(tap: Tap, chat: Chat) -> Reply:
    svc, who = tap.context.service, tap.who
    table_id, op = int(tap.fields[0]), tap.fields[1]
    if op == "join":
        return await svc.lobby.join(chat.id, who, table_id)
    if op == "leave":
        return await svc.lobby.leave(chat.id, who, table_id)
    if op == "bot":
        return await svc.lobby.add_bot(chat.id, DEFAULT_LEVEL, table_id)
    admin = tap.admin(chat)
    if op == "settings":  # from the lobby: a panel of its own; from a panel: its list again
        return await svc.settings.show_settings(
            chat.id, table_id, person=who, is_admin=admin, message_id=tap.message_id
        )
    if op == "back":
        return await svc.settings.back_to_lobby(chat.id, table_id, tap.message_id)
    if op == "cancel":
        return await svc.closing.cancel(chat.id, who, is_admin=admin, table_id=table_id)
    return await svc.settings.start(
        chat.id, who, is_admin=admin, fill=op == "fill", table_id=table_id
    )


@chat_tap
async def _setting(tap: Tap, chat: Chat) -> Reply:
    table, key, value = tap.fields
    return await tap.context.service.settings.set_options(
        chat.id,
        tap.who,
        [(key, value)],
        int(table),
        is_admin=tap.admin(chat),
        bot_admin=bot_admin_check(tap.context, chat),
        message_id=tap.message_id,
    )


@chat_tap
async def _option(tap: Tap, chat: Chat) -> Reply:  # the settings panel: one setting's screen
    table, key = tap.fields
    return await tap.context.service.settings.show_option(chat.id, int(table), key, tap.message_id)


@chat_tap
async def _rematch(tap: Tap, chat: Chat) -> Reply:  # a rematch: same seats, same settings
    return await tap.context.service.lobby.rematch(
        chat.id, tap.who, int(tap.fields[0]), tap.message_id
    )


TAPS: tuple[TapRoute, ...] = (
    (cb.CB_ACT, _act),
    (cb.CB_NEXT, _next_hand),
    (cb.CB_BIDS, _bid_page),
    (cb.CB_RESUME, _resume),
    (cb.CB_CANCEL_VOTE, _cancel_vote),
    (cb.CB_VARIANT, _variant),
    (cb.CB_LOBBY_BOT, _lobby_bot),
    (cb.CB_LOBBY, _lobby),
    (cb.CB_SETTING, _setting),
    (cb.CB_OPTION, _option),
    (cb.CB_REMATCH, _rematch),
)


def handlers() -> list[CallbackQueryHandler[BotContext, None]]:
    """One handler per kind of tap on a table's messages."""
    return tap_handlers(TAPS)

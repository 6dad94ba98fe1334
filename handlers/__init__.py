"""Telegram update handlers: parse the update, call the service, send what it answers. Each
feature module (`stats`, `callbacks` the table's taps, `tournament`, `league`, `commands`)
exports its own `handlers()`, commands and taps, and imports no other feature: what they share
is in `common` (the person, admin checks, sending) and `taps` (a tap parsed and answered)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from telegram import Update
from telegram.ext import Application, BaseHandler, ChatMemberHandler, MessageHandler, filters

from bot.telegram.context import BotContext
from handlers import callbacks, commands, league, stats, taps, tournament
from handlers.common import in_their_language

# In order: within a group the first handler that matches answers. Only /score is claimed by
# two features (`/score chart` by stats, first); no two features' taps share a kind of data.
FEATURES: tuple[Callable[[], Sequence[BaseHandler[Update, BotContext, None]]], ...] = (
    stats.handlers,
    callbacks.handlers,
    tournament.handlers,
    league.handlers,
    commands.handlers,
)


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Every handler, in order: within a group the first that matches answers."""
    application.add_handler(stats.username_handler(), group=-1)  # @usernames, for /stats @name
    for feature in FEATURES:
        application.add_handlers(feature())
    # after the known commands (the first handler that matches answers): any other command
    application.add_handler(MessageHandler(filters.COMMAND, commands.cmd_unknown))
    # words typed in the private chat: what the chat is for, and the commands
    private_text = filters.ChatType.PRIVATE & filters.TEXT & ~filters.COMMAND
    application.add_handler(MessageHandler(private_text, commands.on_private_text))
    application.add_handler(taps.fallback())  # after every feature's taps: forged or stale data
    my_chat_member = ChatMemberHandler.MY_CHAT_MEMBER
    application.add_handler(ChatMemberHandler(commands.on_my_chat_member, my_chat_member))
    # what a person reads alone (a tap's answer, their private chat) is in their language
    for group in application.handlers.values():
        for registered in group:
            registered.callback = in_their_language(registered.callback)


__all__ = ["register"]

"""Telegram update handlers: parse the update, call the service, send what it answers."""

from __future__ import annotations

from typing import Any

from telegram.ext import (
    Application,
    ChatMemberHandler,
    CommandHandler,
    MessageHandler,
    filters,
)

from handlers.callbacks import callback_handlers
from handlers.commands import COMMAND_HANDLERS, cmd_unknown, on_my_chat_member
from handlers.league import league_handlers
from handlers.stats import stats_handlers, username_handler
from handlers.tournament import tournament_handlers


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Every handler, in order: within a group the first that matches answers."""
    application.add_handler(username_handler(), group=-1)  # @usernames, for /stats @name
    application.add_handlers(stats_handlers())  # /stats, /top, /h2h; `/score chart` first
    application.add_handlers(tournament_handlers())  # /torneo
    application.add_handlers(league_handlers())  # /score [N], /season, /export, /undo, /beer
    for name, callback in COMMAND_HANDLERS.items():
        application.add_handler(CommandHandler(name, callback))
    # after the known commands (the first handler that matches answers): any other command
    application.add_handler(MessageHandler(filters.COMMAND, cmd_unknown))
    for handler in callback_handlers():  # one per kind of tap, then the fallback
        application.add_handler(handler)
    application.add_handler(ChatMemberHandler(on_my_chat_member, ChatMemberHandler.MY_CHAT_MEMBER))


__all__ = ["register"]

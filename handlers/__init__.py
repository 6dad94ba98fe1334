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
from handlers.commands import COMMAND_HANDLERS, cmd_unknown, on_my_chat_member, on_private_text
from handlers.common import in_their_language
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
    # words typed in the private chat: what the chat is for, and the commands
    private_text = filters.ChatType.PRIVATE & filters.TEXT & ~filters.COMMAND
    application.add_handler(MessageHandler(private_text, on_private_text))
    for handler in callback_handlers():  # one per kind of tap, then the fallback
        application.add_handler(handler)
    application.add_handler(ChatMemberHandler(on_my_chat_member, ChatMemberHandler.MY_CHAT_MEMBER))
    # what a person reads alone (a tap's answer, their private chat) is in their language
    for group in application.handlers.values():
        for registered in group:
            registered.callback = in_their_language(registered.callback)


__all__ = ["register"]

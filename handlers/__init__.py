"""Telegram update handlers: parse the update, call the service, send what it answers."""

from __future__ import annotations

from typing import Any

from telegram.ext import Application, CallbackQueryHandler, CommandHandler

from handlers.callbacks import on_callback
from handlers.commands import COMMAND_HANDLERS


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    for name, callback in COMMAND_HANDLERS.items():
        application.add_handler(CommandHandler(name, callback))
    application.add_handler(CallbackQueryHandler(on_callback))


__all__ = ["register"]

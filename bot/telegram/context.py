"""The typed context the handlers get (PTB's `ContextTypes`): what the bot keeps for its
lifetime is a `BotData`, opened in `post_init`, and the handlers reach the service as
`context.service`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from telegram.ext import CallbackContext, ContextTypes, ExtBot

from bot.service import TableService
from bot.telegram.admins import AdminCache
from bot.telegram.metrics import Metrics
from bot.telegram.outbox import TelegramOutbox
from storage import Database

if TYPE_CHECKING:
    from bot.webapp.hub import LiveHub
    from bot.webapp.server import WebServer

Part = TypeVar("Part")


class BotData:
    """PTB's `bot_data`, typed: empty until `post_init` opens the services."""

    def __init__(self) -> None:
        self.db: Database | None = None
        self.outbox: TelegramOutbox | None = None
        self.service: TableService | None = None
        self.admins: AdminCache | None = None
        self.hub: LiveHub | None = None  # the Mini App's open pages (PUBLIC_URL)
        self.web: WebServer | None = None  # its HTTP server, when polling
        self.metrics: Metrics | None = None  # what an operator sees (`bot.telegram.metrics`)
        self.metrics_web: WebServer | None = None  # /metrics on METRICS_PORT


class BotContext(CallbackContext[ExtBot[None], dict[Any, Any], dict[Any, Any], BotData]):
    """The context of every handler and job."""

    @property
    def service(self) -> TableService:
        return _started(self.bot_data.service)

    @property
    def admins(self) -> AdminCache:
        return _started(self.bot_data.admins)


def _started(part: Part | None) -> Part:
    """A part of the bot `post_init` opens: refused before it has."""
    if part is None:
        raise RuntimeError("the bot has not started")
    return part


CONTEXT_TYPES = ContextTypes(context=BotContext, bot_data=BotData)

"""The composition root: builds the Application, registers handlers, opens the services in
`post_init` and closes them in `post_shutdown` (the shape of PTB's rules-bot)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import signal
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from telegram import BotCommand, BotCommandScopeAllGroupChats, BotCommandScopeDefault, Update
from telegram.constants import ParseMode
from telegram.error import InvalidToken, TelegramError
from telegram.ext import Application, ApplicationBuilder, Defaults

from bot import players
from bot.config import Settings
from bot.i18n import COMMANDS, t
from bot.players.thinker import Thinker
from bot.service import TableService
from bot.table.deadlines import Timing
from bot.table.table import PLAYING
from bot.telegram.admins import AdminCache, AdminUnknown
from bot.telegram.context import CONTEXT_TYPES, BotContext, BotData
from bot.telegram.metrics import Metrics
from bot.telegram.notes import Notes
from bot.telegram.outbox import TelegramOutbox
from bot.telegram.rate_limiter import Limits, PacedRateLimiter, Stopping
from bot.webapp.auth import TableKeys
from bot.webapp.hub import LiveHub
from storage import Database

if TYPE_CHECKING:
    from aiohttp import web

    from bot.telegram.webhook import WebhookEndpoint

log = logging.getLogger(__name__)
# Workers sharing a database space their calls into one private chat this share longer than
# Telegram's one a second (clocks, the network; `TelegramOutbox.private_gap`)
PRIVATE_GAP_MARGIN = 1.05


class JobTimers:
    """The tables' timers (`bot.table.deadlines`: one per table, for its earliest deadline) on
    PTB's JobQueue."""

    def __init__(self, application: Application[Any, Any, Any, Any, Any, Any]) -> None:
        self.app = application

    def start(self, table_id: int, seconds: float, token: str) -> None:
        jq = self.app.job_queue
        if jq is None:
            return
        self.cancel(table_id)
        jq.run_once(
            _on_timer,
            when=seconds,
            data=(table_id, token),
            name=f"timer:{table_id}",
            # however late: a deadline that passed while the bot was down is armed at restore,
            # before the scheduler starts, and APScheduler drops a job missed by over its
            # grace (1 s): the table would wait for ever
            job_kwargs={"misfire_grace_time": None},
        )

    def cancel(self, table_id: int) -> None:
        jq = self.app.job_queue
        if jq is None:
            return
        for job in jq.get_jobs_by_name(f"timer:{table_id}"):
            job.schedule_removal()


async def _on_timer(context: BotContext) -> None:
    job = context.job
    if job is None or not isinstance(job.data, tuple):
        return
    table_id, token = job.data
    await context.service.waits.timeout(table_id, token)


class RedactingFormatter(logging.Formatter):
    """Formats as usual, then blanks out the secrets (the bot token, whole or in part, also
    URL-encoded): PTB logs its API URLs at DEBUG, httpx logs request URLs, and exceptions
    such as InvalidToken quote the token."""

    def __init__(self, fmt: str, secrets: Sequence[str]) -> None:
        super().__init__(fmt)
        variants: set[str] = set()
        for secret in secrets:
            if not secret:
                continue
            variants.update({secret, quote(secret, safe=""), secret.partition(":")[2]})
        self._secrets = sorted((v for v in variants if len(v) >= 8), key=len, reverse=True)

    def redact(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "<BOT_TOKEN>")
        return text

    def format(self, record: logging.LogRecord) -> str:
        return self.redact(super().format(record))


LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def configure_logging(level: str, secrets: Sequence[str] = ()) -> RedactingFormatter:
    formatter = RedactingFormatter(LOG_FORMAT, secrets)
    logging.basicConfig(format=LOG_FORMAT, level=level)
    for handler in logging.getLogger().handlers:
        handler.setFormatter(formatter)
    # httpx logs every request URL, and the URL contains the bot token: keep it quiet (the
    # formatter would blank the token out anyway).
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("httpcore").setLevel(logging.WARNING)
    # aiosqlite logs two lines for each statement it runs (the function, never the SQL): noise
    # even at DEBUG (1,748 of the 2,290 lines a bot wrote for a quattro hand at DEBUG)
    logging.getLogger("aiosqlite").setLevel(max(logging.INFO, logging.getLogger().level))
    return formatter


# Updates handled at once. PTB's default (256) let a rush's replies, each waiting for its
# chat's room (a group's 20 a minute), take every place while taps waited behind them for
# seconds (issue 50.1: 100 tables opened at once, taps p50 2.5-8 s once 135 s in). An
# update waiting costs a coroutine, nothing paced stands before a tap's answer.
UPDATES_IN_HAND = 10_000


def build_application(settings: Settings) -> Application[Any, Any, Any, Any, Any, Any]:
    from handlers import register

    assert settings.bot_token is not None
    players.configure(budget=settings.hard_budget)  # the hard player's thinking time per move
    limits = Limits(
        group_per_minute=settings.group_rate_per_minute,
        private_per_second=settings.private_rate_per_second,
        overall_per_second=settings.rate_per_second,
    ).shared_by(settings.workers)
    metrics = Metrics()  # a registry of its own: several bots may run in one process
    builder = ApplicationBuilder()
    if settings.webhook_url:  # updates come from the HTTP server (`_run_webhook`), no updater
        builder = builder.updater(None)
    else:
        # a second connection for getUpdates: the call PTB makes at stop, to confirm what it
        # fetched, must not wait for the long poll it has just cancelled (a pool timeout,
        # logged as an ERROR with its traceback)
        builder = builder.get_updates_connection_pool_size(2)
    application = (
        builder.token(settings.bot_token.get_secret_value())
        .base_url(settings.telegram_base_url)
        .defaults(Defaults(parse_mode=ParseMode.HTML))  # every message the bot sends is HTML
        .context_types(CONTEXT_TYPES)
        .rate_limiter(PacedRateLimiter(limits, metrics))
        .concurrent_updates(UPDATES_IN_HAND)
        .post_init(_post_init(settings))
        .post_stop(_post_stop)
        .post_shutdown(_post_shutdown)
        .build()
    )
    register(application)
    application.add_error_handler(on_error)
    application.bot_data.metrics = metrics
    return application


async def on_error(update: object, context: BotContext) -> None:
    """The last resort for an exception in a handler: log it with the update, and tell the
    person something went wrong (a tap is always answered by its own handler)."""
    error = context.error
    if isinstance(error, Stopping):  # SIGTERM: a reply not sent; the next run shows the table
        log.info("an update's reply was not sent: the bot is stopping")
        return
    if isinstance(error, AdminUnknown):  # Telegram is slow to say who the admins are
        key = "err_busy"
    else:
        key = "err_failed"
        described = update.to_dict() if isinstance(update, Update) else repr(update)
        log.error("handling an update failed: %s", described, exc_info=error)
    if isinstance(update, Update) and update.effective_chat is not None and update.message:
        service = context.bot_data.service
        lang = service.langs.default if service is not None else "it"
        try:
            await update.effective_chat.send_message(t(lang, key))
        except TelegramError as exc:
            log.warning("could not tell %s about the error: %s", update.effective_chat.id, exc)


def _post_init(settings: Settings) -> Any:
    async def post_init(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
        db = await Database.open(settings.database_url)
        log.info("database: %s (%s)", db.path, db.backend.kind)
        me = await application.bot.get_me()
        service_ref: list[TableService] = []

        # what the outbox tells the service (it is given plain data, never a table)
        async def on_blocked(table_id: int, user_id: int) -> None:
            await service_ref[0].people.dm_blocked(table_id, user_id)

        def on_table_message(table_id: int, message_id: int) -> None:
            service_ref[0].registry.note_table_message(table_id, message_id)

        # PostgreSQL is shared by every worker of the bot (docs/operating.md, "Several workers")
        shared = db.backend.kind == "postgresql" or settings.workers > 1
        notes = Notes(db)
        limiter = application.bot.rate_limiter
        if isinstance(limiter, PacedRateLimiter):  # Telegram counts calls across restarts
            if shared:  # ... and all the workers' calls about a group as one
                limiter.group_calls = db.messages
            else:
                limiter.on_group_call = notes.group_call
            wall = time.time()
            limiter.seed_group_calls(await db.messages.recent_group_calls(wall - 120.0), wall)
        outbox = TelegramOutbox(
            application.bot,
            db,
            group_interval=settings.group_edit_interval,
            routine_interval=settings.group_routine_interval,
            on_blocked=on_blocked,
            on_table_message=on_table_message,
            notes=notes,
            shared=shared,
            # Telegram's one call a second into a private chat, whichever worker calls
            private_gap=PRIVATE_GAP_MARGIN / settings.private_rate_per_second if shared else 0.0,
            pace=limiter.group_pace if isinstance(limiter, PacedRateLimiter) else None,
            room=limiter.room_wait if isinstance(limiter, PacedRateLimiter) else None,
        )
        thinker = Thinker(workers=settings.computer_workers, budget=settings.hard_budget)
        thinker.start()
        service = TableService(
            db,
            outbox,
            JobTimers(application),
            me.username or "briscola_bot",
            default_lang=settings.default_language,
            bot_delay=settings.bot_move_delay,
            thinker=thinker,
            timing=Timing(scale=settings.timer_scale),
            shared=shared,
            timezone=settings.timezone,
        )
        if isinstance(limiter, PacedRateLimiter):
            service.registry.backlog = limiter.backlog
        service_ref.append(service)
        data: BotData = application.bot_data
        data.db, data.outbox, data.service = db, outbox, service
        data.admins = AdminCache(application.bot)
        await _open_metrics(application, settings)  # before `restore` shows and moves
        if settings.public_url is not None:
            _open_miniapp(application, settings, service, shared)
        await _set_commands(application)
        began = time.perf_counter()
        restored = await service.restore()
        log.info(
            "bot @%s ready; %d unfinished tables restored in %.3f s",
            me.username,
            restored,
            time.perf_counter() - began,
        )
        # What exists now lives as long as the bot: keep the garbage collector's full passes
        # (which stall every table) from walking it again and again.
        gc.collect()
        gc.freeze()
        if data.hub is not None and not settings.webhook_url:  # polling: a server of its own
            from bot.webapp.server import WebServer  # (aiohttp: only where a server runs)

            data.web = WebServer(
                web_application(application, settings), settings.webhook_listen, settings.port
            )
            await data.web.start()
        if not settings.webhook_url:  # polling: SIGTERM lets the limiter go first
            _on_stop_signals(application)

    return post_init


async def _open_metrics(
    application: Application[Any, Any, Any, Any, Any, Any], settings: Settings
) -> None:
    """The metrics read at each scrape, the ones the service and the outbox tell of, and
    /metrics on METRICS_PORT when it is set (the server on PORT serves it too)."""
    data: BotData = application.bot_data
    metrics, service, outbox = data.metrics, data.service, data.outbox
    if metrics is None or service is None or outbox is None:
        return
    limiter = application.bot.rate_limiter
    tables = service.registry.by_id
    metrics.watch(
        waiting=limiter.waiting if isinstance(limiter, PacedRateLimiter) else None,
        live_tables=lambda: sum(1 for t in tables.values() if t.status == PLAYING),
    )
    service.play.on_move = metrics.move_stored
    outbox.on_turn = metrics.turn_sent
    if settings.metrics_port:
        from bot.webapp.server import WebServer

        data.metrics_web = WebServer(
            metrics.web_application(), settings.metrics_listen, settings.metrics_port
        )
        await data.metrics_web.start()


def _open_miniapp(
    application: Application[Any, Any, Any, Any, Any, Any],
    settings: Settings,
    service: TableService,
    shared: bool,
) -> None:
    """The Mini App's live pages hear of every render; the group's table message links to
    it once it has a short name."""
    data: BotData = application.bot_data
    keys = TableKeys(settings.bot_token.get_secret_value() if settings.bot_token else "")
    data.hub = hub = LiveHub(table_param=keys.param)
    service.shown.live = hub
    hub.on_visibility(service.shown.page_visibility)
    service.shown.miniapp_short_name = settings.miniapp_short_name
    service.shown.miniapp_param = keys.param  # the link's unguessable start parameter
    if settings.miniapp_short_name is None:
        log.warning("PUBLIC_URL without MINIAPP_SHORT_NAME: the group gets no Mini App button")
    log.info("the Mini App's page: %s (BotFather: /newapp)", settings.miniapp_url())
    if shared:  # another worker may move a table a page watches

        async def version(table_id: int) -> int | None:
            head = await service.db.tables.table_head(table_id)
            return None if head is None else head.move_no

        hub.poll(version, service.registry.table_view)


def web_application(
    application: Application[Any, Any, Any, Any, Any, Any],
    settings: Settings,
    webhook: WebhookEndpoint | None = None,
) -> web.Application:
    """The bot's HTTP application: the webhook's route (webhook mode), the Mini App's
    (PUBLIC_URL), and Prometheus's /metrics."""
    from aiohttp import web

    from bot.webapp.server import MiniApp

    app = web.Application(client_max_size=1 << 20)
    if webhook is not None:
        webhook.add_routes(app)
    data: BotData = application.bot_data
    if data.hub is not None and settings.bot_token is not None:
        MiniApp(
            lambda: application.bot_data.service,
            settings.bot_token.get_secret_value(),
            data.hub,
            trusted_proxies=settings.trusted_proxy_networks(),
        ).add_routes(app)
    if data.metrics is not None:  # Prometheus's /metrics (docs/operating.md, "Metrics")
        data.metrics.add_routes(app)
    return app


async def _set_commands(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    for lang, commands in COMMANDS.items():
        cmds = [BotCommand(c, d) for c, d in commands]
        code = None if lang == "it" else lang
        for scope in (BotCommandScopeDefault(), BotCommandScopeAllGroupChats()):
            await application.bot.set_my_commands(cmds, scope=scope, language_code=code)


def _stop_waiting(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Stopping (issue 50.2): no call waits for Telegram's room any more (`Stopping`), so
    the updates in hand finish at once (a tap is still answered: that call waits for no
    chat) and the process exits within seconds; what was not sent, the next run shows."""
    limiter = application.bot.rate_limiter
    if isinstance(limiter, PacedRateLimiter):
        limiter.stop_waiting()


UPDATER_STARTS = ("Updater.start_polling", "Updater.start_webhook")


def _updater_starting(task: asyncio.Task[Any]) -> bool:
    """Whether `task` is PTB's updater starting (`run_polling`'s step before `start`)."""
    return not task.done() and getattr(task.get_coro(), "__qualname__", "") in UPDATER_STARTS


def _on_stop_signals(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Polling: SIGINT and SIGTERM stop the application as PTB's own handlers would, but
    the rate limiter lets go of its waiting calls first (PTB's `stop` processes every update
    in hand: a reply waiting for a group's room held SIGTERM for half a minute)."""
    loop = asyncio.get_running_loop()
    stopping = False

    def stop() -> None:
        nonlocal stopping
        if stopping:  # shutting down already: it ends in a few seconds
            log.info("stop signal again: already stopping")
            return
        stopping = True
        log.info("stop signal: the calls waiting for Telegram's room give up")
        _stop_waiting(application)
        leave()

    def leave() -> None:
        # As PTB's own handler: out of whichever step the loop runs (`start`, the run itself)
        # into `run_polling`'s shutdown. (`stop_running` stops the loop only once the
        # application runs, and marks it before: a signal while `start` ended, the
        # application running already, stopped that step's loop instead, and the bot ran
        # on.) But not out of the updater's start: PTB then closes that started coroutine,
        # whose HTTP call's cleanup finds no loop and raises, and its shutdown never ran
        # (a CI run: SIGTERM during a restart's deleteWebhook, no exit 30 s later). That
        # step ends within moments: the signal waits for it.
        if any(_updater_starting(task) for task in asyncio.all_tasks(loop)):
            loop.call_later(0.05, leave)
            return
        raise SystemExit

    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop)


async def _post_stop(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """After the updates in hand are processed and before the bot's HTTP client is closed:
    stop the computer players and send what the outbox still holds, for a few seconds (every
    action is already stored: a restarted bot shows and plays what is left)."""
    data: BotData = application.bot_data
    if data.web is not None:  # the Mini App's streams end, its requests in hand finish
        await data.web.stop()
    if data.service is not None:
        await data.service.close()
    if data.outbox is not None:
        await data.outbox.close()


async def _post_shutdown(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    data: BotData = application.bot_data
    if data.metrics_web is not None:
        await data.metrics_web.stop()
    if data.web is not None:
        await data.web.stop()
    if data.hub is not None:
        await data.hub.close()
    if data.service is not None:
        await data.service.close()  # idempotent; post_stop did it unless start-up failed
    if data.outbox is not None:
        await data.outbox.close()
    if data.db is not None:
        await data.db.close()
    log.info("bot stopped")


ALLOWED_UPDATES = [Update.MESSAGE, Update.CALLBACK_QUERY, Update.MY_CHAT_MEMBER]


def run(settings: Settings) -> int:
    """Run the bot until SIGINT or SIGTERM: polling, or serving the webhook (WEBHOOK_URL)."""
    token = settings.bot_token.get_secret_value() if settings.bot_token else ""
    formatter = configure_logging(settings.log_level, [token, settings.secret_token()])
    application = build_application(settings)
    try:
        if settings.webhook_url:
            asyncio.run(_run_webhook(application, settings))
        else:
            application.run_polling(
                # MY_CHAT_MEMBER: the bot was added to a group (it greets)
                allowed_updates=ALLOWED_UPDATES,
                stop_signals=(),  # our own (`_on_stop_signals`): the limiter lets go first
                close_loop=False,
            )
    except InvalidToken:
        print("Telegram rejected BOT_TOKEN: check it with @BotFather.", file=sys.stderr)
        return 2
    except Exception as exc:  # never let a traceback print the token
        log.critical("the bot stopped on an error: %s", formatter.redact(repr(exc)), exc_info=True)
        if not settings.webhook_url:  # (the webhook's own run shuts down in its `finally`)
            _shut_after_error(application)
        return 1
    return 0


def _shut_after_error(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """After `run_polling` failed: its shutdown may not have run, and the database's thread
    and the search workers would then keep the process from exiting (a bot that stopped on
    an error was still there 30 s later). Closed here, on the loop it left open, within
    seconds; what fails now was already logged."""
    with contextlib.suppress(Exception):
        loop = asyncio.get_event_loop()
        loop.run_until_complete(asyncio.wait_for(_post_shutdown(application), 10.0))
    service = application.bot_data.service
    if service is not None:
        service.play.thinker.close()


async def _run_webhook(
    application: Application[Any, Any, Any, Any, Any, Any], settings: Settings
) -> None:
    """What `run_polling` does, around the webhook server instead of the updater: the
    services open in post_init, the webhook is registered (every process of the bot sets the
    same one), and on a signal the requests in progress finish before the services close."""
    from bot.telegram.webhook import WebhookEndpoint, serve
    from bot.webapp.server import WebServer

    assert settings.webhook_url is not None
    secret = settings.secret_token()
    try:
        async with application:  # initialize ... shutdown
            await _post_init(settings)(application)
            await application.start()
            await application.bot.set_webhook(
                settings.webhook_url, allowed_updates=ALLOWED_UPDATES, secret_token=secret
            )
            log.info("serving the webhook on %s:%d", settings.webhook_listen, settings.port)
            try:
                endpoint = WebhookEndpoint(application, settings.webhook_path(), secret)
                app = web_application(application, settings, endpoint)
                await serve(WebServer(app, settings.webhook_listen, settings.port))
            finally:
                _stop_waiting(application)
                await application.stop()
                await _post_stop(application)
    finally:
        await _post_shutdown(application)

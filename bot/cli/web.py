"""`python -m bot play --web`: the Mini App's page on localhost, against computer players, with
no Telegram and no token.

The very table service the bot runs (`bot.service.TableService`, on a SQLite file in a
temporary directory, removed at the end) holds one table: the person at seat 0, computer
players in the other seats. Its group and private messages go nowhere (`NoChat`); its
deadlines run on the event loop (`LoopTimers`); the page, its API and its live stream are
the bot's own (`bot.webapp.server.MiniApp`), whose session is opened without Telegram's
initData for that one person (`local`). It listens on 127.0.0.1 only.

    serve(WebGame(variant="chiamata", options={}, level="normal", lang="it", port=8765))
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import shutil
import signal
import sys
import tempfile
import webbrowser
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from aiohttp import web

from bot.i18n import plain
from bot.players.thinker import Thinker
from bot.service import Person, TableService
from bot.service.types import Outbox, TableRef
from bot.table.deadlines import Timing
from bot.view.render import Keyboard, Rendered
from bot.webapp.auth import TableKeys, Viewer
from bot.webapp.hub import LiveHub
from bot.webapp.server import MiniApp
from bot.webapp.snapshot import plain as html_text
from storage import Database

log = logging.getLogger(__name__)

LOCAL_CHAT = -1  # the table's "group": nothing is sent there
LOCAL_USER = 1  # the person at the table


class NoChat:
    """The service's outbox when there is no Telegram: every message goes nowhere (the page
    shows the table)."""

    def show_table(
        self,
        table: TableRef,
        content: Rendered,
        *,
        urgent: bool = False,
        routine: bool = False,
        moment: str = "",
    ) -> None:
        pass

    def repost(self, table: TableRef, content: Rendered) -> None:
        pass

    async def pin(self, table: TableRef) -> None:
        pass

    def show_private(
        self,
        table: TableRef,
        user_id: int,
        content: Rendered,
        *,
        urgent: bool = False,
        turn: str | None = None,
        settle: bool = False,
    ) -> None:
        pass

    def sweep(self, table: TableRef) -> None:
        pass

    async def say(self, chat_id: int, text: str, keyboard: Keyboard | None = None) -> bool:
        return True

    async def edit(self, chat_id: int, message_id: int, content: Rendered) -> None:
        pass

    def edit_soon(self, chat_id: int, message_id: int, content: Rendered) -> None:
        pass

    async def post(self, chat_id: int, content: Rendered) -> int | None:
        return None

    async def announce(
        self, chat_id: int, content: Rendered, *, silent: bool = False
    ) -> int | None:
        return None

    def delete_soon(self, chat_id: int, message_ids: list[int]) -> None:
        pass

    def keep_private(self, table: TableRef, user_id: int, content: Rendered) -> None:
        pass

    def drop_table(self, table: TableRef) -> None:
        pass

    async def clear_buttons(self, chat_id: int, message_id: int) -> None:
        pass

    async def preload(self, tables: list[TableRef]) -> None:
        pass

    def unblock(self, user_id: int) -> None:
        pass

    async def flush(self) -> None:
        pass


class LoopTimers:
    """One timer per table on the event loop; when it fires, `fire(table_id, token)`."""

    def __init__(self) -> None:
        self.fire: Callable[[int, str], Awaitable[None]] | None = None
        self._handles: dict[int, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def start(self, table_id: int, seconds: float, token: str) -> None:
        self.cancel(table_id)
        loop = asyncio.get_running_loop()
        self._handles[table_id] = loop.call_later(max(0.0, seconds), self._run, table_id, token)

    def _run(self, table_id: int, token: str) -> None:
        self._handles.pop(table_id, None)
        if self.fire is not None:
            task = asyncio.ensure_future(self.fire(table_id, token))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def cancel(self, table_id: int) -> None:
        handle = self._handles.pop(table_id, None)
        if handle is not None:
            handle.cancel()

    def close(self) -> None:
        for table_id in list(self._handles):
            self.cancel(table_id)


@dataclass
class WebGame:
    """What `python -m bot play --web` was asked for."""

    variant: str = "due"
    options: dict[str, str] = field(default_factory=dict)
    level: str = "normal"
    lang: str = "it"
    port: int = 8765
    delay: float = 0.6  # seconds a computer player waits before it moves (people watch)
    open_browser: bool = False


class WebPlay:
    """The service, its one table and the HTTP server, started by `start` and stopped by
    `stop` (`serve` does both around a wait for Ctrl-C)."""

    def __init__(self, game: WebGame) -> None:
        self.game = game
        self.dir = Path(tempfile.mkdtemp(prefix="briscola-web-"))
        self.secret = secrets.token_hex(16)  # signs this run's sessions and table keys
        self.keys = TableKeys(self.secret)
        self.person = Person(LOCAL_USER, plain(game.lang, "cli_you"), game.lang)
        self.db: Database | None = None
        self.service: TableService | None = None
        self.timers = LoopTimers()
        self.runner: web.AppRunner | None = None
        self.url = ""

    async def start(self) -> str:
        """Open the table and serve the page; the page's address (with the table's key)."""
        g = self.game
        self.db = await Database.open(f"sqlite:///{self.dir / 'play.db'}")
        thinker = Thinker(workers=0)
        outbox: Outbox = NoChat()  # checked against the protocol the service uses
        service = TableService(
            self.db,
            outbox,
            self.timers,
            "local",
            default_lang=g.lang,
            bot_delay=g.delay,
            thinker=thinker,
            timing=Timing(),
        )
        self.service = service
        self.timers.fire = service.waits.timeout
        hub = LiveHub(table_param=self.keys.param, group=False)  # no group, no ledger
        service.shown.live = hub
        hub.on_visibility(service.shown.page_visibility)
        service.shown.miniapp_param = self.keys.param
        await self._open_table(service)
        app = web.Application()
        local = Viewer(LOCAL_USER, self.person.name, g.lang)
        MiniApp(lambda: service, self.secret, hub, local=local).add_routes(app)
        self.runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", g.port)
        await site.start()
        port = self.runner.addresses[0][1]
        table_id = next(iter(service.registry.by_id))
        self.url = f"http://127.0.0.1:{port}/app/?t={self.keys.param(table_id)}"
        return self.url

    async def _open_table(self, service: TableService) -> None:
        g = self.game
        chat, person = LOCAL_CHAT, self.person
        await service.lobby.new_table(chat, person, g.variant, is_group=True)
        if not service.registry.by_id:
            raise ValueError(plain(g.lang, "cli_web_refused", why=g.variant))
        # a person at a page needs no turn timer (the computer would play for them)
        pairs = [("timer", "0"), *g.options.items()]
        reply = await service.settings.set_options(chat, person, pairs, panel=False)
        if reply.key != "ok_option":
            raise ValueError(plain(g.lang, "cli_web_refused", why=html_text(reply.text)))
        table = next(iter(service.registry.by_id.values()))
        while len(table.seats) < table.n_players:
            await service.lobby.add_bot(chat, g.level)
            table = next(iter(service.registry.by_id.values()))
        reply = await service.settings.start(chat, person, is_admin=True)
        if reply.text:
            raise ValueError(plain(g.lang, "cli_web_refused", why=html_text(reply.text)))

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None
        self.timers.close()
        if self.service is not None:
            await self.service.close()
            self.service = None
        if self.db is not None:
            await self.db.close()
            self.db = None
        shutil.rmtree(self.dir, ignore_errors=True)


async def serve(game: WebGame, ready: Callable[[str], None] | None = None) -> None:
    """Serve until SIGINT or SIGTERM; `ready(url)` once the page can be opened."""
    play = WebPlay(game)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    try:
        url = await play.start()
        if ready is not None:
            ready(url)
        if game.open_browser:
            webbrowser.open(url)
        await stop.wait()
    finally:
        await play.stop()


def run_web(game: WebGame) -> int:
    """`python -m bot play --web`: prints the page's address, serves until Ctrl-C."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")

    def ready(url: str) -> None:
        print(plain(game.lang, "cli_web_ready", url=url), flush=True)

    try:
        asyncio.run(serve(game, ready))
    except (ValueError, OSError) as exc:
        print(f"python -m bot play: error: {exc}", file=sys.stderr)
        return 2
    return 0

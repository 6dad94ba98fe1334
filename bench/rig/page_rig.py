"""The Mini App served in the test's own process, for the browser tests of the page itself and
for `bench.miniapp` (`PageRig`): the bot's own table service (`TableService` on SQLite) and
HTTP routes (`MiniApp`, checking initData signed with the tests' token), with no Telegram: the
service's messages go nowhere and its timers run on the event loop (`bot.cli.web`'s `NoChat`
and `LoopTimers`, what `python -m bot play --web` runs on). The table's seats are people the
test moves for through the service (`move`, as a tap would), or computer players.

    async with PageRig(tmp_path, "chiamata", people=[ann, bob, None, None, None]) as rig:
        _, page = await open_page(browser, rig, ann, rig.table_id)
        await rig.move(action)               # the seat to act, as its person
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

from aiohttp import web

from bench.rig.bot_process import TOKEN, free_port
from bench.rig.telegram import FakeUser
from bot.cli.web import LoopTimers, NoChat
from bot.engine import actions as A
from bot.players.thinker import Thinker
from bot.service import Person, TableService
from bot.table.deadlines import Timing
from bot.table.table import Table
from bot.webapp.auth import TableKeys
from bot.webapp.hub import LiveHub
from bot.webapp.server import MiniApp
from storage import Database

CHAT = -100370


class PageRig:
    """A table and the Mini App that shows it, in this process (module doc)."""

    def __init__(
        self,
        workdir: Path,
        variant: str,
        people: list[FakeUser | None],
        *,
        options: dict[str, str] | None = None,
        level: str = "easy",
        bot_delay: float = 0.0,
        hub_lease: float | None = None,
        heartbeat: float | None = None,
    ) -> None:
        self.dir = workdir
        self.variant = variant
        self.people = people
        self.options = {"timer": "0", **(options or {})}
        self.level = level
        self.bot_delay = bot_delay
        self.hub_lease = hub_lease
        self.heartbeat = heartbeat
        self.port = free_port()
        self.keys = TableKeys(TOKEN)
        self.db: Database | None = None
        self.service: TableService | None = None
        self.hub: LiveHub | None = None
        self.timers = LoopTimers()
        self.runner: web.AppRunner | None = None
        self.table_id = 0
        self._last: Table | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def table(self) -> Table:
        """The table now (a finished one as it finished: the service lets it go)."""
        assert self.service is not None
        table = self.service.registry.by_id.get(self.table_id)
        if table is not None:
            self._last = table
        assert self._last is not None
        return self._last

    def person(self, seat: int) -> Person:
        user = self.people[seat]
        assert user is not None, f"seat {seat} is a computer's"
        return Person(user.id, user.first_name, user.language_code)

    async def __aenter__(self) -> PageRig:
        self.dir.mkdir(parents=True, exist_ok=True)
        self.db = await Database.open(f"sqlite:///{self.dir / 'page.db'}")
        service = self.service = TableService(
            self.db,
            NoChat(),
            self.timers,
            "briscola_page_bot",
            bot_delay=self.bot_delay,
            thinker=Thinker(workers=0),
            timing=Timing(),
        )
        self.timers.fire = service.waits.timeout
        self.hub = LiveHub(table_param=self.keys.param)
        if self.hub_lease is not None:
            self.hub.lease = self.hub_lease
        if self.heartbeat is not None:
            self.hub.heartbeat = self.heartbeat
        service.shown.live = self.hub
        service.shown.miniapp_param = self.keys.param
        first = self.person(0)
        await service.lobby.new_table(CHAT, first, self.variant, is_group=True)
        self.table_id = next(iter(service.registry.by_id))
        reply = await service.settings.set_options(
            CHAT, first, list(self.options.items()), panel=False
        )
        assert reply.key == "ok_option", reply
        for user in self.people[1:]:
            if user is None:
                await service.lobby.add_bot(CHAT, self.level)
            else:
                await service.lobby.join(CHAT, Person(user.id, user.first_name, user.language_code))
        reply = await service.settings.start(CHAT, first, is_admin=True)
        assert not reply.text, reply
        app = web.Application()
        MiniApp(lambda: service, TOKEN, self.hub).add_routes(app)
        self.runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self.runner.setup()
        await web.TCPSite(self.runner, "127.0.0.1", self.port).start()
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.runner is not None:
            await self.runner.cleanup()
        self.timers.close()
        if self.service is not None:
            await self.service.close()
        if self.db is not None:
            await self.db.close()

    async def move(self, action: int | None = None, *, rng: random.Random | None = None) -> int:
        """The seat to act takes `action` (a random legal one if None), as its person's tap
        would (through `Play.act`); returns it once the cards that then play themselves
        (`Table.forced`) are played."""
        assert self.service is not None
        table = self.table
        hand = table.hand
        assert hand is not None and not hand.is_terminal()
        seat = hand.current
        if action is None:
            action = (rng or random.Random()).choice(hand.legal_actions())
        stamp = table.plays_by(seat) if A.BLIND <= action < A.CALL_RANK else table.turn_start()
        reply = await self.service.play.act(
            self.person(seat), self.table_id, hand.hand_index, stamp, action
        )
        assert reply.key == "ok_played", (reply, seat, action)
        async with asyncio.timeout(10):  # the last trick's cards play themselves (issue 49)
            while self.table.forced():
                await asyncio.sleep(0.01)
        return action

    async def play_while(
        self, going: Callable[[Table], bool], pick: Callable[[Table], int | None] | None = None
    ) -> None:
        """Move for the people while `going(table)`; `pick` chooses (None: at random)."""
        rng = random.Random(37)
        while going(self.table):
            await self.move(pick(self.table) if pick else None, rng=rng)

    def snapshot_of(self, seat: int) -> dict[str, Any]:
        from bot.webapp.snapshot import snapshot

        return snapshot(self.table, seat, "it", self.keys.param)

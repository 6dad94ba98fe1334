"""The table service: what every handler calls. Locks, persists, runs computer players, renders.

One lock per table. Every accepted action is written (snapshot + move log, and the ledger in
the same transaction when a hand or match ends) before anything is shown. After a failed
write the table is reloaded from the database, so memory never runs ahead of what is stored.
Telegram is reached only through `Outbox` (rendering is coalesced there) and `Timers`.

A person's action returns as soon as it is stored, so the tap is answered at once; the
computer players then move in a background task per table (`_play_computers`), thinking
without the table's lock (`bot.players.thinker`: `hard` in worker processes) and applying a decision
only if the table has not changed meanwhile.

Where each concern lives: one class per module, each a plain class given what it uses (no
class inherits another of ours), all built by `TableService` and reached through it.

- `types.py`: `Person`, `Reply` (a refusal: `refusal`, in `reply_lang`), and what the service
  needs from outside (`Outbox`, `Timers`, `AdminCheck`).
- `langs.py` (`service.langs`, `Languages`): a chat's language and a person's own.
- The table's life, on one shared state:
  - `registry.py` (`service.registry`, `Registry`): the tables in memory and their locks, a
    table found or reloaded, the notices on their way (`spawn`);
  - `shown.py` (`service.shown`, `Shown`): what a table shows (`render`), the links, the
    Mini App's open pages;
  - `deadlines.py` (`service.deadlines`, `Deadlines`): the deadlines its state sets
    (`plan`, `arm`), a request to cancel settled;
  - `core.py`: what those share (the moments shown, `Moments`; the workers' grace periods);
  - `play.py` (`service.play`, `Play`): a move, the next hand, writing (`save`), the
    computer players;
  - `lobby.py` (`service.lobby`, `Lobby`): new table, join, leave, computers seated,
    rematch;
  - `settings.py` (`service.settings`, `Settings`): the settings and their panel, the start;
  - `closing.py` (`service.closing`, `Closing`): /cancel, the votes on a request to cancel;
  - `waits.py` (`service.waits`, `Waits`): what the table's timer does when it fires.
- The other concerns: `league.py` (`service.league`, `League`: seasons, /score of a season,
  /export, /undo, /beer's payments), `stats.py` (`service.stats`, `Stats`: /stats and its
  chart), `rankings.py` (`service.rankings`, `Rankings`: /top, /h2h, /score chart), both
  reading `records.py` (`service.records`, `Records`: the records and the ratings, kept until
  they change, whom a command names, the @usernames noted), `people.py` (`service.people`,
  `People`: the private chat's /start, /help, /rules, /lang), `tournament.py`
  (`service.tournaments`, `Tournaments`: /torneo and its matches; `Play.on_closed` tells it
  when a table closes), `replay.py` (`service.replays`, `Replays`: a finished hand played
  again for the Mini App's replay).
- here (`TableService`): builds the parts above; start-up (`restore`) and shutdown (`idle`,
  `close`).
"""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from bot.players.thinker import Thinker
from bot.service.closing import Closing
from bot.service.core import Moments
from bot.service.deadlines import Deadlines
from bot.service.langs import Languages
from bot.service.league import League
from bot.service.lobby import REPOST_EVERY, Lobby
from bot.service.people import People
from bot.service.play import Play
from bot.service.rankings import Rankings
from bot.service.records import Records
from bot.service.registry import Registry
from bot.service.replay import Replays
from bot.service.settings import Settings
from bot.service.shown import Shown
from bot.service.stats import Stats
from bot.service.tournament import Tournaments
from bot.service.types import AdminCheck, Outbox, Person, Reply, TableRef, Timers
from bot.service.waits import Waits
from bot.table.deadlines import Timing
from bot.view.callback_data import callback_data
from storage import Database


class TableService:
    """What every handler calls (`handlers/`): the parts of a table's life (`lobby`,
    `settings`, `play`, `closing`, `waits`, on the shared `registry`, `shown` and
    `deadlines`) and the other concerns
    (`league`, `stats` and `rankings` on `records`, `people`, `tournaments`, `langs`), built
    here; start-up (`restore`) and shutdown."""

    def __init__(
        self,
        db: Database,
        outbox: Outbox,
        timers: Timers,
        bot_username: str,
        default_lang: str = "it",
        bot_delay: float = 0.0,
        thinker: Thinker | None = None,
        timing: Timing | None = None,
        shared: bool = False,
        timezone: str = "Europe/Rome",
    ) -> None:
        self.db = db
        self.langs = Languages(db, default_lang)
        moments = Moments()  # what each message showed last: `registry` and `shown` note it
        self.registry = Registry(db, moments, self.langs.default, shared=shared)
        self.shown = Shown(outbox, self.registry, moments, bot_username)
        self.deadlines = Deadlines(
            db, outbox, timers, self.registry, bot_delay=bot_delay, timing=timing
        )
        parts = (self.registry, self.shown, self.deadlines)
        self.play = Play(db, outbox, *parts, thinker if thinker is not None else Thinker(workers=0))
        self.lobby = Lobby(db, outbox, self.langs, *parts, self.play)
        self.settings = Settings(outbox, self.langs, self.registry, self.shown, self.lobby)
        self.closing = Closing(db, outbox, self.langs, *parts, self.play, self.lobby)
        self.waits = Waits(db, outbox, *parts, self.play, self.closing)
        self.people = People(db, outbox, self.langs, self.registry, self.shown, self.lobby)
        self.tournaments = Tournaments(
            db, outbox, self.langs, self.registry, self.shown, self.lobby, self.closing
        )
        self.play.on_closed = self.tournaments.table_closed  # its match over: the next one
        self.league = League(db, outbox, self.langs, ZoneInfo(timezone))  # the groups' clock
        self.records = Records(db)
        self.stats = Stats(db, self.langs, self.records)
        self.rankings = Rankings(db, self.langs, self.records)
        self.replays = Replays(db)
        self._poller: asyncio.Task[None] | None = None  # `Waits.poll_deadlines`, when shared

    async def restore(self) -> int:
        """Load every unfinished table and carry on (computer turns, timers, messages).
        Tables that ended in the last hour get their final message once more: a crash
        right after the last move was stored must not swallow the result."""
        registry, shown, deadlines = self.registry, self.shown, self.deadlines
        for row in await self.db.tables.closed_tables_since(datetime.now(UTC) - timedelta(hours=1)):
            shown.render(registry.from_row(row))
        rows = await self.db.tables.unfinished_tables()
        for row in rows:
            table = registry.from_row(row)
            registry.by_id[table.table_id] = table
        await shown.out.preload([TableRef.of(table) for table in registry.by_id.values()])
        for table in list(registry.by_id.values()):
            async with registry.lock(table.table_id):
                # the deadlines stored are absolute: what is left is re-armed, what passed
                # while the bot was down fires at once (tables stored without any get theirs)
                stored = table.pending.to_json()
                deadlines.plan(table)
                if table.pending.to_json() != stored:
                    await deadlines.store_pending(table)
                self.play.settle(table)
                shown.render(table, owed=registry.shared)  # with other workers: what is owed
        await self.tournaments.restore()  # a match that finished meanwhile: the next one
        if registry.shared and self._poller is None:  # deadlines any worker may have set
            every = max(0.05, min(0.5, 0.5 * deadlines.timing.scale))
            self._poller = asyncio.create_task(self.waits.poll_deadlines(every), name="deadlines")
        return len(rows)

    async def idle(self, timeout: float = 30.0) -> None:
        """Wait until no computer player is thinking or moving (tests, shutdown)."""
        loop = asyncio.get_running_loop()
        background = self.registry.background
        deadline = loop.time() + timeout
        while (
            tasks := [t for t in [*self.play.computers.values(), *background] if not t.done()]
        ) and (loop.time() < deadline):
            await asyncio.wait(tasks, timeout=deadline - loop.time())

    async def close(self) -> None:
        """Stop the computer players' tasks (what they had decided is stored or redone);
        the notices on their way get a moment to go out."""
        if self._poller is not None:
            self._poller.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._poller
            self._poller = None
        background = self.registry.background
        if background:
            await asyncio.wait(list(background), timeout=2.0)
        tasks = list(self.play.computers.values()) + list(background)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.play.thinker.close()


__all__ = [
    "REPOST_EVERY",
    "AdminCheck",
    "Outbox",
    "Person",
    "Reply",
    "TableService",
    "Timers",
    "callback_data",
]

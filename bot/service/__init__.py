"""The table service: what every handler calls. Locks, persists, runs computer players, renders.

One lock per table. Every accepted action is written (snapshot + move log, and the ledger in
the same transaction when a hand or match ends) before anything is shown. After a failed
write the table is reloaded from the database, so memory never runs ahead of what is stored.
Telegram is reached only through `Outbox` (rendering is coalesced there) and `Timers`.

A person's action returns as soon as it is stored, so the tap is answered at once; the
computer players then move in a background task per table (`_play_computers`), thinking
without the table's lock (`bot.players.thinker`: `hard` in worker processes) and applying a decision
only if the table has not changed meanwhile.

Where each concern lives (one class per module):

- `types.py`: `Person`, `Reply` (a refusal: `refusal`, in `reply_lang`), and what the service
  needs from outside (`Outbox`, `Timers`, `AdminCheck`).
- `langs.py` (`Languages`): a chat's language and a person's own (kept a minute).
- The table's life, a chain each building on the one before: `core.py` (`ServiceCore`: the
  state, a table found or reloaded, what a table shows, `_render`, the deadlines its state
  sets, `_plan`, `_arm`), `play.py` (`Play`: a move, the next hand, writing, `_save`, the
  computer players), `lobby.py` (`Lobby`: new table, join, leave, computers seated, settings,
  start, rematch), `closing.py` (`Closing`: /cancel, the votes on a request to cancel,
  `_close`), `waits.py` (`Waits`: what the table's timer does when it fires).
- Collaborators, each with its own dependencies, built here: `league.py` (`League`: seasons,
  /score of a season, /export, /undo, /beer's payments), `stats.py` (`Stats`: /stats, /top,
  /h2h, the charts), `people.py` (`People`: the private chat's /start, /help, /rules, /lang),
  `tournament.py` (`Tournaments`: /torneo and its matches, told by `on_closed` when a table
  closes).
- here (`TableService`): the table's life, the collaborators (`service.league`,
  `service.stats`, `service.people`, `service.tournaments`, `service.langs`), start-up
  (`restore`) and shutdown.
"""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime, timedelta

from bot.players.thinker import Thinker
from bot.service.league import League
from bot.service.lobby import REPOST_EVERY
from bot.service.people import People
from bot.service.stats import Stats
from bot.service.tournament import Tournaments
from bot.service.types import AdminCheck, Outbox, Person, Reply, Timers
from bot.service.waits import Waits
from bot.table.deadlines import Timing
from bot.view.callback_data import callback_data
from storage import Database


class TableService(Waits):
    """What every handler calls (`handlers/`): the table's life, and the other concerns as
    its collaborators (`league`, `stats`, `tournaments`, `people`)."""

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
        super().__init__(
            db,
            outbox,
            timers,
            bot_username,
            default_lang=default_lang,
            bot_delay=bot_delay,
            thinker=thinker,
            timing=timing,
            shared=shared,
            timezone=timezone,
        )
        self.league = League(db, outbox, self.langs, self.zone)
        self.stats = Stats(db, self.langs)
        self.people = People(self, db, outbox, self.langs, bot_username)
        self.tournaments = Tournaments(self, db, outbox, self.langs, bot_username)
        self.on_closed = self.tournaments.table_closed  # its match over: the next one

    async def restore(self) -> int:
        """Load every unfinished table and carry on (computer turns, timers, messages).
        Tables that ended in the last hour get their final message once more: a crash
        right after the last move was stored must not swallow the result."""
        for row in await self.db.closed_tables_since(datetime.now(UTC) - timedelta(hours=1)):
            self._render(self._from_row(row))
        rows = await self.db.unfinished_tables()
        for row in rows:
            table = self._from_row(row)
            self.tables[table.table_id] = table
        await self.out.preload(list(self.tables.values()))
        for table in list(self.tables.values()):
            async with self._lock(table.table_id):
                # the deadlines stored are absolute: what is left is re-armed, what passed
                # while the bot was down fires at once (tables stored without any get theirs)
                stored = table.pending.to_json()
                self._plan(table)
                if table.pending.to_json() != stored:
                    await self._store_pending(table)
                self._settle(table)
                self._render(table)
        await self.tournaments.restore()  # a match that finished meanwhile: the next one
        if self.shared and self._poller is None:  # deadlines any worker may have set
            every = max(0.05, min(0.5, 0.5 * self.timing.scale))
            self._poller = asyncio.create_task(self.poll_deadlines(every), name="deadlines")
        return len(rows)

    async def idle(self, timeout: float = 30.0) -> None:
        """Wait until no computer player is thinking or moving (tests, shutdown)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while (
            tasks := [t for t in [*self._computers.values(), *self._background] if not t.done()]
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
        if self._background:
            await asyncio.wait(list(self._background), timeout=2.0)
        tasks = list(self._computers.values()) + list(self._background)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.thinker.close()


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

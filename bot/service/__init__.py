"""The table service: what every handler calls. Locks, persists, runs computer players, renders.

One lock per table. Every accepted action is written (snapshot + move log, and the ledger in
the same transaction when a hand or match ends) before anything is shown. After a failed
write the table is reloaded from the database, so memory never runs ahead of what is stored.
Telegram is reached only through `Outbox` (rendering is coalesced there) and `Timers`.

A person's action returns as soon as it is stored, so the tap is answered at once; the
computer players then move in a background task per table (`_play_computers`), thinking
without the table's lock (`bot.players.thinker`: `hard` in worker processes) and applying a decision
only if the table has not changed meanwhile.

Where each concern lives (one class per module, each building on the ones it uses):

- `types.py`: `Person`, `Reply`, and what the service needs from outside (`Outbox`, `Timers`).
- `core.py` (`ServiceCore`): the state, a table found or reloaded, what a table shows
  (`_render`), the deadlines its state sets (`_plan`, `_arm`).
- `play.py` (`Play`): a move, the next hand, writing (`_save`), the computer players.
- `lobby.py` (`Lobby`): new table, join, leave, computers seated, settings, start, rematch.
- `closing.py` (`Closing`): /cancel, the votes on a request to cancel, `_close`.
- `waits.py` (`Waits`): what the table's timer does when it fires.
- `people.py` (`People`): the private chat's /start, /help, /rules, /lang.
- `league.py` (`League`): seasons, /score of a season, /export, /undo, /beer's payments.
- `stats.py` (`Stats`): /stats, /top, /h2h, the charts (issue 14).
- here (`TableService`): start-up (`restore`) and shutdown.
"""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime, timedelta

from bot.service.league import League
from bot.service.lobby import REPOST_EVERY
from bot.service.people import People
from bot.service.stats import Stats
from bot.service.tournament import Tournaments
from bot.service.types import AdminCheck, Outbox, Person, Reply, Timers
from bot.service.waits import Waits
from bot.view.callback_data import callback_data


class TableService(Waits, People, Tournaments, League, Stats):
    """What every handler calls (`handlers/`): the concerns above, in one object."""

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
                self._render(table, owed=self.shared)  # with other workers: what is owed
        await self.restore_tournaments()  # a match that finished meanwhile: the next one
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

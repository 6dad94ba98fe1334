"""The tables in memory and their locks (`Registry`): a table found or reloaded from the
database (with other workers, checked against the stored version first), a lock per table and
per group, the group's name, the notices on their way (`spawn`), and whether Telegram's budget
leaves room for a new table (`busy_for`).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable

from bot.service.core import ADMISSION_BACKLOG, Moments, _moment, _seat_moment
from bot.table.deadlines import Pending
from bot.table.table import LOBBY, PLAYING, Table
from storage import Database, TableRow


class Registry:
    """The tables in memory, their locks, a table found or reloaded (every part of the table's
    life holds it)."""

    def __init__(
        self, db: Database, moments: Moments, default_lang: str, *, shared: bool = False
    ) -> None:
        self.db = db
        self.moments = moments  # what a table another worker stored shows (`_moved_on`)
        self.default_lang = default_lang
        self.background: set[asyncio.Task[None]] = set()  # notices on their way (`spawn`)
        self.by_id: dict[int, Table] = {}  # the tables in memory (open ones: see `shared`)
        # seconds of Telegram's budget already owed (the rate limiter's queue): past
        # `ADMISSION_BACKLOG` a new table is refused, the running ones keep the budget
        self.backlog: Callable[[], float] = lambda: 0.0
        self._locks: dict[int, asyncio.Lock] = {}
        self._chat_locks: dict[int, asyncio.Lock] = {}
        # Other processes write the same database (several workers on PostgreSQL): the
        # database is the source of truth, `by_id` only a cache checked against the stored
        # version before each use (`current`), deadlines are claimed in the database
        # (`waits.py`), and the outbox never shows an older version over a newer one.
        self.shared = shared
        self._titles: dict[int, str | None] = {}  # group -> its name, as last seen

    def busy_for(self) -> int | None:
        """Seconds after which a new table may be tried again, while Telegram's budget is
        `ADMISSION_BACKLOG` seconds behind (None: it is not): the queue's length, rounded
        up to ten seconds, so that the running tables keep the budget (issue 50.1)."""
        behind = self.backlog()
        if behind <= ADMISSION_BACKLOG:
            return None
        return min(120, 10 * math.ceil(behind / 10))

    def lock(self, table_id: int) -> asyncio.Lock:
        return self._locks.setdefault(table_id, asyncio.Lock())

    def chat_lock(self, chat_id: int) -> asyncio.Lock:
        """The group's lock: opening a table (/new, a rematch, a tournament's match) and
        changing the group's tournament, one at a time."""
        return self._chat_locks.setdefault(chat_id, asyncio.Lock())

    async def chat_title(self, chat_id: int) -> str | None:
        """The group's name, as the bot last saw it (`note_chat`)."""
        if chat_id not in self._titles:
            self._titles[chat_id] = (await self.db.people.chat_settings(chat_id)).get("title")
        return self._titles[chat_id]

    async def note_chat(self, chat_id: int, title: str | None) -> None:
        """Remember the group's name (written when it changes), for private messages."""
        if not title or await self.chat_title(chat_id) == title:
            return
        self._titles[chat_id] = title
        await self.db.people.update_chat_settings(chat_id, title=title)

    async def table_for_chat(self, chat_id: int) -> Table | None:
        if self.shared:
            row = await self.db.tables.active_table(chat_id)
            return None if row is None else self._adopt(row)
        for table in self.by_id.values():
            if table.chat_id == chat_id and table.status in (LOBBY, PLAYING):
                return table
        return None

    def from_row(self, row: TableRow) -> Table:
        return Table.restore(
            table_id=row.table_id,
            chat_id=row.chat_id,
            creator_id=row.creator_id,
            status=row.status,
            lang=row.lang or self.default_lang,
            options_json=row.options_json,
            seats_json=row.seats_json,
            match_json=row.match_json,
            hand_json=row.hand_json,
            move_no=row.move_no,
            table_message_id=row.table_message_id,
            timers_json=row.timers_json,
        )

    def note_table_message(self, table_id: int, message_id: int) -> None:
        """The outbox posted the table's group message anew (/table, or the old one was gone;
        with other workers, another worker did): the table in memory knows its new id (the
        outbox stored it, with the message). `TelegramOutbox.on_table_message`."""
        table = self.by_id.get(table_id)
        if table is not None:
            table.table_message_id = message_id

    def _adopt(self, row: TableRow) -> Table:
        """The table as stored in `row`: the cached object if it is at that version (with
        what changes without a new version brought up to date), else a new one."""
        table = self.by_id.get(row.table_id)
        if table is None or table.move_no != row.move_no:
            table = self.by_id[row.table_id] = self._moved_on(self.from_row(row))
        else:
            table.table_message_id = row.table_message_id
            table.lang = row.lang or self.default_lang
            table.pending = Pending.from_json(row.timers_json)
        return table

    async def current(self, table_id: int) -> Table | None:
        """The table as it is now, if it is open (lobby or playing). Alone, from memory; with
        other workers (`shared`), checked against the stored version first and read again
        if another worker moved it on (one small read; the whole row only then)."""
        if not self.shared:
            return self.by_id.get(table_id)
        head = await self.db.tables.table_head(table_id)
        if head is None or head.status not in (LOBBY, PLAYING):
            self.by_id.pop(table_id, None)
            return None
        table = self.by_id.get(table_id)
        if table is None or table.move_no != head.move_no:
            return await self.reload(table_id)
        table.table_message_id = head.table_message_id
        table.lang = head.lang or self.default_lang
        table.pending = Pending.from_json(head.timers_json)
        return table

    async def reload(self, table_id: int) -> Table | None:
        row = await self.db.tables.get_table(table_id)
        if row is None:
            self.by_id.pop(table_id, None)
            return None
        table = self._moved_on(self.from_row(row))
        self.by_id[table_id] = table
        return table

    def _moved_on(self, table: Table) -> Table:
        """The table as another worker stored it (`shared`): that worker shows (or owes,
        `SHOWN_GRACE`) what it stored, so the group's message is at that moment, and the next
        move's change is routine or not by what that move changes. (Three workers each
        comparing with the last state they had rendered themselves took nearly every change
        for a moment: the table edited every 4 s, the group's room used up by it alone; and
        each edited every hand message once a hand after the deal and the call it had not
        seen itself.)"""
        if not self.shared:
            return table
        tid = table.table_id
        self.moments.last[(tid, None)] = _moment(table)
        hand = table.hand
        if table.status == PLAYING and hand is not None and not hand.is_terminal():
            # ... and so are the hand messages (a hand's end is left to the render: the
            # worker that shows it sweeps the hand's replaced messages)
            paused = table.paused()
            for seat, s in enumerate(table.seats):
                if s.user_id is not None:
                    self.moments.last[(tid, seat)] = _seat_moment(table, seat, paused)
        return table

    async def table_view(self, table_id: int) -> Table | None:
        """The table as stored now, open or closed (the Mini App shows a finished one too).
        Under the table's lock: a move applied in memory is not shown before it is stored."""
        async with self.lock(table_id):
            table = await self.current(table_id)
        if table is not None:
            return table
        row = await self.db.tables.get_table(table_id)
        return None if row is None else self.from_row(row)

    def spawn(self, coro: Awaitable[object]) -> None:
        """Send a notice without holding the table (the group's budget may make it wait)."""

        async def run() -> None:
            await coro

        task = asyncio.create_task(run())
        self.background.add(task)
        task.add_done_callback(self.background.discard)

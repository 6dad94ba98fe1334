"""A table service on a database with a hand-driven clock: `Rig` (the service, its outbox
stand-in `Out`, its timers `Timers`), for the service tests that run without Telegram."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from bot.cli.web import NoChat
from bot.service import TableService
from bot.service.types import TableRef
from bot.table.deadlines import Pending, Timing
from bot.table.table import Table
from bot.view.render import Keyboard, Rendered
from storage import Database

CHAT = -100777


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


class Timers:
    """What the service armed: one timer per table (seconds from the clock's now, token)."""

    def __init__(self) -> None:
        self.armed: dict[int, tuple[float, str]] = {}

    def start(self, table_id: int, seconds: float, token: str) -> None:
        self.armed[table_id] = (seconds, token)

    def cancel(self, table_id: int) -> None:
        self.armed.pop(table_id, None)


class Out(NoChat):
    """The service's outbox, recording what it is asked to show, say, post, edit, delete
    (what it does not record goes nowhere, as `NoChat`'s)."""

    def __init__(self) -> None:
        self.group: list[Rendered] = []
        self.private: dict[int, Rendered] = {}
        self.said: list[tuple[int, str]] = []
        self.stopping = False  # `say` as while the bot stops: nothing sent
        self.posted: list[tuple[int, Rendered]] = []
        self.posted_ids: list[int] = []  # the id `post` gave each of `posted`
        self.edits: list[tuple[int, int, Rendered]] = []
        self.announced: list[tuple[int, Rendered, bool]] = []  # (chat, content, silent)
        self.deleted: list[tuple[int, int]] = []  # (chat, message id)
        self.kept: dict[int, list[Rendered]] = {}  # user -> the hand summaries kept
        self.dropped: list[int] = []  # tables whose group message was deleted
        self.cleared: list[tuple[int, int]] = []  # (chat, message id) whose buttons went
        self._ids = 900
        self.sweeps: list[int] = []
        self.group_flags: list[dict[str, object]] = []  # urgent, routine: of each `group`
        self.private_shown: list[int] = []  # whose hand message, at each `show_private`
        self.private_flags: list[dict[str, object]] = []  # ... and its flags (turn, settle)

    def show_table(self, table: TableRef, content: Rendered, **flags: object) -> None:
        self.group.append(content)  # urgent and routine: when it is sent, not what
        self.group_flags.append(flags)

    def repost(self, table: TableRef, content: Rendered) -> None:
        self.group.append(content)

    def show_private(
        self, table: TableRef, user_id: int, content: Rendered, **flags: object
    ) -> None:
        self.private[user_id] = content  # urgent and turn: how it is sent, not what
        self.private_shown.append(user_id)
        self.private_flags.append(flags)

    def sweep(self, table: TableRef) -> None:
        self.sweeps.append(table.table_id)

    async def say(self, chat_id: int, text: str, keyboard: Keyboard | None = None) -> bool:
        if self.stopping:  # the bot is stopping (`PacedRateLimiter.stop_waiting`): not sent
            return False
        self.said.append((chat_id, text))
        return True

    async def edit(self, chat_id: int, message_id: int, content: Rendered) -> None:
        self.edits.append((chat_id, message_id, content))

    def edit_soon(self, chat_id: int, message_id: int, content: Rendered) -> None:
        self.edits.append((chat_id, message_id, content))

    def _next_id(self) -> int:
        self._ids += 1
        return self._ids

    async def post(self, chat_id: int, content: Rendered) -> int | None:
        self.posted.append((chat_id, content))
        self.posted_ids.append(self._next_id())
        return self.posted_ids[-1]

    async def announce(
        self, chat_id: int, content: Rendered, *, silent: bool = False
    ) -> int | None:
        self.announced.append((chat_id, content, silent))
        return self._next_id()

    def delete_soon(self, chat_id: int, message_ids: list[int]) -> None:
        self.deleted.extend((chat_id, m) for m in message_ids)

    def keep_private(self, table: TableRef, user_id: int, content: Rendered) -> None:
        self.kept.setdefault(user_id, []).append(content)

    def drop_table(self, table: TableRef) -> None:
        self.dropped.append(table.table_id)

    async def clear_buttons(self, chat_id: int, message_id: int) -> None:
        self.cleared.append((chat_id, message_id))

    def group_said(self) -> list[str]:
        """What was said in the group: notices (said or posted), not the hands' log."""
        said = [text for chat, text in self.said if chat == CHAT]
        return said + [c.text for chat, c in self.posted if chat == CHAT]

    def posted_to(self, chat_id: int) -> list[tuple[int, str]]:
        """(message id, text) of the messages posted to `chat_id`, ids as `post` gave them."""
        return [
            (mid, c.text)
            for mid, (chat, c) in zip(self.posted_ids, self.posted, strict=True)
            if chat == chat_id
        ]


class Rig:
    def __init__(self, db: Database, url: str) -> None:
        self.db, self.url = db, url
        self.clock = Clock()
        self.timers = Timers()
        self.out = Out()
        self.svc = self.service(db)

    def service(self, db: Database) -> TableService:
        timing = Timing(clock=self.clock)
        return TableService(db, self.out, self.timers, "test_bot", timing=timing)

    def table(self) -> Table:
        (table,) = self.svc.registry.by_id.values()
        return table

    def armed(self, tid: int) -> float:
        return self.timers.armed[tid][0]

    async def fire(self, tid: int) -> None:
        """The armed timer runs out: the clock moves on to it and the service is told."""
        seconds, token = self.timers.armed[tid]
        self.clock.now += seconds
        await self.svc.waits.timeout(tid, token)
        await self.svc.idle()

    def stored(self, tid: int) -> tuple[str, Pending, Any]:
        """What the database holds: status, deadlines, seats (read as the bot left them)."""
        conn = sqlite3.connect(self.db.path)
        try:
            status, timers, seats = conn.execute(
                "SELECT status, timers_json, seats_json FROM tables WHERE table_id = ?", (tid,)
            ).fetchone()
        finally:
            conn.close()
        return status, Pending.from_json(timers), json.loads(seats)

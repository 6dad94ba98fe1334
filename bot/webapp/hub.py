"""The Mini App's open pages and what they are shown (`LiveHub`).

The table service publishes every render here (`publish`, under the table's lock, after the
change is stored): each page watching that table gets the snapshot its viewer may see
(`bot.webapp.snapshot`), built once per (seat, language) for the version. A page keeps only
the newest snapshot: one that fell behind skips to the present, it never replays the past.

With other workers on the same database (`shared`), a move may be rendered by another
process: a watcher then polls the version of every watched table (`poll`) and publishes the
table again when it moved on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from bot.table.table import Table
from bot.webapp.auth import Viewer
from bot.webapp.snapshot import snapshot, viewer_seat

log = logging.getLogger(__name__)

POLL_INTERVAL = 1.0  # seconds between two looks at the watched tables' versions (shared)


class Page:
    """One open page: who looks at which table, and the newest snapshot not yet sent."""

    def __init__(self, table_id: int, viewer: Viewer, lang: str) -> None:
        self.table_id = table_id
        self.viewer = viewer
        self.lang = lang
        self.pending: dict[str, Any] | None = None
        self.closed = False
        self._ready = asyncio.Event()

    def put(self, snap: dict[str, Any]) -> None:
        self.pending = snap
        self._ready.set()

    def close(self) -> None:
        self.closed = True
        self._ready.set()

    async def next(self, timeout: float) -> dict[str, Any] | None:
        """The next snapshot to send; None after `timeout` (time for a keepalive) or once
        the page is closed (look at `closed`)."""
        if self.pending is None and not self.closed:
            try:
                await asyncio.wait_for(self._ready.wait(), timeout)
            except TimeoutError:
                return None
        self._ready.clear()
        snap, self.pending = self.pending, None
        return None if self.closed else snap


class LiveHub:
    def __init__(self) -> None:
        self._pages: dict[int, set[Page]] = {}
        self._seen: dict[int, int] = {}  # table -> the version last published
        self._poller: asyncio.Task[None] | None = None
        self.closed = False

    def view(self, table: Table, viewer: Viewer, lang: str) -> dict[str, Any]:
        """The snapshot `viewer` may see of `table` now."""
        return snapshot(table, viewer_seat(table, viewer.user_id), lang)

    def open(self, table: Table, viewer: Viewer, lang: str) -> Page:
        """A page starts watching `table`; its first snapshot is the table now."""
        page = Page(table.table_id, viewer, lang)
        page.put(self.view(table, viewer, lang))
        self._pages.setdefault(table.table_id, set()).add(page)
        self._seen.setdefault(table.table_id, table.move_no)
        return page

    def leave(self, page: Page) -> None:
        pages = self._pages.get(page.table_id)
        if pages is not None:
            pages.discard(page)
            if not pages:
                del self._pages[page.table_id]
                self._seen.pop(page.table_id, None)

    def watching(self, table_id: int) -> int:
        return len(self._pages.get(table_id, ()))

    def publish(self, table: Table) -> None:
        pages = self._pages.get(table.table_id)
        if not pages:
            return
        self._seen[table.table_id] = table.move_no
        built: dict[tuple[int, str], dict[str, Any]] = {}
        for page in pages:
            key = (viewer_seat(table, page.viewer.user_id), page.lang)
            snap = built.get(key)
            if snap is None:
                try:
                    snap = built[key] = snapshot(table, key[0], key[1])
                except Exception:  # a page's view must never break a move
                    log.exception("table %s: snapshot for seat %s failed", table.table_id, key)
                    continue
            page.put(snap)

    def poll(
        self,
        version: Callable[[int], Awaitable[int | None]],
        load: Callable[[int], Awaitable[Table | None]],
        interval: float = POLL_INTERVAL,
    ) -> None:
        """With other workers: look at the watched tables' stored versions every `interval`
        and publish a table that another process moved on."""

        async def run() -> None:
            while not self.closed:
                await asyncio.sleep(interval)
                for table_id in list(self._pages):
                    try:
                        stored = await version(table_id)
                        if stored is None or stored == self._seen.get(table_id):
                            continue
                        table = await load(table_id)
                        if table is not None:
                            self.publish(table)
                    except Exception:
                        log.exception("table %s: looking for changes failed", table_id)

        self._poller = asyncio.create_task(run(), name="miniapp-poll")

    async def close(self) -> None:
        """Every open page's stream ends (the bot is stopping; pages reconnect later)."""
        self.closed = True
        for pages in self._pages.values():
            for page in pages:
                page.close()
        if self._poller is not None:
            self._poller.cancel()
            await asyncio.gather(self._poller, return_exceptions=True)

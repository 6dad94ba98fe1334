"""The Mini App's open pages and what they are shown (`LiveHub`).

The table service publishes every render here (`publish`, under the table's lock, after the
change is stored): each page watching that table gets the snapshot its viewer may see
(`bot.webapp.snapshot`), built once per (seat, language) for the version. A page keeps only
the newest snapshot: one that fell behind skips to the present, it never replays the past.

With other workers on the same database (`shared`), a move may be rendered by another
process: a watcher then polls the version of every watched table (`poll`) and publishes the
table again when it moved on.

Who is looking (a player whose page is open and visible needs no private-chat
traffic for that table). Each page reports whether it is visible: when it opens (`open`,
`visible=`), on the browser's `visibilitychange` and `pagehide` and on Telegram's
`activated` / `deactivated` (`report`), and again every `heartbeat` seconds while visible.
Each report carries the page's count of reports so far (`seq`): two reports sent close
together (a heartbeat, then the page hides) may reach the bot in either order, and the older
one, arriving last, is ignored instead of undoing the newer.
For every (table id, user id) the hub keeps whether a visible page is connected now:

    hub.visible(table_id, user_id) -> bool
        True while at least one of that user's pages on that table has its stream open,
        said it is visible, and said so again less than `VISIBLE_LEASE` seconds ago. A
        closed or dropped stream, a page that went to the background, or a page that
        fell silent (a phone that lost its network: no heartbeat) counts as not visible.
        Any seat's user: the hub does not know seats, the caller does.

    unsubscribe = hub.on_visibility(callback)
        `callback(table_id, user_id, visible)` is called, on the event loop, each time that
        answer changes (never twice in a row with the same value for a pair), e.g. to send
        the turn message the page was showing as soon as it hides. A callback must not
        block; an exception in it is logged and does not reach the page. `unsubscribe()`
        removes it.

This is per process: with several workers a page is known to the one holding its stream
(the others answer False for it). When the bot stops, every page counts as not visible.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from bot.table.table import Table
from bot.webapp.auth import Viewer
from bot.webapp.snapshot import snapshot, viewer_seat

log = logging.getLogger(__name__)

POLL_INTERVAL = 1.0  # seconds between two looks at the watched tables' versions (shared)
HEARTBEAT = 20.0  # seconds between a visible page's reports (the session tells the page)
VISIBLE_LEASE = 45.0  # seconds a report of being visible holds without the next one

Visibility = Callable[[int, int, bool], None]


class Page:
    """One open page: who looks at which table, and the newest snapshot not yet sent."""

    def __init__(
        self, table_id: int, viewer: Viewer, lang: str, page_id: str = "", seq: int = 0
    ) -> None:
        self.table_id = table_id
        self.viewer = viewer
        self.lang = lang
        self.page_id = page_id  # the page's own name for itself (its visibility reports)
        self.pending: dict[str, Any] | None = None
        self.closed = False
        self.visible = False
        self.seq = seq  # the newest report's number (the stream's opening counts as one)
        self._lease: asyncio.TimerHandle | None = None
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
    def __init__(
        self,
        table_param: Callable[[int], str] | None = None,
        lease: float = VISIBLE_LEASE,
        heartbeat: float = HEARTBEAT,
        group: bool = True,
    ) -> None:
        self._pages: dict[int, set[Page]] = {}
        self._seen: dict[int, int] = {}  # table -> the version last published
        self._poller: asyncio.Task[None] | None = None
        self.closed = False
        self.table_param = table_param  # a table's start parameter (a rematch's link)
        self.lease = lease
        self.heartbeat = heartbeat  # the pages are told to report this often while visible
        self.group = group  # the tables are groups' (False: `play --web`, no group's ledger)
        self._visible: set[tuple[int, int]] = set()  # (table, user) with a visible page now
        self._callbacks: list[Visibility] = []

    def view(self, table: Table, viewer: Viewer, lang: str) -> dict[str, Any]:
        """The snapshot `viewer` may see of `table` now."""
        seat = viewer_seat(table, viewer.user_id)
        return snapshot(table, seat, lang, self.table_param, group=self.group)

    def open(
        self,
        table: Table,
        viewer: Viewer,
        lang: str,
        page_id: str = "",
        visible: bool = False,
        seq: int = 0,
    ) -> Page:
        """A page starts watching `table`; its first snapshot is the table now. `visible`
        is what the page said in its report number `seq` (the stream's opening)."""
        page = Page(table.table_id, viewer, lang, page_id, seq)
        page.put(self.view(table, viewer, lang))
        self._pages.setdefault(table.table_id, set()).add(page)
        self._seen.setdefault(table.table_id, table.move_no)
        if visible:
            self._set_visible(page, True)
        return page

    def leave(self, page: Page) -> None:
        pages = self._pages.get(page.table_id)
        if pages is not None:
            pages.discard(page)
            if not pages:
                del self._pages[page.table_id]
                self._seen.pop(page.table_id, None)
        self._set_visible(page, False)

    # ------------------------------------------------------------------ who is looking

    def visible(self, table_id: int, user_id: int) -> bool:
        """Whether `user_id` has a visible page of `table_id` connected now (module doc)."""
        return (table_id, user_id) in self._visible

    def on_visibility(self, callback: Visibility) -> Callable[[], None]:
        """Call `callback(table_id, user_id, visible)` whenever `visible()` changes for a
        pair; returns the function that stops it (module doc)."""
        self._callbacks.append(callback)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._callbacks.remove(callback)

        return unsubscribe

    def report(
        self, table_id: int, user_id: int, page_id: str, visible: bool, seq: int | None = None
    ) -> bool:
        """A page says it is visible (again) or not, in its report number `seq`; a report
        older than one already heard changes nothing. False if `user_id` has no open page
        of that name at that table (its stream is not connected here)."""
        found = False
        for page in list(self._pages.get(table_id, ())):  # a stream reopened may overlap
            if page.page_id == page_id and page.viewer.user_id == user_id and page_id:
                found = True
                if seq is not None:
                    if seq <= page.seq:
                        continue  # overtaken by a newer report
                    page.seq = seq
                self._set_visible(page, visible)
        return found

    def _set_visible(self, page: Page, visible: bool) -> None:
        if page._lease is not None:
            page._lease.cancel()
            page._lease = None
        page.visible = visible and not page.closed and not self.closed
        if page.visible:  # it holds until the next heartbeat is due, and a margin
            loop = asyncio.get_running_loop()
            page._lease = loop.call_later(self.lease, self._set_visible, page, False)
        self._update(page.table_id, page.viewer.user_id)

    def _update(self, table_id: int, user_id: int) -> None:
        key = (table_id, user_id)
        now = any(p.visible and p.viewer.user_id == user_id for p in self._pages.get(table_id, ()))
        if now == (key in self._visible):
            return
        if now:
            self._visible.add(key)
        else:
            self._visible.discard(key)
        for callback in list(self._callbacks):
            try:
                callback(table_id, user_id, now)
            except Exception:
                log.exception("table %s: a visibility callback failed", table_id)

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
                    snap = built[key] = snapshot(
                        table, key[0], key[1], self.table_param, group=self.group
                    )
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
        for pages in list(self._pages.values()):
            for page in list(pages):
                page.close()
                self._set_visible(page, False)
        if self._poller is not None:
            self._poller.cancel()
            await asyncio.gather(self._poller, return_exceptions=True)

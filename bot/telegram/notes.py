"""The outbox's notes: what each message shows, and which calls were made about groups (the
rate limiter's), written to the database in batches, off the path of a tap.

What each message shows is stored (a digest, `MessageStore.write_notes`), so a restarted bot edits
only what changed. The notes are written every `NOTES_INTERVAL` seconds: a crash loses at most
that much of them (then a message may be edited once more to what it already shows, answered
"not modified"). An edit is noted before it is made, and that note awaited (`Notes.editing`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from storage import Database

log = logging.getLogger(__name__)

NOTES_INTERVAL = 0.2  # seconds between two writes of the notes


class Notes:
    """What messages show and which calls were made about groups, written to the database
    in one transaction every `interval` seconds (a tap's own write never queues behind them
    one by one).

    An edit is noted before it is made (`editing`, written at once with whatever else is
    waiting, and awaited): if the bot dies between the edit and the note confirming it, the
    restarted bot knows the message may show either content and edits it, rather than
    trusting an old digest that may equal what it wants to show while Telegram still shows
    the edited content (a person would keep buttons of a turn that is over)."""

    def __init__(self, db: Database, interval: float = NOTES_INTERVAL) -> None:
        self.db = db
        self.interval = interval
        self._shown: dict[tuple[int, int], str] = {}
        self._calls: list[tuple[int, float]] = []
        self._editing: dict[tuple[int, int], str] = {}
        self._replaced: list[tuple[int, int, int]] = []
        self._deleted: list[tuple[int, int]] = []
        self._written: asyncio.Future[None] | None = None  # resolved by the next write
        self._wake = asyncio.Event()
        self._now = asyncio.Event()  # an edit waits: write without gathering first
        self._task: asyncio.Task[None] | None = None
        self._flushing: asyncio.Future[None] | None = None  # the write `_run` started last

    def shown(self, chat_id: int, message_id: int, digest: str) -> None:
        self._shown[(chat_id, message_id)] = digest
        self._editing.pop((chat_id, message_id), None)
        self._kick()

    def group_call(self, chat_id: int, at: float) -> None:
        self._calls.append((chat_id, at))
        self._kick()

    def replaced(self, table_id: int, chat_id: int, message_id: int) -> None:
        """A hand message a newer one replaced: to be deleted with the hand's sweep."""
        self._replaced.append((table_id, chat_id, message_id))
        self._kick()

    def deleted(self, chat_id: int, message_ids: list[int]) -> None:
        self._deleted.extend((chat_id, m) for m in message_ids)
        self._kick()

    async def editing(self, chat_id: int, message_id: int, digest: str) -> None:
        """Note that the message is about to be edited to content `digest`; returns once that
        is written (with everything noted before it, so confirmations keep their order)."""
        self._editing[(chat_id, message_id)] = digest
        if self._written is None:
            self._written = asyncio.get_running_loop().create_future()
        written = self._written
        self._now.set()
        self._kick()
        await asyncio.shield(written)

    def _kick(self) -> None:
        self._wake.set()
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="telegram-notes")

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            if not self._now.is_set():  # gather what comes meanwhile
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._now.wait(), self.interval)
            self._wake.clear()
            self._now.clear()
            # shielded: a close cancels this task, never a write under way (its batch, taken
            # from the lists, would be lost: a replaced message never deleted)
            self._flushing = asyncio.ensure_future(self.flush())
            await asyncio.shield(self._flushing)

    async def flush(self) -> None:
        shown, self._shown = self._shown, {}
        calls, self._calls = self._calls, []
        editing, self._editing = self._editing, {}
        replaced, self._replaced = self._replaced, []
        deleted, self._deleted = self._deleted, []
        written, self._written = self._written, None
        try:
            await self.db.messages.write_notes(
                shown=[(c, m, d) for (c, m), d in shown.items()],
                group_calls=calls,
                editing=[(c, m, d) for (c, m), d in editing.items()],
                replaced=replaced,
                deleted=deleted,
            )
        except Exception as exc:  # at worst one "not modified" or one 429 after a restart
            log.warning("writing the notes failed: %s", exc)
        finally:
            if written is not None and not written.done():
                written.set_result(None)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._flushing is not None:  # a write under way ends first
            await self._flushing
        await self.flush()

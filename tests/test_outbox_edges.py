"""Hand messages at the edges of time: a bot stopped or killed while it was showing one (the
restarted bot knows what the message shows, or at least of which turn it is, and neither
sends a second message for the same turn nor edits one to the content it shows, "message is
not modified"); a hand that ends while a turn message is still on its way.

Found by CI on 2ccac53: a bot stopped while it edited Luigi's turn message (the edit noted,
not yet confirmed) sent him the same turn again after the restart; a bot killed just after
it sent a message, before the batched note of its content was written, edited it to what it
showed; a turn message that landed after its hand's sweep had begun left the message it
replaced in the chat for another hand. Telegram's side is a recorder here; the database is
SQLite, as the bot's."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from bot.engine import Options
from bot.service.core import Moments
from bot.service.registry import Registry
from bot.service.types import TableRef
from bot.table.table import PLAYING, Table
from bot.telegram.notes import Notes
from bot.telegram.outbox import TelegramOutbox
from bot.telegram.shown import UNSURE, digest, known
from bot.view.render import Rendered
from storage import Database
from storage.models import Shown

LUIGI = 801
GROUP = -100800


class Recorder:
    """The Bot API calls the outbox makes, each answered as Telegram would."""

    def __init__(self, first_id: int = 100) -> None:
        self.calls: list[tuple[str, int, int]] = []  # (method, chat, message id)
        self.next_id = first_id
        self.deleted: list[tuple[int, list[int]]] = []
        self.held = asyncio.Event()  # sends wait for it while `hold` (the chat's pace)
        self.held.set()

    async def send_message(self, chat_id: int, text: str, **_: Any) -> Any:
        await self.held.wait()
        self.next_id += 1
        self.calls.append(("sendMessage", chat_id, self.next_id))
        return SimpleNamespace(message_id=self.next_id, chat_id=chat_id)

    async def edit_message_text(self, text: str, chat_id: int, message_id: int, **_: Any) -> None:
        self.calls.append(("editMessageText", chat_id, message_id))

    async def delete_messages(self, chat_id: int, message_ids: list[int]) -> None:
        self.deleted.append((chat_id, list(message_ids)))

    async def delete_message(self, chat_id: int, message_id: int) -> None:
        self.calls.append(("deleteMessage", chat_id, message_id))

    async def pin_chat_message(self, chat_id: int, message_id: int, **_: Any) -> None:
        self.calls.append(("pinChatMessage", chat_id, message_id))


async def open_db(tmp_path: Path) -> tuple[Database, TableRef]:
    db = await Database.open(f"sqlite:///{tmp_path / 'b.db'}")
    seats = json.dumps([{"user_id": LUIGI, "name": "Luigi"}, {"user_id": None, "name": "Ada"}])
    row = await db.tables.create_table(
        GROUP, LUIGI, "due", json.dumps({"variant": "due"}), seats, "it"
    )
    table = TableRef(
        table_id=row.table_id,
        chat_id=GROUP,
        lang="it",
        version=3,
        ended=False,
        pin=False,
        table_message_id=None,
    )
    return db, table


def outbox(bot: Recorder, db: Database, shared: bool = False) -> TelegramOutbox:
    # confirmations alone would wait a minute: what is written at once is what counts
    return TelegramOutbox(cast(Any, bot), db, notes=Notes(db, interval=60.0), shared=shared)


FIRST_TURN = Rendered("👉 Tocca a te: 3 carte", [])


async def first_turn(db: Database, table: TableRef) -> tuple[Recorder, TelegramOutbox, int]:
    """Luigi's turn sent (turn 1.4, `FIRST_TURN`) and out: the recorder, the outbox, the
    message's id."""
    bot = Recorder()
    box = outbox(bot, db)
    box.show_private(table, LUIGI, FIRST_TURN, turn="1.4")
    await box.flush(timeout=5)
    assert bot.calls == [("sendMessage", LUIGI, bot.next_id)]
    return bot, box, bot.next_id


def test_known_keeps_the_turn_of_a_message_whose_edit_was_not_confirmed() -> None:
    a, b = "t:1.4|" + "a" * 20, "t:1.4|" + "b" * 20
    assert known(None) is None
    assert known(Shown(a)) == a
    assert known(Shown(a, b)) == "t:1.4|" + UNSURE  # either content: of turn 1.4 both
    assert known(Shown(a, "c" * 20)) is None  # the edit ended the turn: nothing is known
    assert known(Shown("c" * 20, a)) is None
    assert known(Shown(a, "t:1.6|" + "b" * 20)) is None
    assert known(Shown("", a)) is None  # an edit of a message never noted


async def test_a_sent_message_is_noted_before_its_id_is_stored(tmp_path: Path) -> None:
    """A new message's content is written with it, not with the next notes: a bot killed
    right after edits nothing to what it shows, nor sends the turn again."""
    db, table = await open_db(tmp_path)
    try:
        _, _, mid = await first_turn(db, table)
        content = FIRST_TURN
        assert await db.messages.shown(LUIGI, mid) == "t:1.4|" + digest(content)
        # "killed" now: no close, so the batched notes are never written
        again = Recorder(first_id=200)
        restarted = outbox(again, db)
        await restarted.preload([table])
        restarted.show_private(table, LUIGI, content, turn="1.4")
        await restarted.flush(timeout=5)
        assert again.calls == []
        await restarted.close(timeout=1)
    finally:
        await db.close()


@pytest.mark.parametrize("how", ["preload", "first render", "shared"])
async def test_a_turn_message_under_an_unconfirmed_edit_is_edited_not_sent_again(
    tmp_path: Path, how: str
) -> None:
    """Stopped between noting an edit of a turn message and confirming it: the restarted bot
    edits that message for the same turn (its content is not known; its turn is), and sends a
    new one, which notifies, only for a new turn."""
    db, table = await open_db(tmp_path)
    try:
        _, _, mid = await first_turn(db, table)
        # the same turn goes on (he took the trick and leads): the edit is noted, and the bot
        # stops before it confirms it
        edited = Rendered("👉 Tocca a te: 2 carte", [])
        await db.messages.write_notes(editing=[(LUIGI, mid, "t:1.4|" + digest(edited))])
        again = Recorder(first_id=200)
        restarted = outbox(again, db, shared=how == "shared")
        if how == "preload":
            await restarted.preload([table])
        restarted.show_private(table, LUIGI, edited, turn="1.4")
        await restarted.flush(timeout=5)
        assert again.calls == [("editMessageText", LUIGI, mid)]
        # the computer answered: his next turn is a new message
        table = replace(table, version=table.version + 2)
        restarted.show_private(table, LUIGI, FIRST_TURN, turn="1.6")
        await restarted.flush(timeout=5)
        assert again.calls[1:] == [("sendMessage", LUIGI, 201)]
        await restarted.close(timeout=1)
    finally:
        await db.close()


async def test_a_turn_message_still_on_its_way_at_the_hands_end_goes_with_its_sweep(
    tmp_path: Path,
) -> None:
    """The hand ends (the sweep starts) while a person's last turn message waits for the
    private chat's pace: the message it replaces is deleted with this hand's sweep."""
    db, table = await open_db(tmp_path)
    try:
        bot, box, first = await first_turn(db, table)
        bot.held.clear()  # the next send waits
        box.show_private(table, LUIGI, Rendered("👉 Tocca a te: 1 carta", []), turn="1.38")
        await asyncio.sleep(0.1)
        box.sweep(table)  # the hand ended meanwhile
        await asyncio.sleep(0.2)
        bot.held.set()
        await box.flush(timeout=5)
        assert bot.deleted == [(LUIGI, [first])]
        await box.close(timeout=1)
    finally:
        await db.close()


class SlowNotesDb:
    """`write_notes` that takes its time (a loaded database), every batch recorded once
    written."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        self.written: list[dict[str, Any]] = []

    async def write_notes(self, **batch: Any) -> None:
        self.started.set()
        await self.release.wait()
        self.written.append(batch)


async def test_a_stop_during_a_write_of_the_notes_loses_nothing() -> None:
    """A stop (SIGTERM) that comes while the notes are being written waits for that write:
    cancelling it lost its batch (a full run: the note of a replaced hand message, which the
    restarted bot then never deleted)."""
    db = SlowNotesDb()
    notes = Notes(cast(Database, SimpleNamespace(messages=db)), interval=0.0)
    notes.replaced(1, LUIGI, 4)
    await asyncio.wait_for(db.started.wait(), 5)
    closing = asyncio.create_task(notes.close())
    await asyncio.sleep(0.05)
    db.release.set()
    await asyncio.wait_for(closing, 5)
    assert [b["replaced"] for b in db.written if b.get("replaced")] == [[(1, LUIGI, 4)]]


async def test_a_reposted_table_message_reaches_the_service_through_its_callback(
    tmp_path: Path,
) -> None:
    """Issue 53: the outbox is given where a table's messages are (`TableRef`), never the
    service's `Table`, and writes into none. The group's table message posted anew (/table)
    is stored with the message, and its id reaches the service through `on_table_message`
    (`Registry.note_table_message`), whose table then knows it: the next call brings it."""
    db, stored_ref = await open_db(tmp_path)
    try:
        registry = Registry(db, Moments(), "it")
        tid = stored_ref.table_id
        table = Table(tid, GROUP, LUIGI, Options.parse("due"), status=PLAYING, pin=True)
        registry.by_id[tid] = table
        told: list[tuple[int, int]] = []

        def on_table_message(table_id: int, message_id: int) -> None:
            told.append((table_id, message_id))
            registry.note_table_message(table_id, message_id)

        bot = Recorder()
        box = TelegramOutbox(
            cast(Any, bot), db, notes=Notes(db, interval=60.0), on_table_message=on_table_message
        )
        first = TableRef.of(table)
        box.show_table(first, Rendered("Tavolo", []))
        await box.flush(timeout=5)
        posted = bot.next_id
        assert told == [(table.table_id, posted)] and table.table_message_id == posted
        again = TableRef.of(table)
        box.repost(again, Rendered("Tavolo", []))
        await box.flush(timeout=5)
        moved = bot.next_id
        assert bot.calls == [
            ("sendMessage", GROUP, posted),
            ("pinChatMessage", GROUP, posted),
            ("sendMessage", GROUP, moved),
            ("pinChatMessage", GROUP, moved),
            ("deleteMessage", GROUP, posted),
        ]
        assert told == [(table.table_id, posted), (table.table_id, moved)]
        assert table.table_message_id == moved  # the service's table, by the service
        stored = await db.tables.get_table(table.table_id)
        assert stored is not None and stored.table_message_id == moved
        # what the outbox was given is as it was given, and it keeps no table
        assert first.table_message_id is None and again.table_message_id == posted
        assert all(isinstance(slot.table, TableRef) for slot in box._slots.values())
        await box.close(timeout=1)
    finally:
        await db.close()

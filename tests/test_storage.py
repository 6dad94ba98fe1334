"""The storage layer (storage/): tables, moves, users, chats and the ledger (the schema and its
migrations: tests/test_schema.py)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.rig.backends import RAW_CONFLICT, fresh_url, raw_sql
from bot.cli.export import add_export_parser, main_export
from bot.engine import HandState, Match, Options
from bot.table.ledger import settle
from bot.telegram.webhook import LEASE, RENEW_EVERY
from storage import (
    SCHEMA_VERSION,
    Balance,
    Database,
    LedgerNotZeroSum,
    LedgerRecord,
    Move,
    PrivateMessage,
    StaleMove,
    TableClosed,
    TableExists,
    TableNotFound,
    TableStatus,
    UpdateClaim,
    sqlite_path,
)
from storage.errors import Conflict
from storage.models import Shown
from storage.postgres import PostgresBackend
from storage.sqlite import SqliteBackend

CHAT = -1001
T0 = datetime(2024, 5, 1, 20, 0, tzinfo=UTC)
SEATS = json.dumps([{"user_id": 1, "name": "Anna"}, {"user_id": 2, "name": "Bruno"}])
OPTS = json.dumps({"variant": "due"})


@pytest.fixture
async def db(any_url: str) -> AsyncIterator[Database]:
    """A fresh database on each backend in turn (issue 15)."""
    database = await Database.open(any_url)
    yield database
    await database.close()


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'briscola.db'}"  # tmp_path is absolute: sqlite:////...


async def new_table(db: Database, chat_id: int = CHAT) -> int:
    row = await db.tables.create_table(chat_id, 1, "due", OPTS, SEATS, "it")
    return row.table_id


# ---------------------------------------------------------------------- URL and pragmas


def test_sqlite_urls() -> None:
    assert sqlite_path("sqlite:///briscola.db") == "briscola.db"
    assert sqlite_path("sqlite:////var/lib/bot/b.db") == "/var/lib/bot/b.db"
    assert sqlite_path("sqlite:///:memory:") == ":memory:"
    for bad in ("postgres://x/y", "sqlite:///", "briscola.db", "sqlite:///a.db?mode=ro"):
        with pytest.raises(ValueError):
            sqlite_path(bad)


async def test_relative_url_is_relative_to_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    db = await Database.open("sqlite:///rel.db")
    await db.close()
    assert (tmp_path / "rel.db").is_file()


async def test_file_database_pragmas(db_url: str) -> None:
    async with await Database.open(db_url) as db:
        p = await db.pragmas()
    assert p == {
        "journal_mode": "wal",
        "busy_timeout": 5000,
        "foreign_keys": 1,
        "user_version": SCHEMA_VERSION,
    }


async def test_open_without_create_refuses_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        await Database.open(f"sqlite:///{tmp_path / 'missing.db'}", create=False)
    assert not (tmp_path / "missing.db").exists()


# ---------------------------------------------------------------------- tables


async def test_one_active_table_per_chat(db: Database) -> None:
    first = await db.tables.create_table(CHAT, 1, "due", OPTS, SEATS, "it")
    assert (first.status, first.move_no, first.lang) == ("lobby", 0, "it")
    with pytest.raises(TableExists) as info:
        await db.tables.create_table(CHAT, 2, "tre", OPTS, SEATS, None)
    assert info.value.table_id == first.table_id
    other = await db.tables.create_table(
        CHAT + 1, 2, "tre", OPTS, SEATS, None
    )  # another chat: fine
    assert (await db.tables.active_table(CHAT)) == first
    await db.tables.update_lobby(first.table_id, status=TableStatus.PLAYING)
    with pytest.raises(TableExists):
        await db.tables.create_table(CHAT, 2, "tre", OPTS, SEATS, None)
    await db.tables.update_lobby(first.table_id, status=TableStatus.FINISHED)
    assert await db.tables.active_table(CHAT) is None
    second = await db.tables.create_table(CHAT, 2, "tre", OPTS, SEATS, None)
    # Reviving the finished table would make two active tables: refused by the index.
    with pytest.raises(TableExists):
        await db.tables.update_lobby(first.table_id, status=TableStatus.LOBBY)
    assert [t.table_id for t in await db.tables.unfinished_tables()] == [
        other.table_id,
        second.table_id,
    ]


async def test_one_active_table_is_a_schema_constraint(any_url: str) -> None:
    await (await Database.open(any_url)).close()
    sql = (
        "INSERT INTO tables (chat_id, creator_id, status, variant, options_json, seats_json,"
        " created_at, updated_at) VALUES (1, 1, ?, 'due', '{}', '[]', 'x', 'x')"
    )
    await raw_sql(any_url, "INSERT INTO chats (chat_id, updated_at) VALUES (1, 'x')")
    await raw_sql(any_url, sql, ("lobby",))
    with pytest.raises(RAW_CONFLICT):
        await raw_sql(any_url, sql, ("playing",))
    await raw_sql(any_url, sql, ("finished",))
    await raw_sql(any_url, sql, ("cancelled",))


async def test_concurrent_creates_make_one_table(db: Database) -> None:
    results = await asyncio.gather(
        *(db.tables.create_table(CHAT, u, "due", OPTS, SEATS, None) for u in range(8)),
        return_exceptions=True,
    )
    assert sum(not isinstance(r, BaseException) for r in results) == 1
    assert all(isinstance(r, TableExists) for r in results if isinstance(r, BaseException))


async def test_update_lobby_sets_only_given_fields(db: Database) -> None:
    t = await db.tables.create_table(CHAT, 1, "due", OPTS, SEATS, "it")
    seats = json.dumps([{"user_id": 1}, {"user_id": 2}, {"user_id": 3}])
    u = await db.tables.update_lobby(t.table_id, seats_json=seats, variant="tre")
    assert (u.seats_json, u.variant, u.options_json, u.status) == (seats, "tre", OPTS, "lobby")
    assert u.move_no == 1  # a game-relevant change is a new version
    m = await db.tables.update_lobby(t.table_id, table_message_id=555)
    assert (m.table_message_id, m.move_no, m.seats_json) == (555, 1, seats)  # no bump
    cleared = await db.tables.update_lobby(t.table_id, table_message_id=None, lang=None)
    assert (cleared.table_message_id, cleared.lang) == (None, None)
    with pytest.raises(StaleMove):
        await db.tables.update_lobby(t.table_id, seats_json=SEATS, expected_move_no=0)
    assert (await db.tables.get_table(t.table_id)) == cleared
    ok = await db.tables.update_lobby(t.table_id, seats_json=SEATS, expected_move_no=1)
    assert ok.move_no == 2
    with pytest.raises(TableNotFound):
        await db.tables.update_lobby(999, status=TableStatus.CANCELLED)
    with pytest.raises(ValueError):
        await db.tables.update_lobby(t.table_id, status="bogus")  # type: ignore[arg-type]


async def test_save_move_and_append_only_ordered_log(db: Database) -> None:
    tid = await new_table(db)
    no = await db.tables.save_move(
        tid, 0, match_json='{"m": 0}', hand_json='{"h": 0}', status=TableStatus.PLAYING, move=None
    )
    for i in range(5):
        no = await db.tables.save_move(
            tid,
            no,
            match_json='{"m": 0}',
            hand_json=json.dumps({"h": i + 1}),
            status=TableStatus.PLAYING,
            move=Move(hand_index=0, seat=i % 2, action=10 + i, user_id=1 + i % 2),
        )
    assert no == 6
    log = await db.tables.moves(tid)
    assert [m.move_no for m in log] == [2, 3, 4, 5, 6]  # ordered; no row for the snapshot-only 1
    assert [(m.seat, m.action, m.user_id) for m in log] == [
        (i % 2, 10 + i, 1 + i % 2) for i in range(5)
    ]
    row = await db.tables.get_table(tid)
    assert row is not None and row.move_no == 6 and row.hand == {"h": 5}


async def test_move_log_cannot_be_rewritten(any_url: str) -> None:
    async with await Database.open(any_url) as db:
        tid = await new_table(db)
        await db.tables.save_move(
            tid, 0, match_json="{}", hand_json="{}", status=TableStatus.PLAYING, move=Move(0, 0, 7)
        )
    for sql in ("UPDATE moves SET action = 8", "DELETE FROM moves"):
        with pytest.raises(RAW_CONFLICT, match="append-only"):
            await raw_sql(any_url, sql)
    async with await Database.open(any_url) as db:
        assert [(m.move_no, m.action) for m in await db.tables.moves(tid)] == [(1, 7)]


async def test_stale_move_changes_nothing(db: Database) -> None:
    """Optimistic concurrency: a move decided on an old version is refused whole."""
    tid = await new_table(db)

    async def save(version: int, a: int, move: Move | None, status: TableStatus) -> None:
        hand = json.dumps({"a": a})
        await db.tables.save_move(
            tid, version, match_json="{}", hand_json=hand, status=status, move=move
        )

    await save(0, 1, None, TableStatus.PLAYING)
    await save(1, 2, Move(0, 0, 5), TableStatus.PLAYING)
    before_row, before_log = await db.tables.get_table(tid), await db.tables.moves(tid)
    with pytest.raises(StaleMove) as info:
        await save(1, 3, Move(0, 1, 6), TableStatus.FINISHED)
    assert (info.value.expected, info.value.actual) == (1, 2)
    assert await db.tables.get_table(tid) == before_row
    assert await db.tables.moves(tid) == before_log


async def test_concurrent_moves_one_wins(db: Database) -> None:
    tid = await new_table(db)
    results = await asyncio.gather(
        *(
            db.tables.save_move(
                tid,
                0,
                match_json="{}",
                hand_json=str(i),
                status=TableStatus.PLAYING,
                move=Move(0, i, i),
            )
            for i in range(6)
        ),
        return_exceptions=True,
    )
    assert sorted(r for r in results if isinstance(r, int)) == [1]
    assert sum(isinstance(r, StaleMove) for r in results) == 5
    assert len(await db.tables.moves(tid)) == 1


async def test_cancelled_write_leaves_the_connection_usable(db_url: str) -> None:
    """A write cancelled while waiting for another process's lock (busy_timeout) is undone
    and the next write works."""
    async with await Database.open(db_url) as db:
        other = sqlite3.connect(sqlite_path(db_url), isolation_level=None, timeout=0)
        other.execute("BEGIN IMMEDIATE")  # another writer holds the lock
        # SQLite's trace callback runs on the database thread as a statement starts: the
        # write's BEGIN IMMEDIATE started means it waits for `other`'s lock
        loop = asyncio.get_running_loop()
        waiting = asyncio.Event()

        def trace(sql: str) -> None:
            if sql.startswith("BEGIN IMMEDIATE"):
                loop.call_soon_threadsafe(waiting.set)

        assert isinstance(db.backend, SqliteBackend)
        await db.backend.conn.set_trace_callback(trace)
        task = asyncio.create_task(
            db.ledger.record_ledger(CHAT, "k", None, "due", {1: 1, 2: -1}, {1: "A", 2: "B"}, T0)
        )
        await asyncio.wait_for(waiting.wait(), 5.0)
        assert not task.done()  # still waiting for the lock: cancelled while it waits
        task.cancel()
        other.execute("COMMIT")
        other.close()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert await db.ledger.ledger_hands(CHAT) == []
        assert await db.ledger.record_ledger(
            CHAT, "k", None, "due", {1: 1, 2: -1}, {1: "A", 2: "B"}, T0
        )
        assert len(await db.ledger.ledger_hands(CHAT)) == 1


async def test_closed_table_refuses_moves(db: Database) -> None:
    tid = await new_table(db)
    await db.tables.save_move(
        tid, 0, match_json="{}", hand_json=None, status=TableStatus.FINISHED, move=None
    )
    assert await db.tables.active_table(CHAT) is None
    with pytest.raises(TableClosed):
        await db.tables.save_move(
            tid, 1, match_json="{}", hand_json=None, status=TableStatus.PLAYING, move=None
        )
    with pytest.raises(TableNotFound):
        await db.tables.save_move(
            404, 0, match_json="{}", hand_json=None, status=TableStatus.PLAYING, move=None
        )


async def test_engine_snapshots_round_trip(db: Database) -> None:
    """What the bot stores: Match.to_dict() and HandState.to_dict() as JSON."""
    match = Match(Options.parse("chiamata", {}), 11)
    hand = match.deal()
    tid = await new_table(db)
    no = 0
    for _ in range(4):
        seat = hand.current
        action = hand.legal_actions()[0]
        hand.apply(action, seat)
        no = await db.tables.save_move(
            tid,
            no,
            match_json=json.dumps(match.to_dict()),
            hand_json=json.dumps(hand.to_dict()),
            status=TableStatus.PLAYING,
            move=Move(hand.hand_index, seat, action),
        )
    row = await db.tables.get_table(tid)
    assert row is not None
    assert Match.from_dict(row.match) == match
    assert HandState.from_dict(row.hand) == hand


async def test_unfinished_tables_for_restore(any_url: str) -> None:
    async with await Database.open(any_url) as db:
        lobby = await new_table(db, 1)
        playing = await new_table(db, 2)
        await db.tables.save_move(
            playing, 0, match_json="{}", hand_json="{}", status=TableStatus.PLAYING, move=None
        )
        done = await new_table(db, 3)
        await db.tables.update_lobby(done, status=TableStatus.FINISHED)
        gone = await new_table(db, 4)
        await db.tables.update_lobby(gone, status=TableStatus.CANCELLED)
    async with await Database.open(any_url) as db:  # after a restart
        rows = await db.tables.unfinished_tables()
    assert [(r.table_id, r.status) for r in rows] == [(lobby, "lobby"), (playing, "playing")]


async def test_file_database_keeps_data_when_reopened(any_url: str) -> None:
    async with await Database.open(any_url) as db:
        tid = await new_table(db)
        await db.tables.save_move(
            tid,
            0,
            match_json='{"x": 1}',
            hand_json="{}",
            status=TableStatus.PLAYING,
            move=Move(0, 1, 3, 2),
        )
        await db.messages.set_private_message(tid, 2, 2, 77)
        await db.people.upsert_user(2, "Bruno", "en", True)
        await db.people.set_chat_lang(CHAT, "en")
        await db.ledger.record_ledger(CHAT, "k1", tid, "due", {1: 1, 2: -1}, {1: "A", 2: "B"}, T0)
        before = (await db.tables.get_table(tid), await db.tables.moves(tid))
    async with await Database.open(any_url) as db:
        assert (await db.tables.get_table(tid), await db.tables.moves(tid)) == before
        assert await db.messages.private_messages(tid) == [PrivateMessage(tid, 2, 2, 77)]
        user = await db.people.get_user(2)
        assert user is not None and (user.name, user.lang, user.can_dm) == ("Bruno", "en", True)
        assert await db.people.chat_lang(CHAT) == "en"
        assert [b.balance for b in await db.ledger.balances(CHAT)] == [1, -1]


# ---------------------------------------------------------------------- messages, users, chats


async def test_private_messages_upsert(db: Database) -> None:
    tid = await new_table(db)
    await db.messages.set_private_message(tid, 2, 2, 10)
    await db.messages.set_private_message(tid, 1, 1, 11)
    await db.messages.set_private_message(tid, 2, 2, 12)  # the hand was re-sent
    assert await db.messages.private_messages(tid) == [
        PrivateMessage(tid, 1, 1, 11),
        PrivateMessage(tid, 2, 2, 12),
    ]
    with pytest.raises(Conflict):  # foreign key: the table must exist
        await db.messages.set_private_message(999, 1, 1, 1)


async def test_users_upsert_keeps_unspecified_fields(db: Database) -> None:
    assert await db.people.get_user(5) is None
    await db.people.upsert_user(5, "Carla")
    u = await db.people.get_user(5)
    assert u is not None and (u.name, u.lang, u.can_dm) == ("Carla", None, False)
    await db.people.upsert_user(5, "Carla", lang="it", can_dm=True)
    await db.people.upsert_user(5, "Carla B.")
    u = await db.people.get_user(5)
    assert u is not None and (u.name, u.lang, u.can_dm) == ("Carla B.", "it", True)
    await db.people.upsert_user(5, "Carla B.", can_dm=False)
    u = await db.people.get_user(5)
    assert u is not None and (u.lang, u.can_dm) == ("it", False)


async def test_chat_language(db: Database) -> None:
    assert await db.people.chat_lang(CHAT) is None
    await db.people.set_chat_lang(CHAT, "en")
    await db.people.set_chat_lang(CHAT, "it")
    assert await db.people.chat_lang(CHAT) == "it"
    assert await db.people.league_epoch(CHAT) == 0


# ---------------------------------------------------------------------- ledger (RULES §10)


async def test_ledger_rejects_non_zero_sum(db: Database) -> None:
    """RULES §10.1-10.2: every ledger write sums to zero; otherwise nothing is written."""
    with pytest.raises(LedgerNotZeroSum):
        await db.ledger.record_ledger(CHAT, "k", None, "due", {1: 1, 2: 0}, {1: "A", 2: "B"}, T0)
    assert await db.ledger.ledger_hands(CHAT) == []
    assert await db.ledger.balances(CHAT) == []
    with pytest.raises(ValueError):  # a missing name
        await db.ledger.record_ledger(CHAT, "k", None, "due", {1: 1, 2: -1}, {1: "A"}, T0)
    with pytest.raises(ValueError):  # a naive timestamp
        await db.ledger.record_ledger(
            CHAT, "k", None, "due", {1: 1, 2: -1}, {1: "A", 2: "B"}, T0.replace(tzinfo=None)
        )
    assert await db.ledger.ledger_hands(CHAT) == []


async def test_ledger_hand_written_once(db: Database) -> None:
    """RULES §10.1: a hand's score changes are written once; a retry is a no-op."""
    names = {1: "A", 2: "B"}
    assert await db.ledger.record_ledger(CHAT, "t1:h0", 1, "due", {1: 1, 2: -1}, names, T0)
    assert not await db.ledger.record_ledger(CHAT, "t1:h0", 1, "due", {1: -1, 2: 1}, names, T0)
    assert [(b.user_id, b.balance) for b in await db.ledger.balances(CHAT)] == [(1, 1), (2, -1)]
    await db.ledger.new_league(CHAT)  # not even in a later league
    assert not await db.ledger.record_ledger(CHAT, "t1:h0", 1, "due", {1: 1, 2: -1}, names, T0)
    assert await db.ledger.balances(CHAT) == []


async def test_ledger_concurrent_double_write(db: Database) -> None:
    """RULES §10.1: concurrent attempts at the same hand write it exactly once."""
    deltas = {1: 2, 2: -1, 3: -1}
    names = {1: "A", 2: "B", 3: "C"}
    results = await asyncio.gather(
        *(
            db.ledger.record_ledger(CHAT, "t9:h3", 9, "chiamata", deltas, names, T0)
            for _ in range(10)
        )
    )
    assert sorted(results) == [False] * 9 + [True]
    hands = await db.ledger.ledger_hands(CHAT)
    assert len(hands) == 1 and hands[0].deltas == deltas
    assert sum(b.balance for b in await db.ledger.balances(CHAT)) == 0


async def test_ledger_concurrent_double_write_two_connections(any_url: str) -> None:
    """Two connections (e.g. two bot processes) racing on one hand: written once."""
    a, b = await Database.open(any_url), await Database.open(any_url)
    try:
        results = await asyncio.gather(
            *(
                d.ledger.record_ledger(CHAT, "k", None, "due", {1: 1, 2: -1}, {1: "A", 2: "B"}, T0)
                for d in (a, b, a, b)
            )
        )
        assert sorted(results) == [False, False, False, True]
    finally:
        await a.close()
        await b.close()


async def test_epochs_keep_old_leagues(db: Database) -> None:
    """RULES §10.4: a reset starts a new epoch; old entries stay readable, nothing deleted."""
    names = {1: "A", 2: "B", 3: "C"}
    await db.ledger.record_ledger(CHAT, "a", 1, "due", {1: 1, 2: -1}, names, T0)
    await db.ledger.record_ledger(
        CHAT, "b", 1, "due", {1: 1, 3: -1}, names, T0 + timedelta(minutes=5)
    )
    assert await db.ledger.new_league(CHAT) == 1
    assert await db.people.league_epoch(CHAT) == 1
    assert await db.ledger.balances(CHAT) == []
    assert await db.ledger.record_ledger(
        CHAT, "c", 2, "due", {2: 1, 3: -1}, names, T0 + timedelta(hours=1)
    )
    assert [(b.user_id, b.balance) for b in await db.ledger.balances(CHAT)] == [(2, 1), (3, -1)]
    assert [(b.user_id, b.balance) for b in await db.ledger.balances(CHAT, epoch=0)] == [
        (1, 2),
        (2, -1),
        (3, -1),
    ]
    old = await db.ledger.ledger_hands(CHAT, epoch=0)
    assert [(h.hand_key, h.epoch) for h in old] == [("a", 0), ("b", 0)]
    assert [h.hand_key for h in await db.ledger.ledger_hands(CHAT)] == ["c"]
    assert await db.ledger.new_league(CHAT) == 2
    assert await db.ledger.new_league(CHAT + 5) == 1  # a chat never seen starts at 0


async def test_balances_sorted_with_latest_names(db: Database) -> None:
    """RULES §10.3: balances of the current league, highest first."""
    await db.ledger.record_ledger(
        CHAT,
        "h1",
        None,
        "chiamata",
        {1: 4, 2: -1, 3: -1, 4: -1, 5: -1},
        {1: "Eva", 2: "Dario", 3: "Ciro", 4: "Bea", 5: "Aldo"},
        T0,
    )
    await db.ledger.record_ledger(
        CHAT,
        "h2",
        None,
        "due",
        {4: 1, 5: -1},
        {4: "Beatrice", 5: "Aldo"},
        T0 + timedelta(seconds=1),
    )
    await db.ledger.record_ledger(
        CHAT, "h0", None, "due", {2: 1, 3: -1}, {2: "Dario", 3: "Ciro Old"}, T0 - timedelta(days=1)
    )
    assert await db.ledger.balances(CHAT) == [
        Balance(1, "Eva", 4),
        Balance(4, "Beatrice", 0),  # the name in the latest entry; ties sorted by name
        Balance(2, "Dario", 0),
        Balance(5, "Aldo", -2),
        Balance(3, "Ciro", -2),  # "Ciro Old" came from an earlier hand
    ]
    await db.people.upsert_user(5, "Aldo R.")  # a known user's current name wins
    assert (await db.ledger.balances(CHAT))[-2] == Balance(5, "Aldo R.", -2)
    hands = await db.ledger.ledger_hands(CHAT)
    assert [h.hand_key for h in hands] == ["h0", "h1", "h2"]  # by finished_at
    assert hands[1].deltas == {1: 4, 2: -1, 3: -1, 4: -1, 5: -1}
    assert hands[1].names[4] == "Bea" and hands[1].variant == "chiamata"
    assert hands[1].finished_at == T0 and hands[1].finished_at.tzinfo is not None
    assert await db.ledger.balances(CHAT + 1) == []


async def test_save_move_writes_the_ledger_atomically(db: Database) -> None:
    """RULES §10.1: the final move and its ledger entries commit together."""
    tid = await new_table(db)
    rec = LedgerRecord(CHAT, f"t{tid}:match", tid, "due", {1: 1, 2: -1}, {1: "A", 2: "B"}, T0)
    bad = LedgerRecord(CHAT, f"t{tid}:match", tid, "due", {1: 1, 2: 0}, {1: "A", 2: "B"}, T0)

    async def final_move(ledger: LedgerRecord) -> int:
        """The match's last move, with `ledger` as its entries."""
        return await db.tables.save_move(
            tid,
            0,
            match_json="{}",
            hand_json="{}",
            status=TableStatus.FINISHED,
            move=Move(0, 0, 1),
            ledger=ledger,
        )

    with pytest.raises(LedgerNotZeroSum):
        await final_move(bad)
    assert (await db.tables.get_table(tid)).status == "lobby"  # type: ignore[union-attr]
    assert await db.tables.moves(tid) == []
    await final_move(rec)
    assert [h.hand_key for h in await db.ledger.ledger_hands(CHAT)] == [f"t{tid}:match"]
    assert (await db.tables.get_table(tid)).status == "finished"  # type: ignore[union-attr]


async def test_ledger_cannot_be_rewritten(any_url: str) -> None:
    """RULES §10.4: nothing is ever deleted silently (enforced by triggers)."""
    async with await Database.open(any_url) as db:
        await db.ledger.record_ledger(CHAT, "k", None, "due", {1: 1, 2: -1}, {1: "A", 2: "B"}, T0)
    for sql in (
        "DELETE FROM ledger_entries",
        "UPDATE ledger_entries SET delta = 0",
        "DELETE FROM ledger_hands",
        "UPDATE ledger_hands SET epoch = 9",
    ):
        with pytest.raises(RAW_CONFLICT, match="append-only"):
            await raw_sql(any_url, sql)


zero_sum_hand = st.lists(st.integers(-9, 9), min_size=1, max_size=5).map(lambda xs: [*xs, -sum(xs)])


@settings(max_examples=25, deadline=None)
@given(hands=st.lists(zero_sum_hand, min_size=1, max_size=8))
def test_random_ledger_balances_sum_to_zero(hands: list[list[int]]) -> None:
    """RULES §10.1-10.3: a ledger built from zero-sum hands has zero-sum balances, and
    settle() clears them."""

    async def run() -> None:
        async with await Database.open("sqlite:///:memory:") as db:
            for k, deltas in enumerate(hands):
                by_user: dict[int, int] = {}
                for seat, d in enumerate(deltas):  # user ids reused across hands
                    by_user[(seat * 7 + k) % 6] = by_user.get((seat * 7 + k) % 6, 0) + d
                names = {u: f"u{u}" for u in by_user}
                await db.ledger.record_ledger(CHAT, f"h{k}", None, "x", by_user, names, T0)
            balances = await db.ledger.balances(CHAT)
            assert sum(b.balance for b in balances) == 0
            left = {b.user_id: b.balance for b in balances}
            for debtor, creditor, amount in settle(left):
                left[debtor] += amount
                left[creditor] -= amount
            assert set(left.values()) <= {0}

    asyncio.run(run())


# ---------------------------------------------------------------------- export CLI


def export_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_export_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["export", *argv])


async def fill_ledger(url: str) -> None:
    async with await Database.open(url) as db:
        await db.ledger.record_ledger(
            CHAT, "t1:match", 1, "due", {1: 1, 2: -1}, {1: "Anna", 2: "Bo"}, T0
        )


def test_export_json_and_csv(any_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    asyncio.run(fill_ledger(any_url))
    assert main_export(export_args("--chat", str(CHAT), "--database", any_url)) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == {
        "chat_id": CHAT,
        "balances": [
            {"user_id": 1, "name": "Anna", "balance": 1},
            {"user_id": 2, "name": "Bo", "balance": -1},
        ],
        "hands": [
            {
                "finished_at": "2024-05-01T20:00:00+00:00",
                "variant": "due",
                "deltas": {"1": 1, "2": -1},
                "hand_key": "t1:match",
                "table_id": 1,
            }
        ],
    }
    assert (
        main_export(export_args("--chat", str(CHAT), "--format", "csv", "--database", any_url)) == 0
    )
    assert capsys.readouterr().out.splitlines() == [
        "finished_at,hand_key,variant,user_id,name,delta",
        "2024-05-01T20:00:00+00:00,t1:match,due,1,Anna,1",
        "2024-05-01T20:00:00+00:00,t1:match,due,2,Bo,-1",
    ]


def test_export_uses_the_database_url_setting(
    any_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    asyncio.run(fill_ledger(any_url))
    monkeypatch.setenv("DATABASE_URL", any_url)
    assert main_export(export_args("--chat", str(CHAT), "--format", "csv")) == 0
    assert "t1:match" in capsys.readouterr().out


@pytest.mark.parametrize("chat", ["abc", "12x", "", "1.5", "--"])
def test_export_bad_chat_id(db_url: str, chat: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main_export(argparse.Namespace(chat=chat, format="json", database=db_url, epoch=None)) == 2
    )
    assert "chat id" in capsys.readouterr().err


def test_export_unknown_chat_or_missing_database(
    any_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    asyncio.run(fill_ledger(any_url))
    assert main_export(export_args("--chat", "42", "--database", any_url)) == 2
    assert "chat 42 is not in the database" in capsys.readouterr().err
    missing = f"sqlite:///{tmp_path / 'nope.db'}"
    assert main_export(export_args("--chat", "42", "--database", missing)) == 2
    assert "no database file" in capsys.readouterr().err
    assert not (tmp_path / "nope.db").exists()
    assert main_export(export_args("--chat", "42", "--database", "mysql://x")) == 2
    assert "not a database URL" in capsys.readouterr().err


async def test_closed_tables_since_lists_only_recently_ended_tables(db: Database) -> None:
    """After a crash right after a match's last move, the bot re-sends the final message of
    tables that ended recently; active tables are not in that list, nor older ones."""
    from datetime import UTC, datetime, timedelta

    active = await new_table(db, CHAT)
    ended = await new_table(db, CHAT + 1)
    await db.tables.save_move(
        ended, 0, match_json="{}", hand_json="{}", status=TableStatus.FINISHED, move=None
    )
    cancelled = await new_table(db, CHAT + 2)
    await db.tables.update_lobby(cancelled, status=TableStatus.CANCELLED)
    recent = await db.tables.closed_tables_since(datetime.now(UTC) - timedelta(minutes=5))
    assert [r.table_id for r in recent] == [ended, cancelled]
    assert active not in [r.table_id for r in recent]
    assert await db.tables.closed_tables_since(datetime.now(UTC) + timedelta(minutes=5)) == []


async def test_shown_messages_remember_the_newest_digest(db: Database) -> None:
    assert await db.messages.shown(-100, 7) is None
    await db.messages.write_notes(shown=[(-100, 7, "aa")])
    await db.messages.write_notes(
        shown=[(-100, 7, "bb"), (42, 7, "cc")]
    )  # another chat's message 7
    assert await db.messages.shown(-100, 7) == "bb"
    assert await db.messages.shown(42, 7) == "cc"


async def test_a_message_being_edited_has_no_trusted_digest(db: Database) -> None:
    """An edit is noted before it is made and confirmed after: in between (a crash there),
    the message may show the old content or the new, so no digest is trusted for it."""
    await db.messages.write_notes(shown=[(-100, 7, "old")])
    await db.messages.write_notes(editing=[(-100, 7, "new")])
    assert await db.messages.shown(-100, 7) is None
    assert await db.messages.shown_many([(-100, 7)]) == {}
    await db.messages.write_notes(shown=[(-100, 7, "new")])  # confirmed
    assert await db.messages.shown(-100, 7) == "new"
    # confirmed and the next edit noted in one write: the edit comes after, so it counts
    await db.messages.write_notes(shown=[(-100, 7, "new")], editing=[(-100, 7, "newer")])
    assert await db.messages.shown(-100, 7) is None
    await db.messages.write_notes(editing=[(-100, 8, "first")])  # a message never noted before
    assert await db.messages.shown(-100, 8) is None
    # what was noted all the same: both contents the message may show
    states = await db.messages.shown_states([(-100, 7), (-100, 8), (-100, 9)])
    assert states == {(-100, 7): Shown("new", "newer"), (-100, 8): Shown("", "first")}


async def test_notes_write_an_edit_before_it_is_made(db: Database) -> None:
    """`Notes.editing` returns once the edit is written, together with the confirmations
    noted before it; a later confirmation clears it."""
    from bot.telegram.notes import Notes

    notes = Notes(db, interval=60.0)  # confirmations alone would wait a minute
    notes.shown(-100, 7, "aa")
    await asyncio.wait_for(notes.editing(-100, 9, "bb"), 5)
    assert await db.messages.shown(-100, 7) == "aa"  # written with the edit, not a minute later
    assert await db.messages.shown(-100, 9) is None
    notes.shown(-100, 9, "bb")
    await notes.close()
    assert await db.messages.shown(-100, 9) == "bb"


async def test_group_calls_are_noted_and_old_ones_pruned(db: Database) -> None:
    for k in range(600):  # a prune runs every 500 notes and drops what is over 5 minutes old
        await db.messages.write_notes(group_calls=[(-100 - k % 2, 1000.0 + k)])
    recent = await db.messages.recent_group_calls(1590.0)
    assert recent == {
        -100: [1590.0, 1592.0, 1594.0, 1596.0, 1598.0],
        -101: [1591.0, 1593.0, 1595.0, 1597.0, 1599.0],
    }
    everything = await db.messages.recent_group_calls(0.0)
    assert min(min(v) for v in everything.values()) >= 1499.0 - 300.0


async def test_a_groups_call_is_claimed_only_while_its_window_has_room(any_url: str) -> None:
    """Every worker claims a place in a group's window before calling about it: two
    databases (two workers) on one store, claiming at once, never take more places than the
    room, and each learns the calls the other made."""
    first, second = await Database.open(any_url), await Database.open(any_url)
    try:
        at = 1000.0
        claims = await asyncio.gather(
            *(
                (first if k % 2 else second).messages.claim_group_call(
                    -100, at + k * 0.001, 3, 60.0
                )
                for k in range(8)
            )
        )
        assert sum(ok for ok, _ in claims) == 3
        assert sorted(len(times) for ok, times in claims if ok) == [1, 2, 3]
        for ok, times in claims:
            assert times == sorted(times) and (ok or len(times) == 3)
        # another group, and the first group once its oldest call is a period old
        assert (await first.messages.claim_group_call(-101, at, 3, 60.0))[0]
        claimed = max((times for ok, times in claims if ok), key=len)
        later = claimed[0] + 60.0005  # the oldest claimed has left the window, not the others
        ok, times = await second.messages.claim_group_call(-100, later, 3, 60.0)
        assert ok and times == [*claimed[1:], later]
        assert await first.messages.group_calls_of(-100, claimed[0]) == times
        # the claims are the notes a restarted worker starts from
        assert len((await first.messages.recent_group_calls(0.0))[-100]) == 4
    finally:
        await first.close()
        await second.close()


async def test_a_persons_move_goes_before_the_bots_own_writes() -> None:
    """The database lock hands over by priority: a waiting person's move (URGENT) goes
    before writes that came earlier, and a cancelled waiter does not block the rest."""
    from storage.backend import BACKGROUND, NORMAL, URGENT
    from storage.sqlite import PriorityLock

    lock, order = PriorityLock(), []
    queued = [asyncio.Event() for _ in range(4)]

    async def take(name: str, priority: int, queued: asyncio.Event) -> None:
        # `hold` queues before its first wait: the event is seen only once this one waits
        queued.set()
        async with lock.hold(priority):
            order.append(name)
            await asyncio.sleep(0.001)

    async with lock.hold(NORMAL):
        tasks = [
            asyncio.create_task(take(name, priority, event))
            for (name, priority), event in zip(
                [("notes", BACKGROUND), ("computer", NORMAL), ("gone", URGENT), ("person", URGENT)],
                queued,
                strict=True,
            )
        ]
        await asyncio.gather(*(event.wait() for event in queued))
        tasks[2].cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    assert order == ["person", "computer", "notes"]


async def test_a_chats_active_table_is_found_by_the_partial_index(db_url: str) -> None:
    """The active-status condition is written as literals from `TableStatus`, so SQLite can
    use the partial index of one active table per chat (bound parameters would not)."""
    from storage.db import _ACTIVE_SQL

    db = await Database.open(db_url)
    await db.close()
    conn = sqlite3.connect(db_url.removeprefix("sqlite:///"))
    try:
        plan = conn.execute(
            f"EXPLAIN QUERY PLAN SELECT * FROM tables WHERE chat_id = ? AND {_ACTIVE_SQL}", (1,)
        ).fetchall()
    finally:
        conn.close()
    assert any("tables_one_active_per_chat" in str(row) for row in plan), plan


async def test_a_webhook_update_is_claimed_once_and_a_dead_claim_is_taken_over(
    db: Database,
) -> None:
    """Issue 15: a delivered update is applied by one process; a second delivery meanwhile
    is told BUSY, one after it DONE; a claim older than the lease (its process died) is
    taken over; done updates older than a day are forgotten."""
    t = 1_000_000.0
    assert await db.updates.claim_update(7, t, lease=30) is UpdateClaim.NEW
    assert await db.updates.claim_update(7, t + 1, lease=30) is UpdateClaim.BUSY
    await db.updates.finish_update(7, t + 2)
    assert await db.updates.claim_update(7, t + 3, lease=30) is UpdateClaim.DONE
    assert await db.updates.claim_update(8, t + 3, lease=30) is UpdateClaim.NEW  # then it dies
    assert await db.updates.claim_update(8, t + 20, lease=30) is UpdateClaim.BUSY
    assert await db.updates.claim_update(8, t + 34, lease=30) is UpdateClaim.NEW
    assert await db.updates.claim_update(8, t + 35, lease=30) is UpdateClaim.BUSY  # the new claim
    await db.updates.finish_update(9, t + 86_400 + 10)  # a day later: 7 is forgotten
    assert await db.updates.claim_update(7, t + 86_400 + 11, lease=30) is UpdateClaim.NEW


async def test_a_renewed_claim_holds_past_its_lease_and_ends_soon_after_it_stops(
    db: Database,
) -> None:
    """Issue 39 §4: a short lease, renewed while the update is handled: a long handling
    keeps its update, and a process that died leaves it after one lease, not 30 s."""
    t = 2_000_000.0
    every = RENEW_EVERY  # the webhook's own lease and renewal (bot.telegram.webhook)
    assert await db.updates.claim_update(5, t, lease=LEASE) is UpdateClaim.NEW
    for k in range(1, 6):  # handled past its lease, renewed all along
        await db.updates.renew_update(5, t + every * k)
        assert await db.updates.claim_update(5, t + every * (k + 0.5), lease=LEASE) is (
            UpdateClaim.BUSY
        )
    # it dies after the last renewal: taken over once the lease is over
    last = t + every * 5
    assert await db.updates.claim_update(5, last + 0.8 * LEASE, lease=LEASE) is UpdateClaim.BUSY
    assert await db.updates.claim_update(5, last + 1.1 * LEASE, lease=LEASE) is UpdateClaim.NEW
    await db.updates.finish_update(5, last + 1.2 * LEASE)
    await db.updates.renew_update(5, t + 18)  # a late renewal does not bring a done update back
    assert await db.updates.claim_update(5, t + 19, lease=6) is UpdateClaim.DONE


# ---------------------------------------------------------------------- PostgreSQL (issue 15)


def test_placeholders_become_numbered_outside_quotes() -> None:
    from storage.postgres import dollar_params

    assert dollar_params("SELECT ? , '?' , \"a?\" , ?") == "SELECT $1 , '?' , \"a?\" , $2"
    assert dollar_params("UPDATE t SET a = ?, b = ? WHERE c = ?") == (
        "UPDATE t SET a = $1, b = $2 WHERE c = $3"
    )


# ---------------------------------------------------------------- message locks (issue 15)


async def test_message_locks_exclude_across_workers_and_do_not_run_out(any_url: str) -> None:
    """`TableStore.message_lock`: the lock a table's message is sent under, across workers
    sharing the database (two `Database`s stand for two processes). Many messages can wait
    for Telegram under their locks at once (200 tables' messages do), one message's lock is
    held by one holder at a time, within a process as across, and a waiter given up on
    leaves the lock free."""
    a, b = await Database.open(any_url), await Database.open(any_url)
    try:
        held, release = 0, asyncio.Event()

        async def wait_for_telegram(db: Database, table: int, user: int) -> None:
            nonlocal held
            async with db.tables.message_lock(table, user):
                held += 1
                await release.wait()

        many = [asyncio.create_task(wait_for_telegram((a, b)[i % 2], 1, i)) for i in range(40)]
        try:
            async with asyncio.timeout(10):  # all of them hold their locks at once
                while held < len(many):
                    await asyncio.sleep(0.01)
        finally:
            release.set()
            await asyncio.gather(*many)

        inside, most = 0, 0

        async def send(db: Database) -> None:
            nonlocal inside, most
            for _ in range(4):
                async with db.tables.message_lock(2, 7):
                    inside += 1
                    most = max(most, inside)
                    await asyncio.sleep(0.005)
                    inside -= 1

        await asyncio.gather(*(send(db) for db in (a, a, b, b)))
        assert most == 1

        async with a.tables.message_lock(3, 0):
            waiter = asyncio.create_task(wait_for_telegram(b, 3, 0))  # table 3's group message
            await asyncio.sleep(0.1)
            assert not waiter.done()  # it waits for a's hold
            waiter.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await waiter
        async with asyncio.timeout(5), b.tables.message_lock(3, 0):
            pass  # free again, in either process
        async with asyncio.timeout(5), a.tables.message_lock(3, 0):
            pass
    finally:
        await a.close()
        await b.close()


async def test_a_dead_workers_message_locks_are_let_go_at_once(tmp_path: Path) -> None:
    """PostgreSQL: a worker killed while sending holds its message locks no longer than its
    connection to the server lives (its lock connection closed stands for the kill)."""
    url = fresh_url("postgresql", tmp_path)
    a, b = await Database.open(url), await Database.open(url)
    try:
        entered = asyncio.Event()

        async def hold_forever() -> None:
            async with a.tables.message_lock(4, 9):
                entered.set()
                await asyncio.Event().wait()

        dying = asyncio.create_task(hold_forever())
        await asyncio.wait_for(entered.wait(), 5)
        taken = asyncio.Event()

        async def take_over() -> None:
            async with b.tables.message_lock(4, 9):
                taken.set()

        taker = asyncio.create_task(take_over())
        await asyncio.sleep(0.1)
        assert not taken.is_set()  # a holds it
        await cast(PostgresBackend, a.backend)._locker.close()  # a's process dies
        await asyncio.wait_for(taken.wait(), 5)  # b takes it at once (well within 5 s)
        await taker
        dying.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await dying
    finally:
        await a.close()
        await b.close()

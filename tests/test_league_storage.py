"""Storage of the ledger from the chat (issue 14, RULES §10): migration V5 on a database made
by the V4 schema, seasons (§10.4), undo as a compensating entry with an audit row, payments
(§10.3) written once, the trail append-only."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import aiosqlite
import pytest

from bench.rig.backends import RAW_CONFLICT, raw_rows, raw_sql
from storage import MIGRATIONS, SCHEMA_VERSION, Database, migrate, schema_version, sqlite_path
from storage.league import ALREADY, DONE, STALE, payment_key, undo_key
from storage.tournaments import NewFixture, TournamentMatch
from tests.support.old_schema import old_group, old_hand

CHAT = -100500
T0 = datetime(2026, 11, 1, 20, 0, tzinfo=UTC)
ANA, BEA, CIRO, DARIO = 1, 2, 3, 4
NAMES = {ANA: "Ana", BEA: "Bea <b>", CIRO: "Ciro", DARIO: "Dario"}


@pytest.fixture
async def db(any_url: str) -> AsyncIterator[Database]:
    """A fresh database on each backend in turn (issue 15)."""
    database = await Database.open(any_url)
    yield database
    await database.close()


async def game(db: Database, key: str, deltas: dict[int, int], minutes: int = 0) -> None:
    names = {u: NAMES[u] for u in deltas}
    when = T0 + timedelta(minutes=minutes)
    assert await db.ledger.record_ledger(CHAT, key, 7, "due", deltas, names, when)


async def sums_to_zero(url: str) -> None:
    """Every stored write sums to zero (§10.1), in every epoch."""
    rows = await raw_rows(
        url, "SELECT hand_key, SUM(delta) FROM ledger_entries GROUP BY chat_id, hand_key"
    )
    assert rows and all(total == 0 for _, total in rows), rows


async def test_s10_4_a_v4_database_migrates_and_everything_still_reads(tmp_path: Path) -> None:
    """A database made by the V4 schema, with a table, a user and two ledger writes in two
    epochs, is migrated on open: the rows read as before, the old writes are games, and the
    new season, undo and payment work on them."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    async with aiosqlite.connect(sqlite_path(url), isolation_level=None) as conn:
        assert await migrate(conn, MIGRATIONS[:4]) == [1, 2, 3, 4]
        now = T0.isoformat()
        await old_group(conn, CHAT, 1, (ANA, "Ana B."), now)
        for epoch, key, deltas in ((0, "t1:match", {ANA: 1, BEA: -1}), (1, "t2:match", {})):
            await old_hand(conn, CHAT, epoch, key, deltas or {ANA: -1, BEA: 1}, NAMES, now)
        assert await schema_version(conn) == 4

    async with await Database.open(url) as db:
        async with aiosqlite.connect(sqlite_path(url)) as conn:
            assert await schema_version(conn) == SCHEMA_VERSION
        assert await db.people.league_epoch(CHAT) == 1
        assert await db.people.chat_lang(CHAT) == "en"
        assert (await db.tables.get_table(1)) is not None
        assert [(b.user_id, b.name, b.balance) for b in await db.ledger.balances(CHAT, 0)] == [
            (ANA, "Ana B.", 1),
            (BEA, "Bea <b>", -1),
        ]
        assert [h.hand_key for h in await db.ledger.ledger_hands(CHAT)] == ["t2:match"]
        (old,) = await db.ledger.season_entries(CHAT, 0)
        assert (old.kind, old.hand_key, old.deltas, old.undone_by) == (
            "game",
            "t1:match",
            {ANA: 1, BEA: -1},
            None,
        )
        assert await db.ledger.ledger_audit(CHAT, 0) == []
        # the new things work on the old rows
        (current,) = await db.ledger.season_entries(CHAT)
        outcome, undo = await db.ledger.undo_entry(CHAT, current.hand_id, ANA, "Ana", T0)
        assert outcome == DONE and undo is not None and undo.deltas == {ANA: 1, BEA: -1}
        assert {b.balance for b in await db.ledger.balances(CHAT)} == {0}
        assert await db.ledger.new_season(CHAT, 1, ANA, "Ana", T0) == 2
        await sums_to_zero(url)


async def test_s10_4_a_new_season_only_from_the_season_shown(db: Database) -> None:
    await game(db, "t1:match", {ANA: 1, BEA: -1})
    assert await db.ledger.new_season(CHAT, 0, ANA, "Ana", T0) == 1
    assert await db.ledger.new_season(CHAT, 0, ANA, "Ana", T0) is None  # a second tap: nothing
    assert await db.people.league_epoch(CHAT) == 1
    assert await db.ledger.balances(CHAT) == []
    assert [b.balance for b in await db.ledger.balances(CHAT, 0)] == [1, -1]  # archived, readable
    (row,) = await db.ledger.ledger_audit(CHAT)
    assert (row.action, row.epoch, row.actor_id, row.hand_key, row.at) == (
        "season",
        1,
        ANA,
        None,
        T0,
    )


async def test_undo_is_a_compensating_entry_once_and_only_of_the_last(
    db: Database, any_url: str
) -> None:
    """The last entry standing is undone by its negation (zero-sum), with an audit row; it
    cannot be undone twice, an older one not before it, and an undo is never undone: the
    next /undo goes one entry further back."""
    await game(db, "t1:h0", {ANA: 2, BEA: -1, CIRO: -1})
    await game(db, "t1:h1", {ANA: -2, BEA: 1, CIRO: 1}, minutes=5)
    first, second = await db.ledger.season_entries(CHAT)
    last = await db.ledger.last_undoable(CHAT)
    assert last is not None and last.hand_key == "t1:h1"
    assert await db.ledger.undo_entry(CHAT, first.hand_id, BEA, "Bea", T0) == (STALE, None)
    outcome, undo = await db.ledger.undo_entry(CHAT, second.hand_id, BEA, "Bea", T0)
    assert outcome == DONE and undo is not None
    assert (undo.kind, undo.hand_key, undo.deltas) == (
        "undo",
        undo_key("t1:h1"),
        {ANA: 2, BEA: -1, CIRO: -1},
    )
    outcome, again = await db.ledger.undo_entry(CHAT, second.hand_id, BEA, "Bea", T0)
    assert outcome == ALREADY and again is not None and again.hand_key == "t1:h1"
    assert await db.ledger.undo_entry(CHAT, undo.hand_id, BEA, "Bea", T0) == (STALE, None)
    entries = await db.ledger.season_entries(CHAT)
    assert [(e.hand_key, e.undone_by) for e in entries] == [
        ("t1:h0", None),
        ("t1:h1", undo_key("t1:h1")),
        (undo_key("t1:h1"), None),
    ]
    last = await db.ledger.last_undoable(CHAT)
    assert last is not None and last.hand_key == "t1:h0"
    (row,) = await db.ledger.ledger_audit(CHAT)
    assert (row.action, row.hand_key, row.target_key, row.actor_id, row.actor_name) == (
        "undo",
        undo_key("t1:h1"),
        "t1:h1",
        BEA,
        "Bea",
    )
    assert {b.user_id: b.balance for b in await db.ledger.balances(CHAT)} == {
        ANA: 2,
        BEA: -1,
        CIRO: -1,
    }
    await sums_to_zero(any_url)
    # the trail is append-only, as the ledger
    for sql in (
        "UPDATE ledger_audit SET actor_id = 0",
        "DELETE FROM ledger_audit",
        "DELETE FROM ledger_hands",
    ):
        with pytest.raises(RAW_CONFLICT, match="append-only"):
            await raw_sql(any_url, sql)
    # nothing left in another season: nothing to undo there
    await db.ledger.new_season(CHAT, 0, ANA, "Ana", T0)
    assert await db.ledger.last_undoable(CHAT) is None
    assert await db.ledger.undo_entry(CHAT, first.hand_id, BEA, "Bea", T0) == (STALE, None)


async def test_s10_3_a_payment_is_an_entry_written_once_while_the_settlement_stands(
    db: Database, any_url: str
) -> None:
    await game(db, "t1:h0", {ANA: 2, BEA: -1, CIRO: -1})
    version = await db.ledger.ledger_version(CHAT)
    assert await db.ledger.balances_at(CHAT, 0, version) == {ANA: 2, BEA: -1, CIRO: -1}
    names = {ANA: "Ana", BEA: "Bea", CIRO: "Ciro"}
    done = await db.ledger.record_payment(CHAT, 0, version, (BEA, ANA, 1), names, BEA, "Bea", T0)
    assert done == DONE
    again = await db.ledger.record_payment(CHAT, 0, version, (BEA, ANA, 1), names, ANA, "Ana", T0)
    assert again == ALREADY
    # the same settlement's other payment still stands
    assert (
        await db.ledger.record_payment(CHAT, 0, version, (CIRO, ANA, 1), names, ANA, "Ana", T0)
        == DONE
    )
    assert {b.balance for b in await db.ledger.balances(CHAT)} == {0}
    assert await db.ledger.balances_at(CHAT, 0, version) == {ANA: 2, BEA: -1, CIRO: -1}
    entries = await db.ledger.season_entries(CHAT)
    assert [(e.kind, e.hand_key, e.deltas) for e in entries[1:]] == [
        ("payment", payment_key(0, version, BEA, ANA), {BEA: 1, ANA: -1}),
        ("payment", payment_key(0, version, CIRO, ANA), {CIRO: 1, ANA: -1}),
    ]
    trail = await db.ledger.ledger_audit(CHAT)
    assert [(a.action, a.actor_id) for a in trail] == [("payment", BEA), ("payment", ANA)]
    # a hand written since makes that settlement stale; so does a new season
    await game(db, "t2:match", {ANA: 1, DARIO: -1}, minutes=9)
    stale = await db.ledger.record_payment(CHAT, 0, version, (DARIO, ANA, 1), NAMES, ANA, "Ana", T0)
    assert stale == STALE
    fresh = await db.ledger.ledger_version(CHAT)
    await db.ledger.new_season(CHAT, 0, ANA, "Ana", T0)
    stale = await db.ledger.record_payment(CHAT, 0, fresh, (DARIO, ANA, 1), NAMES, ANA, "Ana", T0)
    assert stale == STALE
    assert len(await db.ledger.season_entries(CHAT, 0)) == 4
    with pytest.raises(ValueError):
        await db.ledger.record_payment(CHAT, 1, fresh, (ANA, ANA, 1), NAMES, ANA, "Ana", T0)
    await sums_to_zero(any_url)


async def test_the_tables_of_a_groups_tournaments_for_the_export(db: Database) -> None:
    """Issue 54.7: which tables played a tournament's match (a ledger entry's `table_id`),
    for /export to mark: the tournament, its number among the group's tournaments that
    started (one cancelled while registering is not counted), the match; a match played
    again names its new table only; another group's tournament is not this group's."""
    assert await db.tournaments.tournament_tables(CHAT) == {}

    async def started(chat: int, tables: list[tuple[int, int | None]]) -> int:
        tour = await db.tournaments.create_tournament(chat, ANA, "Ana", "it", "{}", "[]", "due")
        assert tour is not None
        fixtures = [NewFixture(i, 0, 0, 1) for i in range(len(tables))]
        version = await db.tournaments.update_tournament(
            tour.tournament_id, tour.version, status="running", schedule=fixtures
        )
        for match_no, table_id in tables:
            version = await db.tournaments.update_tournament(
                tour.tournament_id, version, table=(match_no, table_id, None)
            )
        await db.tournaments.update_tournament(tour.tournament_id, version, status="finished")
        return tour.tournament_id

    never = await db.tournaments.create_tournament(CHAT, ANA, "Ana", "it", "{}", "[]", "due")
    assert never is not None
    await db.tournaments.update_tournament(never.tournament_id, never.version, status="cancelled")
    first = await started(CHAT, [(0, 11), (1, 12)])
    elsewhere = await started(CHAT - 1, [(0, 21)])
    second = await started(CHAT, [(0, 13), (0, None), (0, 14)])  # cancelled, played again
    assert await db.tournaments.tournament_tables(CHAT) == {
        11: TournamentMatch(11, first, 1, 0),
        12: TournamentMatch(12, first, 1, 1),
        14: TournamentMatch(14, second, 2, 0),
    }
    assert await db.tournaments.tournament_tables(CHAT - 1) == {
        21: TournamentMatch(21, elsewhere, 1, 0)
    }

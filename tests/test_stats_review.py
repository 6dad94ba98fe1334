"""Issue 51, item 4, "in the numbers": what each seat of a reviewed hand gave away by the
review, stored when the review arrives (migration 17 on both backends), and /stats's average
per reviewed hand (in chiamata per role, RULES §7.4-7.7) next to the computers'."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import aiosqlite
import asyncpg
import pytest

from bot.engine import HandState, Options
from bot.players.review import INFO, Decision, Review
from bot.table.plays import HandEnd
from bot.table.stats import review_costs, role_of
from storage import (
    MIGRATIONS,
    SCHEMA_VERSION,
    Database,
    Move,
    TableStatus,
    migrate,
    schema_version,
    sqlite_path,
)
from storage.postgres import BASELINE, STEPS, dollar_params
from storage.stats import ReviewCost, ReviewSum, Role
from tests.support.backends import BACKENDS, RAW_CONFLICT, fresh_url, raw_sql
from tests.support.players import chiamata_state
from tests.test_review import play, players_choice

CHAT = -100951
OTHER = -100952
T0 = datetime(2026, 11, 1, 20, 0, tzinfo=UTC)
ANA, BEA = 1, 2


def cost(
    table_id: int,
    hand_index: int,
    seat: int,
    value: float,
    *,
    user_id: int | None = ANA,
    level: str | None = None,
    role: Role | None = None,
    variant: str = "due",
    chat_id: int = CHAT,
    decisions: int = 3,
) -> ReviewCost:
    """One seat's stored cost; a computer's when `user_id` is None (`level` "normal" then)."""
    chiamata = variant.startswith("chiamata")
    return ReviewCost(
        chat_id=chat_id,
        table_id=table_id,
        hand_index=hand_index,
        seat=seat,
        variant=variant,
        ledger_key=f"t{table_id}:h{hand_index}" if chiamata else f"t{table_id}:match",
        user_id=user_id,
        level=level if user_id is not None else (level or "normal"),
        role=role,
        cost=value,
        decisions=decisions,
        finished_at=T0 + timedelta(minutes=hand_index),
    )


@pytest.fixture
async def db(any_url: str) -> AsyncIterator[Database]:
    """A fresh database on each backend in turn (issue 15)."""
    database = await Database.open(any_url)
    yield database
    await database.close()


# ---------------------------------------------------------------------- storage


async def test_review_costs_round_trip_per_person_computers_chat_season(db: Database) -> None:
    """Issue 51: the stored costs come back added up per chat, variant and role (§7.4-7.7 in
    chiamata, none elsewhere), a person's apart from the computers', in one chat and season or
    in all; a seat written twice is written once."""
    first = [
        cost(1, 0, 0, 2.0, role="caller", variant="chiamata"),
        cost(1, 0, 1, 0.5, user_id=None, role="partner", variant="chiamata"),
        cost(1, 0, 2, 1.0, user_id=BEA, role="other", variant="chiamata"),
        cost(1, 1, 3, 1.5, role="caller", variant="chiamata"),
        cost(1, 2, 4, 0.25, role="other", variant="chiamata"),
        cost(2, 0, 0, 12.0),
        cost(2, 0, 1, 4.0, user_id=None, level="hard"),
    ]
    assert await db.record_review_costs(first) == len(first)
    assert await db.record_review_costs(first[:2]) == 0  # append-only: written once
    assert await db.record_review_costs([]) == 0
    assert await db.league_epoch(CHAT) == 0
    ana = await db.review_sums(user_id=ANA, chat_id=CHAT, epoch=0)
    assert ana == [
        ReviewSum(CHAT, "chiamata", "caller", 2, 3.5),
        ReviewSum(CHAT, "chiamata", "other", 1, 0.25),
        ReviewSum(CHAT, "due", None, 1, 12.0),
    ], ana
    computers = await db.review_sums(computers=True, chat_id=CHAT, epoch=0)
    assert computers == [
        ReviewSum(CHAT, "chiamata", "partner", 1, 0.5),
        ReviewSum(CHAT, "due", None, 1, 4.0),
    ]
    assert await db.review_sums(user_id=BEA) == [ReviewSum(CHAT, "chiamata", "other", 1, 1.0)]
    # a new season (§10.4): the costs written now are its own; the old season keeps its own
    assert await db.new_season(CHAT, 0, ANA, "Ana", T0) == 1
    await db.record_review_costs([cost(3, 0, 0, 7.0), cost(9, 0, 0, 1.0, chat_id=OTHER)])
    assert await db.review_sums(user_id=ANA, chat_id=CHAT, epoch=1) == [
        ReviewSum(CHAT, "due", None, 1, 7.0)
    ]
    assert len(await db.review_sums(user_id=ANA, chat_id=CHAT, epoch=0)) == 3
    every = await db.review_sums(user_id=ANA)  # every chat, every season
    assert [(s.chat_id, s.variant, s.role, s.hands, s.cost) for s in every] == [
        (OTHER, "due", None, 1, 1.0),
        (CHAT, "chiamata", "caller", 2, 3.5),
        (CHAT, "chiamata", "other", 1, 0.25),
        (CHAT, "due", None, 2, 19.0),
    ]
    with pytest.raises(ValueError, match="not both"):
        await db.review_sums(user_id=ANA, computers=True)
    with pytest.raises(ValueError, match="not both"):
        await db.review_sums()


async def test_an_undone_hands_review_counts_nowhere(db: Database) -> None:
    """/undo takes a hand out of every stat (§10.4): its review's costs too, the person's and
    the computers'."""
    await db.record_review_costs(
        [
            cost(5, 3, 0, 2.0, role="caller", variant="chiamata"),
            cost(5, 3, 1, 1.0, user_id=None, role="other", variant="chiamata"),
            cost(5, 4, 0, 0.5, role="other", variant="chiamata"),
        ]
    )
    names = {ANA: "Ana", BEA: "Bea"}
    assert await db.record_ledger(CHAT, "t5:h3", 5, "chiamata", {ANA: 2, BEA: -2}, names, T0)
    (entry,) = await db.season_entries(CHAT)
    outcome, _ = await db.undo_entry(CHAT, entry.hand_id, ANA, "Ana", T0)
    assert outcome == "done"
    assert await db.review_sums(user_id=ANA, chat_id=CHAT) == [
        ReviewSum(CHAT, "chiamata", "other", 1, 0.5)
    ]
    assert await db.review_sums(computers=True) == []


async def test_the_moves_of_one_hand_say_who_made_them(db: Database) -> None:
    """`hand_movers`: (seat, user id) of each move of one hand, in order; None for a computer
    or the timer; the other hands' moves are not in it."""
    table = await db.create_table(CHAT, ANA, "due", '{"variant": "due"}', "[]", "it")
    no = 0
    moves = [(0, 0, ANA), (0, 1, None), (1, 1, None), (1, 0, None), (1, 1, None), (1, 0, ANA)]
    for i, (hand_index, seat, user_id) in enumerate(moves):
        no = await db.save_move(
            table.table_id,
            no,
            match_json="{}",
            hand_json="{}",
            status=TableStatus.PLAYING,
            move=Move(hand_index, seat, 10 + i, user_id),
        )
    assert await db.hand_movers(table.table_id, 0) == [(0, ANA), (1, None)]
    assert await db.hand_movers(table.table_id, 1) == [(1, None), (0, None), (1, None), (0, ANA)]
    assert await db.hand_movers(table.table_id, 2) == []


async def test_the_schema_refuses_a_seat_of_nobody_or_of_both_and_any_change(
    any_url: str,
) -> None:
    """A stored cost is a person's (user id, no level) or a computer's (a level, no user id),
    never negative, and never changed or deleted."""
    async with await Database.open(any_url) as db:
        await db.record_review_costs([cost(1, 0, 0, 2.0)])
    insert = (
        "INSERT INTO review_costs (table_id, hand_index, seat, chat_id, epoch, variant,"
        " ledger_key, user_id, level, role, cost, decisions, finished_at)"
        " VALUES (1, 1, 0, ?, 0, 'due', 't1:match', ?, ?, NULL, ?, 1, 'x')"
    )
    for user_id, level, value in ((ANA, "hard", 1.0), (None, None, 1.0), (ANA, None, -1.0)):
        with pytest.raises(RAW_CONFLICT):
            await raw_sql(any_url, insert, (CHAT, user_id, level, value))
    with pytest.raises(RAW_CONFLICT):
        await raw_sql(
            any_url,
            insert.replace("NULL, ?, 1", "'socio', ?, 1"),
            (CHAT, ANA, None, 1.0),
        )
    for sql in ("UPDATE review_costs SET cost = 0", "DELETE FROM review_costs"):
        with pytest.raises(RAW_CONFLICT, match="append-only"):
            await raw_sql(any_url, sql)
    async with await Database.open(any_url) as db:
        assert await db.review_sums(user_id=ANA) == [ReviewSum(CHAT, "due", None, 1, 2.0)]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_version_16_database_upgrades_and_keeps_its_records(
    backend: str, tmp_path: Path
) -> None:
    """Migration 17 on a database made at version 16 (SQLite's migrations, PostgreSQL's
    baseline and steps), with a group and a hand record in it: after the upgrade the record
    reads as before and the reviews' costs are written and read."""
    url = fresh_url(backend, tmp_path)
    statements = [
        "INSERT INTO chats (chat_id, league_epoch, updated_at) VALUES (?, 2, 'x')",
        "INSERT INTO hand_records (table_id, hand_index, chat_id, epoch, variant, family,"
        " finished_at, record_json) VALUES (4, 0, ?, 2, 'due', 'two', ?, '{\"a\": 1}')",
    ]
    if backend == "sqlite":
        async with aiosqlite.connect(sqlite_path(url), isolation_level=None) as lite:
            assert await migrate(lite, MIGRATIONS[:16]) == list(range(1, 17))
            await lite.execute(statements[0], (CHAT,))
            await lite.execute(statements[1], (CHAT, T0.isoformat()))
    else:
        conn = await asyncpg.connect(url)
        try:
            await conn.execute("CREATE TABLE schema_version (version BIGINT NOT NULL)")
            for statement in BASELINE:
                await conn.execute(statement)
            for version in sorted(v for v in STEPS if v <= 16):
                for statement in STEPS[version]:
                    await conn.execute(statement)
            await conn.execute("INSERT INTO schema_version (version) VALUES (16)")
            await conn.execute(dollar_params(statements[0]), CHAT)
            await conn.execute(dollar_params(statements[1]), CHAT, T0.isoformat())
        finally:
            await conn.close()
    assert SCHEMA_VERSION == 17
    async with await Database.open(url) as db:
        assert await db.schema_version() == SCHEMA_VERSION
        hands, _ = await db.plays(CHAT)
        assert [(h.table_id, h.epoch, h.data) for h in hands] == [(4, 2, {"a": 1})]
        assert await db.record_review_costs([cost(4, 0, 0, 3.0)]) == 1
        assert await db.review_sums(user_id=ANA, chat_id=CHAT, epoch=2) == [
            ReviewSum(CHAT, "due", None, 1, 3.0)
        ]
    if backend == "sqlite":
        async with aiosqlite.connect(sqlite_path(url)) as lite:
            assert await schema_version(lite) == SCHEMA_VERSION


# ---------------------------------------------------------------------- what a review stores


def decision(seat: int, index: int, value: float) -> Decision:
    """A judged card decision of `seat` at the hand's `index`-th action, costing `value`."""
    return Decision(
        seat=seat, index=index, kind="card", move=0, best=0, cost=value, margin=0.0,
        error=0.0, judged="info", exact=True, worlds=1, move_value=0.0, best_value=value,
        values=(), move_label="", best_label="",
    )  # fmt: skip


def review_of(hand: HandState, costs: dict[int, list[float]]) -> Review:
    """A review of `hand` whose decisions cost `costs[seat]`, each at one of the seat's
    actions."""
    decisions = []
    for seat, values in costs.items():
        indices = [i for i, (s, _) in enumerate(hand.actions) if s == seat]
        decisions += [decision(seat, i, v) for i, v in zip(indices, values, strict=False)]
    currency = "score" if hand.rules.chiamata else "card points"
    return Review(
        hand.rules.variant, hand.seed, hand.hand_index, hand.dealer, "r", INFO, currency,
        tuple(sorted(decisions, key=lambda d: d.index)),
    )  # fmt: skip


def end_of(hand: HandState, table_id: int = 7) -> HandEnd:
    chiamata = hand.rules.chiamata
    return HandEnd(
        chat_id=CHAT, table_id=table_id, hand_index=hand.hand_index, variant=hand.rules.variant,
        family="chiamata" if chiamata else "two", chiamata=chiamata, finished_at=T0,
        deltas={}, names={}, hand=None, match=None,
    )  # fmt: skip


def chiamata_hand(seed: int = 0) -> HandState:
    """A chiamata hand played to the end by `easy` players, with a socio (§7.6)."""
    hand = play(Options.parse("chiamata"), seed, 0, players_choice(["easy"] * 5, seed))
    assert 0 <= hand.caller != hand.partner >= 0
    return hand


def test_s7_each_seat_gives_away_its_decisions_costs_in_its_role() -> None:
    """Issue 51: each seat's cost is the sum of its decisions' costs, written with its
    person (or the computer and its level) and its role: the chiamante (§7.4), the socio
    (§7.6), the others."""
    hand = chiamata_hand()
    seats: list[tuple[int | None, str | None]] = [(10 + s, None) for s in range(5)]
    seats[4] = (None, "hard")
    costs = {0: [1.5, 0.25], 1: [0.5], 2: [], 3: [2.0, 0.0, 1.0], 4: [0.75]}
    movers = [(s, seats[s][0]) for s, _ in hand.actions]
    rows = review_costs(end_of(hand), hand, seats, movers, review_of(hand, costs))
    assert [r.seat for r in rows] == [0, 1, 2, 3, 4]
    assert [r.cost for r in rows] == [1.75, 0.5, 0.0, 3.0, 0.75]
    assert [r.decisions for r in rows] == [2, 1, 0, 3, 1]
    assert [(r.user_id, r.level) for r in rows] == [*((10 + s, None) for s in range(4)),
                                                     (None, "hard")]  # fmt: skip
    want = ["other"] * 5
    want[hand.caller], want[hand.partner] = "caller", "partner"
    assert [r.role for r in rows] == want
    assert {r.ledger_key for r in rows} == {"t7:h0"}  # a chiamata hand's ledger entry, §10.1
    assert {(r.chat_id, r.table_id, r.hand_index, r.variant) for r in rows} == {
        (CHAT, 7, 0, "chiamata")
    }


def test_s7_7_alone_the_chiamante_has_no_socio() -> None:
    """§7.7: the chiamante who holds the called card plays alone: their role is chiamante,
    every other seat's is one of the others."""
    hand = chiamata_state({2: ["1D", "3D", "1C", "3C", "1S"]}, caller=2, called="1D", dealer=0)
    bots = players_choice(["easy"] * 5, 3)
    while not hand.is_terminal():
        hand.apply(bots(hand))
    assert hand.caller == hand.partner == 2
    assert [role_of(hand, s) for s in range(5)] == ["other", "other", "caller", "other", "other"]


def test_a_seat_someone_else_played_counts_for_nobody() -> None:
    """A person's seat counts for them only if they made every move of it: a turn the timer
    played, or a hand played for them while away, counts for nobody; the computers' seats
    still count. Moves that are not the hand's write nothing."""
    hand = play(Options.parse("due"), 4, 0, players_choice(["easy"] * 2, 4))
    review = review_of(hand, {0: [5.0], 1: [7.0]})
    movers = [(s, 10 if s == 0 else None) for s, _ in hand.actions]
    people = [(10, None), (None, "normal")]
    (row, computer) = review_costs(end_of(hand), hand, people, movers, review)
    assert (row.user_id, row.cost, row.role, row.ledger_key) == (10, 5.0, None, "t7:match")
    assert (computer.user_id, computer.level, computer.cost) == (None, "normal", 7.0)
    timed_out = list(movers)
    first = next(i for i, (s, _) in enumerate(timed_out) if s == 0)
    timed_out[first] = (0, None)  # the timer played Ana's first card
    rows = review_costs(end_of(hand), hand, people, timed_out, review)
    assert [(r.seat, r.user_id) for r in rows] == [(1, None)]
    away = [(s, None) for s, _ in hand.actions]  # a computer played her whole hand
    rows = review_costs(end_of(hand), hand, [(10, "normal"), (None, "normal")], away, review)
    assert [r.seat for r in rows] == [1]
    assert review_costs(end_of(hand), hand, people, movers[:-1], review) == []

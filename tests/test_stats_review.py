"""Issue 51, item 4, "in the numbers": what each seat of a reviewed hand gave away by the
review, stored when the review arrives (migration 17 on both backends), and /stats's average
per reviewed hand (in chiamata per role, RULES §7.4-7.7) next to the computers'."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import aiosqlite
import asyncpg
import pytest

import bot.service.play as play_module
from bench.rig.backends import BACKENDS, RAW_CONFLICT, fresh_url, raw_sql
from bot.engine import HandState, Options
from bot.players.review_data import INFO, Decision, Review
from bot.service import Person, Reply
from bot.service.stats import _num
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
from storage.postgres import STEPS, dollar_params
from storage.postgres import migrate as pg_migrate
from storage.stats import ReviewCost, ReviewSum, Role
from tests.support.players import chiamata_state
from tests.support.rig import CHAT as RIG_CHAT
from tests.support.rig import Rig
from tests.test_review import play, players_choice
from tests.test_service_evening import play_hand_out
from tests.test_service_timers import open_game

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
    assert await db.stats.record_review_costs(first) == len(first)
    assert await db.stats.record_review_costs(first[:2]) == 0  # append-only: written once
    assert await db.stats.record_review_costs([]) == 0
    assert await db.people.league_epoch(CHAT) == 0
    ana = await db.stats.review_sums(user_id=ANA, chat_id=CHAT, epoch=0)
    assert ana == [
        ReviewSum(CHAT, "chiamata", "caller", 2, 3.5),
        ReviewSum(CHAT, "chiamata", "other", 1, 0.25),
        ReviewSum(CHAT, "due", None, 1, 12.0),
    ], ana
    computers = await db.stats.review_sums(computers=True, chat_id=CHAT, epoch=0)
    assert computers == [
        ReviewSum(CHAT, "chiamata", "partner", 1, 0.5),
        ReviewSum(CHAT, "due", None, 1, 4.0),
    ]
    assert await db.stats.review_sums(user_id=BEA) == [ReviewSum(CHAT, "chiamata", "other", 1, 1.0)]
    # a new season (§10.4): the costs written now are its own; the old season keeps its own
    assert await db.ledger.new_season(CHAT, 0, ANA, "Ana", T0) == 1
    await db.stats.record_review_costs([cost(3, 0, 0, 7.0), cost(9, 0, 0, 1.0, chat_id=OTHER)])
    assert await db.stats.review_sums(user_id=ANA, chat_id=CHAT, epoch=1) == [
        ReviewSum(CHAT, "due", None, 1, 7.0)
    ]
    assert len(await db.stats.review_sums(user_id=ANA, chat_id=CHAT, epoch=0)) == 3
    every = await db.stats.review_sums(user_id=ANA)  # every chat, every season
    assert [(s.chat_id, s.variant, s.role, s.hands, s.cost) for s in every] == [
        (OTHER, "due", None, 1, 1.0),
        (CHAT, "chiamata", "caller", 2, 3.5),
        (CHAT, "chiamata", "other", 1, 0.25),
        (CHAT, "due", None, 2, 19.0),
    ]
    with pytest.raises(ValueError, match="not both"):
        await db.stats.review_sums(user_id=ANA, computers=True)
    with pytest.raises(ValueError, match="not both"):
        await db.stats.review_sums()


async def test_an_undone_hands_review_counts_nowhere(db: Database) -> None:
    """/undo takes a hand out of every stat (§10.4): its review's costs too, the person's and
    the computers'."""
    await db.stats.record_review_costs(
        [
            cost(5, 3, 0, 2.0, role="caller", variant="chiamata"),
            cost(5, 3, 1, 1.0, user_id=None, role="other", variant="chiamata"),
            cost(5, 4, 0, 0.5, role="other", variant="chiamata"),
        ]
    )
    names = {ANA: "Ana", BEA: "Bea"}
    assert await db.ledger.record_ledger(CHAT, "t5:h3", 5, "chiamata", {ANA: 2, BEA: -2}, names, T0)
    (entry,) = await db.ledger.season_entries(CHAT)
    outcome, _ = await db.ledger.undo_entry(CHAT, entry.hand_id, ANA, "Ana", T0)
    assert outcome == "done"
    assert await db.stats.review_sums(user_id=ANA, chat_id=CHAT) == [
        ReviewSum(CHAT, "chiamata", "other", 1, 0.5)
    ]
    assert await db.stats.review_sums(computers=True) == []


async def test_the_moves_of_one_hand_say_who_made_them(db: Database) -> None:
    """`hand_movers`: (seat, user id) of each move of one hand, in order; None for a computer
    or the timer; the other hands' moves are not in it."""
    table = await db.tables.create_table(CHAT, ANA, "due", '{"variant": "due"}', "[]", "it")
    no = 0
    moves = [(0, 0, ANA), (0, 1, None), (1, 1, None), (1, 0, None), (1, 1, None), (1, 0, ANA)]
    for i, (hand_index, seat, user_id) in enumerate(moves):
        no = await db.tables.save_move(
            table.table_id,
            no,
            match_json="{}",
            hand_json="{}",
            status=TableStatus.PLAYING,
            move=Move(hand_index, seat, 10 + i, user_id),
        )
    assert await db.tables.hand_movers(table.table_id, 0) == [(0, ANA), (1, None)]
    assert await db.tables.hand_movers(table.table_id, 1) == [
        (1, None),
        (0, None),
        (1, None),
        (0, ANA),
    ]
    assert await db.tables.hand_movers(table.table_id, 2) == []


async def test_the_schema_refuses_a_seat_of_nobody_or_of_both_and_any_change(
    any_url: str,
) -> None:
    """A stored cost is a person's (user id, no level) or a computer's (a level, no user id),
    never negative, and never changed or deleted."""
    async with await Database.open(any_url) as db:
        await db.stats.record_review_costs([cost(1, 0, 0, 2.0)])
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
        assert await db.stats.review_sums(user_id=ANA) == [ReviewSum(CHAT, "due", None, 1, 2.0)]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_version_16_database_upgrades_and_keeps_its_records(
    backend: str, tmp_path: Path
) -> None:
    """Migration 17 on a database made at version 16 (the schema's first 16 steps, on each
    backend), with a group and a hand record in it: after the upgrade the record
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
            assert await pg_migrate(conn, STEPS[:16]) == list(range(1, 17))
            await conn.execute(dollar_params(statements[0]), CHAT)
            await conn.execute(dollar_params(statements[1]), CHAT, T0.isoformat())
        finally:
            await conn.close()
    assert SCHEMA_VERSION >= 17  # the upgrade goes through 17 (and on)
    async with await Database.open(url) as db:
        assert await db.schema_version() == SCHEMA_VERSION
        hands, _ = await db.stats.plays(CHAT)
        assert [(h.table_id, h.epoch, h.data) for h in hands] == [(4, 2, {"a": 1})]
        assert await db.stats.record_review_costs([cost(4, 0, 0, 3.0)]) == 1
        assert await db.stats.review_sums(user_id=ANA, chat_id=CHAT, epoch=2) == [
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


# ---------------------------------------------------------------------- at the table


def fake_reviews(
    rig: Rig, costs: Callable[[HandState], dict[int, list[float]]] | None
) -> list[HandState]:
    """The thinker's review replaced: each hand is reviewed as `costs` says (None: the review
    is skipped, as under load); the hands it was asked about."""
    asked: list[HandState] = []

    async def review(hand: HandState, seed: str) -> Review | None:
        asked.append(hand)
        return None if costs is None else review_of(hand, costs(hand))

    rig.svc.play.thinker.review = review  # type: ignore[method-assign]
    return asked


async def reviewed_hand(rig: Rig, people: list[Person], asked: list[HandState]) -> HandState:
    """Hands played out (people their first legal action) until one is reviewed (an all-pass
    redeal or a void hand is not, §7.4, §4.1): that hand."""
    for _ in range(6):
        table = await play_hand_out(rig, people)
        await rig.svc.idle()
        if asked:
            return asked[-1]
        assert table.hand is not None
        reply = await rig.svc.play.next_hand(people[0], table.table_id, table.hand.hand_index)
        assert reply.key == "ok_played", reply
        await rig.svc.idle()
    raise AssertionError("no hand was reviewed")


ANNA = Person(11, "Anna <&>")


async def test_s7_a_reviewed_chiamata_hand_is_in_stats_by_role(rig: Rig) -> None:
    """Issue 51: Anna and four computers play a chiamata hand; its review arrives and each
    seat's cost is stored with its role (§7.4-7.7); /stats shows her points given away per
    reviewed hand, in her role, and the computers' (the same group and season), in Italian
    and in English."""
    asked = fake_reviews(rig, lambda hand: {s: [0.5 * (s + 1), 1.0] for s in range(5)})
    await open_game(rig, "chiamata", [ANNA], timer="0")
    hand = await reviewed_hand(rig, [ANNA], asked)
    seat = rig.table().seat_of(ANNA.user_id)
    assert seat is not None
    role = role_of(hand, seat)
    assert role in ("caller", "partner", "other")
    mine = 0.5 * (seat + 1) + 1.0
    assert await rig.db.stats.review_sums(user_id=ANNA.user_id) == [
        ReviewSum(RIG_CHAT, "chiamata", role, 1, mine)
    ]
    computers = await rig.db.stats.review_sums(computers=True, chat_id=RIG_CHAT, epoch=0)
    assert sum(c.hands for c in computers) == 4
    theirs = sum(0.5 * (s + 1) + 1.0 for s in range(5) if s != seat)
    assert sum(c.cost for c in computers) == pytest.approx(theirs)
    reply = await rig.svc.stats.stats(RIG_CHAT, ANNA, [])
    assert isinstance(reply, Reply)
    text = reply.text
    assert "📊 <b>Anna &lt;&amp;&gt;</b>" in text
    assert "Nessuna partita registrata" not in text  # her table writes no records (§10.5)
    roles = {"caller": "da chiamante", "partner": "da socio", "other": "altri"}
    it = (
        f"🔎 Punti di partita regalati per mano (revisione): {_num('it', mine)} su 1 mano"
        f" — {roles[role]} {_num('it', mine)} (computer: {_num('it', theirs / 4)} su 4 mani)"
    )
    assert f"<b>Briscola chiamata (5)</b>\n{it}" in text, text
    assert text.endswith("Meno sono, meglio è.</i>")
    await rig.db.people.set_chat_lang(RIG_CHAT, "en")
    english = await rig.svc.stats.stats(RIG_CHAT, ANNA, [])
    assert isinstance(english, Reply)
    words = {"caller": "as chiamante", "partner": "as socio", "other": "as the others"}
    en = (
        f"🔎 Match points given away per hand (review): {_num('en', mine)} over 1 hand"
        f" — {words[role]} {_num('en', mine)} (computers: {_num('en', theirs / 4)} over 4 hands)"
    )
    assert en in english.text, english.text
    assert "," not in en.split(":")[1].split("over")[0]  # a decimal point in English


async def test_a_skipped_or_late_review_stores_nothing_and_stats_say_nothing(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 51: a hand whose review was skipped (under load: `Thinker.review` gives None) or
    came after REVIEW_WAIT stores no cost: /stats then has no review line; the average is
    over the reviewed hands only."""
    asked = fake_reviews(rig, None)
    await open_game(rig, "due", [ANNA], timer="0")
    await reviewed_hand(rig, [ANNA], asked)
    assert await rig.db.stats.review_sums(user_id=ANNA.user_id) == []
    assert await rig.db.stats.review_sums(computers=True) == []
    reply = await rig.svc.stats.stats(RIG_CHAT, ANNA, [])
    assert isinstance(reply, Reply)
    assert "🔎" not in reply.text, reply.text
    assert "Nessuna partita registrata." in reply.text
    # late: the review takes longer than the hand's result waits for it
    monkeypatch.setattr(play_module, "REVIEW_WAIT", 0.01)
    late: list[HandState] = []

    async def slow(hand: HandState, seed: str) -> Review:
        late.append(hand)
        await asyncio.sleep(0.5)
        return review_of(hand, {0: [9.0], 1: [9.0]})

    rig.svc.play.thinker.review = slow  # type: ignore[method-assign]
    await open_game(rig, "due", [ANNA], timer="0")
    await reviewed_hand(rig, [ANNA], late)
    assert await rig.db.stats.review_sums(user_id=ANNA.user_id) == []
    # a third match's hand is reviewed: the average is that hand's, over 1 hand
    asked = fake_reviews(rig, lambda hand: {s: [4.0, 2.5] for s in range(2)})
    await open_game(rig, "due", [ANNA], timer="0")
    await reviewed_hand(rig, [ANNA], asked)
    shown = await rig.svc.stats.stats(RIG_CHAT, ANNA, [])
    assert isinstance(shown, Reply)
    assert "🔎 Punti regalati per mano (revisione): 6,5 su 1 mano (computer: 6,5 su 1 mano)" in (
        shown.text
    ), shown.text


async def reviewed_history(db: Database) -> None:
    """Ana's reviewed hands in the rig's group, season 1: six chiamata hands (twice the
    chiamante, 2 and 1 given away; once the socio, 0.5; three times one of the others, 0, 1,
    0.5) and three of due (10, 4, 7); the computers' 20 chiamata seat-hands there (0.3 each)
    and 2 of due (3 each), and 30 of due in another group (5 each)."""
    roles: list[tuple[Role, float]] = [
        ("caller", 2.0), ("caller", 1.0), ("partner", 0.5),
        ("other", 0.0), ("other", 1.0), ("other", 0.5),
    ]  # fmt: skip
    rows = [
        cost(100, i, 0, v, role=r, variant="chiamata", chat_id=RIG_CHAT)
        for i, (r, v) in enumerate(roles)
    ]
    rows += [cost(200 + i, 0, 0, v, chat_id=RIG_CHAT) for i, v in enumerate((10.0, 4.0, 7.0))]
    rows += [
        cost(100, i % 6, 1 + i // 6, 0.3, user_id=None, role="other", variant="chiamata",
             chat_id=RIG_CHAT)
        for i in range(20)
    ]  # fmt: skip
    rows += [cost(200 + i, 0, 1, 3.0, user_id=None, chat_id=RIG_CHAT) for i in range(2)]
    rows += [cost(300 + i, 0, 1, 5.0, user_id=None, chat_id=OTHER) for i in range(30)]
    assert await db.stats.record_review_costs(rows) == len(rows)


async def test_s7_stats_show_the_average_given_away_per_role_and_the_computers(rig: Rig) -> None:
    """Issue 51, item 4: /stats shows per variant the points given away per reviewed hand, in
    chiamata in match points per role (§7.4-7.7), and the computers' in the same group and
    season, or in every group when the group has too few of theirs (here due: 2 hands); with
    a decimal comma in Italian, a point in English. Someone never reviewed has no line."""
    await reviewed_history(rig.db)
    ana = Person(ANA, "Ana")
    text = (await rig.svc.stats.stats(RIG_CHAT, ana, [])).text  # type: ignore[union-attr]
    chiamata = (
        "🔎 Punti di partita regalati per mano (revisione): 0,8 su 6 mani"
        " — da chiamante 1,5 · da socio 0,5 · altri 0,5 (computer: 0,3 su 20 mani)"
    )
    due = (
        "🔎 Punti regalati per mano (revisione): 7,0 su 3 mani"
        " (computer in tutti i gruppi: 4,9 su 32 mani)"
    )
    assert f"<b>Briscola a due</b>\n{due}\n" in text, text
    assert f"<b>Briscola chiamata (5)</b>\n{chiamata}\n" in text, text
    assert "Nessuna partita registrata" not in text
    assert text.count("🔎") == 3  # two lines and the note
    await rig.db.people.set_chat_lang(RIG_CHAT, "en")
    english = (await rig.svc.stats.stats(RIG_CHAT, ana, [])).text  # type: ignore[union-attr]
    assert (
        "🔎 Match points given away per hand (review): 0.8 over 6 hands — as chiamante 1.5"
        " · as socio 0.5 · as the others 0.5 (computers: 0.3 over 20 hands)"
    ) in english, english
    assert (
        "🔎 Points given away per hand (review): 7.0 over 3 hands"
        " (computers in every group: 4.9 over 32 hands)"
    ) in english
    assert english.endswith("Fewer is better.</i>")
    await rig.db.people.set_chat_lang(RIG_CHAT, "it")
    # Bea, never reviewed: no line, no note
    bea = (await rig.svc.stats.stats(RIG_CHAT, Person(BEA, "Bea"), [])).text  # type: ignore[union-attr]
    assert "🔎" not in bea and "Nessuna partita registrata." in bea
    # a new season (§10.4): its own reviews; the last one's are asked for by number
    assert await rig.db.ledger.new_season(RIG_CHAT, 0, ANA, "Ana", T0) == 1
    await rig.db.stats.record_review_costs([cost(400, 0, 0, 1.25, chat_id=RIG_CHAT)])
    now = (await rig.svc.stats.stats(RIG_CHAT, ana, [])).text  # type: ignore[union-attr]
    assert "🔎 Punti regalati per mano (revisione): 1,2 su 1 mano" in now, now
    assert "Briscola chiamata" not in now
    before = (await rig.svc.stats.stats(RIG_CHAT, ana, ["1"])).text  # type: ignore[union-attr]
    assert chiamata in before and due in before
    every = (await rig.svc.stats.stats(RIG_CHAT, ana, ["tutte"])).text  # type: ignore[union-attr]
    assert "🔎 Punti regalati per mano (revisione): 5,6 su 4 mani" in every, every


async def test_private_stats_show_what_the_reviews_found_in_each_group(rig: Rig) -> None:
    """Issue 51 in /stats in a private chat: per group and across groups, every season, one
    line per variant reviewed, next to the computers'."""
    await reviewed_history(rig.db)
    await rig.db.stats.record_review_costs([cost(500, 0, 0, 1.0, chat_id=OTHER)])
    text = (await rig.svc.stats.mine(Person(ANA, "Ana"))).text
    assert "🌍 <b>In tutti i gruppi</b>" in text, text
    # across groups: due 10, 4, 7 and 1 over 4 hands; the computers of every group
    across = text.split("👥")[0]
    assert (
        "🔎 Briscola a due: 5,5 punti regalati per mano su 4 mani (computer: 4,9 su 32 mani)"
        in (across)
    ), text
    # the rig's group: its due computers are too few (2), every group's are shown
    assert (
        "🔎 Briscola a due: 7,0 punti regalati per mano su 3 mani"
        " (computer in tutti i gruppi: 4,9 su 32 mani)"
    ) in text
    assert (
        "🔎 Briscola chiamata (5): 0,8 punti di partita regalati per mano su 6 mani"
        " (computer: 0,3 su 20 mani)"
    ) in text
    # the other group alone: its one due hand, its own 30 computers' hands
    assert (
        "🔎 Briscola a due: 1,0 punti regalati per mano su 1 mano (computer: 5,0 su 30 mani)"
        in (text)
    )
    assert text.endswith("Meno sono, meglio è.</i>")
    english = (await rig.svc.stats.mine(Person(ANA, "Ana", "en"))).text
    assert (
        "🔎 Two-player Briscola: 1.0 points given away per hand over 1 hand"
        " (computers: 5.0 over 30 hands)"
    ) in english, english
    nobody = await rig.svc.stats.mine(Person(BEA, "Bea"))
    assert nobody.key == "st_me_none"

"""Stats and ratings (issue 14): the records a table writes when a hand ends (migration 6), the
numbers /stats and /h2h compute from them against a hand-computed expectation, ratings that
the same history always gives alike (a property test), and a database made by the V4 and V5
schemas, with rows, that migrates and keeps working."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import aiosqlite
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.rig.backends import RAW_CONFLICT, raw_sql
from bot.engine import Options
from bot.service.play import ledger_record, play_record
from bot.table.ledger import hand_key
from bot.table.plays import FAMILIES, rated_family
from bot.table.rating import PROVISIONAL_GAMES, Event, events, rate
from bot.table.stats import (
    HandView,
    MatchView,
    end_of_hand,
    family_of,
    head_to_head,
    player_stats,
    views,
)
from bot.table.table import Table
from storage import (
    MIGRATIONS,
    SCHEMA_VERSION,
    Database,
    LedgerRecord,
    Move,
    StaleMove,
    migrate,
    schema_version,
    sqlite_path,
)
from storage.stats import PlayRecord
from tests.support.history import CHAT, FIVE, HANDS, MATCHES, NAMES, T0, A, B, C, D, E, hand, match
from tests.support.old_schema import old_group, old_hand


@pytest.fixture
async def db(any_url: str) -> AsyncIterator[Database]:
    """A fresh database on each backend in turn (issue 15)."""
    database = await Database.open(any_url)
    yield database
    await database.close()


# ---------------------------------------------------------------------- a scripted history


def season(epoch: int | None) -> tuple[list[HandView], list[MatchView]]:
    hv, mv = views(HANDS, MATCHES)
    if epoch is None:
        return hv, mv
    return [h for h in hv if h.epoch == epoch], [m for m in mv if m.epoch == epoch]


def test_stats_of_a_scripted_season_by_hand() -> None:
    """§7.12, §10.1-10.2: Ana's numbers in season 1, counted by hand from the history above."""
    stats = player_stats(A, *season(0))
    ch, due = stats["chiamata"], stats["due"]
    # chiamata: three auctions (the redeal's too), she bid in two; two hands played, one won
    assert (ch.auctions, ch.bids, ch.hands, ch.hands_won) == (3, 2, 2, 1)
    assert ch.average_points == (40 + 0) / 2
    assert (ch.as_caller, ch.caller_won, ch.as_partner, ch.partner_won) == (1, 1, 1, 0)
    assert (ch.cappotti, ch.cappotti_suffered) == (0, 1)
    assert (ch.biggest_win, ch.streak, ch.games, ch.wins) == (2, -1, 0, 0)
    # due: four hands played (the void one is not), two won; two matches, one won, then lost
    assert (due.hands, due.hands_won, due.card_points) == (4, 2, 70 + 80 + 55 + 30)
    assert due.average_points == 235 / 4
    assert (due.games, due.wins, due.biggest_win, due.streak) == (2, 1, 1, -1)
    assert (due.auctions, due.as_caller, due.cappotti) == (0, 0, 0)
    # Bea in season 1: the socio who won, then a defender who made a cappotto
    bea = player_stats(B, *season(0))["chiamata"]
    assert (bea.as_partner, bea.partner_won, bea.cappotti, bea.streak) == (1, 1, 1, 2)
    assert bea.biggest_win == 2


def test_stats_of_every_season_and_the_self_call() -> None:
    """A chiamante who calls their own card (§7) is the chiamante, not also the socio."""
    ch = player_stats(A, *season(None))["chiamata"]
    assert (ch.auctions, ch.bids, ch.hands, ch.hands_won) == (4, 3, 3, 2)
    assert (ch.as_caller, ch.caller_won, ch.as_partner) == (2, 2, 1)
    assert (ch.games, ch.wins, ch.biggest_win, ch.streak) == (1, 1, 4, 1)
    assert player_stats(99, *season(None)) == {}


def test_head_to_head_by_hand() -> None:
    h2h = head_to_head(A, B, *season(None))
    # due, one against one: its own family, not two teams' (issue 54.8)
    ch, one = h2h["chiamata"], h2h["one"]
    assert "two" not in h2h
    # together in hand 0 (won); against in hands 2 (Bea's side won) and 3 (Ana's)
    assert (ch.together, ch.together_won, ch.against, ch.a_won, ch.b_won) == (1, 1, 2, 1, 1)
    assert (one.together, one.against, one.a_won, one.b_won) == (0, 2, 1, 1)
    assert head_to_head(A, 99, *season(None)) == {}


def test_an_undone_ledger_entry_takes_its_records_out() -> None:
    """/undo of a match (§10.2 key) removes its hands and its result; of a chiamata hand, the
    hand (§10.1 key)."""
    hv, mv = views(HANDS, MATCHES, undone={"t20:match", "t10:h2"})
    due = player_stats(A, hv, mv)["due"]
    assert (due.games, due.wins, due.hands) == (1, 0, 2)
    ch = player_stats(A, hv, mv)["chiamata"]
    assert (ch.hands, ch.as_partner) == (2, 0)


# ---------------------------------------------------------------------- ratings


def test_what_is_rated() -> None:
    """Chiamata: each played hand, chiamante's side against the defenders; other variants:
    each finished match; games with a computer, redeals and void hands are not rated."""
    hv, mv = season(None)
    with_bot = match(30, [A, None], winners=[0], counted=[0, 0], minute=50)
    evs = events(CHAT, hv, [*mv, MatchView.of(with_bot)])
    keys = [(e.table_id, e.hand_index) for e in evs]
    assert keys == [(10, 0), (10, 2), (10, 3), (20, -1), (21, -1)]
    first = evs[0]
    assert first.teams == ((A, B), (C, D, E)) and first.ranks == (0, 1)
    assert evs[2].teams == ((A,), (B, C, D, E))
    ratings = rate(evs)
    ana = ratings.get("chiamata", A)
    assert ana is not None and ana.games == 3 and ana.provisional
    # due is one against one (issue 54.8): not rated with two teams
    assert ratings.get("one", A) is not None and ratings.get("multi", A) is None
    assert ratings.get("two", A) is None
    # the winner of the single due match against each other: equal after one win each
    one = ratings.by_family["one"]
    assert one[A].games == one[B].games == 2
    assert len(ratings.history[("chiamata", A)]) == 3
    board = ratings.leaderboard("chiamata")
    assert board[0][0] == A  # won 2 of 3, one alone against four


def test_provisional_until_enough_games() -> None:
    evs = [
        Event(CHAT, "two", T0 + timedelta(minutes=i), i, -1, ((A,), (B,)), (i % 3 == 0, i % 3 != 0))
        for i in range(PROVISIONAL_GAMES)
    ]
    assert rate(evs[:-1]).by_family["two"][A].provisional
    settled = rate(evs).by_family["two"][A]
    assert not settled.provisional and settled.games == PROVISIONAL_GAMES
    # settled ratings come before provisional ones, whatever their value
    evs.append(Event(CHAT, "two", T0 + timedelta(hours=1), 99, -1, ((C,), (D,)), (0, 1)))
    order = [uid for uid, _ in rate(evs).leaderboard("two")]
    assert order[:2] == sorted([A, B], key=lambda u: -rate(evs).by_family["two"][u].ordinal)


PEOPLE = st.integers(min_value=1, max_value=7)


@st.composite
def histories(draw: st.DrawFn) -> list[Event]:
    out: list[Event] = []
    for i in range(draw(st.integers(min_value=0, max_value=25))):
        family = draw(st.sampled_from(["two", "multi", "chiamata"]))
        sides = 3 if family == "multi" else 2
        size = draw(st.integers(min_value=1, max_value=2))
        people = draw(st.lists(PEOPLE, min_size=sides * size, max_size=sides * size, unique=True))
        teams = tuple(tuple(people[s * size : (s + 1) * size]) for s in range(sides))
        winner = draw(st.integers(min_value=0, max_value=sides - 1))
        ranks = tuple(0 if s == winner else 1 for s in range(sides))
        minute = draw(st.integers(min_value=0, max_value=30))  # ties in time happen
        chat = draw(st.sampled_from([CHAT, CHAT - 1]))
        out.append(Event(chat, family, T0 + timedelta(minutes=minute), i, -1, teams, ranks))
    return out


@settings(max_examples=60, deadline=None)
@given(histories(), st.randoms(use_true_random=False))
def test_ratings_are_deterministic_given_the_history(
    history: list[Event], rng: random.Random
) -> None:
    """Issue 14: the same history gives the same ratings, whatever order it is read in, run
    after run; every person rated has as many games as events they were in."""
    once = rate(history)
    shuffled = list(history)
    rng.shuffle(shuffled)
    again = rate(shuffled)
    assert once.by_family == again.by_family
    assert once.history == again.history
    for family, table in once.by_family.items():
        for uid, rating in table.items():
            played = sum(1 for e in history if e.family == family for t in e.teams if uid in t)
            assert rating.games == played and rating.sigma > 0


# ---------------------------------------------------------------------- what a table writes


def play_out(table: Table, db_records: list[PlayRecord]) -> None:
    """Every seat plays as the `easy` computer would, to the match's end; each finished
    hand's record (`play_record` of its `end_of_hand`) is collected."""
    minute = 0
    while True:
        assert table.hand is not None
        while not table.hand.is_terminal():
            seat = table.hand.current
            table.apply(seat, table.bot_action(seat, "easy"))
        minute += 1
        record = play_record(end_of_hand(table, T0 + timedelta(minutes=minute)))
        assert record is not None
        db_records.append(record)
        if table.match is not None and table.match.over:
            return
        table.next_hand()


async def test_a_played_match_is_recorded_and_counted(db: Database, any_url: str) -> None:
    """A due match of two people, played by the engine (best of five, §4.3): one record per
    hand and one for the match; the stats agree with the engine's result and the ledger."""
    table = Table(7, CHAT, A, Options.parse("due", {}))
    table.join(A, "Ana")
    table.join(B, "Bea")
    table.start("seed-7")
    records: list[PlayRecord] = []
    play_out(table, records)
    assert records[-1].match is not None and all(r.match is None for r in records[:-1])
    assert family_of(table.options.rules()) == "two"
    for r in records:
        await db.stats.record_play(r)
        await db.stats.record_play(r)  # written once (append-only; the same hand again is ignored)
    hands, matches = await db.stats.plays(CHAT, 0)
    assert len(hands) == len(records) and len(matches) == 1
    hv, mv = views(hands, matches)
    # stored as two sides, rated and shown as one against one (issue 54.8)
    assert {h.family for h in hv} == {m.family for m in mv} == {"one"}
    assert match_winner(table) in (A, B)
    for uid in (A, B):
        s = player_stats(uid, hv, mv)["due"]
        assert s.games == 1 and s.wins == (uid == match_winner(table))
        played = [r for r in table.match.records if not r.void]  # type: ignore[union-attr]
        assert s.hands == len(played)
    won = sum(player_stats(u, hv, mv)["due"].hands_won for u in (A, B))
    assert won == len([r for r in table.match.records if not r.void])  # type: ignore[union-attr]
    total = sum(player_stats(u, hv, mv)["due"].card_points for u in (A, B))
    assert total == 120 * len([r for r in table.match.records if not r.void])  # type: ignore[union-attr]
    assert mv[0].counted == (1, -1) if match_winner(table) == A else (-1, 1)
    # append-only: the stored records cannot be changed or removed
    for sql in ("DELETE FROM hand_records", "UPDATE match_records SET epoch = 3"):
        with pytest.raises(RAW_CONFLICT, match="append-only"):
            await raw_sql(any_url, sql)


@pytest.mark.parametrize(
    ("variant", "options", "family"),
    [
        ("due", {}, "one"),
        ("briscolone", {}, "one"),
        ("briskula32", {"players": "2"}, "one"),
        ("quattro", {}, "two"),  # two pairs
        ("sei", {"teams": "threes"}, "two"),
        ("tre", {}, "multi"),  # three single players
        ("sei", {}, "multi"),  # three pairs
        ("briskula32", {"players": "4", "teams": "none"}, "multi"),
        ("chiamata", {}, "chiamata"),
    ],
)
def test_one_against_one_is_rated_apart_from_two_teams(
    variant: str, options: dict[str, str], family: str
) -> None:
    """Issue 54.8: a game of two single players was rated and shown under "due squadre" (two
    teams). Its family, as rated, is "one" (one against one); "two" is two teams. The stored
    family (`family_of`) is as before, so records from before are rated the same way."""
    rules = Options.parse(variant, options).rules()
    stored = family_of(rules)
    assert stored == ("two" if family == "one" else family)
    assert rated_family(stored, rules.side_of) == family
    assert family in FAMILIES


def match_winner(table: Table) -> int:
    assert table.match is not None and table.match.over
    seat = table.match.winner
    uid = table.seats[seat].user_id
    assert uid is not None
    return uid


def test_computer_tables_record_only_when_they_count() -> None:
    """§10.5: a table with a computer seat records nothing unless "counts" is on; then the
    computer's seat has no user id and the record says it was a computer."""
    records = []
    for counts in (False, True):  # the same deal, played the same way
        table = Table(8, CHAT, A, Options.parse("due", {"match": "single"}))
        table.join(A, "Ana")
        table.add_bot("easy")
        table.counts = counts
        table.start("s")
        while table.hand is not None and not table.hand.is_terminal():
            seat = table.hand.current
            table.apply(seat, table.bot_action(seat, "easy"))
        records.append(play_record(end_of_hand(table, T0)))
    assert records[0] is None
    record = records[1]
    assert record is not None and record.hand["users"] == [A, None]
    assert record.hand["computers"] == [1] and record.match is not None


async def test_save_move_writes_the_record_with_the_ledger(db: Database) -> None:
    """The record goes in the move's transaction: a stale write stores neither."""
    options = Options.parse("due", {}).model_dump_json()
    row = await db.tables.create_table(CHAT, A, "due", options, "{}", None)
    record = hand(0, 0, [A, B], side_of=[0, 1], winning=[0], points=[70, 50], variant="due",
                  minute=0)  # fmt: skip
    play = PlayRecord(CHAT, row.table_id, 0, "due", "two", T0, record.data)
    with pytest.raises(StaleMove):
        await db.tables.save_move(
            row.table_id, 5, match_json=None, hand_json=None, status=row.status, move=None,
            record=play,
        )  # fmt: skip
    assert (await db.stats.plays(CHAT)) == ([], [])
    await db.tables.save_move(
        row.table_id, row.move_no, match_json=None, hand_json=None, status=row.status,
        move=Move(0, 0, 1, A), record=play, ledger=LedgerRecord(
            CHAT, f"t{row.table_id}:match", row.table_id, "due", {A: 1, B: -1},
            {A: "Ana", B: "Bea"}, T0),
    )  # fmt: skip
    assert [b.balance for b in await db.ledger.balances(CHAT)] == [1, -1]
    hands, _ = await db.stats.plays(CHAT)
    assert [(h.table_id, h.hand_index, h.data["users"]) for h in hands] == [
        (row.table_id, 0, [A, B])
    ]


# ---------------------------------------------------------------------- migrations


@pytest.mark.parametrize("version", [4, 5])
async def test_a_v4_or_v5_database_with_rows_migrates(tmp_path: Path, version: int) -> None:
    """A database made by the V4 (or V5) schema, with a chat, a user, a finished table and
    its ledger entry, opens at the current version: the old rows read as before, the old
    hand has no record (it counts in no stat), and new records, usernames and undos work."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    now = T0.isoformat()
    async with aiosqlite.connect(sqlite_path(url), isolation_level=None) as conn:
        assert await migrate(conn, MIGRATIONS[:version]) == list(range(1, version + 1))
        await old_group(conn, CHAT, 0, (A, "Ana"), now)
        await old_hand(conn, CHAT, 0, "t1:match", {A: 1, B: -1}, NAMES, now)
        assert await schema_version(conn) == version

    async with await Database.open(url) as db:
        async with aiosqlite.connect(sqlite_path(url)) as conn:
            assert await schema_version(conn) == SCHEMA_VERSION
        user = await db.people.get_user(A)
        assert user is not None and user.name == "Ana" and user.can_dm
        assert [(b.user_id, b.balance) for b in await db.ledger.balances(CHAT)] == [(A, 1), (B, -1)]
        assert (await db.tables.get_table(1)) is not None
        assert await db.stats.plays(CHAT) == ([], [])  # the old hand has no record
        # the new things work on the old rows
        await db.stats.note_username(A, "Ana", "ana_b")
        assert await db.stats.user_by_username("ANA_B") == (A, "Ana")
        user = await db.people.get_user(A)
        assert user is not None and user.name == "Ana" and user.can_dm
        await db.stats.record_play(
            PlayRecord(CHAT, 2, 0, "due", "two", T0, HANDS[4].data, MATCHES[0].data)
        )
        hands, matches = await db.stats.plays(CHAT, 0)
        assert len(hands) == len(matches) == 1 and hands[0].data == HANDS[4].data
        (entry,) = await db.ledger.season_entries(CHAT)
        await db.ledger.undo_entry(CHAT, entry.hand_id, A, "Ana", T0)
        assert await db.stats.undone_keys(CHAT) == {(CHAT, "t1:match")}


async def test_chiamata_hands_are_recorded_hand_by_hand(db: Database) -> None:
    """§7, §10.1: a chiamata table of five people records every hand (its auction, chiamante,
    socio, card points, and what the ledger got); the stats read them back consistently."""
    table = Table(9, CHAT, A, Options.parse("chiamata", {"target": 6}))
    for uid in FIVE:
        table.join(uid, NAMES[uid])
    table.start("seed-9")
    records: list[PlayRecord] = []
    play_out(table, records)
    assert table.match is not None and all(r.family == "chiamata" for r in records)
    for r in records:
        await db.stats.record_play(r)
    hv, mv = views(*(await db.stats.plays(CHAT)))
    assert len(hv) == len(records) and len(mv) == 1
    played = [h for h in hv if h.played]
    for h, rec in zip(hv, table.match.records, strict=True):
        assert h.counted == rec.deltas and sum(h.counted) == 0  # people only: all counted
        assert h.redeal == rec.redeal
    per = {uid: player_stats(uid, hv, mv)["chiamata"] for uid in FIVE}
    assert sum(s.as_caller for s in per.values()) == len(played)
    assert all(s.hands == len(played) for s in per.values())
    assert all(s.auctions == len(hv) for s in per.values())  # every hand had an auction
    assert sum(s.card_points for s in per.values()) == 120 * len(played)
    assert sum(s.bids for s in per.values()) >= len(played)  # every chiamante bid
    winner = match_winner(table)
    assert per[winner].wins == 1 and sum(s.wins for s in per.values()) == 1
    assert all(s.games == 1 for s in per.values())
    # and they are rated hand by hand, chiamante and socio against the defenders
    evs = events(CHAT, hv, mv)
    assert len(evs) == len(played)
    assert all(sorted(len(t) for t in e.teams) in ([1, 4], [2, 3]) for e in evs)


NAMES_AT = {A: "Ana", B: "Bea <&>", C: "Ciro", D: "Dario"}


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), counts=st.booleans())
def test_a_hands_end_is_computed_once_and_both_stores_agree(seed: int, counts: bool) -> None:
    """§10.1, §10.5: a chiamata hand of four people and a computer. What the ledger gets
    (`ledger_record`) and what the stats store (`play_record`) both come from one `HandEnd`:
    the ledger's deltas sum to zero and name people only, under the hand's key; the stats'
    record says the same per seat; the table is not read again (it may change meanwhile)."""
    table = Table(9, CHAT, A, Options.parse("chiamata", {}))
    for uid, name in ((A, "Ana"), (B, "Bea <&>"), (C, "Ciro"), (D, "Dario")):
        table.join(uid, name)
    table.add_bot("easy")
    table.counts = counts
    table.start(f"seed-{seed}")
    assert table.hand is not None
    while not table.hand.is_terminal():
        seat = table.hand.current
        table.apply(seat, table.bot_action(seat, "easy"))
    end = end_of_hand(table, T0)
    ledger, record = ledger_record(end), play_record(end)
    if table.status == "playing":
        table.next_hand()  # the table goes on: what was computed stays as it was
    assert (record is None) == (not counts)  # a computer seat: records only with "counts"
    assert sum(end.deltas.values()) == 0 and set(end.deltas) <= {A, B, C, D}
    if ledger is None:
        assert not end.deltas
        return
    assert ledger.hand_key == hand_key(9, end.hand_index) and ledger.deltas == dict(end.deltas)
    assert ledger.names == {uid: NAMES_AT[uid] for uid in end.deltas}
    assert record is not None and record.hand_index == end.hand_index
    counted = dict(zip(record.hand["users"], record.hand["counted"], strict=True))
    assert {uid: d for uid, d in counted.items() if d} == dict(end.deltas)

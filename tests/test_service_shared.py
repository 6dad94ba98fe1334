"""Issue 15: several workers, one database. Two table services (`shared=True`, as the bot's
workers on PostgreSQL are) share one database, each with its own memory, outbox and timers:
any of them may be handed any update of any table. On PostgreSQL, and on SQLite (two
connections to one file in one process: the same code paths, faster).

The database is the source of truth: a worker checks the table it holds against the stored
version before every use, a move is written only onto the version it was checked against
(a concurrent copy of the same tap is refused), and a deadline is fired by exactly one worker,
also one that never saw the table, or took over from a worker that died."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest
from telegram.ext import ExtBot

from bench.rig.backends import BACKENDS, fresh_url
from bench.rig.bot_process import TOKEN
from bench.rig.telegram import FakeTelegram
from bench.rig.telegram import Limits as FakeLimits
from bot.i18n import t
from bot.service import Person, Reply, TableService
from bot.service.core import COMPUTER_GRACE, SHOWN_GRACE
from bot.table.deadlines import Timing
from bot.table.table import FINISHED, PLAYING, Table
from bot.telegram.notes import Notes
from bot.telegram.outbox import TelegramOutbox
from bot.telegram.rate_limiter import Limits, PacedRateLimiter
from bot.telegram.replaced import Sweeper
from storage import Database
from tests.support.rig import CHAT, Clock, Out, Timers

ANA = Person(11, "Ana")
BEA = Person(12, "Bea <&> *x*")
PEOPLE = {p.user_id: p for p in (ANA, BEA)}
PLAYED = t("it", "ok_played")
STALE = t("it", "err_stale")


@dataclass
class Worker:
    db: Database
    out: Out
    timers: Timers
    svc: TableService


@pytest.fixture(params=BACKENDS)
async def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return fresh_url(request.param, tmp_path)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def workers(url: str, clock: Clock) -> AsyncIterator[list[Worker]]:
    made: list[Worker] = []
    for delay in (0.0, 0.0):
        db = await Database.open(url)
        out, timers = Out(), Timers()
        svc = TableService(
            db, out, timers, "test_bot", timing=Timing(clock=clock), bot_delay=delay, shared=True
        )
        made.append(Worker(db, out, timers, svc))
    yield made
    for w in made:
        await w.svc.close()
        await w.db.close()


async def now_at(w: Worker, tid: int) -> Table:
    """The table as `w` finds it now (checked against the stored version)."""
    table = await w.svc.registry.current(tid)
    assert table is not None
    return table


def tap_of(table: Table, rng: random.Random) -> tuple[Person, int, int, int]:
    """A legal action of the person to act: (person, hand index, stamp, action)."""
    hand = table.hand
    assert hand is not None and not hand.is_terminal()
    uid = table.seats[hand.current].user_id
    assert uid is not None
    action = rng.choice(hand.legal_actions())
    stamp = 0 if action < 100 else table.turn_start()
    return PEOPLE[uid], hand.hand_index, stamp, action


async def due_table(opener: Worker, joiner: Worker) -> int:
    """Ana opens a `due` table with `opener`, Bea joins it with `joiner`, Ana starts it with
    `opener`; the table's id."""
    for p in PEOPLE.values():
        await opener.db.people.upsert_user(p.user_id, p.name, can_dm=True)
    await opener.svc.lobby.new_table(CHAT, ANA, "due", True)
    await joiner.svc.lobby.join(CHAT, BEA)
    await opener.svc.settings.start(CHAT, ANA, is_admin=False)
    return (await opener.db.tables.active_table(CHAT)).table_id  # type: ignore[union-attr]


async def idle(ws: list[Worker]) -> None:
    for w in ws:
        await w.svc.idle()


async def test_any_worker_serves_any_update_of_a_match_to_its_ledger(
    workers: list[Worker],
) -> None:
    """§10: a `due` match between two people, every command and tap handed to a worker at
    random; each finds the table as the other left it. One ledger entry, zero-sum."""
    rng = random.Random(15)
    a, b = workers
    for w in workers:
        for p in PEOPLE.values():
            await w.db.people.upsert_user(p.user_id, p.name, can_dm=True)
    assert (await a.svc.lobby.new_table(CHAT, ANA, "due", True)).text == ""
    assert (await b.svc.lobby.join(CHAT, BEA)).key == "ok_joined"
    reply = await a.svc.settings.set_options(CHAT, ANA, [("match", "single")], panel=False)
    assert reply.key == "ok_option"
    assert (await b.svc.settings.start(CHAT, ANA, is_admin=False)).text == ""
    tid = (await a.db.tables.active_table(CHAT)).table_id  # type: ignore[union-attr]
    moves = 0
    while True:
        row = await a.db.tables.get_table(tid)
        if row is not None and row.status == FINISHED:
            break
        table = await now_at(rng.choice(workers), tid)
        assert table.status == PLAYING and table.hand is not None
        if table.hand.is_terminal():  # the next hand, from whichever worker
            reply = await rng.choice(workers).svc.play.next_hand(ANA, tid, table.hand.hand_index)
            assert reply.key != "err_busy"
            continue
        person, index, stamp, action = tap_of(table, rng)
        reply = await rng.choice(workers).svc.play.act(person, tid, index, stamp, action)
        assert reply.text == PLAYED, reply
        moves += 1
        await idle(workers)
    # the last trick's two cards, each its player's one legal move, play themselves (issue
    # 49, `Table.forced`): stored as theirs
    stored = await a.db.tables.moves(tid)
    assert len(stored) == moves + 2 and all(m.user_id in PEOPLE for m in stored[-2:])
    entries = await b.db.ledger.season_entries(CHAT)
    assert len(entries) == 1 and sum(entries[0].deltas.values()) == 0
    # both workers rendered the table; the last group render of each is from a stored state
    assert a.out.group and b.out.group


async def test_one_tap_delivered_to_two_workers_at_once_is_applied_once(
    workers: list[Worker],
) -> None:
    """A double delivery (or a double tap) reaching two workers together: one move."""
    rng = random.Random(7)
    a, b = workers
    tid = await due_table(a, b)
    for _ in range(6):
        person, index, stamp, action = tap_of(await now_at(a, tid), rng)
        before = len(await a.db.tables.moves(tid))
        replies: tuple[Reply, Reply] = await asyncio.gather(
            a.svc.play.act(person, tid, index, stamp, action),
            b.svc.play.act(person, tid, index, stamp, action),
        )
        await idle(workers)
        played = [r for r in replies if r.text == PLAYED]
        assert len(played) == 1, replies
        assert len(await a.db.tables.moves(tid)) == before + 1


async def test_next_hand_tapped_on_two_workers_at_once_deals_one_hand(
    workers: list[Worker], caplog: pytest.LogCaptureFixture
) -> None:
    """§10: both people tap "Prossima mano" together, each tap at another worker: one hand
    is dealt; the tap that loses the race is answered as done (the next hand is there) or as
    a stale button, never "try again", and nothing is logged as an error."""
    rng = random.Random(39)
    a, b = workers
    tid = await due_table(a, b)
    races = 0
    while races < 3:  # hands, each ended then both tap "Prossima mano" at once
        row = await a.db.tables.get_table(tid)
        if row is not None and row.status == FINISHED:  # the match is over: another one
            tid = await due_table(a, b)
            continue
        table = await now_at(a, tid)
        assert table.hand is not None
        if not table.hand.is_terminal():
            person, index, stamp, action = tap_of(table, rng)
            assert (await a.svc.play.act(person, tid, index, stamp, action)).text == PLAYED
            await idle(workers)
            continue
        races += 1
        index = table.hand.hand_index
        replies: tuple[Reply, Reply] = await asyncio.gather(
            a.svc.play.next_hand(ANA, tid, index), b.svc.play.next_hand(BEA, tid, index)
        )
        await idle(workers)
        keys = sorted(r.key or r.text for r in replies)
        assert keys in (["ok_played", "ok_played"], [STALE, "ok_played"]), replies
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        after = await now_at(b, tid)
        assert after.hand is not None and after.hand.hand_index == index + 1


async def test_a_deadline_is_fired_by_one_worker_even_one_that_never_saw_the_table(
    workers: list[Worker], clock: Clock
) -> None:
    """The turn timer runs out (§ issue 11: the computer plays the move): both workers are
    told at once, one of them never saw the table; exactly one move, one notice."""
    rng = random.Random(3)
    a, b = workers
    tid = await due_table(a, a)
    person, index, stamp, action = tap_of(await now_at(a, tid), rng)
    assert (await a.svc.play.act(person, tid, index, stamp, action)).text == PLAYED
    assert tid not in b.svc.registry.by_id
    assert await a.db.tables.due_tables(clock.now) == []
    clock.now += 61  # past the 60 s turn timer
    assert await a.db.tables.due_tables(clock.now) == [tid]
    await asyncio.gather(a.svc.waits.timeout(tid, ""), b.svc.waits.timeout(tid, ""))
    await idle(workers)
    log = await a.db.tables.moves(tid)
    assert len(log) == 2 and log[-1].user_id is None  # the computer played it, once
    notices = [text for w in workers for text in w.out.group_said() if "tempo scaduto" in text]
    assert len(notices) == 1, notices
    assert await a.db.tables.due_tables(clock.now) == []  # the next turn's deadlines lie ahead
    table = await now_at(b, tid)
    assert table.hand is not None and len(table.hand.actions) == 2  # a person's turn next
    assert table.pending.turn == [0, 2, table.hand.current]


async def test_a_computer_left_by_a_dead_worker_is_taken_over(
    workers: list[Worker], clock: Clock
) -> None:
    """A worker dies while a computer is to move: once its grace is over, another worker's
    poll finds the computer's deadline due and moves the computer players itself."""
    a, b = workers
    await a.db.people.upsert_user(ANA.user_id, ANA.name, can_dm=True)
    a.svc.deadlines.bot_delay = 600.0  # it will never get to move: it "dies" first
    await a.svc.lobby.new_table(CHAT, ANA, "due", True)
    await a.svc.lobby.add_bot(CHAT, "normal")
    await a.svc.settings.start(CHAT, ANA, is_admin=False)
    tid = (await a.db.tables.active_table(CHAT)).table_id  # type: ignore[union-attr]
    table = await now_at(a, tid)
    assert table.hand is not None
    if table.seats[table.hand.current].user_id == ANA.user_id:
        _, index, stamp, action = tap_of(table, random.Random(1))
        assert (await a.svc.play.act(ANA, tid, index, stamp, action)).text == PLAYED
    before = len(await a.db.tables.moves(tid))
    table = await now_at(b, tid)
    assert table.hand is not None and table.seats[table.hand.current].is_bot
    await a.svc.close()  # killed: its computer task is gone
    clock.now += COMPUTER_GRACE + 2 * 600.0 + 1
    assert await b.db.tables.due_tables(clock.now) == [tid]
    await b.svc.waits.timeout(tid, "")
    await b.svc.idle()
    log = await b.db.tables.moves(tid)
    # it moved the computer until the person's turn (twice if it took the trick and leads)
    assert len(log) > before and all(m.user_id is None for m in log[before:])
    table = await now_at(b, tid)
    assert table.hand is not None and table.seats[table.hand.current].user_id == ANA.user_id


async def test_two_workers_keep_to_one_call_a_second_into_a_private_chat(
    url: str, clock: Clock
) -> None:
    """Telegram allows the bot one call a second into a private chat, whichever worker makes
    it; each worker's own limiter knows only its own calls. Two workers with real outboxes
    (`TelegramOutbox`, shared) serve a `due` hand's taps at random, so both write to both
    hand messages, against the stand-in enforcing that limit: no call is refused, and the
    person to act ends with a hand message showing the table's last state (the other one
    sees the moves on their next turn)."""
    limits = FakeLimits(group_per_minute=None, overall_per_second=None, private_per_second=1.0)
    async with FakeTelegram(limits=limits) as fake, contextlib.AsyncExitStack() as stack:
        fake.group(CHAT, "Tavolo", members=[fake.user(p.user_id, p.name) for p in PEOPLE.values()])
        for p in PEOPLE.values():
            await fake.send_text(fake.user(p.user_id, p.name), p.user_id, "/start")
        made: list[Worker] = []
        outboxes: list[TelegramOutbox] = []
        for _ in range(2):
            db = await Database.open(url)
            stack.push_async_callback(db.close)
            bot = ExtBot(TOKEN, base_url=fake.base_url, rate_limiter=PacedRateLimiter(Limits()))
            await stack.enter_async_context(bot)
            out = TelegramOutbox(bot, db, group_interval=0.0, shared=True, private_gap=1.05)
            stack.push_async_callback(out.close)
            svc = TableService(
                db, out, Timers(), "test_bot", timing=Timing(clock=clock), shared=True
            )
            stack.push_async_callback(svc.close)
            outboxes.append(out)
            made.append(Worker(db, Out(), Timers(), svc))
        a, b = made
        tid = await due_table(a, b)
        rng = random.Random(5)
        for _ in range(10):
            person, index, stamp, action = tap_of(await now_at(a, tid), rng)
            reply = await rng.choice(made).svc.play.act(person, tid, index, stamp, action)
            assert reply.text == PLAYED, reply
            await asyncio.sleep(0.1)  # people tap quickly
        await idle(made)
        for out in outboxes:
            await out.flush(timeout=30.0)
        assert not fake.limit_violations, [
            (c.method, c.params.get("chat_id")) for c in fake.limit_violations
        ]
        table = await now_at(a, tid)
        assert table.hand is not None
        to_act = table.seats[table.hand.current].user_id
        for p in PEOPLE.values():
            shown = (await a.db.tables.message_state(tid, p.user_id)).version
            assert shown == table.move_no if p.user_id == to_act else shown <= table.move_no
            calls = [
                c
                for c in fake.calls
                if c.ok and c.params.get("chat_id") in (p.user_id, str(p.user_id))
            ]
            assert len(calls) >= 2  # both edited: each message got more than its first send


async def test_what_a_dead_worker_owed_is_shown_by_another_within_its_grace(
    url: str, clock: Clock
) -> None:
    """Issue 39 §4: a worker stores a move and dies before showing it (the next person's turn
    message, the group's table, all owed). The write left a "shown" deadline `SHOWN_GRACE`
    on: another worker fires it and sends what is owed, and only that (the other person's
    hand message waits for their turn, as it would have). When the writer did show its write,
    the same deadline costs no call at all."""
    async with FakeTelegram() as fake, contextlib.AsyncExitStack() as stack:
        fake.group(CHAT, "Tavolo", members=[fake.user(p.user_id, p.name) for p in PEOPLE.values()])
        for p in PEOPLE.values():
            await fake.send_text(fake.user(p.user_id, p.name), p.user_id, "/start")
        made: list[Worker] = []
        outboxes: list[TelegramOutbox] = []
        for real in (False, True, True):
            db = await Database.open(url)
            stack.push_async_callback(db.close)
            fake_out = Out()
            out: Any = fake_out
            if real:
                bot = ExtBot(TOKEN, base_url=fake.base_url)
                await stack.enter_async_context(bot)
                out = TelegramOutbox(bot, db, group_interval=0.0, shared=True)
                stack.push_async_callback(out.close)
                outboxes.append(out)
            svc = TableService(
                db, out, Timers(), "test_bot", timing=Timing(clock=clock), shared=True
            )
            stack.push_async_callback(svc.close)
            made.append(Worker(db, fake_out, Timers(), svc))
        dies, other, writer = made

        async def shown() -> None:
            await idle(made)
            for out in outboxes:
                await out.flush(timeout=30.0)

        tid = await due_table(writer, writer)
        await shown()
        rng = random.Random(8)
        # the writer lives: it shows its move; the deadline, fired by another, sends nothing
        person, index, stamp, action = tap_of(await now_at(writer, tid), rng)
        assert (await writer.svc.play.act(person, tid, index, stamp, action)).text == PLAYED
        await shown()
        assert await other.db.tables.due_tables(clock.now) == []
        clock.now += SHOWN_GRACE
        assert await other.db.tables.due_tables(clock.now) == [tid]
        calls = len(fake.calls)
        await other.svc.waits.timeout(tid, "")
        await shown()
        assert [c.method for c in fake.calls[calls:]] == []
        assert (
            await other.db.tables.due_tables(clock.now) == []
        )  # fired once: the lease is stored over
        # the next move, a trick's first card (the turn passes), is stored by a worker that
        # dies before it shows anything
        while (await now_at(writer, tid)).hand.trick:  # type: ignore[union-attr]
            person, index, stamp, action = tap_of(await now_at(writer, tid), rng)
            assert (await writer.svc.play.act(person, tid, index, stamp, action)).text == PLAYED
        await shown()
        person, index, stamp, action = tap_of(await now_at(writer, tid), rng)
        assert (await dies.svc.play.act(person, tid, index, stamp, action)).text == PLAYED
        await dies.svc.close()
        table = await now_at(other, tid)
        assert table.hand is not None and not table.hand.is_terminal()
        to_act = table.seats[table.hand.current].user_id
        waiting = next(uid for uid in PEOPLE if uid != to_act)
        group = await other.db.tables.message_state(tid, None)
        assert (
            group.version < table.move_no
            and (await other.db.tables.message_state(tid, to_act)).version < table.move_no
        )
        clock.now += SHOWN_GRACE
        assert await other.db.tables.due_tables(clock.now) == [tid]
        calls = len(fake.calls)
        await other.svc.waits.timeout(tid, "")
        await shown()
        sent = [(c.method, int(c.params.get("chat_id", 0))) for c in fake.calls[calls:] if c.ok]
        assert to_act != person.user_id
        assert ("sendMessage", to_act) in sent, sent  # their turn, as a message that notifies
        assert ("editMessageText", CHAT) in sent, sent  # the group's table
        # the one who moved: the message they tapped no longer says it is their turn (issue
        # 49: an edit, which the dead worker owed too); their next turn comes later
        assert waiting == person.user_id
        assert [m for m, chat in sent if chat == waiting] == ["editMessageText"], sent
        assert (await other.db.tables.message_state(tid, None)).version == table.move_no
        assert (await other.db.tables.message_state(tid, to_act)).version == table.move_no


async def test_a_move_after_another_workers_is_routine_by_what_it_changes(
    workers: list[Worker],
) -> None:
    """The group's table message shows a routine change (a card, a trick taken: issue 50.4)
    at a slower pace than a moment (the group's language, `core._moment`). A worker that
    finds the table moved on by another takes the stored state as the one shown: a card
    led after the other worker's change of language is routine; compared with the last
    state it had rendered itself (before that change) it was a moment, and with three
    workers nearly every change was one."""
    a, b = workers
    tid = await due_table(a, b)
    rng = random.Random(3)

    async def play(w: Worker) -> dict[str, object]:
        person, index, stamp, action = tap_of(await now_at(w, tid), rng)
        assert (await w.svc.play.act(person, tid, index, stamp, action)).key == "ok_played"
        await idle(workers)
        return w.out.group_flags[-1]

    assert (await play(a)).get("routine")  # a card led: routine
    assert (await play(b)).get("routine")  # the trick taken: routine too
    await b.svc.people.set_lang(CHAT, ANA, "en", True, is_admin=True)  # a moment
    await idle(workers)
    assert not b.out.group_flags[-1].get("routine")
    assert (await play(a)).get("routine")  # the next card led, after b's moment: routine
    await a.svc.people.set_lang(CHAT, ANA, "it", True, is_admin=True)
    await idle(workers)
    assert not a.out.group_flags[-1].get("routine")
    assert (await play(b)).get("routine")


async def test_a_sweep_keeps_a_private_chats_gap_after_another_workers_call(
    workers: list[Worker],
) -> None:
    """A hand's replaced turn messages go in one deleteMessages per chat (`Sweeper`); with
    other workers it keeps the chat's one call a second after any worker's last call for the
    person's hand message, and counts as one itself (a sweep by one worker right after
    another's edit of the hand message was refused by the stand-in at Telegram's limits)."""
    a, b = workers
    tid = await due_table(a, b)
    table = await now_at(a, tid)
    deleted: list[float] = []

    class Bot:
        async def delete_messages(self, chat_id: int, ids: list[int]) -> bool:
            deleted.append(time.time())
            return True

    gap = 0.4
    sweeper = Sweeper(
        cast(ExtBot[None], Bot()),
        b.db,
        Notes(b.db),
        shared=True,
        shown=lambda _t, _c: None,
        closing=lambda: False,
        private_gap=gap,
    )
    edited = time.time()  # worker a edits Ana's hand message now
    await a.db.tables.note_rendered(tid, ANA.user_id, table.move_no, ANA.user_id, 71, "x", edited)
    sweeper.replace(tid, ANA.user_id, 70)  # worker b sweeps the one it replaced
    sweeper.sweep(tid)
    while sweeper.pending():
        await asyncio.sleep(0.01)
    assert len(deleted) == 1 and deleted[0] - edited >= 0.95 * gap
    state = await a.db.tables.message_state(tid, ANA.user_id)
    assert state.sent_at >= deleted[0]  # the next call for Ana waits after the sweep
    assert state.version == table.move_no  # what the message shows is untouched


async def test_a_hand_message_is_edited_by_what_a_move_changes_not_by_the_worker(
    workers: list[Worker],
) -> None:
    """A person's hand message changes between their turns only at the moments that matter
    to them (`core._their_moment`: the deal, the call, the hand's end). A worker that finds
    the table moved on by another takes the stored state as shown: a card played is no news
    to the one who played it, whichever worker handles the next move (compared with the
    lobby, the last it had rendered itself, every hand message was news to it)."""
    a, b = workers
    tid = await due_table(a, b)  # b last rendered the lobby
    rng = random.Random(4)
    for w in (b, a, b, a):
        table = await now_at(w, tid)
        person, index, stamp, action = tap_of(table, rng)
        w.out.private_shown.clear()
        w.out.private_flags.clear()
        assert (await w.svc.play.act(person, tid, index, stamp, action)).text == PLAYED
        await idle(workers)
        # the next to act gets their turn; the other sees the card on their next turn, but
        # for the message they tapped, which only stops saying it is their turn (issue 49:
        # `settle`, edited only if it still shows a turn)
        after = await now_at(w, tid)
        assert after.hand is not None
        to_act = after.seats[after.hand.current].user_id
        shown = list(zip(w.out.private_shown, w.out.private_flags, strict=True))
        assert to_act in {u for u, _ in shown}, (shown, to_act)
        # (a turn this worker showed, or the mover's: edited only if it still shows a turn)
        assert all(f.get("settle") for u, f in shown if u != to_act), (shown, to_act)

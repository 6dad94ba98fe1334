"""Issue 10 ("How it is checked", second bullet): the bot process (`python -m bot`) is killed
with SIGKILL at many random moments of real hands and started again, while scripted people
play two tables at once against the stand-in Bot API with Telegram's limits enforced: a
Briscola chiamata table (2 people, 3 computer players) and a Briscola a due match (a person
against a computer, turn timer 30 s).

The people see only what Telegram shows them (their private hand message and its buttons, the
group's table message) and tap as people do: mostly when the table says it is their turn, now
and then out of turn, and on while the bot is down (their taps wait for it). A killer task
kills the bot about 8 times, each after a random 0.3-3 s of play (seeded; sometimes a few
milliseconds after somebody's tap, before its answer), and starts it again.

After each kill (bot dead) and each restart:

1. every tap answered "Fatto." is in the move log, no move is stored twice, every person's move
   comes from one of their taps, and the stored table (`tables.hand_json`, `match_json`,
   `status`) equals a replay of the whole move log from the match seed; the restart changes
   nothing stored: right after it, the move log still starts with what was stored at the kill
   and only moves made since (computer players', and the taps that waited) follow; with none,
   the table's row is exactly as before;
2. once: after a restart, the person at the due table does not act, and the computer plays for
   them when the turn timer (30 s) runs out;
3. at the end, each finished hand (chiamata: every hand; due: the match) has exactly one ledger
   entry, as the replay says, each summing to zero, and so do the balances;
4. the bot made no call that failed, before or after a restart (no 429 of its own making, no
   "message is not modified", no "query is too old"), with one exception checked precisely: a
   restarted bot may re-send a message's content once per kill and get "message is not
   modified" if Telegram shows that same content (text and keyboard) and the row of that message in
   `shown_messages` said at the kill that an edit was under way (the bot notes an edit before
   making it and confirms it after; the kill fell in between, so the restarted bot cannot
   know which content is shown). At each kill, every stored digest without an edit under way
   is checked to be that of the content Telegram last accepted for its message.
   A second case is allowed as precisely: "query is too old" for a tap the killed process
   answered less than 1 s before the kill but had not yet confirmed to Telegram (its next
   getUpdates), so that the restarted bot got the same update again and answered it again.

The seed can be changed with E2E_KILL_SEED. Every wait is bounded; the bot is killed in a
`finally`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.rig.bot_process import WAIT, BotProcess, Store, bot_guard, check_ledger
from bench.rig.people import (
    HAND_OVER,
    NOT_YOUR_TURN,
    OK,
    STALE,
    action_of,
    bid_buttons,
    card_buttons,
    hand_changed,
    hand_message,
    hand_over,
    open_table,
    say,
    start_table,
    table_message,
    your_turn,
)
from bench.rig.stand_in import REAL_PACE, strict_telegram
from bench.rig.telegram import (
    ApiCall,
    ButtonNotFound,
    FakeButton,
    FakeChat,
    FakeTelegram,
    FakeUser,
)
from bot.engine import HandState, Match
from bot.engine import actions as A
from bot.table.ledger import hand_key, match_key, without_computers
from bot.telegram.shown import digest
from bot.view.render import Button, Rendered
from tests.support.replay import Snapshot, _who_sits, forced_moves, read_table, replay

SEED = int(os.environ.get("E2E_KILL_SEED", "20261123"))
KILLS = 8
TIMER = 30  # seconds: the due table's turn timer
CHIAMATA_HANDS = 2  # hands to finish at the chiamata table (each writes the ledger)
ANSWER_WAIT = 6.0  # how long a person waits for the answer to a tap before looking again
ANSWERS = {OK, NOT_YOUR_TURN, STALE, HAND_OVER}
NOT_MODIFIED = "message is not modified"
QUERY_TOO_OLD = "query is too old"


# ------------------------------------------------------------------------------ records


@dataclass
class Tap:
    qid: str
    user: FakeUser
    table_id: int
    data: str
    pressed: float  # time.monotonic(), the stand-in's clock

    @property
    def parts(self) -> list[str]:
        return self.data.split(":")

    @property
    def is_move(self) -> bool:
        return self.parts[0] == "a"

    def move_key(self) -> tuple[int, int, int, int]:
        """(table, hand index, action, user) of the move this tap asks for."""
        _, tid, hidx, _, action = self.parts
        return int(tid), int(hidx), int(action), self.user.id


class Answers:
    """The accepted answers to taps, read from the stand-in's call log (a query answered twice
    shows up as a failed answerCallbackQuery, checked with every other failed call)."""

    def __init__(self, fake: FakeTelegram) -> None:
        self.fake = fake
        self.seen = 0
        self.text: dict[str, str] = {}

    def refresh(self) -> None:
        for call in self.fake.calls_of("answerCallbackQuery", since=self.seen):
            self.seen = max(self.seen, call.seq)
            if call.ok:
                self.text.setdefault(
                    str(call.params["callback_query_id"]), call.params.get("text") or ""
                )

    def get(self, qid: str) -> str | None:
        self.refresh()
        return self.text.get(qid)

    def now(self) -> dict[str, str]:
        """The answers so far (read before a snapshot: an answer comes after its move is
        stored, so every OK among them must be in a snapshot read afterwards)."""
        self.refresh()
        return dict(self.text)


@dataclass
class Kill:
    at: float  # just before SIGKILL
    dead: float  # the process is gone
    started: float = 0.0  # the next process polls (restore done)
    where: str = ""  # what the tables were doing
    shown: dict[tuple[int, int], str] = field(default_factory=dict)  # shown_messages then
    editing: set[tuple[int, int]] = field(default_factory=set)  # rows with an edit under way
    behind: int = 0  # messages with an edit under way (not confirmed) at the kill
    tap: Tap | None = None  # the tap the kill came right after


STATE_COLUMNS = ("status", "move_no", "options_json", "seats_json", "match_json", "hand_json")


# ------------------------------------------------------------------------------ the run


@dataclass
class TableInfo:
    name: str
    group: FakeChat
    people: list[FakeUser]
    table_id: int = 0
    seats: list[dict[str, Any]] = field(default_factory=list)

    def seat_of(self, user_id: int) -> int:
        return next(i for i, s in enumerate(self.seats) if s["user_id"] == user_id)

    def computer_seats(self) -> set[int]:
        return {i for i, s in enumerate(self.seats) if s["level"] is not None}


class Run:
    def __init__(self, fake: FakeTelegram, bot: BotProcess, rng: random.Random) -> None:
        self.fake = fake
        self.bot = bot
        self.store = Store(bot.db_path)
        self.rng = rng
        self.answers = Answers(fake)
        self.taps: list[Tap] = []
        self.tapped = asyncio.Event()
        self.kills: list[Kill] = []
        self.tables: list[TableInfo] = []
        self.done = False
        self.killing = True
        self.timer_seconds: float | None = None
        self.unchanged = 0  # restarts after which a table's row was compared whole

    # ---------------------------------------------------------------- checks

    def ledger_hands(self, chat_id: int) -> int:
        """Hands finished at the table with a score (not redealt): each one is a ledger
        entry, but where §10.5 leaves nobody's balance moved."""
        row = self.store.table(chat_id)
        if not row["match_json"]:
            return 0
        records = json.loads(row["match_json"])["records"]
        return sum(1 for r in records if not r[3])  # r[3]: redeal

    def check_table(self, info: TableInfo, snap: Snapshot, answers: dict[str, str]) -> Match:
        """Check 1 on one stored table: the replay, and the taps answered OK (`answers`, read
        before `snap`)."""
        match = replay(snap)
        people = {p.id for p in info.people}
        stored = Counter((info.table_id, h, a, u) for _, h, _, a, u in snap.moves if u is not None)
        assert set(u for _, _, _, u in stored) <= people
        timer_moves = 0
        for _, h, seat, _, u in snap.moves:
            if u is not None:
                assert info.seat_of(u) == seat, (h, seat, u)
            elif seat not in info.computer_seats():  # the turn timer played for a person
                timer_moves += 1
        # only the once the test let the timer run out (the people act within seconds)
        want = 1 if info.name == "due" and self.timer_seconds is not None else 0
        assert timer_moves == want, (info.name, timer_moves, want)
        ok: Counter[tuple[int, int, int, int]] = Counter()
        unanswered: set[tuple[int, int, int, int]] = set()
        for tap in self.taps:
            if tap.table_id != info.table_id:
                continue
            answer = answers.get(tap.qid)
            if tap.is_move:
                key = tap.move_key()
                if answer == OK:
                    assert stored[key] == 1, f"a tap answered OK is not stored: {tap}"
                    ok[key] += 1
                    assert ok[key] == 1, f"two taps answered OK for one move: {tap}"
                elif answer is None:
                    unanswered.add(key)  # stored or not: its answer is not known (yet)
            elif answer == OK:  # "Prossima mano": the next hand is dealt and stored
                assert json.loads(snap.row["hand_json"])["hand_index"] > int(tap.parts[2]), tap
        # every person's move comes from one of their taps answered OK or never answered, or
        # from a tap handed to the bot twice (stored by a process killed before it answered
        # and before it confirmed the update; the restarted bot then finds the card played)
        forced = {(info.table_id, h, a) for h, _, a in forced_moves(snap)}
        for key in stored:
            assert (
                key[:3] in forced  # a last card the bot plays for its player (issue 49)
                or key in ok
                or key in unanswered
                or any(
                    t.is_move and t.move_key() == key and self.deliveries(t.qid) > 1
                    for t in self.taps
                )
            ), f"a stored move no tap asked for, or one whose tap was refused: {key}"
        return match

    def deliveries(self, qid: str) -> int:
        """How many times getUpdates handed the bot this tap."""
        return len(self.delivered_at(qid))

    def delivered_at(self, qid: str) -> list[float]:
        """When getUpdates handed the bot this tap (the stand-in's clock, as `Kill.at`)."""
        return [
            c.at
            for c in self.fake.calls_of("getUpdates")
            if c.ok
            for u in c.result
            if u.get("callback_query", {}).get("id") == qid
        ]

    def check_all(self) -> dict[int, Snapshot]:
        snaps = {}
        answers = self.answers.now()
        for info in self.tables:
            snap = read_table(self.store, info.group.id)
            self.check_table(info, snap, answers)
            snaps[info.group.id] = snap
        return snaps

    def check_restart(
        self, info: TableInfo, before: Snapshot, after: Snapshot, answers: dict[str, str]
    ) -> None:
        """The restart changed nothing stored: the log at the kill is a prefix of the log now,
        and what follows are moves made since; with none, the row is as it was."""
        n = len(before.moves)
        assert after.moves[:n] == before.moves, "the restart changed the move log"
        new = after.moves[n:]
        assert after.row["options_json"] == before.row["options_json"], (
            "the restart changed options_json"
        )
        if not new:
            assert after.row["seats_json"] == before.row["seats_json"], (
                "the restart changed seats_json"
            )
        else:  # a move since may count a timeout or reset it (its person acted): who sits stays
            assert _who_sits(after.row) == _who_sits(before.row), "the restart changed seats_json"
        hand_before = json.loads(before.row["hand_json"])["hand_index"]
        hand_after = json.loads(after.row["hand_json"])["hand_index"]
        if not new and hand_after == hand_before:
            for col in STATE_COLUMNS:
                assert after.row[col] == before.row[col], f"the restart changed {col}"
            self.unchanged += 1
        elif not new:  # somebody tapped "Prossima mano" meanwhile: only that new hand is dealt
            assert hand_after == hand_before + 1, (hand_before, hand_after)
            assert not json.loads(after.row["hand_json"])["actions"]
            assert any(t.data == f"n:{info.table_id}:{hand_before}" for t in self.taps)
        forced = forced_moves(after)
        for move_no, h, seat, action, user in new:
            assert move_no > before.row["move_no"]
            if (h, seat, action) in forced:
                assert user == info.seats[seat]["user_id"], ("a last card not its player's", h)
            elif user is None:
                assert seat in info.computer_seats(), ("a person's seat played at restart", seat)
            else:
                assert any(
                    t.is_move and t.move_key() == (info.table_id, h, action, user)
                    for t in self.taps
                ), ("a move after the restart that no tap asked for", h, action, user)
        self.check_table(info, after, answers)

    # ---------------------------------------------------------------- kills

    async def kill_and_restart(self, after_tap: str = "") -> Kill:
        kill = Kill(time.monotonic(), 0.0)
        await self.bot.kill9()
        kill.dead = time.monotonic()
        self.kills.append(kill)
        before = self.check_all()  # the bot is dead: nothing moves
        self.check_shown(kill)
        kill.where = f"{after_tap}" + " ".join(
            describe_hand(info.name, before[info.group.id]) for info in self.tables
        )
        await self.bot.start()
        kill.started = time.monotonic()
        answers = self.answers.now()
        for info in self.tables:
            after = read_table(self.store, info.group.id)
            self.check_restart(info, before[info.group.id], after, answers)
        return kill

    async def killer(self, timer_kill: int, due: Person) -> None:
        for i in range(KILLS):
            await asyncio.sleep(self.rng.uniform(0.3, 3.0))
            if i == timer_kill:
                await self.timer_check(due)
                continue
            tap = None
            if self.rng.random() < 0.5:  # right after somebody's tap, before its answer
                self.tapped.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.tapped.wait(), 5)
                    await asyncio.sleep(self.rng.uniform(0.0, 0.03))
                    tap = self.taps[-1]
            kill = await self.kill_and_restart("tap! " if tap else "")
            kill.tap = tap
        self.killing = False

    async def timer_check(self, person: Person) -> None:
        """Check 2: kill while it is the due person's turn; they do not act after the restart;
        the computer plays their seat when the timer runs out."""
        info = person.info
        seat = info.seat_of(person.user.id)
        person.hold = True
        await asyncio.wait_for(person.parked.wait(), 2 * WAIT)  # once their step is over

        def their_turn() -> bool:
            hand = HandState.from_dict(self.store.hand(info.group.id))
            # (not a last card that plays itself: no timer waits on it, issue 49)
            return not hand.is_terminal() and hand.current == seat and hand.forced_action() is None

        await self.fake.wait_for(their_turn, WAIT, message="the due person's turn")
        await self.kill_and_restart("timer ")
        row = read_table(self.store, info.group.id)
        known = len(row.moves)
        # the turn's deadline, stored as a Unix time with the move that began the turn: the
        # restart re-arms it (the time the bot was down counts)
        deadline = json.loads(row.row["timers_json"])["at"]["timeout"]

        def timed_out() -> bool:
            new = read_table(self.store, info.group.id).moves[known:]
            return any(s == seat and u is None for _, _, s, _, u in new)

        await self.fake.wait_for(timed_out, TIMER + 15, interval=0.1, message="the timer's move")
        self.timer_seconds = time.time() - (deadline - TIMER)  # since the turn began
        new = read_table(self.store, info.group.id).moves[known:]
        # the timer's move first; then only the computer's, as the person is still idle
        assert new[0][2] == seat and all(u is None for *_, u in new), new
        person.hold = False

    # ---------------------------------------------------------------- failed calls

    def describe(self, call: ApiCall) -> str:
        """A failed call, with when it came relative to the kills and restarts, and how many
        calls its chat had accepted in the minute before it (for a 429), per bot process."""
        where = "before any kill"
        for i, k in enumerate(self.kills):
            if k.dead <= call.arrived:
                where = (
                    f"{call.arrived - k.started:+.2f} s after restart {i + 1} "
                    f"(killed {call.arrived - k.at:.2f} s before)"
                )
        chat = call.params.get("chat_id")
        minute = [
            c
            for c in self.fake.calls
            if c.ok
            and c.params.get("chat_id") == chat
            and call.arrived - 60 < c.arrived < call.arrived
        ]
        by_process = Counter(sum(1 for k in self.kills if k.dead <= c.arrived) for c in minute)
        return (
            f"{call.method} to {chat}: {call.description!r}, {where}; calls the chat accepted "
            f"in the minute before: {len(minute)} (per process: {dict(by_process)})"
            + self.not_modified(call)
        )

    def not_modified(self, call: ApiCall) -> str:
        """For a "not modified": what the bot had stored for the message at each kill since
        Telegram last accepted its content, and what that content was."""
        if NOT_MODIFIED not in (call.description or "") or "message_id" not in call.params:
            return ""
        key = (int(call.params["chat_id"]), int(call.params["message_id"]))
        prev = None
        for c in self.fake.calls:
            if c.seq >= call.seq:
                break
            accepted = c.ok and c.method in ("sendMessage", "editMessageText")
            if accepted and (c.result["chat"]["id"], c.result["message_id"]) == key:
                prev = c
        if prev is None:
            return "; no accepted content before"
        process = sum(1 for k in self.kills if k.dead <= prev.arrived)
        notes = [
            f"kill {i + 1}: stored {k.shown.get(key)!r}, editing {key in k.editing}"
            for i, k in enumerate(self.kills)
            if prev.arrived < k.at <= call.arrived
        ]
        return (
            f"; last accepted by process {process} ({prev.method}, digest "
            f"{content_digest(prev.params)}, this call's {content_digest(call.params)}); "
            + "; ".join(notes)
        )

    def check_calls(self) -> tuple[list[ApiCall], list[ApiCall]]:
        """Check 4: no failed call, but a long poll ended by a newer one, and two refusals a
        kill can cause, each checked to be exactly that case:

        - "message is not modified": the last content Telegram accepted for that message is
          the same, the row of that message said at the last kill before the call that an
          edit was under way (noted, not yet confirmed), and it is re-sent once after that
          kill;
        - "query is too old": the tap's update was handed out twice, the killed process had
          answered it less than 1 s before the kill (the kill fell between the answer and the
          next getUpdates, which tells Telegram the update was handled), and the restarted
          bot answered it once more.

        Returns those refusals, and the calls that failed otherwise."""
        allowed: list[ApiCall] = []
        failed = []
        last_ok: dict[tuple[int, int], ApiCall] = {}  # the last accepted content per message
        resent: set[tuple[int, float]] = set()  # (accepted call, its kill): re-sent once
        answered_again: set[str] = set()
        for c in self.fake.calls:
            if c.ok:
                if c.method in ("sendMessage", "editMessageText"):
                    last_ok[c.result["chat"]["id"], c.result["message_id"]] = c
                continue
            if c.method == "getUpdates" and "Conflict" in (c.description or ""):
                # a long poll ended by a newer one: the restarted bot's after a kill, or the
                # one PTB makes at a clean stop to confirm the updates it handled
                assert any(
                    c.arrived < u.arrived <= c.at for u in self.fake.calls_of("getUpdates")
                ), c
                continue
            if c.method == "answerCallbackQuery" and QUERY_TOO_OLD in (c.description or ""):
                # a tap the killed process answered, but whose update it had not yet confirmed
                # (the next getUpdates): Telegram hands it to the restarted bot again
                qid = str(c.params["callback_query_id"])
                first = next(
                    (
                        a
                        for a in self.fake.calls_of("answerCallbackQuery")
                        if a.ok and str(a.params["callback_query_id"]) == qid
                    ),
                    None,
                )
                kill = next((k for k in self.kills if first and k.at >= first.at), None)
                if (
                    first is not None
                    and kill is not None
                    and kill.dead <= c.arrived
                    and kill.at - first.at < 1.0
                    and self.deliveries(qid) == 2
                    and qid not in answered_again
                ):
                    answered_again.add(qid)
                    allowed.append(c)
                    continue
            if c.method == "editMessageText" and NOT_MODIFIED in (c.description or ""):
                key = (int(c.params["chat_id"]), int(c.params["message_id"]))
                prev = last_ok.get(key)
                kill = next((k for k in reversed(self.kills) if k.dead <= c.arrived), None)
                # once per kill: two kills in a row may each fall between a noted edit and
                # its confirmation (the restarted bot's own re-send is noted, then confirmed
                # with the next batch of notes)
                if (
                    prev is not None
                    and kill is not None
                    and content_digest(prev.params) == content_digest(c.params)
                    and key in kill.editing
                    and (prev.seq, kill.at) not in resent
                ):
                    resent.add((prev.seq, kill.at))
                    allowed.append(c)
                    continue
            failed.append(c)
        return allowed, failed

    def check_shown(self, kill: Kill) -> None:
        """At a kill: the digest stored for each kept message is that of the content Telegram
        last accepted for it, unless the row says an edit was under way (`editing`: the bot
        wrote it before the edit and had not yet confirmed it)."""
        rows = self.store.rows("SELECT * FROM shown_messages")
        kill.shown = {(r["chat_id"], r["message_id"]): r["digest"] for r in rows}
        kill.editing = {(r["chat_id"], r["message_id"]) for r in rows if r["editing"]}
        last_ok: dict[tuple[int, int], ApiCall] = {}
        for c in self.fake.calls:
            if c.ok and c.method in ("sendMessage", "editMessageText"):
                last_ok[c.result["chat"]["id"], c.result["message_id"]] = c
        for key, stored in kill.shown.items():
            if key in kill.editing:
                kill.behind += 1
                continue
            prev = last_ok[key]
            assert plain(stored) == content_digest(prev.params), (
                f"message {key} shows what was accepted {kill.at - prev.at:.2f} s before "
                "the kill, but the bot stored another digest and no edit under way"
            )


def plain(stored: str) -> str:
    """A stored digest without the mark of a message sent for the person's turn (`t:`, the
    turn's key and `|`)."""
    return stored.rsplit("|", 1)[1] if "|" in stored else stored


def content_digest(params: dict[str, Any]) -> str:
    """The bot's digest (`shown_messages`) of the content a sendMessage/edit carried."""
    rows = (params.get("reply_markup") or {}).get("inline_keyboard") or []
    keyboard = [[Button(b["text"], b.get("callback_data"), b.get("url")) for b in r] for r in rows]
    return digest(Rendered(params["text"], keyboard))


# ------------------------------------------------------------------------------ people


class Person:
    """A scripted person at one table: sees their hand message and the group's message."""

    def __init__(self, run: Run, info: TableInfo, user: FakeUser, leader: bool, seed: int):
        self.run = run
        self.fake = run.fake
        self.info = info
        self.user = user
        self.leader = leader  # taps "Prossima mano"
        self.rng = random.Random(seed)
        self.hold = False
        self.parked = asyncio.Event()

    def wants_next_hand(self) -> bool:
        if self.info.name == "due":
            return True
        return self.run.killing or self.run.ledger_hands(self.info.group.id) < CHIAMATA_HANDS

    async def tap(self, button: FakeButton) -> str | None:
        try:
            qid = await self.fake.press(self.user, button)
        except ButtonNotFound:  # the message changed meanwhile
            return STALE
        self.run.taps.append(
            Tap(qid, self.user, self.info.table_id, button.callback_data or "", time.monotonic())
        )
        self.run.tapped.set()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + ANSWER_WAIT
        while (answer := self.run.answers.get(qid)) is None and loop.time() < deadline:
            await asyncio.sleep(0.02)
        return answer  # None: the bot died with it (or is still down); look again

    def choose_bid(self, bids: list[FakeButton]) -> FakeButton:
        if all(A.NAME_SUIT <= action_of(b) < A.CALL_CARD for b in bids):
            return self.rng.choice(bids)  # the caller names a suit
        passes = [b for b in bids if b.text == "Passo"]
        if passes and self.rng.random() < 0.7:
            return passes[0]
        return self.rng.choice(bids)

    async def step(self) -> bool:
        """One look at the screen and, if there is something to do, one tap."""
        table = table_message(self.fake, self.info.group)
        if hand_over(table):
            if not self.leader or "Prossima mano" not in str(table.keyboard):
                return False
            if not self.wants_next_hand():
                return False
            answer = await self.tap(table.button("Prossima mano"))
            if answer == OK:
                with contextlib.suppress(TimeoutError):
                    await self.fake.wait_for(
                        lambda: not hand_over(table_message(self.fake, self.info.group)), WAIT
                    )
            return True
        msg = hand_message(self.fake, self.user)
        # the message names its group (issue 38; "#<table>" for a table without its name)
        title = msg.text.splitlines()[0]
        if f"#{self.info.table_id}" not in title and str(self.info.group.title) not in title:
            return False
        bids = bid_buttons(msg)
        if bids:
            button = self.choose_bid(bids)
        else:
            cards = card_buttons(msg)
            if not cards:
                return False
            mine = your_turn(msg)
            if not mine and self.rng.random() < 0.8:
                return False  # mostly, wait until the table says it is their turn
            button = self.rng.choice(cards)
        answer = await self.tap(button)
        if answer == OK:
            with contextlib.suppress(TimeoutError):  # their next turn, or the hand's end
                await self.fake.wait_for(hand_changed(self.fake, self.user, msg), WAIT)
        elif answer is not None:
            await asyncio.sleep(self.rng.uniform(0.2, 0.5))
        return True

    async def play(self) -> None:
        while not self.run.done:
            if self.hold:
                self.parked.set()
                await asyncio.sleep(0.05)
                continue
            self.parked.clear()
            try:
                acted = await self.step()
            except LookupError:  # nothing shown yet
                acted = False
            if not acted:
                await asyncio.sleep(0.15)


# ------------------------------------------------------------------------------ the test


async def test_sigkill_at_random_moments_resumes_every_table(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    t0 = time.monotonic()
    # "query is too old" passes the stand-in's own check on the way out: check 4
    # (`Run.check_calls`) allows it only in the one case a kill causes and fails any other
    async with asyncio.timeout(230), strict_telegram(allow=(QUERY_TOO_OLD,)) as fake:
        ana, bea, cleo = fake.user(901, "Ana"), fake.user(902, "Bea"), fake.user(903, "Cleo")
        g_chiamata = fake.group(-100901, "Chiamata", members=[ana, bea])
        g_due = fake.group(-100902, "Due", members=[cleo])
        with bot_guard(BotProcess(fake, tmp_path, **REAL_PACE)) as bot:
            await bot.start()
            run = Run(fake, bot, rng)
            for p in (ana, bea, cleo):
                await say(fake, p, p, "/start")
            chiamata = TableInfo("chiamata", g_chiamata, [ana, bea])
            due = TableInfo("due", g_due, [cleo])
            await asyncio.gather(
                open_table(
                    fake,
                    g_chiamata,
                    ana,
                    [bea],
                    "chiamata",
                    bots=3,
                    settings="target=0 counts=true",
                ),
                open_table(
                    fake,
                    g_due,
                    cleo,
                    [],
                    "due",
                    bots=1,
                    settings=f"match=single timer={TIMER} counts=true",
                ),
            )
            await asyncio.gather(start_table(fake, g_chiamata, ana), start_table(fake, g_due, cleo))
            for info in (chiamata, due):
                row = run.store.table(info.group.id)
                info.table_id = int(row["table_id"])
                info.seats = json.loads(row["seats_json"])["seats"]
                run.tables.append(info)
            assert json.loads(run.store.table(g_due.id)["seats_json"])["timer"] == TIMER

            people = [
                Person(run, chiamata, ana, True, SEED + 1),
                Person(run, chiamata, bea, False, SEED + 2),
                Person(run, due, cleo, True, SEED + 3),
            ]
            tasks = [asyncio.create_task(p.play()) for p in people]
            try:
                await run.killer(timer_kill=rng.choice([1, 2]), due=people[2])

                def finished() -> bool:
                    return (
                        run.store.table(g_due.id)["status"] == "finished"
                        and run.ledger_hands(g_chiamata.id) >= CHIAMATA_HANDS
                    )

                await fake.wait_for(finished, 150, interval=0.5, message="the hands played out")
            finally:
                run.done = True  # each person stops within one bounded wait
                _, pending = await asyncio.wait(tasks, timeout=WAIT + 5)
                for task in pending:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
            for task in tasks:
                task.result()  # a person's error fails the test

            # every tap was answered, but those a killed process took with it: handed to it
            # (the update it fetched, confirmed to Telegram by its next poll) and killed
            # before it answered, within ANSWER_WAIT (from the delivery, not the press: a tap
            # pressed while the bot was down waits for the next process)
            await asyncio.sleep(0.5)
            run.answers.refresh()
            for tap in run.taps:
                answer = run.answers.text.get(tap.qid)
                if answer is None:
                    assert any(
                        at <= k.at <= at + ANSWER_WAIT
                        for at in run.delivered_at(tap.qid)
                        for k in run.kills
                    ), f"a tap never answered: {tap}, delivered at {run.delivered_at(tap.qid)}"
                else:
                    assert answer in ANSWERS, (tap, answer)
            lost = [t for t in run.taps if t.qid not in run.answers.text]

            # 1 and 3: the stored tables replay, every OK tap stored, the ledger as replayed
            snaps = run.check_all()
            for info in run.tables:
                snap = snaps[info.group.id]
                match = replay(snap)
                ids = [s["user_id"] for s in info.seats]
                computers = info.computer_seats()
                want: dict[str, dict[str, int]] = {}
                # §10.5 ("counts" on): the computers neither pay nor collect; an entry where
                # nobody's balance moves is not written
                if info.name == "chiamata":
                    for rec in match.records:
                        if rec.redeal:
                            continue
                        deltas = per_id(ids, without_computers(rec.deltas, computers))
                        if deltas:
                            want[hand_key(info.table_id, rec.hand_index)] = deltas
                elif match.over:
                    deltas = per_id(ids, without_computers(match.ledger_deltas(), computers))
                    if deltas:
                        want[match_key(info.table_id)] = deltas
                got = ledger(run.store, info.group.id)
                assert got == want, (info.name, got, want)
                data = check_ledger(bot, info.group.id, hands=len(want))
                assert {h["hand_key"] for h in data["hands"]} == set(want)
            assert run.ledger_hands(g_chiamata.id) >= CHIAMATA_HANDS
            assert run.store.table(g_due.id)["status"] == "finished"

            # 2: the timer played for the idle person after a restart
            assert run.timer_seconds is not None
            assert TIMER - 1.5 <= run.timer_seconds <= TIMER + 6, run.timer_seconds

            assert len(run.kills) == KILLS
            assert await bot.stop(signal.SIGTERM) == 0
            bot.check_logs()

            # 4: no failed call but the one precise exception
            resent, failed = run.check_calls()
            moves = {i.name: len(snaps[i.group.id].moves) for i in run.tables}
            after_tap = Counter(tap_fate(fake, k) for k in run.kills if k.tap is not None)
            print(
                f"\n[kill] seed {SEED}: {len(run.kills)} kills at {[k.where for k in run.kills]}; "
                f"restarts took {[round(k.started - k.at, 2) for k in run.kills]} s; "
                f"{len(run.taps)} taps ({len(lost)} lost with a killed process), moves {moves}, "
                f"kills right after a tap: {dict(after_tap)}, "
                f"chiamata hands {run.ledger_hands(g_chiamata.id)}, "
                f"timer {run.timer_seconds:.1f} s, "
                f"rows unchanged by the restart (nobody moved yet) {run.unchanged}/{2 * KILLS}, "
                f"kills with an edit under way "
                f"{sum(k.behind > 0 for k in run.kills)}, "
                f"refusals a kill caused {[run.describe(c) for c in resent]}; "
                f"{time.monotonic() - t0:.0f} s"
            )
            assert not failed, "failed calls:\n" + "\n".join(run.describe(c) for c in failed)


def tap_fate(fake: FakeTelegram, kill: Kill) -> str:
    """Whether the tap a kill came right after was answered before the kill, by the restarted
    bot, or never."""
    assert kill.tap is not None
    answers = [
        c
        for c in fake.calls_of("answerCallbackQuery")
        if c.ok and str(c.params["callback_query_id"]) == kill.tap.qid
    ]
    if not answers:
        return "never answered"
    return "answered before" if answers[0].at <= kill.at else "answered after the restart"


def describe_hand(name: str, snap: Snapshot) -> str:
    """e.g. 'chiamata#1:play,12' (hand index, phase, actions taken)."""
    hand = HandState.from_dict(json.loads(snap.row["hand_json"]))
    phase = "over" if hand.is_terminal() else ("bid" if hand.phase != "play" else "play")
    return f"{name}#{hand.hand_index}:{phase},{len(hand.actions)}"


def per_id(ids: list[int | None], deltas: Sequence[int]) -> dict[str, int]:
    out: dict[str, int] = {}
    for lid, d in zip(ids, deltas, strict=True):
        out[str(lid)] = out.get(str(lid), 0) + d
    return {k: v for k, v in out.items() if v}


def ledger(store: Store, chat_id: int) -> dict[str, dict[str, int]]:
    """hand_key -> {user: delta} from ledger_entries, checked against ledger_hands."""
    hands = store.rows("SELECT * FROM ledger_hands WHERE chat_id = ?", chat_id)
    entries = store.rows("SELECT * FROM ledger_entries WHERE chat_id = ?", chat_id)
    out: dict[str, dict[str, int]] = {}
    for e in entries:
        out.setdefault(e["hand_key"], {})[str(e["user_id"])] = e["delta"]
    assert len(hands) == len({h["hand_key"] for h in hands}) == len(out)
    for h in hands:
        deltas = {str(k): v for k, v in json.loads(h["deltas_json"]).items() if v}
        assert deltas == out[h["hand_key"]], (h["hand_key"], deltas, out[h["hand_key"]])
        assert sum(out[h["hand_key"]].values()) == 0
    assert sum(e["delta"] for e in entries) == 0
    return out

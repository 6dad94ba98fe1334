"""The scripted people of the load bench. Each opens a private chat with /start; a table's
creator opens it with /new, the others join (/join or the Entra button), the creator seats
computer players with the lobby's "+ 🤖" buttons and starts with "Inizia". A person waits for
their turn (the group's table message, or a new turn message in their private chat), thinks,
and taps; now and then someone taps out of turn, twice, or again a move the screen still
shows; the creator taps "Prossima mano" after a hand and opens a new table after a match; and
people send /score or /help in their group. Every update made is noted (`Action`) with when
it was made, for the measures."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import random
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bench.load.scenarios import ANSWER_WAIT, HUMAN_SCENARIOS, POLL, RETAP_EVERY
from bench.rig.people import (
    NOT_YOUR_TURN,
    OK,
    bid_buttons,
    card_buttons,
    table_message,
    your_turn,
)
from bench.rig.telegram import (
    ButtonNotFound,
    FakeButton,
    FakeChat,
    FakeMessage,
    FakeTelegram,
    FakeUser,
)

LEVELS = ("facile", "normale", "difficile")
NAMES = ("Ana", "Bea", "Cleo", "Dario", "Elio", "Fede", "Gino", "Ines", "Lia", "Marco", "Nina")
# variant, seats, how many people sit (the rest are computers); weights of the mix
RECIPES: tuple[tuple[str, int, tuple[int, ...], int], ...] = (
    ("due", 2, (1, 1, 2), 5),
    ("tre", 3, (1, 2), 2),
    ("quattro", 4, (1, 2, 3), 3),
    ("sei", 6, (1, 2, 3), 1),
    ("chiamata", 5, (1, 2, 3), 3),
    ("chiamata4", 4, (1, 2), 1),
    ("briscolone", 2, (1, 2), 2),
    ("scoperta", 2, (1, 2), 1),
    ("coperta", 2, (1,), 1),
    ("briskula32", 2, (1, 2), 1),
    ("doppia", 2, (1, 2), 1),
)
ANSWER_KINDS = {
    OK: "ok",
    "": "ok",
    NOT_YOUR_TURN: "not_your_turn",
    "Pulsante scaduto: usa quelli aggiornati.": "stale",
    "Devi rispondere al seme di uscita.": "must_follow",
    "Quella mano è finita.": "hand_over",
    "Un momento, riprova.": "busy",
    "Sei seduto al tavolo.": "ok",
    "Qualcosa è andato storto: riprova tra poco.": "error",
}
# the bot's "too busy to open a table now" (issue 50.1), with when to try again
BUSY_RE = re.compile(r"riprova tra (\d+) secondi")


@dataclass
class Person:
    user: FakeUser
    rng: random.Random
    tapped_table_edit: tuple[int, int] | None = None  # the table message when I last played
    acted_on: tuple[int, int] | None = None  # the private turn message I last acted on
    refused: set[str] = field(default_factory=set)  # cards refused (must follow) this turn
    next_glance: float = 0.0
    next_retap: float = 0.0  # --retap: when I may tap again a turn the group still shows

    @property
    def name(self) -> str:
        return self.user.first_name


@dataclass
class Table:
    index: int
    group: FakeChat
    variant: str
    seats: int
    people: list[Person]
    levels: list[str]  # the computer players' levels
    rng: random.Random
    tid: int | None = None
    mid: int | None = None  # the table message
    snapshot: FakeMessage | None = None
    playing: bool = False
    next_tapped: str | None = None
    commands_at: list[float] = field(default_factory=list)
    opened: int = 0
    failed: str | None = None
    admitted: float | None = None  # when its first /new was answered with a lobby

    @property
    def creator(self) -> Person:
        return self.people[0]


@dataclass
class Action:
    """One update a person made: a tap (`qid` its callback query) or a command (in `chat`).
    `made` is when the update was made available to the bot (time.monotonic(), the fake's
    clock); `label` how a tap was answered ("ok", "stale", ..., "timeout", "anomaly")."""

    made: float
    kind: str
    qid: str | None = None
    chat: int | None = None
    label: str | None = None
    table: int | None = None  # the bench's table index (taps)


@dataclass
class Stats:
    answers: dict[str, Counter[str]] = field(default_factory=dict)
    button_gone: Counter[str] = field(default_factory=Counter)
    answer_timeouts: Counter[str] = field(default_factory=Counter)
    answer_anomalies: list[str] = field(default_factory=list)
    commands: Counter[str] = field(default_factory=Counter)
    taps: int = 0
    reopened: int = 0
    open_failures: list[str] = field(default_factory=list)
    busy: int = 0  # /new or "Inizia" answered "too busy, try again in N s" (retried then)
    loop_errors: list[str] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)  # in the order they were made

    def answer(self, kind: str, text: str) -> str:
        label = ANSWER_KINDS.get(text, f"other: {text[:60]}")
        self.answers.setdefault(kind, Counter())[label] += 1
        return label


class Bench:
    def __init__(self, fake: FakeTelegram, args: argparse.Namespace) -> None:
        self.fake = fake
        self.args = args
        self.rng = random.Random(args.seed)
        self.stats = Stats()
        self.active = False  # people act only while this is set
        self.window_end = math.inf
        self.tables: list[Table] = []
        self.loop = asyncio.get_running_loop()
        self._next_user = 10_000
        # when each tap and each command was made, in order: the fake's latency lists are in
        # the same order, so each latency can be put in its phase of the run
        self.press_times: list[float] = []
        self.command_times: list[float] = []
        self.first_new: float | None = None  # when the first /new was made (rush)

    def now(self) -> float:
        return self.loop.time()

    # ---------------------------------------------------------------- set-up

    def make_tables(self) -> None:
        weights = [r[3] for r in RECIPES]
        for i in range(self.args.tables):
            rng = random.Random(self.rng.random())
            if self.args.scenario in HUMAN_SCENARIOS or i % 10 == 3:  # chiamata, five people
                variant, seats, humans = "chiamata", 5, 5
            else:
                variant, seats, choices, _ = rng.choices(RECIPES, weights)[0]
                humans = rng.choice(choices)
            people = []
            for k in range(humans):
                self._next_user += 1
                name = f"{NAMES[(i + k) % len(NAMES)]} {i}.{k}"
                if (i + k) % 7 == 0:
                    name += " & <Co>"  # HTML to escape
                user = self.fake.user(self._next_user, name)
                people.append(Person(user, random.Random(rng.random())))
            levels = [LEVELS[(i + k) % 3] for k in range(seats - humans)]
            group = self.fake.group(
                -100_900_000_000 - i, f"Bar {i}", members=[p.user for p in people]
            )
            self.tables.append(Table(i, group, variant, seats, people, levels, rng))

    # ---------------------------------------------------------------- looking and tapping

    def think(self, rng: random.Random) -> float:
        return rng.uniform(*self.args.think)

    async def tap(
        self, who: Person, button: FakeButton, kind: str, table: Table | None = None
    ) -> str | None:
        """Press and wait for the answer; None if nothing usable came back."""
        if not self.active:
            return None
        made = time.monotonic()
        try:
            qid = await self.fake.press(who.user, button)
        except ButtonNotFound:
            self.stats.button_gone[kind] += 1
            return None
        self.stats.taps += 1
        self.press_times.append(time.monotonic())
        action = Action(made, kind, qid=qid, table=table.index if table else None)
        self.stats.actions.append(action)
        try:
            answer = await self.fake.answer_for(qid, ANSWER_WAIT)
        except TimeoutError:
            self.stats.answer_timeouts[kind] += 1
            action.label = "timeout"
            return None
        except AssertionError as exc:
            self.stats.answer_anomalies.append(str(exc))
            action.label = "anomaly"
            return None
        text = answer.text or ""
        action.label = self.stats.answer(kind, text)
        return text

    async def command(self, who: Person, chat: FakeChat | FakeUser, text: str) -> None:
        made = time.monotonic()
        await self.fake.send_text(who.user, chat, text)
        self.stats.commands[text.split()[0]] += 1
        self.command_times.append(time.monotonic())
        self.stats.actions.append(Action(made, text.split()[0], chat=chat.id))
        if self.first_new is None and text.startswith("/new"):
            self.first_new = made

    async def wait(self, what: Callable[[], Any], timeout: float, interval: float = 0.4) -> Any:
        """Poll `what` (LookupError = not yet) until truthy; TimeoutError after `timeout`."""
        return await self.fake.wait_for(what, timeout, interval=interval)

    def newest(self, chat: FakeChat | FakeUser) -> FakeMessage | None:
        try:
            return self.fake.last_message(chat)
        except LookupError:
            return None

    async def reply_after(self, chat: FakeChat | FakeUser, before: int, timeout: float) -> str:
        """The text of the first new bot message in `chat` after message id `before`."""

        def found() -> FakeMessage | None:
            m = self.newest(chat)
            return m if m is not None and m.message_id > before else None

        msg: FakeMessage = await self.wait(found, timeout)
        return msg.text

    def hand_of(self, person: Person, table: Table) -> FakeMessage | None:
        """The person's newest hand message of this table (its buttons name the table; the
        header names the group, not the table), skipping results and notices after it."""
        mark = f":{table.tid}:"
        for msg in reversed(self.fake.bot_messages(person.user)):
            if msg.text.startswith("🃏"):
                return msg if any(mark in (b.callback_data or "") for b in msg.buttons) else None
        return None

    def refresh_table(self, table: Table) -> FakeMessage | None:
        msg = None
        if table.mid is not None:
            with contextlib.suppress(LookupError):
                msg = self.fake.message(table.group, table.mid)
            if msg is not None and (msg.deleted or not msg.text.startswith(("🃏", "⚙️"))):
                msg = None
        if msg is None:
            with contextlib.suppress(LookupError):
                msg = table_message(self.fake, table.group)
                table.mid = msg.message_id
        table.snapshot = msg
        return msg

    # ---------------------------------------------------------------- opening a table

    async def open_table(self, table: Table, first: bool) -> None:
        group, rng = table.group, table.rng
        if first:

            async def hello(p: Person) -> None:
                before = m.message_id if (m := self.newest(p.user)) else 0
                await self.command(p, p.user, "/start")
                await self.reply_after(p.user, before, self.args.open_wait)

            await asyncio.gather(*(hello(p) for p in table.people))
        table.playing = False
        table.next_tapped = None
        while True:  # as people would: told the bot is too busy, try again when it says
            before = m.message_id if (m := self.newest(group)) else 0
            asked = time.monotonic()
            await self.command(table.creator, group, f"/new {table.variant}")

            def lobby(before: int = before) -> FakeMessage | None:
                m = self.newest(group)
                if m is None or m.message_id <= before:
                    return None
                if BUSY_RE.search(m.text):
                    return m
                if not m.text.startswith("🃏"):
                    return None
                return m if any(b.text == "Entra" for b in m.buttons) else None

            msg: FakeMessage = await self.wait(lobby, self.args.open_wait)
            told = BUSY_RE.search(msg.text)
            if told is None:
                break
            self.stats.busy += 1
            await asyncio.sleep(int(told.group(1)))
        if table.admitted is None:
            table.admitted = asked
        table.mid = msg.message_id
        join = msg.button("Entra")
        assert join.callback_data is not None
        table.tid = int(join.callback_data.split(":")[1])
        for i, p in enumerate(table.people[1:]):
            await asyncio.sleep(rng.uniform(0.3, 1.5))
            if i % 2 == 0:
                last = self.newest(group)
                await self.command(p, group, "/join")
                text = await self.reply_after(
                    group, last.message_id if last else 0, self.args.open_wait
                )
                if "seduto" not in text:
                    raise RuntimeError(f"/join answered {text!r}")
            else:
                answer = await self.tap(p, join, "lobby")
                if answer != "Sei seduto al tavolo.":
                    raise RuntimeError(f"Entra answered {answer!r}")
        for level in table.levels:
            await asyncio.sleep(rng.uniform(0.3, 1.0))
            answer = await self.tap(table.creator, msg.button(f"+ 🤖 {level}"), "lobby")
            if answer != "":
                raise RuntimeError(f"+ 🤖 {level} answered {answer!r}")
        full = f"({table.seats}/{table.seats})"
        await self.wait(
            lambda: full in (self.refresh_table(table) or msg).text, self.args.open_wait
        )
        await asyncio.sleep(self.think(rng))
        while (answer := await self.tap(table.creator, msg.button("Inizia"), "lobby")) and (
            told := BUSY_RE.search(answer)
        ):
            self.stats.busy += 1
            await asyncio.sleep(int(told.group(1)))
        if answer != "":
            raise RuntimeError(f"Inizia answered {answer!r}")
        table.playing = True
        table.opened += 1
        for p in table.people:
            p.tapped_table_edit = None

    # ---------------------------------------------------------------- playing

    async def table_loop(self, table: Table) -> None:
        """The group's side: "Prossima mano", a new table after a match, commands."""
        rng = table.rng
        while True:
            await asyncio.sleep(POLL + rng.uniform(0, 0.2))
            if not self.active or not table.playing:
                continue
            msg = self.refresh_table(table)
            if table.commands_at and self.now() >= table.commands_at[0]:
                table.commands_at.pop(0)
                who = rng.choice(table.people)
                await self.command(who, table.group, rng.choice(("/score", "/help")))
            if msg is None:
                continue
            nxt = next((b for b in msg.buttons if b.text == "Prossima mano"), None)
            if nxt is not None and nxt.callback_data != table.next_tapped:
                await asyncio.sleep(self.think(rng))
                answer = await self.tap(table.creator, nxt, "next", table)
                if answer is not None:
                    table.next_tapped = nxt.callback_data
            elif "Partita finita" in msg.text and not msg.buttons and self.now() < self.window_end:
                await asyncio.sleep(self.think(rng))
                self.stats.reopened += 1
                try:
                    await self.open_table(table, first=False)
                except (TimeoutError, RuntimeError, LookupError) as exc:
                    self.stats.open_failures.append(f"table {table.index} (again): {exc!r}")
                    table.playing = False
                    return

    async def person_loop(self, table: Table, p: Person) -> None:
        rng = p.rng
        while True:
            await asyncio.sleep(POLL + rng.uniform(0, 0.3))
            if not self.active or not table.playing:
                continue
            tmsg = table.snapshot
            my_turn = tmsg is not None and (
                f"Tocca a {p.name}." in tmsg.text or f"Tocca ad {p.name}." in tmsg.text
            )
            seen = (tmsg.message_id, tmsg.edited) if tmsg is not None else None
            stale = my_turn and p.tapped_table_edit == seen
            if stale:
                my_turn = False  # the table has not shown my last move yet
            # the phone rings: a new turn message in the private chat ("👉 Tocca a te")
            hand = self.hand_of(p, table)
            if hand is not None and your_turn(hand):
                my_turn = my_turn or (hand.message_id, hand.edited) != p.acted_on
            now = self.now()
            if stale and not my_turn and self.args.retap and now >= p.next_retap:
                # the group still says it is my turn: now and then I tap a card again
                p.next_retap = now + rng.uniform(*RETAP_EVERY)
                cards = card_buttons(hand) if hand is not None else []
                if cards and rng.random() < self.args.retap:
                    await self.tap(p, rng.choice(cards), "retap", table)
                    continue
            if not my_turn and now < p.next_glance:
                continue
            p.next_glance = now + 2.0  # a glance at the private chat now and then
            if hand is None:
                continue
            cards, bids = card_buttons(hand), bid_buttons(hand)
            if not cards and bids:
                await self.bid(table, p, hand)
            elif cards and my_turn:
                await self.play(table, p, seen)
            elif cards and rng.random() < self.args.impatience:
                await self.tap(p, rng.choice(cards), "impatient", table)

    async def bid(self, table: Table, p: Person, hand: FakeMessage) -> None:
        rng = p.rng
        await asyncio.sleep(self.think(rng))
        fresh = self.hand_of(p, table)
        bids = bid_buttons(fresh) if fresh is not None else []
        if not bids or card_buttons(fresh or hand):
            return
        passes = [b for b in bids if b.text == "Passo"]
        others = [b for b in bids if b.text not in ("Passo", "Carichi")] or bids
        button = passes[0] if passes and rng.random() < self.args.pass_rate else rng.choice(others)
        answer = await self.tap(p, button, "bid", table)
        if answer in (OK, ""):
            assert fresh is not None
            version = (fresh.message_id, fresh.edited)
            p.acted_on = version

            def moved_on() -> bool:
                now = self.hand_of(p, table)
                return now is None or (now.message_id, now.edited) != version

            await self.wait_or_retap(table, p, button, moved_on)

    async def play(self, table: Table, p: Person, seen: tuple[int, int] | None) -> None:
        rng = p.rng
        await asyncio.sleep(self.think(rng))
        hand = self.hand_of(p, table)
        cards = [b for b in card_buttons(hand)] if hand is not None else []
        choice = [b for b in cards if b.callback_data not in p.refused] or cards
        if not choice:
            return
        button = rng.choice(choice)
        assert hand is not None
        answer = await self.tap(p, button, "card", table)
        if answer in (OK, "") and rng.random() < self.args.double_tap:
            await self.tap(p, button, "double", table)  # the finger slipped: a second tap
        if answer in (OK, ""):
            p.refused.clear()
            p.tapped_table_edit = seen
            if self.args.retap:  # the group may go on showing my turn: a look in 3-8 s
                p.next_retap = self.now() + rng.uniform(*RETAP_EVERY)
            p.acted_on = (hand.message_id, hand.edited)
            data = button.callback_data

            def card_gone() -> bool:
                now = self.hand_of(p, table)
                return now is None or data not in [b.callback_data for b in now.buttons]

            await self.wait_or_retap(table, p, button, card_gone)
        elif answer is not None and ANSWER_KINDS.get(answer) == "must_follow":
            p.refused.add(button.callback_data or "")
        else:  # not my turn after all (the table showed an older state): wait for news
            p.tapped_table_edit = seen
            await asyncio.sleep(1.0)

    async def wait_or_retap(
        self, table: Table, p: Person, button: FakeButton, done: Callable[[], bool]
    ) -> None:
        """Wait (60 s at most) until the screen shows the move made (`done`). With `--retap`,
        every 3-8 s that it still shows it as to be made, tap it again with that chance."""
        if not self.args.retap:
            with contextlib.suppress(TimeoutError):
                await self.wait(done, 60.0)
            return
        deadline = self.now() + 60.0
        while (left := deadline - self.now()) > 0:
            try:
                await self.wait(done, min(left, p.rng.uniform(*RETAP_EVERY)))
                return
            except TimeoutError:
                pass
            if self.now() < deadline and p.rng.random() < self.args.retap:
                await self.tap(p, button, "retap", table)

    async def run_table(self, table: Table, delay: float) -> None:
        await asyncio.sleep(delay)
        try:
            await self.open_table(table, first=True)
        except (TimeoutError, RuntimeError, LookupError) as exc:
            table.failed = repr(exc)
            self.stats.open_failures.append(f"table {table.index} ({table.variant}): {exc!r}")
            return

        async def guarded(loop: Any) -> None:  # a surprise ends one loop, counted, not the run
            try:
                await loop
            except Exception as exc:
                self.stats.loop_errors.append(f"table {table.index}: {exc!r}"[:200])

        await asyncio.gather(
            guarded(self.table_loop(table)),
            *(guarded(self.person_loop(table, p)) for p in table.people),
        )

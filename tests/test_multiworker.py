"""Issue 15, several workers: three `python -m bot` processes in webhook mode (`WebhookBot`, each
on its own port, `WORKERS=3`) share one PostgreSQL database
(`bench.rig.backends.fresh_url`), one bot token and one webhook secret, behind a front that
stands for the load balancer: the stand-in Bot API posts each update to the address the front
names, a random living worker, and about one update in five to two different workers at once (a
duplicate delivery). What got no 2xx answer the stand-in delivers again
(`FakeTelegram.deliver_webhook_to`).

Scripted people play three tables at once, in three groups, seeing only what Telegram shows
them (the group's table message, their private hand message and its buttons, the answers to
their taps), and tap only when their hand message says it is their turn:

- a Briscola chiamata table of 3 people and 2 computer players (`counts=true`, §10.5) and one
  of 5 people, each with its auction (a person's first bid of a hand calls a rank, so a hand is
  never dealt again for want of a call, §7.4; later they pass). A chiamata match ends at
  `target` points (§7.13): at the 11 the settings allow it takes some 30 hands, so both play
  as an open league (`target=0`), `CHIAMATA_HANDS` hands each to the end, after which the
  creator, a group admin, cancels the table (`/cancel`);
- a Briscola a due match between two people, one hand (`match=single`, §4.3).

Midway a worker is killed with SIGKILL right after the front has sent it an update (so that
update is in flight), and started again a few seconds later; while it is down the front routes
to the living workers only. Later the second and then the third worker are killed the same
way (`KILL_AFTER`).

At the end:

1. every table got to its end: the due match is over (`tables.status` finished, the table
   message says "Partita finita"), each chiamata table finished its hands and is cancelled; the
   stored tables replay from their move logs (`tests.test_e2e_kill.replay`: no move stored
   twice, hand and match as the log says);
2. the ledger (§10): exactly one entry per finished chiamata hand in which a person's balance
   moves (§10.1; with computer seats only the people's share, §10.5) and one for the due match
   (§10.2), each summing to zero, as are the balances; the export agrees (`check_ledger`);
3. no group table message went back to an older state (`check_progress`);
4. every callback query was answered at most once (no second answerCallbackQuery, not even a
   failed one), every tap was answered but one whose update was in flight to a worker when it
   was killed, every tap answered "Fatto." is one move in the log, and every move of a person's
   seat comes from their taps (none made by the turn timer: nobody waited for a message that
   never came);
5. every update was confirmed in the end, the updates were spread over the workers and some
   delivered twice at once; no call to the Bot API failed (`telegram()`); no worker's log holds
   a traceback.

A second test (`test_a_worker_down_twenty_seconds_at_telegrams_limits`, issue 39 §4) plays
one chiamata hand of five people who take 0.5-1.5 s to choose, at Telegram's real limits
(enforced by the stand-in: no 429 of the bot's own making) and the bot's own pacing, with
one worker down 20 s, and measures how soon the next turn message and the group's table
follow each move.

A third (`test_a_bid_shows_within_20_s_though_its_worker_was_killed`, issue 50 §3) SIGKILLs
the worker of a chiamata bid as soon as the bid is stored, the next person away on a 30 s
turn timer: the group's table shows the bid within 20 s of its store, and never goes back.
`MULTIWORKER_ROUTE=one` sends every update to the first worker instead (and to nowhere else
while it is down: the stand-in delivers again once it is back), the harness's own check.
`MULTIWORKER_SEED` changes the seed.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import functools
import json
import os
import random
import re
import signal
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg

from bench.load.measure import pct
from bench.rig.backends import PgStore, fresh_url
from bench.rig.bot_process import WAIT, WebhookBot, bot_guard, check_ledger
from bench.rig.cards import cards_named
from bench.rig.people import (
    HAND_OVER,
    NOT_YOUR_TURN,
    OK,
    STALE,
    act_buttons,
    action_of,
    bid_buttons,
    card_buttons,
    hand_changed,
    hand_message,
    hand_over,
    open_table,
    quiet,
    say,
    start_table,
    table_message,
    your_turn,
)
from bench.rig.stand_in import REAL_PACE, strict_telegram, telegram
from bench.rig.telegram import (
    ButtonNotFound,
    FakeButton,
    FakeChat,
    FakeTelegram,
    FakeUser,
    JSONDict,
)
from bot.cli.render import card_name
from bot.config import Settings
from bot.engine import DECK40
from bot.engine import actions as A
from bot.table.ledger import hand_key, match_key, without_computers
from bot.telegram.webhook import LEASE
from tests.support.replay import Snapshot, forced_moves, replay

SEED = int(os.environ.get("MULTIWORKER_SEED", "1515"))
ROUTE = os.environ.get("MULTIWORKER_ROUTE", "random")  # "one": every update to worker 0
WORKERS = 3
DUPLICATE = 0.2  # the share of updates the front delivers to two workers at once
KILL_AFTER = (50, 120, 190)  # a worker is killed once the people have made this many moves
DOWN = 3.0  # seconds a killed worker stays down
CHIAMATA_HANDS = 3
ANSWER_WAIT = 8.0  # how long a person waits for the answer to a tap before looking again
ANSWERS = {OK, NOT_YOUR_TURN, STALE, HAND_OVER}
QUERY_TOO_OLD = "query is too old"  # a tap whose worker was killed, answered late
ENV = {
    "WORKERS": str(WORKERS),
    # the turn timer (60 s) lasts 30 s, the pause after a hand 7.5 s; deadlines are polled
    # every 0.25 s
    "TIMER_SCALE": "0.5",
    # the stand-in enforces no limit here: like the other budgets (`BotProcess.env`), a
    # private chat's is raised (at Telegram's one call a second, a chiamata hand of five
    # people takes a minute)
    "PRIVATE_RATE_PER_SECOND": "20",
}


# ------------------------------------------------------------------------------ the front


class Front:
    """The load balancer: `route` (called on the stand-in's thread for every delivery, and
    again for every redelivery) names a random living worker, or two at once (DUPLICATE);
    with ROUTE "one", always the first worker. `arm(w)` makes `hit` fire when `w` is next
    sent an update."""

    def __init__(self, workers: list[WebhookBot], rng: random.Random, mode: str) -> None:
        self.workers = workers
        self.rng = rng
        self.mode = mode
        self.lock = threading.Lock()
        self.live = list(workers)
        self.armed: WebhookBot | None = None
        self.hit = threading.Event()
        self.sent: Counter[int] = Counter()  # deliveries per worker (its index)
        self.doubled = 0

    def route(self, update: JSONDict) -> list[str]:
        with self.lock:
            if self.mode == "one":
                chosen = [self.workers[0]]
            elif len(self.live) >= 2 and self.rng.random() < DUPLICATE:
                chosen = self.rng.sample(self.live, 2)
                self.doubled += 1
            else:
                chosen = [self.rng.choice(self.live)]
            for w in chosen:
                self.sent[self.workers.index(w)] += 1
            if self.armed is not None and self.armed in chosen:
                self.hit.set()
            return [w.url for w in chosen]

    def arm(self, worker: WebhookBot) -> None:
        with self.lock:
            self.hit.clear()
            self.armed = worker

    def down(self, worker: WebhookBot) -> None:
        with self.lock:
            self.armed = None
            self.live.remove(worker)

    def up(self, worker: WebhookBot) -> None:
        with self.lock:
            self.live = [w for w in self.workers if w in self.live or w is worker]


@dataclass
class Kill:
    worker: int  # its index
    at: float  # just before SIGKILL (time.monotonic)
    in_flight: bool  # an update had just been sent to it
    restarted: float = 0.0


def worker_bots(
    stack: contextlib.ExitStack, fake: FakeTelegram, tmp_path: Path, url: str, env: dict[str, str]
) -> list[WebhookBot]:
    """`WORKERS` webhook workers on the database at `url`, each in its own folder, not yet
    started (start them one at a time: the first creates the schema); stopped with `stack`."""
    workers = []
    for i in range(WORKERS):
        workdir = tmp_path / f"worker{i}"
        workdir.mkdir()
        bot = WebhookBot(fake, workdir, DATABASE_URL=url, **env)
        workers.append(stack.enter_context(bot_guard(bot)))
    return workers


async def kill_in_flight(
    front: Front, workers: list[WebhookBot], victim: WebhookBot, jitter: float = 0.0
) -> Kill:
    """SIGKILL `victim` right after the front has sent it an update (`jitter` s later), so
    that update is in flight; the front routes to the others until `restart`."""
    front.arm(victim)
    hit = await asyncio.to_thread(front.hit.wait, 10)
    await asyncio.sleep(jitter)
    front.down(victim)
    kill = Kill(workers.index(victim), time.monotonic(), hit)
    await victim.kill9()
    return kill


async def restart(front: Front, victim: WebhookBot, kill: Kill) -> None:
    await victim.start()
    front.up(victim)
    kill.restarted = time.monotonic()


# ------------------------------------------------------------------------------ people


@dataclass
class Tap:
    qid: str
    user: FakeUser
    data: str
    pressed: float

    def move_key(self) -> tuple[int, int, int] | None:
        """(hand index, action, user) of the move this tap asks for (None: not a move)."""
        parts = self.data.split(":")
        if parts[0] != "a":
            return None
        return int(parts[2]), int(parts[4]), self.user.id


@dataclass
class TableInfo:
    name: str  # "chiamata" or "due"
    group: FakeChat
    people: list[FakeUser]
    computers: int = 0
    settings: str = ""
    table_id: int = 0
    done: bool = False
    done_at: float = 0.0  # time.monotonic()
    hands: int = CHIAMATA_HANDS  # a chiamata table is cancelled after this many hands
    # how long the table's message may take to go after the /cancel: its worker may have
    # been killed with it (the update's lease); at Telegram's pace, the group's minute
    cancel_wait: float = LEASE + WAIT
    cancelled_in: float = 0.0  # seconds it took

    def finish(self) -> None:
        self.done, self.done_at = True, time.monotonic()


class Run:
    def __init__(self, fake: FakeTelegram) -> None:
        self.fake = fake
        self.taps: list[Tap] = []
        self.moves = 0  # people's moves answered "Fatto."
        self.stopping = False


class Person:
    """A scripted person at one table. The first person of a table opened it: they tap
    "Prossima mano" and, a group admin, cancel a chiamata table after its hands."""

    def __init__(
        self,
        run: Run,
        info: TableInfo,
        user: FakeUser,
        seed: int,
        pace: tuple[float, float] = (0.0, 0.0),
    ) -> None:
        self.pace = pace  # seconds they take to choose, at random between the two
        self.run = run
        self.fake = run.fake
        self.info = info
        self.user = user
        self.leader = user == info.people[0]
        self.rng = random.Random(seed)
        self.called: set[int] = set()  # the hands in which they made their call

    async def tap(self, button: FakeButton) -> str | None:
        """The answer's text ("" for an answer without text); None when no answer came within
        ANSWER_WAIT (its worker was killed, or is down) or the button was gone."""
        try:
            qid = await self.fake.press(self.user, button)
        except ButtonNotFound:  # the message changed meanwhile
            return None
        self.run.taps.append(Tap(qid, self.user, button.callback_data or "", time.monotonic()))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + ANSWER_WAIT
        while not (answers := self.fake.answers_to(qid)) and loop.time() < deadline:
            await asyncio.sleep(0.02)
        return (answers[0].text or "") if answers else None

    def choose_bid(self, bids: list[FakeButton]) -> FakeButton:
        hand = int((bids[0].callback_data or "").split(":")[2])
        calls = [b for b in bids if A.CALL_RANK <= action_of(b) < A.BID_POINTS]
        if calls and hand not in self.called:  # §7.4: nobody passes a hand out
            self.called.add(hand)
            return self.rng.choice(calls)
        passes = [b for b in bids if action_of(b) == A.PASS]
        return passes[0] if passes else self.rng.choice(bids)  # the suit, the called card

    async def step(self) -> bool:
        """One look at the screen and, if there is something to do, one tap."""
        table = table_message(self.fake, self.info.group)
        if hand_over(table):
            return await self.after_hand(table.message_id, table.text, table.keyboard)
        msg = hand_message(self.fake, self.user)
        if not your_turn(msg) or not act_buttons(msg):
            return False
        bids = bid_buttons(msg)
        button = self.choose_bid(bids) if bids else self.rng.choice(card_buttons(msg))
        if self.pace[1] > 0:
            await asyncio.sleep(self.rng.uniform(*self.pace))
        answer = await self.tap(button)
        if answer == OK:
            if button.callback_data and button.callback_data.startswith("a:"):
                self.run.moves += 1
            with contextlib.suppress(TimeoutError):  # their next turn, or the hand's end
                await self.fake.wait_for(hand_changed(self.fake, self.user, msg), WAIT)
        elif answer is not None:
            await asyncio.sleep(0.2)
        return True

    async def after_hand(self, mid: int, text: str, keyboard: list[list[str]]) -> bool:
        info = self.info
        if "Partita finita" in text:
            info.finish()
            return False
        number = int(m[1]) if (m := HAND_TITLE.match(text.splitlines()[0])) else 0
        real = any(line.startswith("Il chiamante ") for line in text.splitlines())
        if info.name == "chiamata" and real and number >= info.hands:
            if self.leader:  # an admin cancels a running match at once
                began = time.monotonic()
                await self.fake.send_text(self.user, info.group, "/cancel")
                # the reply says it; the table's message goes (issue 38: said once)
                await self.fake.wait_for(
                    lambda: mid not in [m.message_id for m in self.fake.bot_messages(info.group)],
                    info.cancel_wait,
                    message=f"{info.name}: the table cancelled",
                )
                info.cancelled_in = time.monotonic() - began
                info.finish()
            return False
        if not self.leader or "Prossima mano" not in str(keyboard):
            return False
        answer = await self.tap(table_message(self.fake, info.group).button("Prossima mano"))
        if answer == OK:
            with contextlib.suppress(TimeoutError):
                await self.fake.wait_for(
                    lambda: not hand_over(table_message(self.fake, info.group)), WAIT
                )
        return True

    async def play(self) -> None:
        while not self.info.done and not self.run.stopping:
            try:
                acted = await self.step()
            except LookupError:  # nothing shown yet
                acted = False
            if not acted:
                await asyncio.sleep(0.05)


# ------------------------------------------------------------------------------ check 3


HAND_TITLE = re.compile(r"^🃏 .+ — mano (\d+)$")
LOBBY_TITLE = re.compile(r"^🃏 .+ — tavolo aperto$")
SEATS = re.compile(r"^Posti \((\d+)/\d+\):$")
CARD = re.compile(r"\b(Asso|Re|Cavallo|Fante|[2-7]) di (denari|coppe|spade|bastoni)\b")
CARD_IDS = {card_name(c, DECK40, "it"): c for c in range(DECK40.size)}
# the lines of a finished hand's result (render.hand_result_lines, match_over_line)
RESULT = ("Il chiamante ", "Vince ", "Vincono ", "Mano nulla", "Tutti hanno passato", "🏆")

Key = tuple[int, ...]


@dataclass(frozen=True)
class Shown:
    """What one text of a group table message says about the table's progress."""

    kind: str  # "lobby", "hand", "closed"
    number: int = 0  # lobby: seats taken; hand: its number as people count it
    over: bool = False  # the hand's result is shown
    bids: int = 0  # entries of the "Asta:" line (chiamata's auction)
    called: bool = False  # the "Chiamante:" line (the auction and the call are over)
    trick: tuple[int, ...] = ()  # the cards of "In tavola:"
    last: tuple[int, ...] = ()  # the cards of "Ultima presa:"


def cards_of(line: str) -> tuple[int, ...]:
    """The cards a line names, with their suit symbols ("Asso 🪙", issue 38) or in words."""
    named = {CARD_IDS[f"{rank} di {suit}"] for rank, suit in CARD.findall(line)}
    return tuple(sorted(named | cards_named(line)))


def parse_shown(text: str) -> Shown:
    lines = text.splitlines()
    if text.startswith("🛑"):  # "Tavolo annullato da ..."
        return Shown("closed")
    if LOBBY_TITLE.match(lines[0]):
        seats = next(int(m[1]) for line in lines if (m := SEATS.match(line)))
        return Shown("lobby", seats)
    title = HAND_TITLE.match(lines[0])
    assert title, f"a table message that is neither a lobby, a hand nor closed: {text!r}"
    bids, called = 0, False
    trick: tuple[int, ...] = ()
    last: tuple[int, ...] = ()
    for line in lines:
        if line.startswith("Asta: ") and not line.startswith("Asta: tocca"):
            bids = len(line.split(" · "))  # (not "Asta: tocca a Leo.", whose turn it is)
        elif line.startswith(("Chiamante: ", "📣 ")):  # the call, or the auction won
            called = True
        elif line.startswith("In tavola: "):
            trick = cards_of(line)
        elif line.startswith("Ultima presa: "):
            last = cards_of(line)
    over = any(line.startswith(RESULT) for line in lines)
    return Shown("hand", int(title[1]), over, bids, called, trick, last)


@dataclass
class HandLog:
    """One dealt hand of a table, from the database: its number as the table message counts
    hands (a void hand and its replay share one, §4.1, §7.4), its actions in order, whether it
    finished."""

    index: int
    number: int
    actions: list[int] = field(default_factory=list)
    finished: bool = False

    def keys(self, shown: Shown) -> Key | None:
        """The progress key of `shown` if it can be a state of this hand, else None:
        (1, hand index, stage, count); stage 0 the auction (count: bids shown), 1 the call
        made, 2 cards played (count: the place in the hand's actions of the newest card on
        the table or in the last trick), 3 the result."""
        if shown.number != self.number:
            return None
        if shown.over:
            return (1, self.index, 3, 0) if self.finished else None
        played = {a: i for i, a in enumerate(self.actions) if a < A.CALL_RANK}
        cards = shown.trick + shown.last
        if cards:
            if any(c not in played for c in cards):
                return None
            if shown.trick and max((played[c] for c in shown.last), default=-1) > min(
                played[c] for c in shown.trick
            ):
                return None  # the last trick was played after the cards on the table
            return (1, self.index, 2, max(played[c] for c in cards))
        if shown.called:
            return (1, self.index, 1, 0)
        bids = sum(1 for a in self.actions if A.CALL_RANK <= a <= A.CARICHI)
        return (1, self.index, 0, shown.bids) if shown.bids <= bids else None


def hand_logs(snap: Snapshot) -> list[HandLog]:
    records = json.loads(snap.row["match_json"] or "null")
    records = records["records"] if records else []
    last = json.loads(snap.row["hand_json"])["hand_index"] if snap.row["hand_json"] else -1
    logs = []
    for index in range(last + 1):
        counted = sum(1 for r in records if r[0] < index and not r[2])  # r[2]: void
        logs.append(HandLog(index, counted + 1, finished=any(r[0] == index for r in records)))
    for _, h, _, action, _ in snap.moves:
        logs[h].actions.append(action)
    return logs


def table_texts(fake: FakeTelegram, group: FakeChat) -> dict[int, list[str]]:
    """Every text each table message of `group` showed, in the order Telegram took them
    (the stand-in applies calls one at a time, in the order of its call log)."""
    return {mid: [text for _, text in shown] for mid, shown in table_texts_at(fake, group).items()}


def table_texts_at(fake: FakeTelegram, group: FakeChat) -> dict[int, list[tuple[float, str]]]:
    """`table_texts`, each with the time the stand-in answered its call (time.monotonic)."""
    texts: dict[int, list[tuple[float, str]]] = {}
    for c in fake.calls:
        if not c.ok or c.method not in ("sendMessage", "editMessageText"):
            continue
        if c.result["chat"]["id"] != group.id:
            continue
        mid, text = c.result["message_id"], c.result.get("text", "")
        first = text.splitlines()[0] if text else ""
        if c.method == "sendMessage" and (LOBBY_TITLE.match(first) or HAND_TITLE.match(first)):
            texts[mid] = [(c.at, text)]
        elif mid in texts and text != texts[mid][-1][1]:
            texts[mid].append((c.at, text))
    return texts


def progress(name: str, mid: int, texts: Sequence[str], logs: Sequence[HandLog]) -> list[Key]:
    """The progress key of each text of one table message (`check_progress`), checking that
    they never decrease."""
    out: list[Key] = []
    previous: Key = (0,)
    before = ""
    for text in texts:
        shown = parse_shown(text)
        if shown.kind == "lobby":
            keys: list[Key] = [(0, shown.number)]
        elif shown.kind == "closed":
            keys = [(2,)]
        else:
            keys = sorted(k for log in logs if (k := log.keys(shown)) is not None)
            assert keys, f"{name}: message {mid} showed no state of the table:\n{text}"
        later = [k for k in keys if k >= previous]
        assert later, (
            f"{name}: message {mid} went back from {previous} to {keys[-1]}:\n"
            f"{before}\n---- then ----\n{text}"
        )
        previous, before = later[0], text
        out.append(previous)
    return out


def check_progress(fake: FakeTelegram, info: TableInfo, snap: Snapshot) -> int:
    """Check 3: no table message of the group ever showed an older state after a newer one.

    Each text a table message showed is read for its progress: the lobby (seats taken), then
    hand by hand the auction (bids shown), the call, the cards played, the result, and last
    the table closed. The cards are the finest clock: every card is played once per hand, so
    the newest card on the table or in the last trick places the text exactly within the
    hand's move log (read from the database). The hand's number is in the title; where two
    hands share it (a void hand and its replay) a text may belong to either, and the
    earliest one not before the previous text's is taken. The keys of the successive texts
    of each message must never decrease; a text that can be no state of the table fails as
    well. Returns how many texts were checked."""
    logs = hand_logs(snap)
    return sum(
        len(progress(info.name, mid, texts, logs))
        for mid, texts in table_texts(fake, info.group).items()
    )


# ------------------------------------------------------------------------------ the rest


def read_table(store: PgStore, chat_id: int) -> Snapshot:
    rows = store.rows(
        "SELECT * FROM tables WHERE chat_id = ? ORDER BY table_id DESC LIMIT 1", chat_id
    )
    assert rows, f"no table in chat {chat_id}"
    row = dict(rows[0])
    moves = [
        (r["move_no"], r["hand_index"], r["seat"], r["action"], r["user_id"])
        for r in store.rows(
            "SELECT * FROM moves WHERE table_id = ? ORDER BY move_no", row["table_id"]
        )
    ]
    return Snapshot(row, moves)


def per_id(ids: Sequence[int | None], deltas: Sequence[int]) -> dict[str, int]:
    return {str(i): d for i, d in zip(ids, deltas, strict=True) if d}


def ledger_of(store: PgStore, chat_id: int) -> dict[str, dict[str, int]]:
    """hand_key -> {user: delta}, from ledger_entries, checked against ledger_hands."""
    hands = store.rows("SELECT * FROM ledger_hands WHERE chat_id = ?", chat_id)
    entries = store.rows("SELECT * FROM ledger_entries WHERE chat_id = ?", chat_id)
    out: dict[str, dict[str, int]] = {}
    for e in entries:
        out.setdefault(e["hand_key"], {})[str(e["user_id"])] = e["delta"]
    assert len(hands) == len({h["hand_key"] for h in hands}) == len(out), (hands, out)
    for h in hands:
        deltas = {str(k): v for k, v in json.loads(h["deltas_json"]).items() if v}
        assert deltas == out[h["hand_key"]], (h["hand_key"], deltas, out[h["hand_key"]])
    return out


def expected_ledger(info: TableInfo, snap: Snapshot) -> dict[str, dict[str, int]]:
    """§10.1: one entry per finished chiamata hand (a redeal is no hand, §7.4); §10.2: one for
    a finished match of another variant; §10.5: a computer neither pays nor collects, and an
    entry that moves nobody's balance is not written."""
    match = replay(snap)
    seats = json.loads(snap.row["seats_json"])["seats"]
    ids = [s["user_id"] for s in seats]
    computers = {i for i, s in enumerate(seats) if s["user_id"] is None}
    want: dict[str, dict[str, int]] = {}
    if info.name == "chiamata":
        for rec in match.records:
            if not rec.redeal and (deltas := per_id(ids, without_computers(rec.deltas, computers))):
                want[hand_key(info.table_id, rec.hand_index)] = deltas
    elif match.over and (
        deltas := per_id(ids, without_computers(match.ledger_deltas(), computers))
    ):
        want[match_key(info.table_id)] = deltas
    return want


def check_taps(run: Run, fake: FakeTelegram, kills: list[Kill], workers: list[WebhookBot]) -> None:
    """Check 4 on the taps and the answers."""
    answered = Counter(c.params["callback_query_id"] for c in fake.calls_of("answerCallbackQuery"))
    assert answered and max(answered.values()) == 1, answered.most_common(3)
    update_of = {
        u["callback_query"]["id"]: u["update_id"] for u in fake.updates if "callback_query" in u
    }
    killed = {workers[k.worker].url for k in kills}
    in_flight = {  # updates a killed worker had when it died (refused connections aside)
        p.update_id
        for p in fake.webhook_posts
        if p.url in killed and isinstance(p.result, str) and not p.result.startswith("Connect")
    }
    for tap in run.taps:
        answers = fake.answers_to(tap.qid)
        if not answers:
            assert update_of[tap.qid] in in_flight, f"a tap never answered: {tap}"
        else:
            assert (answers[0].text or "") in ANSWERS | {""}, (tap, answers[0])


def check_moves(run: Run, fake: FakeTelegram, info: TableInfo, snap: Snapshot) -> None:
    """Check 4 on the move log: every tap answered OK is one stored move; every move of a
    person's seat comes from a tap of theirs or is their last card, played for them (none
    from the turn timer)."""
    seats = json.loads(snap.row["seats_json"])["seats"]
    people = {i for i, s in enumerate(seats) if s["user_id"] is not None}
    stored = Counter((h, a, u) for _, h, _, a, u in snap.moves if u is not None)
    ids = {p.id for p in info.people}
    asked = set()
    for tap in run.taps:
        key = tap.move_key()
        if tap.user.id not in ids or key is None:
            continue
        asked.add(key)
        answers = fake.answers_to(tap.qid)
        if answers and answers[0].text == OK:
            assert stored[key] == 1, f"{info.name}: a tap answered OK stored {stored[key]} times"
    forced = forced_moves(snap)  # a last card the bot plays for its player (issue 49)
    for _, h, seat, action, user in snap.moves:
        if seat in people:
            assert user is not None, f"{info.name}: the timer played hand {h} for seat {seat}"
            assert (h, action, user) in asked or (h, seat, action) in forced, (
                f"{info.name}: a move nobody asked for: {h, action}"
            )


# ------------------------------------------------------------------------------ the test


async def test_three_workers_one_database_random_routing_and_a_sigkill(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    url = fresh_url("postgresql", tmp_path)
    store = PgStore(url)
    t0 = time.monotonic()
    async with asyncio.timeout(280), telegram() as fake:
        ana, bea, leo = fake.user(1501, "Ana"), fake.user(1502, "Bea"), fake.user(1503, "Leo")
        five = [
            fake.user(1510 + i, n) for i, n in enumerate(("Ciro", "Dora", "Ezio", "Fede", "Gia"))
        ]
        ugo, vera = fake.user(1521, "Ugo"), fake.user(1522, "Vera")
        g1 = fake.group(-1001501, "Chiamata uno", admins=[ana], members=[bea, leo])
        g2 = fake.group(-1001502, "Chiamata due", admins=[five[0]], members=five[1:])
        g3 = fake.group(-1001503, "Due", members=[ugo, vera])
        tables = [
            TableInfo("chiamata", g1, [ana, bea, leo], 2, "target=0 counts=true"),
            TableInfo("chiamata", g2, five, 0, "target=0"),
            TableInfo("due", g3, [ugo, vera], 0, "match=single"),
        ]
        with contextlib.ExitStack() as stack:
            workers = worker_bots(stack, fake, tmp_path, url, ENV)
            front = Front(workers, random.Random(SEED + 1), ROUTE)
            fake.deliver_webhook_to(front.route)
            for w in workers:  # one at a time: the first creates the schema
                await w.start()
            everyone = [p for info in tables for p in info.people]
            await asyncio.gather(*(say(fake, p, p, "/start") for p in everyone))
            await asyncio.gather(
                *(
                    open_table(
                        fake,
                        info.group,
                        info.people[0],
                        info.people[1:],
                        info.name,
                        bots=info.computers,
                        settings=info.settings,
                    )
                    for info in tables
                )
            )
            await asyncio.gather(*(start_table(fake, i.group, i.people[0]) for i in tables))
            for info in tables:
                info.table_id = int(read_table(store, info.group.id).row["table_id"])

            run = Run(fake)
            people = [
                Person(run, info, p, SEED + 10 * t + k)
                for t, info in enumerate(tables)
                for k, p in enumerate(info.people)
            ]
            tasks = [asyncio.create_task(p.play()) for p in people]
            kills: list[Kill] = []

            def midway(moves: int) -> bool:
                return run.moves >= moves or all(i.done for i in tables)

            async def killer() -> None:
                victims = (
                    [workers[0]] * len(KILL_AFTER)
                    if ROUTE == "one"
                    else rng.sample(workers, len(KILL_AFTER))
                )
                for after, victim in zip(KILL_AFTER, victims, strict=True):
                    await fake.wait_for(functools.partial(midway, after), 120, interval=0.05)
                    if all(i.done for i in tables):
                        return
                    kill = await kill_in_flight(front, workers, victim, rng.uniform(0.0, 0.02))
                    kills.append(kill)
                    await asyncio.sleep(DOWN)
                    await restart(front, victim, kill)

            killing = asyncio.create_task(killer())
            try:
                await fake.wait_for(
                    lambda: all(i.done for i in tables) and killing.done(),
                    200,
                    interval=0.2,
                    message="every table at its end",
                )
            finally:
                run.stopping = True
                _, pending = await asyncio.wait([*tasks, killing], timeout=ANSWER_WAIT + WAIT)
                for task in pending:
                    task.cancel()
                await asyncio.gather(*tasks, killing, return_exceptions=True)
            for task in [*tasks, killing]:
                task.result()  # a person's error fails the test
            played = time.monotonic() - t0

            # 5: every update confirmed (2xx from a worker), nothing left under way; one that a
            # killed worker had claimed is another's only once the claim's lease is over
            await fake.wait_for(
                lambda: not fake.pending_updates(), LEASE + WAIT, message="updates taken"
            )
            await quiet(fake)
            codes = await asyncio.gather(*(w.stop(signal.SIGTERM) for w in workers))
            assert codes == [0] * WORKERS, codes

            # 1, 2, 3 per table
            summary = []
            for info in tables:
                snap = read_table(store, info.group.id)
                want = expected_ledger(info, snap)  # replays the log (check 1)
                status = snap.row["status"]
                logs = hand_logs(snap)
                finished = [h for h in logs if h.finished]
                last_text = list(table_texts(fake, info.group).values())[-1][-1]
                if info.name == "due":
                    assert status == "finished", (info.name, status)
                    assert "Partita finita" in last_text, last_text
                else:
                    assert status == "cancelled", (info.name, status)
                    # the reply to /cancel says it; the table's message went (issue 38)
                    said = [m.text for m in fake.bot_messages(info.group)]
                    assert any(x.startswith("🛑 Tavolo annullato da") for x in said), said
                    # (one more if the next hand began by itself before the /cancel came)
                    counted = max(h.number for h in finished)
                    assert counted >= info.hands, (info.name, counted)
                got = ledger_of(store, info.group.id)
                assert got == want, (info.name, got, want)  # one entry per hand, §10
                data = check_ledger(workers[0], info.group.id, len(want))
                assert {h["hand_key"] for h in data["hands"]} == set(want)
                texts = check_progress(fake, info, snap)
                check_moves(run, fake, info, snap)
                summary.append(
                    f"{info.name}#{info.table_id}: {len(finished)} hands, {len(snap.moves)} "
                    f"moves, {len(want)} ledger entries, {texts} table texts, done at "
                    f"{info.done_at - t0:.0f} s"
                )

            # 4
            check_taps(run, fake, kills, workers)
            refused = Counter(
                a[0].text for t in run.taps if (a := fake.answers_to(t.qid)) and a[0].text != OK
            )
            unanswered = sum(1 for t in run.taps if not fake.answers_to(t.qid))

            # 5: spread over the workers, some twice at once
            assert len(kills) == len(KILL_AFTER), kills
            posts = fake.webhook_posts
            if ROUTE != "one":
                assert all(front.sent[i] > 0 for i in range(WORKERS)), front.sent
                urls: dict[int, set[str]] = {}
                for p in posts:
                    urls.setdefault(p.update_id, set()).add(p.url)
                assert front.doubled and any(len(u) >= 2 for u in urls.values())
            failed_posts = Counter(str(p.result) for p in posts if p.result != 200)
            for w in workers:
                w.check_logs()
            print(
                f"\n[multiworker] route {ROUTE}, seed {SEED}: {'; '.join(summary)}; "
                f"{len(run.taps)} taps ({run.moves} moves answered OK, refused {dict(refused)}, "
                f"{unanswered} never answered); deliveries per worker {dict(front.sent)}, "
                f"{front.doubled} doubled; posts not 200 {dict(failed_posts)}; kills "
                f"{[(k.worker, k.in_flight, round(k.restarted - k.at, 1)) for k in kills]}; "
                f"played in {played:.0f} s, {time.monotonic() - t0:.0f} s in all"
            )


# ------------------------------------------------------------------ at Telegram's limits, paced

OUTAGE = 20.0  # seconds the killed worker stays down in the paced test
HUMAN_PACE = (0.5, 1.5)  # seconds a person takes to choose a bid or a card
FOLLOW = 5.0  # issue 39: after a SIGKILL the next turn message follows within this
TABLE_WITHIN = 10.0  # issue 50.4: the group's table shows every move within this
# Telegram's limits for the bot (30 a second shared by the workers, 20 a minute a group, 1
# a second a private chat), enforced by the stand-in; the timers at their real length
PACED_ENV = {
    **REAL_PACE,
    "WORKERS": str(WORKERS),
    "GROUP_EDIT_INTERVAL": "4",
    # the bot's own pace of a table message (bot.config)
    "GROUP_ROUTINE_INTERVAL": str(Settings.model_fields["group_routine_interval"].default),
}


def ok_moves(run: Run, fake: FakeTelegram, info: TableInfo) -> list[Tap]:
    """The table's taps answered "Fatto." that were moves, in the order they were made."""
    ids = {p.id for p in info.people}
    return sorted(
        (
            t
            for t in run.taps
            if t.user.id in ids
            and t.move_key() is not None
            and (a := fake.answers_to(t.qid))
            and a[0].text == OK
        ),
        key=lambda t: t.pressed,
    )


def turn_follows(fake: FakeTelegram, moves: list[Tap], logs: list[HandLog]) -> list[Lag]:
    """Seconds from each move to the next turn message ("👉", a new message in a player's
    private chat), when the turn passes before the table's next move (a hand's last card
    waits for "Prossima mano": not counted)."""
    ids = {m.user.id for m in moves}
    sent = sorted(
        c.at
        for c in fake.calls
        if c.method == "sendMessage"
        and c.ok
        and c.result["chat"]["id"] in ids
        and "👉" in str(c.params.get("text", ""))
    )
    lags = []
    for move, after in zip(moves, [*moves[1:], None], strict=True):
        key = move.move_key()
        assert key is not None
        hand = logs[key[0]]
        if hand.finished and key[1] == hand.actions[-1]:
            continue
        k = bisect.bisect_right(sent, move.pressed)
        if k < len(sent) and (after is None or sent[k] <= after.pressed):
            lags.append(Lag(move.pressed, sent[k] - move.pressed))
    return lags


def table_follows(
    fake: FakeTelegram, info: TableInfo, moves: list[Tap], logs: list[HandLog]
) -> list[Lag]:
    """Seconds from each card played and each call made to the first text of the group's
    table message that shows it (or a later state)."""
    shown: list[tuple[float, Key]] = []
    for mid, texts in table_texts_at(fake, info.group).items():
        keys = progress(info.name, mid, [text for _, text in texts], logs)
        shown.extend((at, key) for (at, _), key in zip(texts, keys, strict=True))
    shown.sort()
    lags = []
    for move in moves:
        key = move.move_key()
        assert key is not None
        h, action = key[0], key[1]
        if action < A.CALL_RANK:  # a card: its place in the hand
            want: Key = (1, h, 2, logs[h].actions.index(action))
        elif A.NAME_SUIT <= action < A.SIGNAL:  # the call made
            want = (1, h, 1, 0)
        else:
            continue
        at = next((at for at, k in shown if at >= move.pressed and k >= want), None)
        assert at is not None, f"the group never saw the move {key}"
        lags.append(Lag(move.pressed, at - move.pressed))
    return lags


@dataclass(frozen=True)
class Lag:
    at: float  # the move (time.monotonic)
    seconds: float


async def test_a_worker_down_twenty_seconds_at_telegrams_limits(tmp_path: Path) -> None:
    """Issue 39 §4: three workers at Telegram's real limits (each worker's calls about a
    group claimed through the database), a chiamata table of five people who take 1-3 s to
    choose, a worker SIGKILLed right after an update was sent to it and started again
    `OUTAGE` s later. Every move's next turn message follows it within `FOLLOW` s, the
    outage and the restart included; the group's table message shows every card and call
    within `TABLE_WITHIN` s (issue 50.4: a card, a trick taken and the call are routine,
    shown with the moves made meanwhile), within `SHOW_WITHIN` s around the outage (issue
    50.3); no 429 of the bot's own making (`strict_telegram`), the hand's ledger right,
    every tap answered once (but one in flight to the killed worker)."""
    rng = random.Random(SEED)
    url = fresh_url("postgresql", tmp_path)
    store = PgStore(url)
    t0 = time.monotonic()
    async with asyncio.timeout(280), strict_telegram(allow=(QUERY_TOO_OLD,)) as fake:
        five = [
            fake.user(1610 + i, n) for i, n in enumerate(("Ciro", "Dora", "Ezio", "Fede", "Gia"))
        ]
        group = fake.group(-1001601, "Chiamata a passo d'uomo", admins=[five[0]], members=five[1:])
        info = TableInfo("chiamata", group, five, hands=1, cancel_wait=65.0)
        with contextlib.ExitStack() as stack:
            workers = worker_bots(stack, fake, tmp_path, url, PACED_ENV)
            front = Front(workers, random.Random(SEED + 1), "random")
            fake.deliver_webhook_to(front.route)
            for w in workers:
                await w.start()
            await asyncio.gather(*(say(fake, p, p, "/start") for p in five))
            # the others sit down with the table's button, as most people would: a /join's
            # reply would be a call about the group, of its 20 a minute
            await fake.send_text(five[0], group, "/new chiamata")
            for p in five[1:]:
                entra = await fake.wait_for(
                    lambda: table_message(fake, group).button("Entra"), WAIT
                )
                await fake.answer_for(await fake.press(p, entra), WAIT)
            await fake.wait_for(lambda: "(5/5)" in table_message(fake, group).text, WAIT)
            await start_table(fake, group, five[0])
            info.table_id = int(read_table(store, group.id).row["table_id"])

            run = Run(fake)
            people = [Person(run, info, p, SEED + k, pace=HUMAN_PACE) for k, p in enumerate(five)]
            tasks = [asyncio.create_task(p.play()) for p in people]
            await fake.wait_for(lambda: run.moves >= 12, 120, interval=0.05)
            victim = rng.choice(workers)
            kill = await kill_in_flight(front, workers, victim)
            await asyncio.sleep(OUTAGE)
            await restart(front, victim, kill)
            try:
                await fake.wait_for(lambda: info.done, 200, interval=0.2, message="the hand over")
            finally:
                run.stopping = True
                await asyncio.wait(tasks, timeout=ANSWER_WAIT + WAIT)
            for task in tasks:
                task.result()
            await fake.wait_for(
                lambda: not fake.pending_updates(), LEASE + WAIT, message="updates taken"
            )
            await quiet(fake)
            codes = await asyncio.gather(*(w.stop(signal.SIGTERM) for w in workers))
            assert codes == [0] * WORKERS, codes

            snap = read_table(store, group.id)
            assert ledger_of(store, group.id) == expected_ledger(info, snap)
            logs = hand_logs(snap)
            check_progress(fake, info, snap)
            check_moves(run, fake, info, snap)
            check_taps(run, fake, [kill], workers)
            moves = ok_moves(run, fake, info)
            turns = turn_follows(fake, moves, logs)
            tables = table_follows(fake, info, moves, logs)
            for w in workers:
                w.check_logs()

    def window(lags: list[Lag]) -> list[float]:  # the outage, and 10 s after the restart
        return [g.seconds for g in lags if kill.at <= g.at <= kill.restarted + 10.0]

    def said(lags: list[Lag]) -> str:
        values = [g.seconds for g in lags]
        return (
            f"p50 {pct(values, 0.5) or 0.0:.1f} s, p99 {pct(values, 0.99) or 0.0:.1f} s, max "
            f"{max(values):.1f} s (n={len(values)}; around the kill max "
            f"{max(window(lags), default=0.0):.1f} s, n={len(window(lags))})"
        )

    print(
        f"\n[multiworker paced] {len(moves)} moves; worker {kill.worker} down "
        f"{kill.restarted - kill.at:.0f} s (update in flight: {kill.in_flight}); move -> next "
        f"turn message {said(turns)}; move -> the group's table {said(tables)}; /cancel -> "
        f"the table's message gone {info.cancelled_in:.1f} s; "
        f"{time.monotonic() - t0:.0f} s in all"
    )
    assert len(window(turns)) >= 5 and len(window(tables)) >= 1, (turns, tables)
    assert max(g.seconds for g in turns) <= FOLLOW, said(turns)
    steady = [g.seconds for g in tables if not kill.at <= g.at <= kill.restarted + 10.0]
    assert max(steady, default=0.0) <= TABLE_WITHIN, said(tables)
    assert max(window(tables)) <= SHOW_WITHIN, said(tables)  # issue 50.3, a worker dead


# ------------------------------------------------------------ a bid's worker killed at once

SHOW_WITHIN = 20.0  # issue 50 §3: a stored change shows within this, whoever died meanwhile
# the bot's own pace of the group's table message (bot.config's defaults): a bid within the
# auction is routine, shown once it is `GROUP_ROUTINE_INTERVAL` s old at most; Telegram's
# limits stay raised (the group's budget is not what this test is about)
KILLED_BID_ENV = {
    "WORKERS": str(WORKERS),
    "GROUP_EDIT_INTERVAL": "4",
    "GROUP_ROUTINE_INTERVAL": str(Settings.model_fields["group_routine_interval"].default),
}
# seconds the first bidder looks at their cards: the bids come a little after the deal shown,
# not within the same fraction of a second (the routine pause counts from that edit)
READ_CARDS = 2.0


class Pinned:
    """A front that sends each update to the worker the test names (`to`), or, while it
    names none, to a random living one; never to two at once. `sent`: the address each
    update went to first (the stand-in's `webhook_posts` has it once the post is over)."""

    def __init__(self, workers: list[WebhookBot], rng: random.Random) -> None:
        self.rng = rng
        self.lock = threading.Lock()
        self.live = list(workers)
        self.to: WebhookBot | None = None
        self.sent: dict[int, str] = {}

    def route(self, update: JSONDict) -> list[str]:
        with self.lock:
            url = (self.to or self.rng.choice(self.live)).url
            self.sent.setdefault(int(update["update_id"]), url)
            return [url]

    def down(self, worker: WebhookBot) -> None:
        with self.lock:
            self.to = None
            self.live.remove(worker)


async def bid_turn(
    fake: FakeTelegram, people: list[FakeUser], but: FakeUser | None = None
) -> tuple[FakeUser, list[FakeButton]]:
    """The person (not `but`) whose hand message says it is their turn to bid, and its bids."""

    def ready() -> tuple[FakeUser, list[FakeButton]] | None:
        for p in people:
            with contextlib.suppress(LookupError):
                msg = hand_message(fake, p)
                if p != but and your_turn(msg) and (bids := bid_buttons(msg)):
                    return p, bids
        return None

    return await fake.wait_for(ready, WAIT, message="a person's turn to bid")


def a_call(bids: list[FakeButton]) -> FakeButton:
    """A bid that calls a rank (the first one offered)."""
    return next(b for b in bids if A.CALL_RANK <= action_of(b) < A.BID_POINTS)


async def test_a_bid_shows_within_20_s_though_its_worker_was_killed(tmp_path: Path) -> None:
    """Issue 50 §3: three workers, a chiamata table of five people with a 30 s turn timer.
    One person bids (their tap sent to one worker), the next bids at once (sent to another),
    and as soon as that second bid is stored in the move log its worker is SIGKILLed, most
    likely before it edited the group's table (a bid is routine: it waits for the group's
    pace); the next person does not act. The group's table message shows the second bid
    within `SHOW_WITHIN` s of its store (whichever worker claims the write's "shown"
    deadline, and whatever the first bid's worker still has to send), and no text of the
    message lost a bid it had shown, or went back to an older state (`check_progress`)."""
    rng = random.Random(SEED)
    url = fresh_url("postgresql", tmp_path)
    store = PgStore(url)
    async with asyncio.timeout(200), telegram() as fake:
        five = [
            fake.user(1710 + i, n) for i, n in enumerate(("Ciro", "Dora", "Ezio", "Fede", "Gia"))
        ]
        group = fake.group(-1001701, "Chiamata e un morto", admins=[five[0]], members=five[1:])
        info = TableInfo("chiamata", group, five, settings="timer=30")
        with contextlib.ExitStack() as stack:
            workers = worker_bots(stack, fake, tmp_path, url, KILLED_BID_ENV)
            front = Pinned(workers, random.Random(SEED + 2))
            fake.deliver_webhook_to(front.route)
            for w in workers:  # one at a time: the first creates the schema
                await w.start()
            await asyncio.gather(*(say(fake, p, p, "/start") for p in five))
            await open_table(fake, group, five[0], five[1:], "chiamata", settings=info.settings)
            await start_table(fake, group, five[0])
            info.table_id = int(read_table(store, group.id).row["table_id"])
            first, second = rng.sample(workers, 2)  # the first bid's worker, the second's
            conn = await asyncpg.connect(url)
            try:

                async def moves() -> int:
                    sql = "SELECT count(*) FROM moves WHERE table_id = $1"
                    return int(await conn.fetchval(sql, info.table_id))

                one, bids = await bid_turn(fake, five)
                await asyncio.sleep(READ_CARDS)
                front.to = first
                answer = await fake.answer_for(await fake.press(one, a_call(bids)), WAIT)
                assert answer.text == OK, answer
                two, bids = await bid_turn(fake, five, but=one)
                front.to = second
                qid = await fake.press(two, a_call(bids))
                loop = asyncio.get_running_loop()
                deadline = loop.time() + WAIT
                while await moves() < 2:
                    assert loop.time() < deadline, "the second bid was never stored"
                    await asyncio.sleep(0.005)
                stored = time.monotonic()
                front.down(second)
                await second.kill9()
                killed = time.monotonic()
            finally:
                await conn.close()
            update_of = {
                u["callback_query"]["id"]: u["update_id"]
                for u in fake.updates
                if "callback_query" in u
            }
            assert front.sent[update_of[qid]] == second.url  # the one killed had the tap

            def shown_at() -> float | None:
                """When the group's table message first showed both bids."""
                texts = table_texts_at(fake, group)
                return next(
                    (
                        at
                        for shown in texts.values()
                        for at, text in shown
                        if parse_shown(text).kind == "hand" and parse_shown(text).bids >= 2
                    ),
                    None,
                )

            # the next person does not act: their turn timer runs out after 30 s, which would
            # show the bid anyway (a wait of up to 45 s tells a late bid from a lost one)
            at = await fake.wait_for(shown_at, 45.0, message="the second bid in the group")
            await fake.wait_for(
                lambda: not fake.pending_updates(), LEASE + WAIT, message="updates taken"
            )
            await quiet(fake)
            living = [w for w in workers if w is not second]
            codes = await asyncio.gather(*(w.stop(signal.SIGTERM) for w in living))
            assert codes == [0] * len(living), codes
            for w in workers:
                w.check_logs()

        snap = read_table(store, group.id)
        check_progress(fake, info, snap)  # no text of the table went back
        counts = [
            parse_shown(text).bids
            for texts in table_texts(fake, group).values()
            for text in texts
            if parse_shown(text).kind == "hand"
        ]
        assert counts == sorted(counts), counts  # no bid shown was lost
        before = at < killed  # the killed worker showed it in time after all
    lag = at - stored
    print(
        f"\n[multiworker killed bid] seed {SEED}: bids by worker {workers.index(first)} then "
        f"{workers.index(second)}, killed {killed - stored:.3f} s after the store; the group "
        f"showed the bid {lag:.1f} s after its store{' (before the kill)' if before else ''}; "
        f"bids shown {counts}"
    )
    assert lag <= SHOW_WITHIN, f"the bid showed {lag:.1f} s after its store"

"""Pacing and retries for every Bot API call: the one layer that waits and tries again.

Telegram's limits, as the bot keeps them (PTB's `BaseRateLimiter` interface):

- a group (negative chat id): at most `group_per_minute` calls in any 60 s, every call that
  names the group counted (sends, edits, deletes and reads such as getChatMember);
- a private chat: at most `private_per_second` calls in any second;
- the bot: at most `overall_per_second` calls that name a chat, in any second.

A window counts a call from the moment it is sent until `period` (plus a `margin` share)
after its answer arrived: Telegram saw it somewhere in between, so the next call that would
make the window too full waits until the oldest one is surely out of Telegram's window.

Each chat's room, like the bot-wide budget, is handed out by priority: a
person's hand message first (a new turn message, or the edit ahead of it: a hand message
sends one call at a time, so an edit left waiting would hold back that person's next turn),
then the reads an answer waits for, then the group's table message, then new messages in
groups (answers to commands, notices), then the rest (deletes), in arrival order within a
priority; in a group each kind also has a share of the window (`_Gate.shares`: the table's
edits leave some places to new messages, new messages more to the table's edits). A call
first waits for its chat's room and only then for the bot-wide budget, so a chat waiting for
its own window never holds anything another chat needs. (Edits of one message never overtake
each other: the outbox has at most one call under way per message.)

Telegram counts a group's calls across a restart of the bot, so each call about a group is
noted (`on_group_call`, stored by the composition root) and a restarted bot starts its
windows from the notes (`seed_group_calls`). With other workers (`group_calls`, the shared
database) a group's whole window is every worker's: before each call about a group the worker
claims a place in it from the database, where every worker's calls are (`claim_group_call`),
and its own window is brought up to date from there, so that one worker may use the room the
others leave, and none waits for a slice of its own while the group's window is empty. Calls
that name no chat (answerCallbackQuery, getMe, setMyCommands) wait for nothing.

Retries: a 429 ("retry after N") holds back only the chat it names (or, for a call without a
chat, only such calls) for N seconds, then the call is tried again. 5xx answers and network
errors are retried with exponential backoff; a timeout is retried only for calls that are
safe to repeat (everything but sending a new message, which may have arrived). Each call has
a deadline (answers to taps: `answer_deadline`, since Telegram forgets a query after about
15 s; everything else `call_deadline`) and a number of attempts; past either the last error
is raised to the caller. No other layer of the bot retries.

Metrics (`metrics`, `bot.telegram.metrics`): each attempt is counted as it is made, by method
and kind of chat, with the time it waited for room; each 429; `waiting()` at each scrape.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import heapq
import itertools
import logging
import random
import time
import warnings
from collections import deque
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from telegram.error import BadRequest, NetworkError, RetryAfter, TimedOut
from telegram.ext import BaseRateLimiter
from telegram.warnings import PTBDeprecationWarning

from bot.telegram.metrics import Metrics

log = logging.getLogger(__name__)

JSONDict = dict[str, Any]
Result = bool | JSONDict | list[JSONDict]

# Sending a new message twice shows it twice: a timeout leaves unknown whether it arrived.
NOT_IDEMPOTENT = frozenset(
    {"sendMessage", "sendPhoto", "sendDocument", "sendMediaGroup", "copyMessage", "forwardMessage"}
)
# Reads a command's answer waits for (who is an admin): as urgent as the answer itself.
ANSWERING = frozenset({"getChatMember", "getChatAdministrators"})
UNNOTED = 2  # calls a run that died may have made about a group without noting them
CLAIM_PAUSE = 0.05  # seconds before asking again when the database and our window disagree
# A person's hand message first, then the reads an answer waits for, then the group's table
# message (issue 50: it never stands still behind replies and notices), then new messages
# in a group (answers to commands, notices), then the rest. In a group's window each kind
# has a share of its own besides (`_Gate.shares`): the table's edits at most all but
# `group_reserve` places, new messages and the rest all but `table_reserve`: however many
# replies wait, the table's next edit finds room, and an answer still finds some.
PRIORITY_TURN, PRIORITY_ANSWER, PRIORITY_TABLE, PRIORITY_SEND, PRIORITY_OTHER = 0, 1, 2, 3, 4


@dataclass(frozen=True, slots=True)
class Limits:
    group_per_minute: int = 20
    private_per_second: int = 1
    overall_per_second: int = 30
    group_reserve: int = 4  # of a group's room, kept for new messages (edits leave it)
    table_reserve: int = 8  # ... and for the table's edits (new messages, deletes leave it)
    margin: float = 0.02  # each window lasts this share longer (clocks, network)
    minute: float = 60.0  # the periods of the windows (tests shorten them)
    second: float = 1.0
    answer_deadline: float = 10.0
    call_deadline: float = 60.0
    attempts: int = 5
    backoff: float = 0.25  # first pause after a 5xx or network error; doubles each time

    def shared_by(self, workers: int) -> Limits:
        """Each worker's share when `workers` processes send for one bot (Telegram counts
        the bot's calls as a whole): the bot-wide budget is divided. A group's window is
        not: the workers claim its places through the database (`GroupCalls`), so the
        worker that happens to handle a group's updates may use all of it (with a fixed
        1/N slice each, a reply in a group waited p99 25-37 s with three workers). Nor is a
        private chat's one call a second: the workers space their calls for a hand
        message through the database (`TelegramOutbox.private_gap`)."""
        if workers <= 1:
            return self
        return dataclasses.replace(
            self, overall_per_second=max(1, self.overall_per_second // workers)
        )


class GroupCalls(Protocol):
    """Where every worker of the bot notes its calls about groups (a database's `messages`)."""

    async def claim_group_call(
        self, chat_id: int, at: float, room: int, period: float
    ) -> tuple[bool, list[float]]:
        """Note a call at Unix time `at` if fewer than `room` were noted in the `period`
        before it; whether it was, and the calls noted in that period."""
        ...

    async def group_calls_of(self, chat_id: int, since: float) -> list[float]: ...


class Window:
    """At most `size` calls in any `period` seconds: the times the calls were answered, and
    the calls still under way (counted as happening now)."""

    __slots__ = ("done", "in_flight", "period", "size")

    def __init__(self, size: int, period: float) -> None:
        self.size = size
        self.period = period
        self.done: deque[float] = deque()
        self.in_flight = 0

    def _forget(self, now: float) -> None:
        """Drop the answered calls that have left the window."""
        while self.done and self.done[0] <= now - self.period:
            self.done.popleft()

    def wait_time(self, now: float, keep: int = 0) -> float:
        """Seconds until one more call may start (0: now), leaving `keep` of the room
        unused (kept for calls that matter more)."""
        self._forget(now)
        size = max(1, self.size - keep)
        if self.in_flight + len(self.done) < size:
            return 0.0
        if self.in_flight >= size or not self.done:
            return self.period  # woken earlier by `finish`
        # the oldest answered calls must leave the window first
        k = self.in_flight + len(self.done) - size
        return self.done[k] + self.period - now

    def spread(self, now: float, keep: int = 0) -> float:
        """The least steady pace (seconds between calls) at which calls from now on never
        wait for room, the room but `keep` and the calls counted now leaving as they do: the
        k-th call from now needs, past the free places, one more counted call gone. A message
        edited over and over then goes on being edited, more slowly, after a burst of other
        calls, instead of using the room up and then waiting most of a period for it. 0 with
        nothing counted; the wait until a place frees if none is free."""
        self._forget(now)
        room = max(1, self.size - keep) - self.in_flight - len(self.done)
        if room <= 0:
            return min(self.wait_time(now, keep), self.period)
        leaving = [*self.done, *[now] * self.in_flight]  # those under way leave last
        return max(
            ((at + self.period - now) / (room + 1 + i) for i, at in enumerate(leaving)),
            default=0.0,
        )

    def start(self) -> None:
        self.in_flight += 1

    def finish(self, now: float) -> None:
        self.in_flight -= 1
        self.done.append(now)

    def idle(self, now: float) -> bool:
        return self.in_flight == 0 and (not self.done or self.done[-1] <= now - self.period)


class Stopping(NetworkError):
    """The bot is stopping (SIGTERM): a call that would have to wait for room is not made.
    Every move is stored, and what a message was to show is noted: the next run shows it."""

    def __init__(self) -> None:
        super().__init__("the bot is stopping: not sent, the next run shows it")


class _Gate:
    """A window's room, handed out by (priority, arrival); `blocked` (a time on `clock`)
    holds everything back until then (a 429). In a group each kind of call also has a share
    of the window, counting its own calls (`shares`, by priority): the table's edits leave
    `group_reserve` places to new messages, so an answer to a command never waits long
    behind a busy table; new messages and the rest leave `table_reserve` to the table's
    edits, so a burst of replies never holds the table still (issue 50.4: they wait, the
    table's edit goes). Whoever comes first in line and has room goes."""

    def __init__(
        self, window: Window, clock: Callable[[], float], shares: dict[int, Window] | None = None
    ) -> None:
        self.window = window
        self.clock = clock
        self.shares = shares or {}
        self.blocked_until = 0.0
        self.waiting = 0
        self._heap: list[tuple[int, int, asyncio.Future[None]]] = []
        self._seq = itertools.count()
        self._wake = asyncio.Event()
        self._pump: asyncio.Task[None] | None = None
        self.stopping = False

    def delay(self, priority: int, now: float) -> float:
        """Seconds until a call of this priority finds room (0: now), nobody else counted."""
        share = self.shares.get(priority)
        return max(
            self.window.wait_time(now),
            0.0 if share is None else share.wait_time(now),
            self.blocked_until - now,
        )

    def pace(self, priority: int, now: float) -> float:
        """`Window.spread` for the calls of this priority, in the window and their share."""
        share = self.shares.get(priority)
        return max(self.window.spread(now), 0.0 if share is None else share.spread(now))

    def room_now(self, priority: int) -> bool:
        """Whether a call of this priority would go at once (nobody waiting before it)."""
        return self.delay(priority, self.clock()) <= 0 and not self._heap

    def stop_waiting(self) -> None:
        """The bot is stopping: the calls waiting for room give up (`Stopping`), and so does
        every later one that would have to wait; one with room now still goes."""
        self.stopping = True
        for _, _, fut in self._heap:
            if not fut.done():
                fut.set_exception(Stopping())
        self._heap.clear()
        self._wake.set()

    async def acquire(self, priority: int) -> None:
        if self.stopping and not self.room_now(priority):
            raise Stopping()
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._heap, (priority, next(self._seq), fut))
        self._ensure_pump()
        self._wake.set()
        self.waiting += 1
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():  # granted, then cancelled: give it back
                self.release(priority)
            raise
        finally:
            self.waiting -= 1

    def block(self, until: float) -> None:
        self.blocked_until = max(self.blocked_until, until)
        self._wake.set()

    def idle(self, now: float) -> bool:
        return not self.waiting and self.window.idle(now) and self.blocked_until <= now

    def release(self, priority: int) -> None:
        now = self.clock()
        self.window.finish(now)
        if (share := self.shares.get(priority)) is not None:
            share.finish(now)
        self._wake.set()

    def recount(self, done: Sequence[float]) -> None:
        """The calls answered in the window are these (times on `clock`): a wait for room
        looks again."""
        self.window.done = deque(done)
        self._wake.set()

    def give_back(self, priority: int) -> None:
        """A place granted and not used (another worker took the group's last place)."""
        self.window.in_flight -= 1
        if (share := self.shares.get(priority)) is not None:
            share.in_flight -= 1
        self._wake.set()

    def _ensure_pump(self) -> None:
        if self._pump is None or self._pump.done():
            self._pump = asyncio.create_task(self._run(), name="rate-limiter-budget")

    async def _run(self) -> None:
        while self._heap:
            while self._heap and self._heap[0][2].done():  # cancelled waiters
                heapq.heappop(self._heap)
            if not self._heap:
                break
            now = self.clock()
            # with shares a kind whose share is used up lets the next one by: look past the
            # first in line (a group's few calls); without, only the first may go
            line = sorted(self._heap) if self.shares else self._heap[:1]
            ready = next((e for e in line if not e[2].done() and self.delay(e[0], now) <= 0), None)
            if ready is None:
                delay = min(self.delay(e[0], now) for e in line)
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), delay)
                continue
            if ready is self._heap[0]:
                heapq.heappop(self._heap)
            else:
                self._heap.remove(ready)
                heapq.heapify(self._heap)
            self.window.start()
            if (share := self.shares.get(ready[0])) is not None:
                share.start()
            ready[2].set_result(None)

    async def close(self) -> None:
        if self._pump is not None:
            self._pump.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._pump
        for _, _, fut in self._heap:
            fut.cancel()
        self._heap.clear()
        self._pump = None


class PacedRateLimiter(BaseRateLimiter[None]):
    """See the module docstring."""

    def __init__(self, limits: Limits | None = None, metrics: Metrics | None = None) -> None:
        self.limits = limits or Limits()
        self.metrics = metrics  # every call made, the 429s, the waits (`bot.telegram.metrics`)
        self._chats: dict[int | str, _Gate] = {}
        self._shared: _Gate | None = None
        self._chatless_blocked_until = 0.0
        self._private_from = 0.0
        self._rng = random.Random()
        self.on_group_call: Callable[[int, float], None] | None = None
        # with other workers: where a group's places are claimed (the module docstring)
        self.group_calls: GroupCalls | None = None
        self._claimed: dict[int, list[float]] = {}  # Unix times of own claims under way
        self.stats: dict[str, int] = {"retry_after": 0, "server_error": 0, "gave_up": 0}
        self._stopping = False  # `stop_waiting`

    def now(self) -> float:
        return asyncio.get_running_loop().time()

    async def initialize(self) -> None:
        # A private chat's calls are not noted (too many to write down), and the previous
        # run may have called a chat just before it died: no private call in the first
        # second (plus the margin) of a run.
        lim = self.limits
        self._private_from = self.now() + lim.second * (1.0 + lim.margin)

    async def shutdown(self) -> None:
        for gate in [*self._chats.values(), *([self._shared] if self._shared else [])]:
            await gate.close()

    def stop_waiting(self) -> None:
        """SIGTERM (issue 50.2): nothing waits for Telegram's room any more, so the updates in
        hand and the outbox finish within seconds; what was not sent is stored as owed (every
        move is stored, every message's content noted) and the next run sends it."""
        self._stopping = True
        for gate in [*self._chats.values(), *([self._shared] if self._shared else [])]:
            gate.stop_waiting()

    # ------------------------------------------------------------------ the windows

    def _window(self, size: int, period: float) -> Window:
        return Window(size, period * (1.0 + self.limits.margin))

    def _chat(self, chat_id: int | str) -> _Gate:
        gate = self._chat_gate(chat_id)
        gate.stopping = gate.stopping or self._stopping
        return gate

    def _chat_gate(self, chat_id: int | str) -> _Gate:
        gate = self._chats.get(chat_id)
        if gate is None:
            group = isinstance(chat_id, str) or chat_id < 0
            lim = self.limits
            window = (
                self._window(lim.group_per_minute, lim.minute)
                if group
                else self._window(lim.private_per_second, lim.second)
            )
            shares = (
                {
                    PRIORITY_TABLE: self._window(
                        lim.group_per_minute - lim.group_reserve, lim.minute
                    ),
                    **dict.fromkeys(
                        (PRIORITY_SEND, PRIORITY_OTHER),
                        self._window(lim.group_per_minute - lim.table_reserve, lim.minute),
                    ),
                }
                if group
                else None
            )
            gate = self._chats[chat_id] = _Gate(window, self.now, shares)
            if not group:
                gate.blocked_until = self._private_from
            if len(self._chats) > 4096:
                self._forget_idle()
        return gate

    def group_pace(self, chat_id: int) -> float:
        """Seconds between edits of a group's message at which they never wait for room in
        the group's window (all but `group_reserve` of it), given the calls counted now
        (`Window.spread`): the outbox waits at least this long between a table's edits."""
        gate = self._chats.get(chat_id)
        if gate is None:
            return 0.0
        return gate.pace(PRIORITY_TABLE, self.now())

    async def room_wait(self, chat_id: int) -> float:
        """Seconds until an edit naming `chat_id` finds room in the chat's window (a 429's
        hold included, and with other workers the group's calls they made); 0 if it would
        go now. The outbox waits this out before it takes a message's lock shared with
        other workers, so as never to hold that lock while the call waits here."""
        if self.group_calls is not None and isinstance(chat_id, int) and chat_id < 0:
            group = self._chat(chat_id)
            since = time.time() - group.window.period
            try:
                times = await self.group_calls.group_calls_of(chat_id, since)
            except Exception as exc:  # the database is the workers' only link: go by our own
                log.warning("reading the calls about %s failed: %s", chat_id, exc)
            else:
                self._others_calls(chat_id, group, times)
        gate = self._chats.get(chat_id)
        if gate is None:
            return 0.0
        now = self.now()
        return max(0.0, gate.delay(PRIORITY_TABLE, now))

    def _forget_idle(self) -> None:
        now = self.now()
        for key, gate in list(self._chats.items()):
            if gate.idle(now):
                del self._chats[key]

    def backlog(self) -> float:
        """Seconds of the bot-wide budget that the calls waiting for it need (past
        about 20 s the bot opens no new table)."""
        gate = self._shared
        return 0.0 if gate is None else gate.waiting / self.limits.overall_per_second

    def waiting(self) -> int:
        """Calls waiting for room now, in their chat's window or the bot-wide budget."""
        gates = [*self._chats.values(), *([self._shared] if self._shared else [])]
        return sum(gate.waiting for gate in gates)

    def _budget(self) -> _Gate:
        if self._shared is None:
            lim = self.limits
            self._shared = _Gate(self._window(lim.overall_per_second, lim.second), self.now)
            self._shared.stopping = self._stopping
        return self._shared

    @staticmethod
    def chat_of(data: JSONDict) -> int | str | None:
        chat_id = data.get("chat_id")
        if chat_id is None:
            return None
        if isinstance(chat_id, str):
            with contextlib.suppress(ValueError):
                return int(chat_id)
            return chat_id  # @channelusername
        if isinstance(chat_id, int):
            return chat_id
        return None

    async def _call_in_chat(
        self,
        chat_id: int | str,
        priority: int,
        callback: Callable[..., Coroutine[Any, Any, Result]],
        args: Any,
        kwargs: dict[str, Any],
    ) -> Result:
        chat = self._chat(chat_id)
        # the chat's room first (new messages before edits), then the bot-wide budget: a
        # chat waiting for its own window holds nothing that other chats need
        claim: float | None = None
        while True:
            await chat.acquire(priority)
            if self.group_calls is None or not isinstance(chat_id, int) or chat_id >= 0:
                break
            try:
                claim = await self._claim(chat_id, chat, priority)
            except BaseException:
                chat.give_back(priority)
                raise
            if claim is not None:
                break
            chat.give_back(priority)  # the window, with the others' calls, says how long to wait
            if self._stopping:
                raise Stopping()
            if chat.window.wait_time(self.now()) <= 0:
                await asyncio.sleep(CLAIM_PAUSE)
        refused = False
        try:
            budget = self._budget()
            await budget.acquire(priority)
            try:
                return await callback(*args, **kwargs)
            except RetryAfter:
                refused = True  # Telegram did not count it
                raise
            finally:
                budget.release(priority)
        finally:
            chat.release(priority)
            if claim is not None and isinstance(chat_id, int):
                self._claimed[chat_id].remove(claim)
                if not self._claimed[chat_id]:
                    del self._claimed[chat_id]
            if not refused and isinstance(chat_id, int) and chat_id < 0:
                self._note_group_call(chat_id)

    async def _claim(self, chat_id: int, chat: _Gate, priority: int) -> float | None:
        """Claim a place in the group's window from the database (`group_calls`): the Unix
        time claimed, or None if the other workers' calls fill the window (then it knows
        them, and waits for the oldest to leave). If the database cannot be asked, the call
        goes by this worker's window alone (at worst a 429, held back and tried again)."""
        assert self.group_calls is not None
        # the group's window as every worker's calls fill it: a new message (or the rest)
        # leaves the table's reserve free in it; the shares count this worker's calls only
        keep = self.limits.table_reserve if priority in (PRIORITY_SEND, PRIORITY_OTHER) else 0
        room = max(1, chat.window.size - keep)
        at = time.time()
        try:
            ok, times = await self.group_calls.claim_group_call(
                chat_id, at, room, chat.window.period
            )
        except Exception as exc:
            log.warning("claiming a call about %s failed: %s", chat_id, exc)
            ok, times = True, []
        if ok:
            self._claimed.setdefault(chat_id, []).append(at)
        if times:
            self._others_calls(chat_id, chat, times)
        return at if ok else None

    def _others_calls(self, chat_id: int, chat: _Gate, times: Sequence[float]) -> None:
        """The group's window as the database has it (Unix times of every worker's calls),
        less this worker's calls under way (counted as such); a wait in progress is woken
        to look again."""
        mine = list(self._claimed.get(chat_id, ()))
        offset = self.now() - time.time()
        done: list[float] = []
        for at in times:
            if at in mine:
                mine.remove(at)
            else:
                done.append(at + offset)
        chat.recount(sorted(done))

    def _note_group_call(self, chat_id: int) -> None:
        if self.on_group_call is not None:
            self.on_group_call(chat_id, time.time())

    def seed_group_calls(self, calls: Mapping[int, Sequence[float]], wall_now: float) -> None:
        """Start each group's window from the calls a previous run made (Unix times), plus
        `UNNOTED` at the newest: notes are written in batches, so the last calls of a run
        that died may not have been."""
        now = self.now()
        unnoted = 0 if self.group_calls is not None else UNNOTED  # claimed before they are made
        for chat_id, times in calls.items():
            if not times:
                continue
            window = self._chat(chat_id).window
            known = [now - (wall_now - t) for t in (*times, *[max(times)] * unnoted)]
            window.done = deque(sorted([*window.done, *known]))

    async def _call_without_chat(
        self, callback: Callable[..., Coroutine[Any, Any, Result]], args: Any, kwargs: Any
    ) -> Result:
        wait = self._chatless_blocked_until - self.now()
        if wait > 0:
            if self._stopping:
                raise Stopping()
            await asyncio.sleep(wait)
        return await callback(*args, **kwargs)

    @staticmethod
    def priority_of(endpoint: str, chat_id: int | str | None) -> int:
        """When the budget is short: a person's hand message (a turn message, or an edit of
        it), then the reads a reply waits for (an admin's /cancel answered "try again" when
        getChatMember came last, behind the table's edits), then the group's table message
        (issue 50: 23-29 s without an edit while replies to /score and the lobby's notices
        spent the group's minute), then replies and notices, then everything else
        (a superseded edit is dropped before it gets here: the outbox keeps one pending state
        per message). bench.bot_load five-humans at 100 tables and twice the pace: with
        private edits last, a starved edit held back its person's next turn message, p99 56 s
        from a move to the next turn message."""
        group = isinstance(chat_id, str) or (chat_id is not None and chat_id < 0)
        if not group and (endpoint in NOT_IDEMPOTENT or endpoint.startswith("edit")):
            return PRIORITY_TURN
        if endpoint in ANSWERING:
            return PRIORITY_ANSWER
        if group and endpoint.startswith("edit"):
            return PRIORITY_TABLE
        if endpoint in NOT_IDEMPOTENT:
            return PRIORITY_SEND
        return PRIORITY_OTHER

    # ------------------------------------------------------------------ the one retry layer

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, Result]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: JSONDict,
        rate_limit_args: None,
    ) -> Result:
        lim = self.limits
        chat_id = self.chat_of(data)
        priority = self.priority_of(endpoint, chat_id)
        deadline = self.now() + (
            lim.answer_deadline if endpoint == "answerCallbackQuery" else lim.call_deadline
        )
        attempt = 0
        began = self.now()  # each attempt's start (below)

        async def made(*a: Any, **kw: Any) -> Result:  # an attempt, made now: counted
            if self.metrics is not None:
                self.metrics.api_call(endpoint, chat_id)
                if chat_id is not None:  # the wait for room (calls without a chat have none)
                    self.metrics.limiter_wait.observe(self.now() - began)
            return await callback(*a, **kw)

        while True:
            attempt += 1
            began = self.now()
            try:
                if chat_id is None:
                    return await self._call_without_chat(made, args, kwargs)
                return await self._call_in_chat(chat_id, priority, made, args, kwargs)
            except RetryAfter as exc:
                self.stats["retry_after"] += 1
                if self.metrics is not None:
                    self.metrics.api_429.inc()
                with warnings.catch_warnings():  # int today, a timedelta in a later PTB
                    warnings.simplefilter("ignore", PTBDeprecationWarning)
                    pause = exc.retry_after
                seconds = pause if isinstance(pause, int | float) else pause.total_seconds()
                until = self.now() + float(seconds)
                if chat_id is None:
                    self._chatless_blocked_until = max(self._chatless_blocked_until, until)
                else:
                    self._chat(chat_id).block(until)
                delay = 0.0  # the chat's block is the wait
                error: Exception = exc
            except (BadRequest, Stopping):
                raise  # NetworkError subclasses, but the same call fails the same way
            except TimedOut as exc:
                if endpoint in NOT_IDEMPOTENT:
                    raise
                self.stats["server_error"] += 1
                delay, error = self._backoff(attempt), exc
            except NetworkError as exc:  # 5xx, connection errors
                self.stats["server_error"] += 1
                delay, error = self._backoff(attempt), exc
            now = self.now()
            blocked = (
                self._chatless_blocked_until
                if chat_id is None
                else self._chat(chat_id).blocked_until
            )
            if self._stopping or attempt >= lim.attempts or max(now + delay, blocked) > deadline:
                self.stats["gave_up"] += 1
                log.warning(
                    "%s to %s failed after %d attempt(s): %s", endpoint, chat_id, attempt, error
                )
                raise error
            log.info("%s to %s failed (%s); trying again", endpoint, chat_id, error)
            if delay > 0:
                await asyncio.sleep(delay)

    def _backoff(self, attempt: int) -> float:
        base: float = self.limits.backoff * 2.0 ** (attempt - 1)
        return base * (0.75 + 0.5 * self._rng.random())  # jitter: retries do not move in step


__all__ = ["GroupCalls", "Limits", "PacedRateLimiter", "Window"]

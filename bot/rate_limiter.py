"""Pacing and retries for every Bot API call: the one layer that waits and tries again.

Telegram's limits, as the bot keeps them (PTB's `BaseRateLimiter` interface):

- a group (negative chat id): at most `group_per_minute` calls in any 60 s, every call that
  names the group counted (sends, edits, deletes and reads such as getChatMember);
- a private chat: at most `private_per_second` calls in any second;
- the bot: at most `overall_per_second` calls that name a chat, in any second.

A window counts a call from the moment it is sent until `period` (plus a safety margin)
after its answer arrived: Telegram saw it somewhere in between, so the next call that would
make the window too full waits until the oldest one is surely out of Telegram's window.
Calls to one chat go out one at a time and in order (edits of a message never overtake each
other). Telegram counts a group's calls across a restart of the bot, so each call about a
group is noted (`on_group_call`, stored by the composition root) and a restarted bot starts
its windows from the notes (`seed_group_calls`). Calls that name no chat (answerCallbackQuery,
getMe, setMyCommands) wait for nothing.

The shared per-second budget is handed out by priority: new messages (answers to commands,
notices) before edits, and in order within a priority. A chat waiting for its own window does
not hold the shared budget, so a busy group never slows another.

Retries: a 429 ("retry after N") holds back only the chat it names (or, for a call without a
chat, only such calls) for N seconds, then the call is tried again. 5xx answers and network
errors are retried with exponential backoff; a timeout is retried only for calls that are
safe to repeat (everything but sending a new message, which may have arrived). Each call has
a deadline (answers to taps: `answer_deadline`, since Telegram forgets a query after about
15 s; everything else `call_deadline`) and a number of attempts; past either the last error
is raised to the caller. No other layer of the bot retries.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import logging
import random
import time
import warnings
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from telegram.error import BadRequest, NetworkError, RetryAfter, TimedOut
from telegram.ext import BaseRateLimiter
from telegram.warnings import PTBDeprecationWarning

log = logging.getLogger(__name__)

JSONDict = dict[str, Any]
Result = bool | JSONDict | list[JSONDict]

# Sending a new message twice shows it twice: a timeout leaves unknown whether it arrived.
NOT_IDEMPOTENT = frozenset(
    {"sendMessage", "sendPhoto", "sendDocument", "sendMediaGroup", "copyMessage", "forwardMessage"}
)
# New messages first: an answer to a command or a notice outranks an edit of a table.
PRIORITY_SEND, PRIORITY_OTHER = 0, 1


@dataclass(frozen=True, slots=True)
class Limits:
    group_per_minute: int = 20
    private_per_second: int = 1
    overall_per_second: int = 30
    margin: float = 0.25  # seconds added to every window (clocks, network)
    minute: float = 60.0  # the periods of the windows (tests shorten them)
    second: float = 1.0
    answer_deadline: float = 10.0
    call_deadline: float = 60.0
    attempts: int = 5
    backoff: float = 0.25  # first pause after a 5xx or network error; doubles each time


class Window:
    """At most `size` calls in any `period` seconds: the times the calls were answered, and
    the calls still under way (counted as happening now)."""

    __slots__ = ("done", "in_flight", "period", "size")

    def __init__(self, size: int, period: float) -> None:
        self.size = size
        self.period = period
        self.done: deque[float] = deque()
        self.in_flight = 0

    def wait_time(self, now: float) -> float:
        """Seconds until one more call may start (0: now)."""
        while self.done and self.done[0] <= now - self.period:
            self.done.popleft()
        if self.in_flight + len(self.done) < self.size:
            return 0.0
        if self.in_flight >= self.size or not self.done:
            return self.period  # woken earlier by `finish`
        # the oldest answered calls must leave the window first
        k = self.in_flight + len(self.done) - self.size
        return self.done[k] + self.period - now

    def start(self) -> None:
        self.in_flight += 1

    def finish(self, now: float) -> None:
        self.in_flight -= 1
        self.done.append(now)

    def idle(self, now: float) -> bool:
        return self.in_flight == 0 and (not self.done or self.done[-1] <= now - self.period)


@dataclass
class _Chat:
    window: Window
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    blocked_until: float = 0.0
    users: int = 0  # calls holding or waiting for the lock (the entry is dropped at 0 when idle)


class _SharedBudget:
    """The bot-wide window, handed out by (priority, arrival)."""

    def __init__(self, window: Window, clock: Callable[[], float]) -> None:
        self.window = window
        self.clock = clock
        self._heap: list[tuple[int, int, asyncio.Future[None]]] = []
        self._seq = itertools.count()
        self._wake = asyncio.Event()
        self._pump: asyncio.Task[None] | None = None

    async def acquire(self, priority: int) -> None:
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._heap, (priority, next(self._seq), fut))
        self._ensure_pump()
        self._wake.set()
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():  # granted, then cancelled: give it back
                self.release()
            raise

    def release(self) -> None:
        self.window.finish(self.clock())
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
            delay = self.window.wait_time(self.clock())
            if delay > 0:
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), delay)
                continue
            _, _, fut = heapq.heappop(self._heap)
            if not fut.done():
                self.window.start()
                fut.set_result(None)

    async def close(self) -> None:
        if self._pump is not None:
            self._pump.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._pump
        for _, _, fut in self._heap:
            fut.cancel()
        self._heap.clear()


class PacedRateLimiter(BaseRateLimiter[None]):
    """See the module docstring."""

    def __init__(
        self,
        limits: Limits | None = None,
        *,
        clock: Callable[[], float] | None = None,
        sleep: Callable[[float], Coroutine[Any, Any, None]] | None = None,
    ) -> None:
        self.limits = limits or Limits()
        self._clock = clock
        self._sleep = sleep or asyncio.sleep
        self._chats: dict[int | str, _Chat] = {}
        self._shared: _SharedBudget | None = None
        self._chatless_blocked_until = 0.0
        self._rng = random.Random()
        self.on_group_call: Callable[[int, float], Awaitable[None]] | None = None
        self.stats: dict[str, int] = {"retry_after": 0, "server_error": 0, "gave_up": 0}

    def now(self) -> float:
        if self._clock is not None:
            return float(self._clock())
        return asyncio.get_running_loop().time()

    async def initialize(self) -> None:
        return None

    async def shutdown(self) -> None:
        if self._shared is not None:
            await self._shared.close()

    # ------------------------------------------------------------------ the windows

    def _chat(self, chat_id: int | str) -> _Chat:
        chat = self._chats.get(chat_id)
        if chat is None:
            group = isinstance(chat_id, str) or chat_id < 0
            lim = self.limits
            window = (
                Window(lim.group_per_minute, lim.minute + lim.margin)
                if group
                else Window(lim.private_per_second, lim.second + lim.margin)
            )
            chat = self._chats[chat_id] = _Chat(window)
            if len(self._chats) > 4096:
                self._forget_idle()
        return chat

    def _forget_idle(self) -> None:
        now = self.now()
        for key, chat in list(self._chats.items()):
            if chat.users == 0 and chat.window.idle(now) and chat.blocked_until <= now:
                del self._chats[key]

    def _budget(self) -> _SharedBudget:
        if self._shared is None:
            lim = self.limits
            self._shared = _SharedBudget(
                Window(lim.overall_per_second, lim.second + lim.margin), self.now
            )
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
        chat.users += 1
        try:
            async with chat.lock:  # one call at a time per chat, in arrival order
                while True:
                    now = self.now()
                    wait = max(chat.blocked_until - now, chat.window.wait_time(now))
                    if wait <= 0:
                        break
                    await self._sleep(wait)
                budget = self._budget()
                await budget.acquire(priority)
                chat.window.start()
                refused = False
                try:
                    return await callback(*args, **kwargs)
                except RetryAfter:
                    refused = True  # Telegram did not count it
                    raise
                finally:
                    now = self.now()
                    chat.window.finish(now)
                    budget.release()
                    if not refused and isinstance(chat_id, int) and chat_id < 0:
                        await self._note_group_call(chat_id)
        finally:
            chat.users -= 1

    async def _note_group_call(self, chat_id: int) -> None:
        if self.on_group_call is None:
            return
        try:
            await self.on_group_call(chat_id, time.time())
        except Exception as exc:  # a note lost costs at most one 429 after a restart
            log.warning("noting a call into %s failed: %s", chat_id, exc)

    def seed_group_calls(self, calls: Mapping[int, Sequence[float]], wall_now: float) -> None:
        """Start each group's window from the calls a previous run made (Unix times), plus
        one at the newest: a call may have been made and not noted when the run died."""
        now = self.now()
        for chat_id, times in calls.items():
            if not times:
                continue
            window = self._chat(chat_id).window
            known = [now - (wall_now - t) for t in (*times, max(times))]
            window.done = deque(sorted([*window.done, *known]))

    async def _call_without_chat(
        self, callback: Callable[..., Coroutine[Any, Any, Result]], args: Any, kwargs: Any
    ) -> Result:
        wait = self._chatless_blocked_until - self.now()
        if wait > 0:
            await self._sleep(wait)
        return await callback(*args, **kwargs)

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
        priority = PRIORITY_SEND if endpoint in NOT_IDEMPOTENT else PRIORITY_OTHER
        deadline = self.now() + (
            lim.answer_deadline if endpoint == "answerCallbackQuery" else lim.call_deadline
        )
        attempt = 0
        while True:
            attempt += 1
            try:
                if chat_id is None:
                    return await self._call_without_chat(callback, args, kwargs)
                return await self._call_in_chat(chat_id, priority, callback, args, kwargs)
            except RetryAfter as exc:
                self.stats["retry_after"] += 1
                with warnings.catch_warnings():  # int today, a timedelta in a later PTB
                    warnings.simplefilter("ignore", PTBDeprecationWarning)
                    pause = exc.retry_after
                seconds = pause if isinstance(pause, int | float) else pause.total_seconds()
                until = self.now() + float(seconds)
                if chat_id is None:
                    self._chatless_blocked_until = max(self._chatless_blocked_until, until)
                else:
                    chat = self._chat(chat_id)
                    chat.blocked_until = max(chat.blocked_until, until)
                delay = 0.0  # the chat's block is the wait
                error: Exception = exc
            except BadRequest:
                raise  # a NetworkError subclass, but the same call fails the same way
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
            if attempt >= lim.attempts or max(now + delay, blocked) > deadline:
                self.stats["gave_up"] += 1
                log.warning(
                    "%s to %s failed after %d attempt(s): %s", endpoint, chat_id, attempt, error
                )
                raise error
            log.info("%s to %s failed (%s); trying again", endpoint, chat_id, error)
            if delay > 0:
                await self._sleep(delay)

    def _backoff(self, attempt: int) -> float:
        base: float = self.limits.backoff * 2.0 ** (attempt - 1)
        return base * (0.75 + 0.5 * self._rng.random())  # jitter: retries do not move in step


__all__ = ["Limits", "PacedRateLimiter", "Window"]

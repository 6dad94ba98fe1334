"""A recording stand-in for Telegram behind the bot's rate limiter (`Recorder`, `call`) and
the count of calls in the busiest window (`max_in_window`), for the limiter and pace tests."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any

from bot.telegram.rate_limiter import Limits, PacedRateLimiter

# a rate limiter's windows on a short clock: a group's minute of 0.4 s, four calls in it
FAST = Limits(
    group_per_minute=4,
    group_reserve=1,
    table_reserve=2,
    private_per_second=2,
    overall_per_second=50,
    margin=0.05,
    minute=0.4,
    second=0.1,
    backoff=0.01,
)


class Recorder:
    """A stand-in for PTB's `_do_post`: records when each call started and ended."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any, float, float]] = []
        self.started: list[Any] = []  # the "n" of each call, in the order they went out
        self.failures: dict[tuple[str, Any], list[Exception]] = {}

    def fail(self, endpoint: str, chat_id: Any, *errors: Exception) -> None:
        self.failures.setdefault((endpoint, chat_id), []).extend(errors)

    async def post(self, endpoint: str, data: dict[str, Any]) -> bool:
        start = time.monotonic()
        self.started.append(data.get("n"))
        await asyncio.sleep(0.001)
        queue = self.failures.get((endpoint, data.get("chat_id")))
        if queue:
            raise queue.pop(0)
        self.calls.append((endpoint, data.get("chat_id"), start, time.monotonic()))
        return True


def call(
    limiter: PacedRateLimiter, rec: Recorder, endpoint: str, chat_id: Any = None, n: int = 0
) -> Coroutine[Any, Any, Any]:
    data: dict[str, Any] = {"n": n} if chat_id is None else {"chat_id": chat_id, "n": n}
    post: Callable[..., Coroutine[Any, Any, Any]] = rec.post
    return limiter.process_request(post, (endpoint, data), {}, endpoint, data, None)


def max_in_window(times: list[tuple[float, float]], period: float) -> int:
    """The most calls Telegram could have seen within `period`: a call counts from its start
    to its end, so two calls share a window if one started less than `period` after the
    other ended."""
    worst = 0
    for start, _ in times:
        worst = max(worst, sum(1 for s, e in times if s <= start and e > start - period))
    return worst

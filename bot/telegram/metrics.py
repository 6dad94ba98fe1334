"""What an operator sees (issue 50): the bot's metrics, in Prometheus's text format at
`/metrics` (docs/operating.md, "Metrics").

One `Metrics` per bot, made by the composition root (`bot.app`) with a registry of its own
(never prometheus-client's global one), so that a test may run several bots in one process.
The parts that count hold it, or are given one of its methods:

- the rate limiter (`bot.telegram.rate_limiter`): every attempt at a Bot API call, by method
  and kind of chat, the 429s, and how long a call waited for room; the calls waiting now are
  read from it at each scrape;
- the taps' handler (`handlers.taps`): from the handler's start to the query answered;
- the table service (`Play.on_move`) and the outbox (`TelegramOutbox.on_turn`): moves stored,
  and from a move stored to the next person's turn message sent;
- the tables in memory, read from the service at each scrape.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

if TYPE_CHECKING:
    from aiohttp import web

PATH = "/metrics"
# what an operator alerts on sits inside these: a tap answered within 1 s, a turn message
# within 5 s (docs/operating.md)
QUICK_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 15.0)
WAIT_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
# tables whose last move waits for a turn message, at most (a table that closes between a
# move and a turn message leaves its entry: the oldest go first past this many)
MOVES_KEPT = 4096


def chat_kind(chat_id: int | str | None) -> str:
    """A call's chat as the metrics name it: a group (a negative id, or @channelusername),
    a private chat, or none (answerCallbackQuery, getMe, ...)."""
    if chat_id is None:
        return "none"
    if isinstance(chat_id, str) or chat_id < 0:
        return "group"
    return "private"


class Metrics:
    """The bot's metrics, in a registry of their own (see the module docstring)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.clock = clock
        r = self.registry
        self.api_calls = Counter(
            "briscola_bot_api_calls",
            "Bot API calls made (each attempt: a retry counts again), by method and kind of chat",
            ["method", "chat_kind"],
            registry=r,
        )
        self.api_429 = Counter(
            "briscola_bot_api_429",
            "Bot API calls Telegram refused with 429 (retry after)",
            [],
            registry=r,
        )
        self.limiter_waiting = Gauge(
            "briscola_limiter_waiting", "Bot API calls waiting for room now", registry=r
        )
        self.limiter_wait = Histogram(
            "briscola_limiter_wait_seconds",
            "Seconds a call naming a chat waited for room (its chat's and the bot's) before "
            "it was made",
            buckets=WAIT_BUCKETS,
            registry=r,
        )
        self.tap_answer = Histogram(
            "briscola_tap_answer_seconds",
            "Seconds from a tap's handler starting to its answerCallbackQuery answered",
            buckets=QUICK_BUCKETS,
            registry=r,
        )
        self.turn_message = Histogram(
            "briscola_turn_message_seconds",
            "Seconds from a move stored to the next person's turn message sent",
            buckets=QUICK_BUCKETS,
            registry=r,
        )
        self.live_tables = Gauge(
            "briscola_live_tables", "Tables in this process's memory being played", registry=r
        )
        self.moves = Counter("briscola_moves", "Moves stored (cards and bids)", registry=r)
        self.workers_alive = Gauge(
            "briscola_workers_alive",
            "Bot processes alive, as this one knows them (itself: 1; sum over the workers)",
            registry=r,
        )
        self.workers_alive.set(1)
        self._moved_at: dict[int, float] = {}  # table -> when its last move was stored

    # ------------------------------------------------------------------ read at each scrape

    def watch(
        self,
        *,
        waiting: Callable[[], float] | None = None,
        live_tables: Callable[[], float] | None = None,
    ) -> None:
        """Gauges read when scraped: the calls waiting for room, the tables being played."""
        if waiting is not None:
            self.limiter_waiting.set_function(waiting)
        if live_tables is not None:
            self.live_tables.set_function(live_tables)

    # ------------------------------------------------------------------ counted as they happen

    def api_call(self, method: str, chat_id: int | str | None) -> None:
        self.api_calls.labels(method=method, chat_kind=chat_kind(chat_id)).inc()

    def move_stored(self, table_id: int, hand_over: bool) -> None:
        """A move was stored; the next turn message of the table measures from now. A move
        that ends a hand measures nothing: the next hand's first turn follows a pause."""
        self.moves.inc()
        self._moved_at.pop(table_id, None)  # re-inserted last: the dict stays oldest first
        if hand_over:
            return
        self._moved_at[table_id] = self.clock()
        while len(self._moved_at) > MOVES_KEPT:
            del self._moved_at[next(iter(self._moved_at))]

    def turn_sent(self, table_id: int) -> None:
        """A person's turn message of the table went out: the first after a move is timed."""
        at = self._moved_at.pop(table_id, None)
        if at is not None:
            self.turn_message.observe(max(0.0, self.clock() - at))

    # ------------------------------------------------------------------ served

    # aiohttp is imported where a server is made (METRICS_PORT, the Mini App, a webhook),
    # not with the bot: a quarter of a second at each start that most runs do without
    def add_routes(self, app: web.Application) -> None:
        from prometheus_client.aiohttp import make_aiohttp_handler

        app.router.add_get(PATH, make_aiohttp_handler(self.registry))

    def web_application(self) -> web.Application:
        """An application serving `/metrics` alone (polling mode's METRICS_PORT)."""
        from aiohttp import web

        app = web.Application()
        self.add_routes(app)
        return app


__all__ = ["PATH", "Metrics", "chat_kind"]

"""What an operator sees (issue 50, point 5): Prometheus's /metrics.

The rate limiter counts each attempt at a Bot API call by method and kind of chat, each 429,
how long a call waited for room and how many wait now; the turn message is timed from the
move stored; several bots' metrics live side by side in one process. End to end: the bot,
polling, serves /metrics on METRICS_PORT, and after a few moves its counts of Bot API calls
agree with the stand-in server's own, call for call; the taps' answers and the turn messages
were timed, the moves counted, the table is live."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp.test_utils import TestClient, TestServer
from prometheus_client.parser import text_string_to_metric_families
from telegram.error import RetryAfter

from bench.rig.bot_process import TOKEN, ProbedBot, Store, bot_guard, free_port
from bench.rig.people import started_game
from bench.rig.stand_in import telegram
from bot.app import build_application, web_application
from bot.config import Settings
from bot.telegram.metrics import Metrics, chat_kind
from bot.telegram.rate_limiter import PacedRateLimiter
from tests.support.limiter import FAST, Recorder, call

GROUP, PERSON = -1001, 42
TOO_MANY = "Too Many Requests"


def calls(metrics: Metrics, method: str, kind: str) -> float:
    value = metrics.registry.get_sample_value(
        "briscola_bot_api_calls_total", {"method": method, "chat_kind": kind}
    )
    return value or 0.0


def sample(metrics: Metrics, name: str) -> float:
    value = metrics.registry.get_sample_value(name)
    assert value is not None, name
    return value


def test_a_chat_kind_is_group_private_or_none() -> None:
    assert [chat_kind(c) for c in (-100123, "@channel", 42, None)] == [
        "group",
        "group",
        "private",
        "none",
    ]


async def test_the_limiter_counts_each_call_by_method_and_chat_kind() -> None:
    metrics = Metrics()
    limiter, rec = PacedRateLimiter(FAST, metrics), Recorder()
    await call(limiter, rec, "sendMessage", GROUP)
    await call(limiter, rec, "sendMessage", GROUP, 1)
    await call(limiter, rec, "editMessageText", PERSON)
    await call(limiter, rec, "answerCallbackQuery")
    await call(limiter, rec, "getMe")
    assert calls(metrics, "sendMessage", "group") == 2
    assert calls(metrics, "editMessageText", "private") == 1
    assert calls(metrics, "answerCallbackQuery", "none") == 1
    assert calls(metrics, "getMe", "none") == 1
    assert calls(metrics, "sendMessage", "private") == 0
    assert sample(metrics, "briscola_bot_api_429_total") == 0
    # the wait for room is timed for the calls that name a chat (those that have room)
    assert sample(metrics, "briscola_limiter_wait_seconds_count") == 3


async def test_a_429_is_counted_and_the_call_tried_again_counts_again() -> None:
    metrics = Metrics()
    limiter, rec = PacedRateLimiter(FAST, metrics), Recorder()
    rec.fail("sendMessage", GROUP, RetryAfter(1))
    rec.fail("answerCallbackQuery", None, RetryAfter(1))
    assert await call(limiter, rec, "sendMessage", GROUP) is True
    assert await call(limiter, rec, "answerCallbackQuery") is True
    assert sample(metrics, "briscola_bot_api_429_total") == 2
    assert calls(metrics, "sendMessage", "group") == 2  # each attempt is a call made
    assert calls(metrics, "answerCallbackQuery", "none") == 2
    # the second attempt waited out "retry after 1" for its chat's room
    assert sample(metrics, "briscola_limiter_wait_seconds_sum") >= 0.9


async def test_the_calls_waiting_for_room_are_read_at_each_scrape() -> None:
    metrics = Metrics()
    limiter, rec = PacedRateLimiter(FAST, metrics), Recorder()
    metrics.watch(waiting=limiter.waiting)
    assert sample(metrics, "briscola_limiter_waiting") == 0
    # a group's window of 4, one kept for new messages: 3 edits go, 5 wait
    edits = [asyncio.create_task(call(limiter, rec, "editMessageText", GROUP, n)) for n in range(8)]
    await asyncio.sleep(0.02)
    assert sample(metrics, "briscola_limiter_waiting") == 5
    await asyncio.gather(*edits)
    assert sample(metrics, "briscola_limiter_waiting") == 0
    assert calls(metrics, "editMessageText", "group") == 8
    waited = metrics.registry.get_sample_value(  # the others waited for the window (0.4 s)
        "briscola_limiter_wait_seconds_bucket", {"le": "0.1"}
    )
    assert waited == 3  # the three that went at once (within 0.1 s on a loaded machine)


def test_a_turn_message_is_timed_from_the_last_move_stored() -> None:
    now = [100.0]
    metrics = Metrics(clock=lambda: now[0])
    metrics.move_stored(7, hand_over=False)
    now[0] += 0.2
    metrics.move_stored(7, hand_over=False)  # a computer answered: timed from its move
    now[0] += 0.3
    metrics.turn_sent(7)
    metrics.turn_sent(7)  # a second turn message for the same move is not timed again
    metrics.turn_sent(8)  # nor one with no move before it (a deal)
    metrics.move_stored(7, hand_over=True)  # the hand's end: the next hand follows a pause
    now[0] += 10.0
    metrics.turn_sent(7)
    assert sample(metrics, "briscola_turn_message_seconds_count") == 1
    assert abs(sample(metrics, "briscola_turn_message_seconds_sum") - 0.3) < 1e-9
    assert sample(metrics, "briscola_moves_total") == 3


def test_several_bots_keep_their_metrics_apart_in_one_process() -> None:
    one, two = Metrics(), Metrics()  # no "Duplicated timeseries" from a shared registry
    one.api_call("getMe", None)
    assert calls(one, "getMe", "none") == 1
    assert calls(two, "getMe", "none") == 0
    one.watch(live_tables=lambda: 3)
    assert sample(one, "briscola_live_tables") == 3
    assert sample(two, "briscola_workers_alive") == 1


async def test_metrics_are_served_in_prometheus_text_format() -> None:
    metrics = Metrics()
    metrics.api_call("sendMessage", -5)
    async with TestClient(TestServer(metrics.web_application())) as client:
        response = await client.get("/metrics")
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/plain")
        text = await response.text()
    scraped = scrape_text(text)
    assert scraped[("briscola_bot_api_calls_total", ("group", "sendMessage"))] == 1


async def test_the_bots_http_server_serves_metrics_beside_its_other_routes() -> None:
    """The server on PORT (webhook mode, the Mini App) has /metrics: the bot's own, those its
    rate limiter counts in."""
    settings = Settings(bot_token=TOKEN, _env_file=None)
    application = build_application(settings)
    metrics = application.bot_data.metrics
    limiter = application.bot.rate_limiter
    assert metrics is not None and isinstance(limiter, PacedRateLimiter)
    assert limiter.metrics is application.bot_data.metrics
    metrics.api_call("getMe", None)
    async with TestClient(TestServer(web_application(application, settings))) as client:
        response = await client.get("/metrics")
        assert response.status == 200
        scraped = scrape_text(await response.text())
    assert scraped[("briscola_bot_api_calls_total", ("none", "getMe"))] == 1
    assert scraped[("briscola_workers_alive", ())] == 1


def scrape_text(text: str) -> dict[tuple[str, tuple[str, ...]], float]:
    """Each sample by its name and its labels' values (in the labels' names' order)."""
    found: dict[tuple[str, tuple[str, ...]], float] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            found[s.name, tuple(v for _, v in sorted(s.labels.items()))] = s.value
    return found


async def scrape(port: int) -> dict[tuple[str, tuple[str, ...]], float]:
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{port}/metrics") as response,
    ):
        assert response.status == 200
        return scrape_text(await response.text())


def kind_of(params: dict[str, Any]) -> str:
    """The kind of a call's chat as the stand-in decoded it (the id may come as text)."""
    chat_id = params.get("chat_id")
    if isinstance(chat_id, str) and chat_id.lstrip("-").isdigit():
        chat_id = int(chat_id)
    return chat_kind(chat_id)


async def test_polling_bot_serves_metrics_that_agree_with_telegram(tmp_path: Path) -> None:
    async with asyncio.timeout(120), telegram(allow=(TOO_MANY,)) as fake:
        mario = fake.user(5001, "Mario")
        luigi = fake.user(5002, "Luigi")
        group = fake.group(-1005001, "Metrics", members=[mario, luigi])
        port = free_port()
        with bot_guard(ProbedBot(fake, tmp_path, METRICS_PORT=str(port))) as bot:
            game = await started_game(bot, group, [mario, luigi], "due", settings="timer=0")
            fake.inject_retry_after("sendMessage", 1)  # the next turn message meets a 429
            for _ in range(6):
                assert await game.step()
            await bot.idle()
            scraped = await scrape(port)

            # every call the stand-in saw, by method and kind of chat, and no other
            seen = Counter(
                (c.method, kind_of(c.params))
                for c in fake.calls
                if c.method != "getUpdates"  # the long poll goes round the rate limiter
            )
            counted = {
                (labels[1], labels[0]): value  # (chat_kind, method): the labels' names' order
                for (name, labels), value in scraped.items()
                if name == "briscola_bot_api_calls_total"
            }
            assert counted == dict(seen)
            taps = seen["answerCallbackQuery", "none"]
            assert taps > game.presses  # the moves, and the start
            refused = [c for c in fake.calls if c.error_code == 429]
            assert len(refused) == 1
            assert scraped["briscola_bot_api_429_total", ()] == 1

            # every tap's answer timed; the turn messages timed from the moves
            assert scraped["briscola_tap_answer_seconds_count", ()] == taps
            turns = scraped["briscola_turn_message_seconds_count", ()]
            assert 1 <= turns <= game.presses
            moves = Store(bot.db_path).moves(game.table_id())
            assert scraped["briscola_moves_total", ()] == len(moves) == game.presses
            assert scraped["briscola_live_tables", ()] == 1
            assert scraped["briscola_limiter_waiting", ()] == 0
            assert scraped["briscola_workers_alive", ()] == 1
            assert await bot.stop() == 0
            bot.check_logs()

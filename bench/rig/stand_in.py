"""The stand-in Bot API as the end-to-end tests open it, with the checks on the way out:
`telegram()` (no limits, so the bot goes as fast as it can) and `strict_telegram()`
(Telegram's own limits, `TELEGRAM_LIMITS`, for a bot run at Telegram's pace, `REAL_PACE`).
The benches (`bench.bot_load`, `bench.pages`) run the stand-in and the bot with those numbers."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from bench.rig.bot_process import BOT_NAME
from bench.rig.telegram import FakeTelegram, Limits

TELEGRAM_LIMITS = Limits(group_per_minute=20, overall_per_second=30, private_per_second=1.0)
# The bot with Telegram's numbers (the other e2e tests raise them to go fast).
REAL_PACE = {
    "GROUP_RATE_PER_MINUTE": "20",
    "RATE_PER_SECOND": "30",
    "PRIVATE_RATE_PER_SECOND": "1",
    "GROUP_EDIT_INTERVAL": "4",
}


@contextlib.asynccontextmanager
async def strict_telegram(allow: tuple[str, ...] = ()) -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram(threaded=True, bot_username=BOT_NAME, limits=TELEGRAM_LIMITS) as fake:
        yield fake
        assert not fake.internal_errors, fake.internal_errors
        over = [(c.method, c.params.get("chat_id"), c.refused_by) for c in fake.limit_violations]
        assert not over, f"429s of the bot's own making: {over}"
        failed = [
            (c.method, c.description)
            for c in fake.calls
            if c.method != "getUpdates"
            and not c.ok
            and c.refused_by not in ("random_fault", "injected")
            and not any(e in (c.description or "") for e in EXPECTED_FAILURES + allow)
        ]
        assert not failed, failed
        assert fake.max_group_calls_per_minute().calls <= 20


EXPECTED_FAILURES = (
    "message is not modified",  # a restored table re-renders what Telegram already shows
    "bot can't initiate conversation",  # a person who never opened a private chat
)


@contextlib.asynccontextmanager
async def telegram(
    allow: tuple[str, ...] = (),
    limits: Limits | None = None,
    callback_query_ttl: float | None = None,
) -> AsyncIterator[FakeTelegram]:
    """The stand-in server (enforcing `limits`, if given, and refusing an answer to a tap
    after `callback_query_ttl` seconds: "query is too old"); afterwards: no error inside it,
    no call refused by a limit, and every call the bot made succeeded but for the expected
    refusals (and the errors the test injected)."""
    async with FakeTelegram(
        threaded=True, bot_username=BOT_NAME, limits=limits, callback_query_ttl=callback_query_ttl
    ) as fake:
        yield fake
        assert not fake.internal_errors, fake.internal_errors
        refused = [(c.method, c.refused_by) for c in fake.limit_violations]
        assert not refused, refused
        failed = [
            (c.method, c.description)
            for c in fake.calls
            # a restart leaves the old process's long poll behind: Telegram ends it (Conflict)
            if c.method != "getUpdates"
            and not c.ok
            and not any(e in (c.description or "") for e in EXPECTED_FAILURES + allow)
        ]
        assert not failed, failed

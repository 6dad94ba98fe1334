"""`python -m bot` with an idle probe, for the end-to-end tests that prove a tap changed nothing
(and for `bench.pages`, whose bot, `bench.rig.browser.MiniAppBot`, is a `ProbedBot` too).

On SIGUSR1 the bot waits until it has nothing left to do — no update being handled (a
handler's work after it answered a tap included), no computer player thinking or moving
(`TableService.idle()`), no message with content still to send (`TelegramOutbox.flush()`) —
and then writes `IDLE_LINE` and a running count to its standard output (the test's log of the
run). The test counts those lines: a new one is the bot's own word that whatever a tap may
have caused has reached the stand-in server. Everything else is `python -m bot` unchanged:
the probe only wraps `build_application` to add the signal handler once the bot is set up.
"""

from __future__ import annotations

import asyncio
import itertools
import signal
import sys
from typing import Any

from telegram.ext import Application as PTBApplication

from bot import app
from bot.config import Settings
from bot.service import TableService
from bot.telegram.context import BotData

IDLE_LINE = "e2e probe: idle"

Application = PTBApplication[Any, Any, Any, Any, Any, Any]

_count = itertools.count(1)


async def settle(application: Application) -> None:
    """Return once nothing is under way, twice in a row 10 ms apart: an update the fetcher
    has just taken off the queue is handled by a task that starts at the next turn of the
    loop, and one piece of work may start another (a handler a computer player, which wakes
    the outbox)."""
    data: BotData = application.bot_data
    assert data.service is not None and data.outbox is not None
    processor = application.update_processor
    idle_checks = 0
    while idle_checks < 2:
        await data.service.idle()
        await data.outbox.flush()
        idle = (
            application.update_queue.empty()
            and processor.current_concurrent_updates == 0
            and data.outbox.pending() == 0
            and not computers_busy(data.service)
        )
        idle_checks = idle_checks + 1 if idle else 0
        await asyncio.sleep(0.01)


def computers_busy(service: TableService) -> bool:
    """What `TableService.idle()` waits for, still under way (read after it returned: a
    tap handled meanwhile may have started a computer player again)."""
    return any(
        not t.done() for t in [*service.play.computers.values(), *service.registry.background]
    )


async def report_idle(application: Application) -> None:
    await settle(application)
    sys.stdout.write(f"{IDLE_LINE} {next(_count)}\n")
    sys.stdout.flush()


def build_application(settings: Settings) -> Application:
    application = _build(settings)
    post_init = application.post_init

    async def with_probe(application: Application) -> None:
        if post_init is not None:
            await post_init(application)
        asyncio.get_running_loop().add_signal_handler(
            signal.SIGUSR1, lambda: application.create_task(report_idle(application))
        )

    application.post_init = with_probe
    return application


_build = app.build_application

if __name__ == "__main__":
    app.build_application = build_application
    from bot.__main__ import main

    sys.exit(main())

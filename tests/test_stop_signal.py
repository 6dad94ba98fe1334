"""Issue 50.2: SIGTERM stops a polling bot from whichever step its loop runs.

`bot.app._on_stop_signals` is installed at the end of post_init. PTB's `stop_running` stops the
loop only once the application runs, and only marks it before; a signal that came while
`Application.start` ended (the application running already, the loop still in that step's
`run_until_complete`) stopped that step's loop instead, and the bot ran on (a CI run: "no exit
30 s after SIGTERM", a SIGTERM right after a restart). Here the signal comes inside such a step.

Not out of the updater's start, though: PTB then closes that started coroutine (its
`updater_coroutine.close()`), whose HTTP call's cleanup found no running loop and raised, and
PTB's shutdown never ran (a CI run: SIGTERM during a restart's deleteWebhook, the process still
there 30 s later). The signal waits for that step to end."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from types import SimpleNamespace
from typing import Any, cast

import pytest

from bot.app import _on_stop_signals


class Updater:
    """Stands in for PTB's updater: its start is a step of its own (`run_polling`)."""

    def __init__(self) -> None:
        self.closed_early = False

    async def start_polling(self) -> str:
        try:
            os.kill(os.getpid(), signal.SIGTERM)  # as the bootstrap's deleteWebhook is made
            await asyncio.sleep(0.3)
        except GeneratorExit:
            self.closed_early = True
            raise
        return "polling"


def test_a_stop_signal_ends_any_step_of_the_loop_and_a_second_one_is_only_noted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="bot.app")
    application = cast(Any, SimpleNamespace(bot=SimpleNamespace(rate_limiter=None)))
    loop = asyncio.new_event_loop()
    try:

        async def install() -> None:
            _on_stop_signals(application)

        loop.run_until_complete(install())

        async def a_step() -> None:  # as `Application.start`: not the final `run_forever`
            os.kill(os.getpid(), signal.SIGTERM)
            await asyncio.sleep(10)

        updater = Updater()
        starting = updater.start_polling()
        # the signal waits for the updater's start to end, then ends the next step
        assert loop.run_until_complete(starting) == "polling"
        starting.close()  # PTB's, in run_polling's `finally`: nothing left to close
        assert not updater.closed_early
        with pytest.raises(SystemExit):
            loop.run_until_complete(a_step())

        async def shutting_down() -> str:  # as PTB's shutdown steps after it
            os.kill(os.getpid(), signal.SIGTERM)
            await asyncio.sleep(0.2)
            return "done"

        assert loop.run_until_complete(shutting_down()) == "done"
        assert "stop signal again: already stopping" in caplog.text
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
        loop.close()

"""The bot's logging (`bot.app.configure_logging`), in a process of its own: it sets up the
root logger, which pytest's own capture holds in this one."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import logging
from bot.app import configure_logging

configure_logging("DEBUG", ["123:secret"])
logging.getLogger("aiosqlite").debug("executing a statement")
logging.getLogger("bot.service").debug("a move for 123:secret")
logging.getLogger("aiosqlite").warning("a statement failed")
logging.getLogger().setLevel(logging.WARNING)  # LOG_LEVEL=WARNING
configure_logging("WARNING")
logging.getLogger("aiosqlite").info("connected")
"""


def test_debug_logs_the_bots_lines_but_not_each_sqlite_statement() -> None:
    """LOG_LEVEL=DEBUG: the bot's own debug lines (the token blanked out) and aiosqlite's
    warnings, not its two lines for every statement; a higher level is kept for it too."""
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60, check=True
    ).stderr
    assert "a move for" in out and "secret" not in out
    assert "a statement failed" in out
    assert "executing a statement" not in out
    assert "connected" not in out

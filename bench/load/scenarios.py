"""What a load run is made of: the bot's environment at Telegram's pace, the targets, the
people's pace in each scenario, the ways of running the bot that --compare compares (and the
other options' values: KEY=VALUE, LOW,HIGH seconds); and the bench's log line."""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass

from bench.rig.stand_in import REAL_PACE
from bot.config import Settings

# Telegram's numbers, for the stand-in and for the bot (as the limits' e2e tests use them).
# The group's routine changes (a card, a bid) at the bot's own default pace (bot.config).
BOT_ENV = {
    **REAL_PACE,
    "GROUP_ROUTINE_INTERVAL": str(Settings.model_fields["group_routine_interval"].default),
    "LOG_LEVEL": "INFO",
}

# Targets.
TARGET_TABLES = 200
TARGET_TAP_P99 = 0.250  # seconds
TARGET_KB_PER_TABLE = 100.0
TARGET_RESTORE = 2.0  # seconds

ANSWER_WAIT = 30.0  # a tap's answer (the bot's own deadline is 10 s)
OPEN_WAIT = 150.0  # one lobby step while many tables open at once
POLL = 0.5  # how often a person looks at the screen
THINK = (0.5, 3.0)
HUMAN_THINK = (2.0, 6.0)  # five-humans: the one whose turn it is taps 2-6 s after its message
HUMAN_SCENARIOS = ("five-humans", "rush")  # chiamata tables of five people
RUSH_RAMP = 5.0  # rush: every table's lobby opens within these seconds
RUSH_RETAP = 0.3  # rush: chance, every 3-8 s, of tapping again a move the screen still shows
RETAP_EVERY = (3.0, 8.0)
RUSH_BUCKET = 15.0  # rush: tap latencies per window of this many seconds
RUSH_AUCTION_TARGET = 180.0  # rush: tables past their auction within 3 minutes of the first /new
GROUP_STILL_TARGET = 10.0  # issue 50.4: a move reaches its group's table within 10 s


@dataclass(frozen=True)
class Config:
    """One way of running the bot, for --compare: `sqlite/polling`, `sqlite/1` (webhook, one
    process), `postgresql/2` (webhook, two workers)."""

    database: str
    workers: int
    webhook: bool

    @classmethod
    def parse(cls, text: str) -> Config:
        database, _, how = text.strip().partition("/")
        if database not in ("sqlite", "postgresql") or not how:
            raise argparse.ArgumentTypeError(f"want sqlite|postgresql/polling|N, not {text!r}")
        if how == "polling":
            return cls(database, 1, False)
        if not how.isdigit() or int(how) < 1:
            raise argparse.ArgumentTypeError(f"want sqlite|postgresql/polling|N, not {text!r}")
        return cls(database, int(how), True)


def config_list(text: str) -> list[Config]:
    return [Config.parse(part) for part in text.split(",") if part.strip()]


def key_value(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"want KEY=VALUE, not {text!r}")
    return key, value


def seconds_range(text: str) -> tuple[float, float]:
    low, sep, high = text.partition(",")
    try:
        pair = (float(low), float(high if sep else low))
    except ValueError:
        raise argparse.ArgumentTypeError(f"want LOW,HIGH seconds, not {text!r}") from None
    if not 0 <= pair[0] <= pair[1]:
        raise argparse.ArgumentTypeError(f"want 0 <= LOW <= HIGH, not {text!r}")
    return pair


def log(msg: str) -> None:
    print(f"[bot_load {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)

"""Load benchmark of the real bot process against the stand-in Bot API, on 127.0.0.1.

    python -m bench.bot_load [--tables 200] [--duration SECONDS] [--seed 1]
                             [--database sqlite|postgresql] [--workers N] [--webhook]
                             [--no-restart] [--quick] [--json]
    python -m bench.bot_load --compare [--quick]    # issue 15: one process, or two workers
    python -m bench.bot_load --scenario five-humans --tables 60 --duration 180 --no-restart
    python -m bench.bot_load --scenario rush --tables 50 --duration 150 --no-restart

`python -m bot` runs as its own process with Telegram's real numbers (20 calls a minute per
group, 30 a second overall, one a second per private chat, a group's table message edited
at most every 3 s) against `bench.rig.telegram.FakeTelegram`, which enforces the same
limits and answers a call over one with 429. Scripted people play mixed variants: each
opens a private chat with /start, the creator opens the table with /new, the others join
(/join or the Entra button), the creator seats computer players of every level with the
lobby's "+ 🤖" buttons and starts with "Inizia". A person waits for the group's table message
to say it is their turn (or, in chiamata's auction, for bid buttons in their private
message), thinks 0.5-3 s (`--think`) and taps; now and then someone taps out of turn, the
creator taps "Prossima mano" after a hand and opens a new table after a match, and people
send /score or /help in their group a few times per table.

`--scenario five-humans` (issue 39 §3): every table is a chiamata of five people, no
computer. A person acts when their phone rings (a new turn message, "👉", in their private
chat), 2-6 s later; now and then someone taps a card out of turn or twice (`--double-tap`),
and about one command a minute is typed in each group. Printed besides: the calls that name
a chat per move (a bid, a call or a card) and per card, in the groups and the private chats,
by method; calls a second and the busiest second against Telegram's 30; the time from a move
to the next turn message; cards a minute per table. The bot runs with its own defaults for
the group's routine edits (`GROUP_ROUTINE_INTERVAL`, 20 s).

`--scenario rush` (issue 50 §6): the same tables of five people, all opened at once (their
lobbies within `--ramp`, 5 s), then played as in five-humans; besides, every 3-8 s that a
person's screen still shows their turn after their move (the card still in their hand, the bid
buttons unchanged, or the group's table message still saying "Tocca a" them) they tap again
with probability `--retap` (0.3): the same button, or a card. The window of
`--duration` seconds starts at the first lobby action: the rush is what is measured. Printed
besides: the tap answer latency (update delivered -> answerCallbackQuery) per 15-s window by
when the tap was made, from the first lobby tap on; the time from the first /new to each
table's first card (its auction over), p50 and max and how many within 3 minutes.

By default the bot is one process polling with getUpdates. `--webhook` runs it in webhook
mode; `--workers N` runs N processes in webhook mode on the one database (SQLite file or
PostgreSQL), each with WORKERS=N and its own port, behind a front that posts each update to
one of them at random (as a load balancer would; `bench.rig.bot_process.WebhookBot`).

The tables are opened over the first part of the run; the measurement window of
`--duration` seconds starts once every table is playing. At the end the bot is killed with
SIGKILL (every table unfinished), started again, and timed until its tables are restored
and it serves updates again; play then carries on for a few seconds (`--no-restart`: not).

Printed (with `--json` also as one JSON object on stdout, the lines going to stderr): the
people's actions (taps and commands) made in the window, answered per second, and the time
from each update being made available (the tap, the message) to the bot's answer to the
tap, or its first message into the command's chat, reaching the stand-in; the actions
refused (answered "not your turn", "stale"...; the taps out of turn on purpose left out) and
failed (no answer, an error answer, a command without reply; with the tables that could not
be opened, Bot API calls rejected, ERROR lines in the bot's logs); Bot API calls per card
played, the busiest minute of one group, tap-answer and command-reply latencies from the
update's delivery (getUpdates, or the webhook's POST), 429s of the bot's own making,
resident memory per table, CPU per card (the bot's processes, their search workers, the
PostgreSQL server), restore times, and the bench process's own CPU use (if it is near 100 %
of a core, the bench, not the bot, limits the pace). Every wait is bounded and the bot's
processes are always killed.

`--compare [CONFIGS]` runs the same load once per configuration, one after the other, and
ends with a table of them; CONFIGS defaults to `sqlite/polling,postgresql/1,postgresql/2`
(SQLite one process polling; PostgreSQL one webhook worker; PostgreSQL two webhook workers,
each update at a random one); `sqlite/1` is SQLite in webhook mode. Without `--quick` each
run has 200 tables and a 90 s window (about 15 minutes in all); `--compare --quick` (24
tables, a 15 s window, no restart) takes about two minutes. A run that breaks is reported as
such and the others go on.

This module is the command (its options and `main`); the bench itself is in `bench.load`,
one module per part (the people, the bot's processes, the measures, one run step by step,
its numbers, the report).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from bench.load.report import comparison, report
from bench.load.run import run_bounded
from bench.load.scenarios import (
    HUMAN_SCENARIOS,
    HUMAN_THINK,
    OPEN_WAIT,
    RUSH_RAMP,
    RUSH_RETAP,
    TARGET_TABLES,
    THINK,
    Config,
    config_list,
    key_value,
    log,
    seconds_range,
)

DEFAULT_COMPARE = "sqlite/polling,postgresql/1,postgresql/2"
COMPARE_DURATION = 90.0  # --compare's window: three runs of 200 tables in about 15 minutes
# --quick: small enough that --compare's three runs take about two minutes
QUICK = {
    "tables": 24,
    "duration": 15.0,
    "ramp": 6.0,
    "ramp_timeout": 25.0,
    "open_wait": 30.0,
    "settle": 8.0,
    "after_restart": 5.0,
}
DEFAULTS = {
    "tables": TARGET_TABLES,
    "duration": 240.0,
    "ramp_timeout": 150.0,
    "open_wait": OPEN_WAIT,
    "settle": 40.0,
    "after_restart": 10.0,
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m bench.bot_load", description=__doc__.split("\n\n")[0] if __doc__ else ""
    )
    p.add_argument("--tables", type=int, default=None, help="tables played at once (200)")
    p.add_argument(
        "--duration",
        type=float,
        default=None,
        help="seconds measured once every table plays (240: the whole bench stays under 10 min;"
        " with --compare 90)",
    )
    p.add_argument("--seed", type=int, default=1, help="the people's choices (1)")
    p.add_argument(
        "--ramp",
        type=float,
        default=None,
        help="seconds over which tables open (0.3 s a table, <= 60; rush 5)",
    )
    p.add_argument(
        "--ramp-timeout", type=float, default=None, help="extra seconds for the last tables (150)"
    )
    p.add_argument("--open-wait", type=float, default=None, help="seconds for one lobby step (150)")
    p.add_argument(
        "--settle",
        type=float,
        default=None,
        help="seconds to wait for the last answers after the window (40)",
    )
    p.add_argument(
        "--scenario",
        choices=("mixed", "five-humans", "rush"),
        default="mixed",
        help="mixed: every variant, mostly computer seats; five-humans: chiamata tables of five"
        " people who act on their turn message after 2-6 s; rush: five-humans' tables all"
        " opened at once, measured from the first lobby action (mixed)",
    )
    p.add_argument(
        "--commands",
        type=int,
        default=None,
        help="/score or /help per table (3; five-humans: one a minute)",
    )
    p.add_argument(
        "--double-tap",
        type=float,
        default=None,
        help="chance that a card tap is followed by a second one (0; five-humans, rush: 0.05)",
    )
    p.add_argument(
        "--retap",
        type=float,
        default=None,
        help="chance, every 3-8 s that a person's screen (their hand, or the group's table)"
        " still shows their turn after their move, that they tap again (0; rush: 0.3)",
    )
    p.add_argument(
        "--pass-rate",
        type=float,
        default=0.8,
        help="chance that a person bidding in chiamata passes (0.8: a third of the deals are "
        "redealt, all five passing, §7.4; 0.5: about one in thirty)",
    )
    p.add_argument(
        "--impatience",
        type=float,
        default=0.01,
        help="chance per glance that someone taps a card out of turn (0.01)",
    )
    p.add_argument(
        "--think",
        type=seconds_range,
        default=None,
        metavar="LOW,HIGH",
        help="seconds a person thinks before a tap (0.5,3; five-humans 2,6): less, more actions",
    )
    p.add_argument("--after-restart", type=float, default=None, help="play after restart (10)")
    p.add_argument(
        "--restart",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="SIGKILL the bot after the window and time its restart (default: yes, but not "
        "with --compare or --quick)",
    )
    p.add_argument("--workdir", type=Path, default=None, help="keep the database and logs here")
    p.add_argument(
        "--bot-env",
        action="append",
        default=[],
        type=key_value,
        metavar="KEY=VALUE",
        help="extra environment for the bot (e.g. HARD_BUDGET=0.5); repeatable",
    )
    p.add_argument(
        "--database",
        choices=("sqlite", "postgresql"),
        default="sqlite",
        help="the bot's database: a SQLite file, or PostgreSQL from the pgserver wheel (sqlite)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="bot processes on the one database (1); more than one means webhook mode, "
        "each update posted to one of them at random, WORKERS=N in their environment",
    )
    p.add_argument(
        "--webhook",
        action="store_true",
        help="webhook mode even with one process (else it polls with getUpdates)",
    )
    p.add_argument(
        "--compare",
        nargs="?",
        const=DEFAULT_COMPARE,
        default=None,
        type=config_list,
        metavar="CONFIGS",
        help="run the same load once per configuration and print a table of them; CONFIGS "
        f"like {DEFAULT_COMPARE} (the default): DATABASE/polling or DATABASE/N webhook workers",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="a small run: "
        + ", ".join(f"--{k.replace('_', '-')} {v:g}" for k, v in QUICK.items())
        + ", no restart, 1 s of warm-up instead of 3",
    )
    p.add_argument(
        "--kill-worker",
        type=float,
        default=None,
        metavar="SECONDS",
        help="with --workers 2 or more: SIGKILL one worker a third of the way into the window, "
        "keep it down this long, start it again; the turn lag of the moves meanwhile printed",
    )
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = p.parse_args(argv)
    if args.kill_worker is not None and args.workers < 2:
        p.error("--kill-worker needs --workers 2 or more")
    humans = args.scenario in HUMAN_SCENARIOS
    rush = args.scenario == "rush"
    if args.think is None:
        args.think = HUMAN_THINK if humans else THINK
    if args.double_tap is None:
        args.double_tap = 0.05 if humans else 0.0
    if args.retap is None:
        args.retap = RUSH_RETAP if rush else 0.0
    if args.compare and args.duration is None and not args.quick:
        args.duration = COMPARE_DURATION
    for key, value in DEFAULTS.items():
        if getattr(args, key) is None:
            setattr(args, key, QUICK[key] if args.quick else value)
    if args.tables < 1 or args.duration <= 0:
        p.error("--tables and --duration must be positive")
    if args.workers < 1:
        p.error("--workers must be at least 1")
    if args.ramp is None:
        if rush:
            args.ramp = RUSH_RAMP
        else:
            args.ramp = QUICK["ramp"] if args.quick else min(60.0, 0.3 * args.tables)
    if args.restart is None:
        args.restart = not (args.quick or args.compare)
    if args.commands is None:  # five-humans: about one command per group a minute
        args.commands = max(1, round(args.duration / 60)) if humans else 3
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    out = sys.stderr if args.json else sys.stdout
    if args.compare is None:
        result = run_bounded(args)
        for line in report(result):
            print(line, file=out)
        if args.json:
            print(json.dumps(result, ensure_ascii=False))
        return 0
    results: list[tuple[Config, dict[str, Any] | str]] = []
    t0 = time.monotonic()
    for config in args.compare:
        one = argparse.Namespace(**vars(args))
        one.database, one.workers, one.webhook = config.database, config.workers, config.webhook
        if args.workdir is not None:
            one.workdir = args.workdir / f"{config.database}-{config.workers}-{config.webhook}"
        log(f"--- {config.database}, {config.workers} process(es), webhook {config.webhook}")
        try:
            result = run_bounded(one)
        except Exception as exc:  # one configuration broke: say so, run the others
            log(f"that run failed: {exc!r}")
            results.append((config, repr(exc)))
            continue
        results.append((config, result))
        for line in report(result):
            print(line, file=out, flush=True)
        print(file=out, flush=True)
    print(
        f"bot_load --compare: {args.tables} tables, {args.duration:g} s window each, seed "
        f"{args.seed}, {os.cpu_count()} CPUs, {time.monotonic() - t0:.0f} s in all; the window's "
        "actions, latency from the update made (tap, message) to the reply at the server:",
        file=out,
    )
    for line in comparison(results):
        print(line, file=out)
    if args.json:
        print(
            json.dumps(
                [
                    {"config": vars(config), "result": r}
                    for config, r in results  # r: the run's numbers, or its error
                ],
                ensure_ascii=False,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

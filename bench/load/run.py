"""One load run, step by step (`run`): the stand-in Bot API, the people and the bot's
processes set up (`set_up`); the bot started and warmed up (`start_bot`); the tables opened
(`open_tables`, the ramp); the measurement window (`measure_window`); the people stopped and
their last taps answered (`stop_people`); the SIGKILL and restart (`restart`); the bot stopped
(`stop_bot`); and the run's numbers collected (`bench.load.results.collect`). `run_bounded`
runs one in a fresh event loop within a time budget."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import shutil
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.load.fleet import Fleet
from bench.load.measure import cards_played, moves_made, progress, settle_taps, unfinished
from bench.load.people import Bench
from bench.load.procs import REAPER, ProcSample, sample, tree_cpu
from bench.load.results import Edge, Ramp, Seen, Settled, Stopped, Window, collect
from bench.load.scenarios import BOT_ENV, log
from bench.rig.backends import PgStore, fresh_url, postgres_server
from bench.rig.bot_process import BOT_NAME, Store
from bench.rig.stand_in import TELEGRAM_LIMITS
from bench.rig.telegram import FakeTelegram
from bot.players.thinker import WARM_AFTER
from bot.telegram.notes import NOTES_INTERVAL


async def run(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    """One run with the options of `python -m bench.bot_load`, its work in `workdir`; its
    result (`bench.load.results.collect`)."""
    config = run_config(args)
    async with FakeTelegram(threaded=True, bot_username=BOT_NAME, limits=TELEGRAM_LIMITS) as fake:
        stage = set_up(args, workdir, fake, config)
        try:
            t_begin = time.monotonic()
            base = await start_bot(stage)
            ramp = await open_tables(stage)
            window = await measure_window(stage, ramp)
            settled = await stop_people(stage)
            restore = await restart(stage, settled) if args.restart else None
            stopped = await stop_bot(stage, t_begin)
        finally:
            stage.fleet.ensure_dead()
        seen = Seen(base, ramp, window, settled, restore, stopped)
        return collect(args, fake, stage.bench, stage.fleet, config, seen)


@dataclass
class Stage:
    """What a run is played on: the stand-in, the people, the bot's processes, their database
    (and the PostgreSQL server's pid, None on SQLite); the tasks to cancel at the end."""

    args: argparse.Namespace
    fake: FakeTelegram
    bench: Bench
    fleet: Fleet
    store: Store | PgStore
    db_pid: int | None
    tasks: list[asyncio.Task[Any]] = field(default_factory=list)


def run_config(args: argparse.Namespace) -> dict[str, Any]:
    """The run's configuration as its result gives it (`set_up` adds the rest)."""
    return {
        "tables": args.tables,
        "duration_s": args.duration,
        "seed": args.seed,
        "ramp_s": args.ramp,
        "commands_per_table": args.commands,
        "think_s": list(args.think),
        "scenario": args.scenario,
        "double_tap": args.double_tap,
        **({"retap": args.retap} if args.scenario == "rush" else {}),
        "bot_env": BOT_ENV,
        "cpus": os.cpu_count(),
        "loadavg_at_start": [round(x, 2) for x in os.getloadavg()],
    }


def set_up(
    args: argparse.Namespace, workdir: Path, fake: FakeTelegram, config: dict[str, Any]
) -> Stage:
    """The people at their tables, the bot's database (a SQLite file, or a fresh database on
    the test run's pgserver) and its processes, not started yet; `config` told of them."""
    bench = Bench(fake, args)
    bench.make_tables()
    variants = Counter(t.variant for t in bench.tables)
    people = sum(len(t.people) for t in bench.tables)
    computers = Counter(level for t in bench.tables for level in t.levels)
    config.update(variants=dict(variants), people=people, computers=dict(computers))
    env = {**BOT_ENV, **dict(args.bot_env)}
    db_pid: int | None = None
    store: Store | PgStore
    if args.database == "postgresql":  # a fresh database on the test run's pgserver
        env["DATABASE_URL"] = fresh_url("postgresql", workdir)
        db_pid = postgres_server().get_pid()
        store = PgStore(env["DATABASE_URL"])
    else:  # one file, whatever the number of processes
        env["DATABASE_URL"] = f"sqlite:///{workdir / 'bot.db'}"
        store = Store(workdir / "bot.db")
    fleet = Fleet(fake, workdir, env, args.workers, args.webhook, random.Random(args.seed))
    config.update(
        database=args.database,
        workers=args.workers,
        mode="webhook" if fleet.webhook else "polling",
        restart=args.restart,
    )
    return Stage(args, fake, bench, fleet, store, db_pid)


async def start_bot(stage: Stage) -> ProcSample:
    """Start the bot's processes (one after another: the first creates the schema), let them
    warm up, start the progress line; the processes as they are before any table."""
    args, fleet = stage.args, stage.fleet
    await fleet.start(together=False)
    people = sum(len(t.people) for t in stage.bench.tables)
    log(
        f"bot pids {fleet.pids()} up ({fleet.describe()}, {args.database}); "
        f"{args.tables} tables, {people} people"
    )
    # post_init done, workers spawned, and (not quick) the due network read, on a
    # thread after `WARM_AFTER` (numpy's 10 MB, once a process: not a table's)
    await asyncio.sleep(1.0 if args.quick else WARM_AFTER + 1.5)
    base = sample(*fleet.pids())
    stage.tasks.append(asyncio.create_task(progress(stage.bench, fleet, stage.store)))
    return base


def open_window(stage: Stage) -> Edge:
    """The measurement window starts: its counters, and the commands spread over it."""
    args, bench, store = stage.args, stage.bench, stage.store
    opened = Edge(
        sample(*stage.fleet.pids()),
        tree_cpu(stage.db_pid),
        stage.fake.mark(),
        cards_played(store),
        moves_made(store),
        time.monotonic(),
    )
    bench.window_end = bench.now() + args.duration
    for t in bench.tables:  # a few commands per table, spread over the window
        t.commands_at = sorted(
            t.rng.uniform(bench.now(), bench.window_end) for _ in range(args.commands)
        )
    return opened


async def open_tables(stage: Stage) -> Ramp:
    """The ramp: the tables opened one after another over `--ramp` seconds, waited for until
    all play (or failed) or `--ramp-timeout` more seconds passed. Rush: the window opens with
    the first lobby action (the rush is what is measured) and the ramp ends within it."""
    args, bench = stage.args, stage.bench
    bench.active = True
    t_ramp = bench.now()
    rush = args.scenario == "rush"
    window = open_window(stage) if rush else None
    spacing = args.ramp / max(1, args.tables)
    stage.tasks += [
        asyncio.create_task(bench.run_table(t, i * spacing)) for i, t in enumerate(bench.tables)
    ]
    deadline = t_ramp + args.ramp + args.ramp_timeout
    if rush:
        deadline = min(deadline, t_ramp + args.duration)
    while bench.now() < deadline and not all(t.playing or t.failed for t in bench.tables):
        await asyncio.sleep(0.5)
    ramp_s = bench.now() - t_ramp
    playing = sum(1 for t in bench.tables if t.playing)
    log(f"{playing}/{args.tables} tables playing after {ramp_s:.1f} s of ramp")
    return Ramp(ramp_s, playing, window)


async def measure_window(stage: Stage, ramp: Ramp) -> Window:
    """The measurement window of `--duration` seconds (rush: under way since the ramp
    began); with --kill-worker, worker0 SIGKILLed a third of the way in and started again."""
    args, fleet = stage.args, stage.fleet
    if ramp.window is not None:  # rush
        start = ramp.window
        all_playing = sample(*fleet.pids())  # memory with every table playing
    else:
        start = open_window(stage)
        all_playing = start.sample
    t_window = start.when
    kill: tuple[float, float] | None = None
    if args.kill_worker is not None:  # a third of the way in, one worker dies
        await asyncio.sleep(max(0.0, t_window + args.duration / 3 - time.monotonic()))
        log(f"SIGKILL worker0, down {args.kill_worker:g} s")
        kill = await fleet.kill_one(args.kill_worker)
        log(f"worker0 serves again {kill[1] - kill[0]:.1f} s after its SIGKILL")
        await asyncio.sleep(max(0.0, t_window + args.duration - time.monotonic()))
    elif args.scenario == "rush":
        await asyncio.sleep(max(0.0, t_window + args.duration - time.monotonic()))
    else:
        await asyncio.sleep(args.duration)
    return close_window(stage, start, all_playing, kill)


def close_window(
    stage: Stage, start: Edge, all_playing: ProcSample, kill: tuple[float, float] | None
) -> Window:
    """The measurement window ends: its counters."""
    fake, store = stage.fake, stage.store
    t_window_end = time.monotonic()
    end = sample(*stage.fleet.pids())
    db_cpu = tree_cpu(stage.db_pid)
    cards = cards_played(store)
    moves = moves_made(store)
    calls = fake.counts(since=start.mark)
    edge = Edge(end, db_cpu, fake.mark(), cards, moves, t_window_end)
    return Window(start, all_playing, edge, calls, len(fake.limit_violations), kill)


async def stop_people(stage: Stage) -> Settled:
    """The people stop; every tap answered and every command replied to (`--settle` seconds
    at most each)."""
    args, fake, bench = stage.args, stage.fake, stage.bench
    bench.active = False
    left = await settle_taps(fake, args.settle)
    with contextlib.suppress(TimeoutError):  # replies queue behind the table edits
        await fake.wait_for(
            lambda: len(fake.command_latencies()) >= len(bench.command_times),
            args.settle,
            interval=0.5,
        )
    await asyncio.sleep(1.0)
    load_window = os.getloadavg()
    return Settled(left, load_window, unfinished(stage.store))


async def restart(stage: Stage, settled: Settled) -> dict[str, Any]:
    """SIGKILL every process of the bot with its tables unfinished, start them again, time
    them until they serve updates, let the people play on for a while."""
    args, fake, fleet, bench, store = stage.args, stage.fake, stage.fleet, stage.bench, stage.store
    tables_unfinished, left = settled.tables_unfinished, settled.left
    log(f"SIGKILL with {tables_unfinished} unfinished tables ({left} taps unanswered)")
    sample(*fleet.pids())  # note the children
    t_kill = time.monotonic()
    await fleet.kill9()
    await asyncio.sleep(0.5)
    left_behind = REAPER.alive()  # no bot runs now: all are orphans
    log(f"the SIGKILL left {len(left_behind)} child processes running; ending them")
    REAPER.reap(left_behind)
    mark_restart = fake.mark()
    polling_s = await fleet.start(together=True)
    logged: tuple[int, float] | None = None
    with contextlib.suppress(TimeoutError):

        def restored_line() -> tuple[int, float] | None:
            found = fleet.restored()
            if len(found) < len(fleet.bots):
                return None
            return (max(n for n, _ in found), max(s for _, s in found))

        logged = await fake.wait_for(restored_line, 10.0)
    cards_restart = cards_played(store)
    bench.active = True
    await asyncio.sleep(args.after_restart)
    bench.active = False
    after = [
        c for c in fake.calls[mark_restart:] if c.method not in ("getUpdates", fleet.ready_call)
    ]
    await settle_taps(fake, min(30.0, args.settle))
    cards_after = cards_played(store)[0] - cards_restart[0]
    rejected = [c for c in after if not c.ok and c.refused_by is None]
    # for each rejected edit: when the message was last changed before the kill
    last_ok: dict[tuple[Any, Any], float] = {}
    for c in fake.calls[:mark_restart]:
        if c.ok and c.method in ("sendMessage", "editMessageText"):
            key = (c.params.get("chat_id"), c.params.get("message_id"))
            last_ok[key] = c.at
    rejected_detail = [
        {
            "method": c.method,
            "chat_id": c.params.get("chat_id"),
            "message_id": c.params.get("message_id"),
            "description": c.description,
            "last_change_before_kill_s": round(t_kill - when, 3)
            if (when := last_ok.get((c.params.get("chat_id"), c.params.get("message_id"))))
            else None,
        }
        for c in rejected[:10]
    ]

    # A SIGKILL right after an edit, before the bot wrote down what the message shows
    # (its notes go out every NOTES_INTERVAL s), makes the restarted bot send that same
    # content once more: "not modified", and explained by the kill. Anything else fails.
    def explained(c: Any) -> bool:
        when = last_ok.get((c.params.get("chat_id"), c.params.get("message_id")))
        return (
            "not modified" in (c.description or "")
            and when is not None
            and t_kill - when < NOTES_INTERVAL + 0.1
        )

    explained_after = sum(1 for c in rejected if explained(c))
    failed_after = Counter(f"{c.method}: {c.description}" for c in rejected if not explained(c))
    refused_after = Counter(f"{c.refused_by} ({c.method})" for c in after if c.refused_by)
    not_modified = sum(1 for c in after if "not modified" in (c.description or ""))
    return {
        "t_kill": t_kill,
        "children_left": len(left_behind),
        "tables_unfinished_at_kill": tables_unfinished,
        "logged_tables": logged[0] if logged else None,
        "logged_seconds": logged[1] if logged else None,
        "start_to_polling_seconds": round(polling_s, 3),
        "after_restart_seconds": args.after_restart,
        "calls_after_restart": len(after),
        "failed_after_restart": dict(failed_after),
        "failed_after_restart_detail": rejected_detail,
        "refused_after_restart": dict(refused_after),
        "not_modified_after_restart": not_modified,
        "explained_by_the_kill": explained_after,
        "cards_after_restart": cards_after,
    }


async def stop_bot(stage: Stage, t_begin: float) -> Stopped:
    """The people's tasks ended; SIGTERM to the bot's processes; the children they leave
    running ended."""
    fake, fleet = stage.fake, stage.fleet
    for task in stage.tasks:
        task.cancel()
    await asyncio.gather(*stage.tasks, return_exceptions=True)
    sample(*fleet.pids())  # note the children
    pending_at_sigterm = len(fake.pending_updates())
    t_sigterm = time.monotonic()
    codes = await fleet.stop()
    sigterm_s = time.monotonic() - t_sigterm
    with contextlib.suppress(TimeoutError):
        await fake.wait_for(lambda: not REAPER.alive(), 10.0, interval=0.2)
    after_sigterm = REAPER.reap()
    t_total = time.monotonic() - t_begin
    return Stopped(codes, sigterm_s, pending_at_sigterm, after_sigterm, t_total, fleet.log_text())


def run_bounded(args: argparse.Namespace) -> dict[str, Any]:
    """One run, in a fresh event loop, within a time budget; its work directory removed
    after unless --workdir named one."""
    budget = args.ramp + args.ramp_timeout + args.duration + 2 * args.settle + 240.0
    tmp = None
    if args.workdir is None:
        tmp = tempfile.mkdtemp(prefix="bot_load_")
        workdir = Path(tmp)
    else:
        workdir = args.workdir
        workdir.mkdir(parents=True, exist_ok=True)

    async def bounded() -> dict[str, Any]:
        async with asyncio.timeout(budget):
            return await run(args, workdir)

    try:
        return asyncio.run(bounded())
    finally:
        REAPER.reap()  # the bot's children, whatever happened (the bot itself: Fleet)
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)

"""The load bench's measures: percentiles, latencies split by the run's phases, the cards and
moves in the database, the Bot API calls that name a chat, the time from a move to the next
turn message; the time from each update made to the bot's reply reaching the stand-in (and,
for the rush, per window of the run and to each table's first card); the progress line."""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import itertools
import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

from bench.load.fleet import Fleet
from bench.load.people import Action, Bench, Table
from bench.load.procs import children_cpu_delta, sample
from bench.load.scenarios import RUSH_AUCTION_TARGET, RUSH_BUCKET, log
from bench.rig.backends import PgStore
from bench.rig.bot_process import Store
from bench.rig.telegram import ApiCall, FakeTelegram
from bot.engine import actions as A
from bot.telegram.rate_limiter import PacedRateLimiter


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


PHASES = ("ramp", "window", "after_restart")


def by_phase(
    latencies: list[float], times: list[float], bounds: tuple[float, float]
) -> dict[str, list[float]] | None:
    """Latencies split by when they began: before the window (tables opening), in it (up to
    the SIGKILL), after the restart. None if the lists do not line up (some tap or command
    got no answer, so the fake left it out)."""
    if len(latencies) != len(times):
        return None
    out: dict[str, list[float]] = {phase: [] for phase in PHASES}
    for latency, at in zip(latencies, times, strict=True):
        phase = "ramp" if at < bounds[0] else "window" if at < bounds[1] else "after_restart"
        out[phase].append(latency)
    return out


def summarize(phases: dict[str, list[float]] | None) -> dict[str, dict[str, Any]] | None:
    if phases is None:
        return None
    return {
        phase: {"n": len(v), "p50": pct(v, 0.5), "p99": pct(v, 0.99), "max": max(v, default=None)}
        for phase, v in phases.items()
    }


def cards_played(store: Store | PgStore) -> tuple[int, int]:
    """(cards, of which by people) stored so far: the move log, bids and calls left out."""
    rows = store.rows(
        "SELECT COUNT(*) AS n, COUNT(user_id) AS h FROM moves WHERE action < ?",
        A.CALL_RANK,
    )
    return int(rows[0]["n"]), int(rows[0]["h"])


def moves_made(store: Store | PgStore) -> int:
    """Moves stored so far: bids, calls and cards (RULES §7), by people and computers."""
    return int(store.rows("SELECT COUNT(*) AS n FROM moves")[0]["n"])


def chat_of(call: ApiCall) -> int | None:
    """The chat a call names (Telegram's limits count these), None for the others: as the
    bot's rate limiter reads it (a channel's @name left out)."""
    chat = PacedRateLimiter.chat_of(call.params)
    return chat if isinstance(chat, int) else None


def private_kind(c: ApiCall) -> str:
    """What a private chat's call was for: a turn ("👉", a new message with buttons), another
    new message (a new hand, a hand's summary, news), an edit that leaves buttons, one that
    takes them away (a turn that ended), a deletion."""
    markup = c.params.get("reply_markup")
    rows = markup.get("inline_keyboard") if isinstance(markup, dict) else None
    buttons = bool(rows and any(rows))
    if c.method == "sendMessage":
        return "turn" if "👉" in str(c.params.get("text", "")) else "other send"
    if c.method.startswith("edit"):
        return "edit, buttons" if buttons else "edit, no buttons"
    return c.method


def chat_calls(calls: Sequence[ApiCall], moves: int, cards: int, seconds: float) -> dict[str, Any]:
    """Issue 39 §3: the calls that name a chat, per move and per card, in the groups and the
    private chats, by method; and the busiest second against Telegram's 30 a second."""
    where: Counter[str] = Counter()
    methods: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    seconds_used: Counter[int] = Counter()
    for c in calls:
        chat = chat_of(c)
        if chat is None:
            continue
        side = "group" if chat < 0 else "private"
        where[side] += 1
        methods[f"{side} {c.method}"] += 1
        if side == "private":
            kinds[private_kind(c)] += 1
        seconds_used[int(c.at)] += 1
    total = sum(where.values())

    def per(n: int, d: int) -> float | None:
        return round(n / d, 3) if d else None

    return {
        "moves": moves,
        "per_move": per(total, moves),
        "per_card": per(total, cards),
        "group_per_move": per(where["group"], moves),
        "private_per_move": per(where["private"], moves),
        "by_method_per_move": {m: per(n, moves) for m, n in sorted(methods.items())},
        "private_by_kind_per_move": {k: per(n, moves) for k, n in sorted(kinds.items())},
        "per_second": round(total / seconds, 2) if seconds else None,
        "peak_second": max(seconds_used.values(), default=0),
    }


def turn_lags(
    calls: Sequence[ApiCall], actions: list[Action], tables: list[Table], begin: float, end: float
) -> list[float]:
    """Seconds from a move tapped in [begin, end) (its update made) to the next turn message
    of that table ("👉", a new private message), when the turn passes to someone before the
    table's next tap (a hand's last card waits for "Prossima mano": not counted)."""
    table_of = {p.user.id: t.index for t in tables for p in t.people}
    turns: dict[int, list[float]] = {}
    for c in calls:
        chat = chat_of(c)
        if c.method != "sendMessage" or not c.ok or chat is None or chat not in table_of:
            continue
        if "👉" in str(c.params.get("text", "")):
            turns.setdefault(table_of[chat], []).append(c.at)
    taps: dict[int, list[Action]] = {}
    for a in actions:
        if a.table is not None and a.qid is not None:
            taps.setdefault(a.table, []).append(a)
    lags = []
    for index, mine in taps.items():
        sent = sorted(turns.get(index, []))
        for a, after in zip(mine, [*mine[1:], None], strict=True):
            if a.kind not in ("card", "bid") or a.label != "ok" or not begin <= a.made < end:
                continue
            k = bisect.bisect_right(sent, a.made)
            if k < len(sent) and (after is None or sent[k] <= after.made):
                lags.append(sent[k] - a.made)
    return lags


def group_show_lags(
    calls: Sequence[ApiCall], actions: list[Action], tables: list[Table], begin: float, end: float
) -> list[float]:
    """Seconds from a move tapped in [begin, end) (its update made) to the next edit of its
    group's table message that Telegram accepted (a group's only edited message; a reply
    there shows no move): how long the group's table stood still while a move went by
    (issue 50.4: at most 10 s)."""
    group_of = {t.index: t.group.id for t in tables}
    shown: dict[int, list[float]] = {}
    for c in calls:
        chat = c.params.get("chat_id")
        if c.ok and c.method == "editMessageText" and isinstance(chat, int):
            shown.setdefault(chat, []).append(c.at)
    lags = []
    for a in actions:
        if a.table is None or a.kind not in ("card", "bid") or a.label != "ok":
            continue
        if not begin <= a.made < end:
            continue
        times = shown.get(group_of[a.table], [])
        k = bisect.bisect_right(times, a.made)
        if k < len(times):
            lags.append(times[k] - a.made)
    return lags


def table_edit_gaps(calls: Sequence[ApiCall]) -> list[float]:
    """Seconds between consecutive edits of each group message (the tables' messages), from
    the edits Telegram accepted among `calls`: how long a group looked at a table that did
    not change while its game went on."""
    times: dict[tuple[int, int], list[float]] = {}
    for c in calls:
        chat = c.params.get("chat_id")
        if c.method == "editMessageText" and c.ok and isinstance(chat, int) and chat < 0:
            times.setdefault((chat, int(c.params.get("message_id", 0))), []).append(c.at)
    return [b - a for ts in times.values() for a, b in itertools.pairwise(ts)]


def unfinished(store: Store | PgStore) -> int:
    rows = store.rows("SELECT COUNT(*) AS n FROM tables WHERE status IN ('lobby', 'playing')")
    return int(rows[0]["n"])


async def settle_taps(fake: FakeTelegram, timeout: float) -> int:
    """Wait until every tap so far is answered (or `timeout`); the number still open."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while (left := len(fake.unanswered_queries())) and loop.time() < deadline:
        await asyncio.sleep(0.5)
    with contextlib.suppress(TimeoutError):
        await fake.wait_delivered(max(0.1, deadline - loop.time()))
    return left


# ------------------------------------------------------------------------------ update to reply


def reply_times(fake: FakeTelegram) -> tuple[dict[str, float], dict[int, list[float]]]:
    """When the bot's answers reached the stand-in: the first accepted answerCallbackQuery of
    each callback query, and the accepted sendMessage calls into each chat (sorted)."""
    answered: dict[str, float] = {}
    for c in fake.calls_of("answerCallbackQuery"):
        if c.ok:
            answered.setdefault(str(c.params.get("callback_query_id")), c.arrived)
    sends: dict[int, list[float]] = {}
    for c in fake.calls_of("sendMessage"):
        if c.ok and isinstance(c.result, dict):
            sends.setdefault(int(c.result["chat"]["id"]), []).append(c.arrived)
    for times in sends.values():
        times.sort()
    return answered, sends


def latency_summary(values: list[float]) -> dict[str, Any]:
    return {
        "n": len(values),
        "p50": pct(values, 0.5),
        "p99": pct(values, 0.99),
        "max": max(values, default=None),
    }


def window_actions(
    fake: FakeTelegram, actions: list[Action], begin: float, end: float
) -> dict[str, Any]:
    """The people's actions made in [begin, end): how many, answered how, and the time from the
    update being made available (the tap, the message) to the bot's answer to the tap, or to
    its first message into the command's chat, reaching the stand-in server."""
    answered, sends = reply_times(fake)
    taps: list[float] = []
    commands: list[float] = []
    labels: Counter[str] = Counter()
    refused: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    made = accepted = 0
    for a in actions:
        if not begin <= a.made < end:
            continue
        made += 1
        if a.qid is not None:  # a tap
            when = answered.get(a.qid)
            label = a.label or ("answered late" if when is not None else "unanswered")
            labels[f"{a.kind}: {label}"] += 1
            if when is not None:
                taps.append(when - a.made)
            if label == "ok":
                accepted += 1
            elif label in ("timeout", "anomaly", "unanswered", "error"):
                failed[f"tap {label}"] += 1
            elif a.kind not in ("impatient", "double", "retap"):  # refused on purpose
                refused[label] += 1
        else:  # a command
            times = sends.get(a.chat or 0, [])
            i = bisect.bisect_left(times, a.made)
            if i < len(times):
                commands.append(times[i] - a.made)
                accepted += 1
            else:
                failed[f"{a.kind} without reply"] += 1
    wall = end - begin
    return {
        "made": made,
        "answered": len(taps) + len(commands),
        "accepted": accepted,
        "per_second": round((len(taps) + len(commands)) / wall, 2) if wall > 0 else None,
        "accepted_per_second": round(accepted / wall, 2) if wall > 0 else None,
        "tap_to_answer_s": latency_summary(taps),
        "command_to_reply_s": latency_summary(commands),
        "all_s": latency_summary(taps + commands),
        "labels": dict(labels),
        "refused": dict(refused),
        "failed": dict(failed),
    }


def tap_windows(
    fake: FakeTelegram, actions: list[Action], bucket: float = RUSH_BUCKET
) -> dict[str, Any]:
    """Rush: tap answer latency (update delivered -> answerCallbackQuery) per `bucket`-second
    window by when the tap was made, from the first lobby tap to the last tap; a tap without
    an answer counts in its window's `unanswered`."""
    latency = fake.tap_latencies_by_query()
    taps = [a for a in actions if a.qid is not None]
    lobby = [a.made for a in taps if a.kind == "lobby"]
    if not lobby:
        return {"bucket_s": bucket, "windows": []}
    t0 = min(lobby)
    values: dict[int, list[float]] = {}
    unanswered: Counter[int] = Counter()
    for a in taps:
        if a.made < t0:
            continue
        k = int((a.made - t0) // bucket)
        values.setdefault(k, [])
        if a.qid in latency:
            values[k].append(latency[a.qid])
        else:
            unanswered[k] += 1
    windows = [
        {
            "from_s": k * bucket,
            "to_s": (k + 1) * bucket,
            **latency_summary(values.get(k, [])),
            "unanswered": unanswered[k],
        }
        for k in range(max(values, default=-1) + 1)
    ]
    return {"bucket_s": bucket, "windows": windows}


def past_auction(
    fake: FakeTelegram, actions: list[Action], tables: list[Table], first_new: float | None
) -> dict[str, Any]:
    """Rush: seconds from the first /new to each table's first card played (its auction over:
    the bot's answer to the first card tap it accepted reached the stand-in)."""
    answered, _ = reply_times(fake)
    first: dict[int, float] = {}
    for a in actions:
        if a.kind == "card" and a.label == "ok" and a.table is not None and a.qid in answered:
            first[a.table] = min(first.get(a.table, math.inf), answered[a.qid])
    times = sorted(t - first_new for t in first.values()) if first_new is not None else []
    # from the table's own /new that opened it (after any "too busy, try again")
    own = sorted(
        first[t.index] - t.admitted for t in tables if t.index in first and t.admitted is not None
    )
    return {
        "tables": len(tables),
        "reached": len(times),
        "within_target": sum(1 for t in times if t <= RUSH_AUCTION_TARGET),
        "own_within_target": sum(1 for t in own if t <= RUSH_AUCTION_TARGET),
        "own_max_s": max(own, default=None),
        "target_s": RUSH_AUCTION_TARGET,
        "p50_s": pct(times, 0.5),
        "max_s": max(times, default=None),
        "all_reached": len(times) == len(tables),
    }


async def progress(bench: Bench, fleet: Fleet, store: Store | PgStore, every: float = 15.0) -> None:
    """A line on stderr now and then (the bot's pids change at the restart)."""
    last, last_pids = sample(*fleet.pids()), fleet.pids()
    while True:
        await asyncio.sleep(every)
        pids = fleet.pids()
        now = sample(*pids)
        if pids != last_pids:  # restarted: start counting again
            last, last_pids = now, pids
            continue
        wall = now.at - last.at
        try:
            cards, _ = await asyncio.to_thread(cards_played, store)
        except Exception:  # the database may not exist yet
            cards = 0
        playing = sum(1 for t in bench.tables if t.playing)
        log(
            f"{playing}/{len(bench.tables)} tables playing, {cards} cards, "
            f"bot {100 * (now.bot_cpu - last.bot_cpu) / wall:.0f}% "
            f"workers {100 * children_cpu_delta(last, now) / wall:.0f}% "
            f"bench {100 * (now.bench_cpu - last.bench_cpu) / wall:.0f}% of a core, "
            f"429s {len(bench.fake.limit_violations)}"
        )
        last = now

"""Telegram's budget with every player's Mini App page open and visible: chiamata tables of
five people who play in the Mini App only, against the real bot (`python -m bot` with
Telegram's numbers) and the stand-in Bot API enforcing Telegram's limits, on 127.0.0.1.

    python -m bench.pages [--tables 4] [--duration 90] [--think 1,3] [--seed 1] [--json]

The tables are opened in their groups as people do (/new, /join, "Inizia"); then each person
opens the table's page as Telegram would (a session from signed initData, the page's stream
with `visible=1`, a visibility report every heartbeat) and plays through the page's API: the
one whose turn it is acts 1-3 s (`--think`) after their page shows it, with a random legal
card or choice; the table's creator starts the next hand. A player whose page is visible gets
no private-chat traffic for that table, so what is left is the group's table message.

Printed (`--json`: also one JSON object on stdout): the calls that name a chat in the window,
per move (a bid, a call or a card) and per card, in the groups and in the private chats, by
method (the target: at most 0.3 a move with every page visible); moves and cards made; the
time from a move to the next player's page showing their turn (p50/p99); 429s of the bot's
own making.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.load.measure import cards_played, chat_calls, moves_made, pct
from bench.load.report import ms
from bench.load.scenarios import BOT_ENV, seconds_range
from bench.rig.bot_process import BOT_NAME, Store
from bench.rig.browser import MiniAppBot, signed_init_data, table_key
from bench.rig.people import open_table, start_bot, start_table
from bench.rig.stand_in import TELEGRAM_LIMITS
from bench.rig.telegram import FakeTelegram, FakeUser

PLAYERS = 5


def log(msg: str) -> None:
    print(f"[pages {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


class Page:
    """One person's Mini App page of their table: its stream, its reports, its moves."""

    def __init__(self, user: FakeUser, table_id: int, run: Run) -> None:
        self.user, self.table_id, self.run = user, table_id, run
        self.page_id = f"bench{user.id}"
        self.snap: dict[str, Any] | None = None
        self.changed = asyncio.Event()
        self.token = ""

    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}", "X-Table-Key": table_key(self.table_id)}

    async def open(self, client: httpx.AsyncClient) -> None:
        r = await client.post(
            "/api/session", json={"init_data": signed_init_data(self.user, self.table_id)}
        )
        r.raise_for_status()
        self.token = r.json()["token"]

    async def stream(self, client: httpx.AsyncClient) -> None:
        """The page's live stream, visible from the start: each snapshot as it comes."""
        params = {
            "token": self.token,
            "k": table_key(self.table_id),
            "page": self.page_id,
            "visible": "1",
        }
        path = f"/api/tables/{self.table_id}/events"
        async with client.stream("GET", path, params=params, timeout=None) as r:
            event: dict[str, str] = {}
            async for line in r.aiter_lines():
                if line == "":
                    if event.get("event") == "state":
                        self.snap = json.loads(event["data"])
                        self.run.seen(self.snap, self.user.id)
                        self.changed.set()
                    event = {}
                elif not line.startswith(":"):
                    key, _, value = line.partition(": ")
                    event[key] = value

    async def heartbeat(self, client: httpx.AsyncClient, every: float) -> None:
        while True:
            await asyncio.sleep(every)
            await client.post(
                f"/api/tables/{self.table_id}/visibility",
                json={"page": self.page_id, "visible": True},
                headers=self.auth(),
            )

    async def play(self, client: httpx.AsyncClient, creator: bool) -> None:
        """Act when the page shows this person's turn (after thinking), start the next hand
        when the page offers it (the creator)."""
        done: tuple[int, int, int] | None = None
        while True:
            await self.changed.wait()
            self.changed.clear()
            snap = self.snap
            if snap is None:
                continue
            key = (snap["hand_index"], snap["ply"], snap["move"])
            if snap["can_next"] and creator and key != done:
                done = key
                await asyncio.sleep(self.run.rng.uniform(*self.run.think))
                await client.post(
                    f"/api/tables/{self.table_id}/next",
                    json={"hand_index": snap["hand_index"]},
                    headers=self.auth(),
                )
                continue
            options = [("card", a, snap["card_stamp"]) for a in snap["playable"]] + [
                ("choice", c["action"], c["stamp"]) for c in snap["choices"]
            ]
            if snap["current"] != snap["me"] or not options or key == done:
                continue
            done = key
            await asyncio.sleep(self.run.rng.uniform(*self.run.think))
            if self.snap is not snap:  # the table moved on meanwhile (not by this person)
                self.changed.set()
                continue
            _, action, stamp = self.run.rng.choice(options)
            body = {
                "hand_index": snap["hand_index"],
                "stamp": stamp,
                "action": action,
                "ply": snap["ply"],
            }
            self.run.acted(self.table_id, snap["move"])
            await client.post(f"/api/tables/{self.table_id}/act", json=body, headers=self.auth())


class Run:
    def __init__(self, think: tuple[float, float], seed: int) -> None:
        self.think = think
        self.rng = random.Random(seed)
        self.moves: dict[tuple[int, int], float] = {}  # (table, version acted on) -> when
        self.turn_lags: list[float] = []
        self.window: tuple[float, float] = (float("inf"), float("inf"))

    def acted(self, table_id: int, move: int) -> None:
        self.moves[(table_id, move)] = time.monotonic()

    def seen(self, snap: dict[str, Any], user_id: int) -> None:
        """A page got a snapshot: if it shows its person's turn, how long after the move."""
        if snap["current"] != snap["me"] or not (snap["playable"] or snap["choices"]):
            return
        made = self.moves.pop((snap["table_id"], snap["move"] - 1), None)
        if made is not None and self.window[0] <= made < self.window[1]:
            self.turn_lags.append(time.monotonic() - made)


async def bench(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    run = Run(args.think, args.seed)
    async with FakeTelegram(threaded=True, bot_username=BOT_NAME, limits=TELEGRAM_LIMITS) as fake:
        bot = MiniAppBot(fake, workdir, **BOT_ENV)
        tables: list[tuple[int, list[FakeUser]]] = []
        people = {
            i: [fake.user(100_000 + 10 * i + j, f"P{i}.{j} <&>") for j in range(PLAYERS)]
            for i in range(args.tables)
        }
        tasks: list[asyncio.Task[None]] = []
        client: httpx.AsyncClient | None = None
        try:
            store: Store = await start_bot(bot, [u for us in people.values() for u in us])
            for i, users in people.items():
                group = fake.group(-(700_000 + i), f"Tavolo {i}", members=users)
                await open_table(fake, group, users[0], users[1:], "chiamata")
                await start_table(fake, group, users[0])
                tables.append((int(store.table(group.id)["table_id"]), users))
            log(f"{len(tables)} tables of five playing; pages opening")
            client = httpx.AsyncClient(base_url=bot.url, timeout=30.0)
            heartbeat = 20.0
            for table_id, users in tables:
                for j, user in enumerate(users):
                    page = Page(user, table_id, run)
                    await page.open(client)
                    tasks += [
                        asyncio.create_task(page.stream(client)),
                        asyncio.create_task(page.heartbeat(client, heartbeat / 2)),
                        asyncio.create_task(page.play(client, creator=j == 0)),
                    ]
            await asyncio.sleep(args.warmup)
            mark = fake.mark()
            moves0, cards0 = moves_made(store), cards_played(store)[0]
            t0 = time.monotonic()
            run.window = (t0, t0 + args.duration)
            await asyncio.sleep(args.duration)
            seconds = time.monotonic() - t0
            calls = list(fake.calls[mark:])
            moves = moves_made(store) - moves0
            cards = cards_played(store)[0] - cards0
            own_429 = len(fake.limit_violations)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            if client is not None:
                await client.aclose()
            bot.ensure_dead()
    per = chat_calls(calls, moves, cards, seconds)
    return {
        "tables": len(tables),
        "seconds": round(seconds, 1),
        "moves": moves,
        "cards": cards,
        "chat_calls": per,
        "turn_shown_s": {
            "n": len(run.turn_lags),
            "p50": pct(run.turn_lags, 0.5),
            "p99": pct(run.turn_lags, 0.99),
        },
        "own_429s": own_429,
    }


def report(r: dict[str, Any]) -> list[str]:
    cc = r["chat_calls"]
    ts = r["turn_shown_s"]
    verdict = "PASS" if cc["per_move"] is not None and cc["per_move"] <= 0.3 else "FAIL"
    return [
        f"pages: {r['tables']} chiamata tables of five, every page open and visible; "
        f"{r['seconds']} s window: {r['moves']} moves, {r['cards']} cards",
        f"chat calls per move: {cc['per_move']} (group {cc['group_per_move']}, private "
        f"{cc['private_per_move']}), per card {cc['per_card']}  target <= 0.3: {verdict}",
        "  by method per move: "
        + ", ".join(f"{m} {v}" for m, v in cc["by_method_per_move"].items()),
        f"move -> the next player's page shows their turn: p50 {ms(ts['p50'])}, p99 "
        f"{ms(ts['p99'])} (n={ts['n']})",
        f"429s of the bot's own making: {r['own_429s']}",
    ]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.pages", description=__doc__.split("\n")[0])
    p.add_argument("--tables", type=int, default=4, help="chiamata tables of five (4)")
    p.add_argument("--duration", type=float, default=90.0, help="seconds measured (90)")
    p.add_argument("--warmup", type=float, default=5.0, help="seconds before the window (5)")
    p.add_argument("--think", type=seconds_range, default=(1.0, 3.0), help="seconds (1,3)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-pages-") as tmp:
        result = asyncio.run(bench(args, Path(tmp)))
    for line in report(result):
        print(line, file=sys.stderr if args.json else sys.stdout)
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The bot as the end-to-end tests and the benches (`bench.bot_load`, `bench.pages`) run it:
`python -m bot` as a process against the stand-in Bot API (`BotProcess`; `ProbedBot` with an
idle probe; `WebhookBot` in webhook mode), a read-only look at its SQLite database (`Store`)
and its ledger export (`check_ledger`).

Each test (or bench run) gives the process its own directory and its own ports (`free_port`),
so that tests can run side by side."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

import httpx

from bench.rig.bot_probe import IDLE_LINE
from bench.rig.telegram import FakeTelegram
from bot.players.thinker import WORKERS_READY

REPO = Path(__file__).resolve().parents[2]
TOKEN = "7654321:AAE2e-SECRET_t0ken_value_for_tests"
BOT_NAME = "briscola_e2e_bot"
WAIT = 15.0  # seconds any single expected thing may take


class BotProcess:
    """`python -m bot` with its own database in `workdir`; logs kept per run."""

    module = "bot"

    def __init__(self, fake: FakeTelegram, workdir: Path, **env: str) -> None:
        self.fake = fake
        self.dir = workdir
        self.db_path = workdir / "x.db"
        self.logs: list[Path] = []
        self.proc: subprocess.Popen[bytes] | None = None
        self.extra_env = env

    def env(self) -> dict[str, str]:
        base = {k: v for k, v in os.environ.items() if not k.startswith(("BOT_", "TELEGRAM_"))}
        base.update(
            BOT_TOKEN=TOKEN,
            TELEGRAM_BASE_URL=self.fake.base_url,
            DATABASE_URL=f"sqlite:///{self.db_path}",
            # Telegram's limits raised so that a test goes as fast as the bot can: a test of
            # pacing or of what a move costs sets its own (`REAL_PACE`, or one of them)
            GROUP_EDIT_INTERVAL="0.05",
            GROUP_ROUTINE_INTERVAL="0.05",
            GROUP_RATE_PER_MINUTE="100000",
            RATE_PER_SECOND="100000",
            PRIVATE_RATE_PER_SECOND="100000",
            LOG_LEVEL="DEBUG",
            PYTHONPATH=str(REPO),
        )
        base.update(self.extra_env)
        return base

    async def start(self) -> None:
        mark = self.fake.mark()
        log = self.dir / f"bot-{len(self.logs)}.log"
        self.logs.append(log)
        with log.open("wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", self.module],
                cwd=self.dir,
                env=self.env(),
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        proc = self.proc
        await self.fake.wait_for(
            lambda: proc.poll() is not None or self.ready(mark), 30, message="the bot ready"
        )
        assert proc.poll() is None, f"the bot exited:\n{self.log_text()}"

    async def computers_ready(self, timeout: float = 30.0) -> None:
        """Wait until this start's worker processes for `hard` computers are up (`Thinker`):
        until then a `hard` move waits for them, on a loaded machine for longer than `WAIT`."""
        log = self.logs[-1]
        await self.fake.wait_for(
            lambda: WORKERS_READY in log.read_text("utf-8", "replace"),
            timeout,
            interval=0.2,
            message="the computer players' worker processes",
        )

    def ready(self, mark: int) -> bool:
        """Whether the bot started since the call log's `mark` is serving updates: post_init
        (database, commands, restore) is done once polling starts, and PTB deletes the
        webhook first (a getUpdates is only logged when its long poll returns)."""
        return self.fake.count("deleteWebhook", since=mark) > 0

    async def stop(self, sig: int = signal.SIGTERM) -> int:
        assert self.proc is not None
        self.proc.send_signal(sig)
        try:
            code = await asyncio.to_thread(self.proc.wait, 30)
        except subprocess.TimeoutExpired as err:  # say where it hung: the log's end
            raise AssertionError(f"no exit 30 s after {sig}:\n{self.log_text()[-6000:]}") from err
        self.proc = None
        return code

    async def kill9(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        await asyncio.to_thread(self.proc.wait, 30)
        self.proc = None

    def ensure_dead(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(30)
        self.proc = None

    def log_text(self) -> str:
        return "\n".join(p.read_text("utf-8", "replace") for p in self.logs if p.exists())

    def log_tail(self, lines: int = 60) -> str:
        """The last `lines` of the logs, without the database's and the HTTP client's."""
        noise = (" DEBUG aiosqlite:", " DEBUG httpcore", " DEBUG httpx")
        kept = [line for line in self.log_text().splitlines() if not any(n in line for n in noise)]
        return "\n".join(line[:300] for line in kept[-lines:])

    def check_logs(self) -> None:
        text = self.log_text()
        secret = TOKEN.split(":", 1)[1]
        assert TOKEN not in text and secret not in text, "the bot token appears in the logs"
        at = text.find("Traceback")
        assert at < 0, text[max(0, at - 3000) : at + 3000]  # what led to it, and the trace


class ProbedBot(BotProcess):
    """The same bot with an idle probe (`bench/rig/bot_probe.py`): `idle()`."""

    module = "bench.rig.bot_probe"

    def idle_reports(self) -> int:
        log = self.logs[-1]
        return log.read_text("utf-8", "replace").count(IDLE_LINE) if log.exists() else 0

    async def idle(self) -> None:
        """Return once the bot has taken every update sent so far and says it has nothing
        under way: no update being handled, no computer player moving, nothing left to send
        (asked with SIGUSR1, answered with a line in its log: `bench/rig/bot_probe.py`). Every
        call it made has been answered by then, so the stand-in server shows whatever the
        bot did."""
        assert self.proc is not None
        await self.fake.wait_taken(WAIT)
        before = self.idle_reports()
        self.proc.send_signal(signal.SIGUSR1)
        await self.fake.wait_for(
            lambda: self.idle_reports() > before, WAIT, interval=0.01, message="the bot idle"
        )


BotT = TypeVar("BotT", bound=BotProcess)


class Store:
    """Read-only looks at the bot's SQLite database (WAL: safe while the bot writes)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def rows(self, sql: str, *args: Any) -> list[sqlite3.Row]:
        conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=10)
        try:
            conn.row_factory = sqlite3.Row
            return list(conn.execute(sql, args))
        finally:
            conn.close()

    def table(self, chat_id: int) -> sqlite3.Row:
        rows = self.rows(
            "SELECT * FROM tables WHERE chat_id = ? ORDER BY table_id DESC LIMIT 1", chat_id
        )
        assert rows, f"no table in chat {chat_id}"
        return rows[0]

    def hand(self, chat_id: int) -> dict[str, Any]:
        row = self.table(chat_id)
        assert row["hand_json"], "no hand stored"
        data: dict[str, Any] = json.loads(row["hand_json"])
        return data

    def moves(self, table_id: int) -> list[tuple[int, int, int, int, int | None]]:
        return [
            (r["move_no"], r["hand_index"], r["seat"], r["action"], r["user_id"])
            for r in self.rows("SELECT * FROM moves WHERE table_id = ? ORDER BY move_no", table_id)
        ]

    def snapshot(self, chat_id: int) -> tuple[Any, ...]:
        row = self.table(chat_id)
        return (
            row["move_no"],
            row["status"],
            row["hand_json"],
            row["match_json"],
            row["seats_json"],
            tuple(self.moves(row["table_id"])),
        )

    def ledger(self, chat_id: int) -> list[sqlite3.Row]:
        return self.rows("SELECT * FROM ledger_entries WHERE chat_id = ?", chat_id)


@contextlib.contextmanager
def bot_guard(bot: BotT) -> Iterator[BotT]:
    """The bot killed at the end; on a failure its log's end printed first (pytest shows it
    with the failure: a CI run's only trace of what the bot was doing)."""
    try:
        yield bot
    except BaseException:
        print(bot.log_tail())
        raise
    finally:
        bot.ensure_dead()


def export(bot: BotProcess, chat_id: int) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-m", "bot", "export", "--chat", str(chat_id), "--format", "json"],
        cwd=bot.dir,
        env={**bot.env(), "BOT_TOKEN": ""},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    data: dict[str, Any] = json.loads(out.stdout)
    return data


def check_ledger(bot: BotProcess, chat_id: int, hands: int) -> dict[str, Any]:
    """RULES §10.1-10.2: every write sums to zero, so do the balances; none written twice."""
    data = export(bot, chat_id)
    assert len(data["hands"]) == hands, data
    for h in data["hands"]:
        assert sum(h["deltas"].values()) == 0, h
    keys = [h["hand_key"] for h in data["hands"]]
    assert len(keys) == len(set(keys))
    assert sum(b["balance"] for b in data["balances"]) == 0
    return data


# Ports for the bots' own servers (webhook, Mini App): each pytest-xdist worker draws from its
# own block, below Linux's ephemeral range (32768 and up, where the stand-in's port and every
# client's come from), so that two tests running side by side are never handed the same one.
# Two test runs at once on one machine: give one of them another TEST_PORT_BASE.
PORT_BLOCK = 400
PORT_BASE = int(os.environ.get("TEST_PORT_BASE", "20000"))
_ports = itertools.count()


def free_port() -> int:
    """A local port free now that no other test of this run is handed."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    base = PORT_BASE + PORT_BLOCK * (int(worker) if worker.isdigit() else 0)
    for _ in range(PORT_BLOCK):
        port = base + next(_ports) % PORT_BLOCK
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {base}..{base + PORT_BLOCK - 1}")


class WebhookBot(BotProcess):
    """`python -m bot` in webhook mode on a free local port."""

    def __init__(self, fake: FakeTelegram, workdir: Path, **env: str) -> None:
        self.port = free_port()
        super().__init__(
            fake,
            workdir,
            **env,
            WEBHOOK_URL=PUBLIC,
            WEBHOOK_SECRET=SECRET,
            WEBHOOK_LISTEN="127.0.0.1",
            PORT=str(self.port),
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/telegram/updates"

    def ready(self, mark: int) -> bool:
        """The webhook is registered after post_init, and the server listens right after."""
        if self.fake.count("setWebhook", since=mark) == 0:
            return False
        try:
            return httpx.get(f"http://127.0.0.1:{self.port}/healthz", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False


SECRET = "w3bhook_S3cret-for-tests"
PUBLIC = "https://briscola.example.org/telegram/updates"

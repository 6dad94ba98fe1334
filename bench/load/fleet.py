"""The bot's processes on one database: one `python -m bot` polling with getUpdates, or N
processes in webhook mode behind a front that posts each update to one of them at random;
started, killed (SIGKILL, all or one worker), stopped, and what they logged."""

from __future__ import annotations

import asyncio
import random
import re
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from bench.load.scenarios import log
from bench.rig.bot_process import BotProcess, WebhookBot
from bench.rig.telegram import FakeTelegram

RESTORED_RE = re.compile(r"(\d+) unfinished tables restored in ([0-9.]+) s")


def reuse_ssl_context() -> None:
    """The stand-in posts each webhook update with a new httpx client, and each new client
    builds an SSL context from certifi's bundle: 17 ms of the bench's CPU per update, which
    would be counted in the webhook's update-to-reply time (polling has no such cost). No
    request here uses TLS: the bench's clients share one context."""
    import httpx._transports.default as transport

    original = vars(transport)["create_ssl_context"]
    if getattr(original, "bench_cached", False):
        return
    made: dict[bool, Any] = {}

    def create_ssl_context(verify: Any = True, cert: Any = None, trust_env: bool = True) -> Any:
        if verify is not True or cert is not None:
            return original(verify=verify, cert=cert, trust_env=trust_env)
        if trust_env not in made:
            made[trust_env] = original(verify=verify, cert=cert, trust_env=trust_env)
        return made[trust_env]

    create_ssl_context.bench_cached = True  # type: ignore[attr-defined]
    vars(transport)["create_ssl_context"] = create_ssl_context


class Fleet:
    """The bot's processes on one database: one `python -m bot` polling (as a group of friends
    runs it), or `workers` processes in webhook mode, each with WORKERS=workers and its own
    port, behind a front (the stand-in's `route`) that posts each update to one of them at
    random, as a load balancer would."""

    def __init__(
        self,
        fake: FakeTelegram,
        workdir: Path,
        env: dict[str, str],
        workers: int,
        webhook: bool,
        rng: random.Random,
    ) -> None:
        self.fake = fake
        self.webhook = webhook or workers > 1
        self.rng = rng
        self.hooks: list[WebhookBot] = []
        self.down: set[WebhookBot] = set()  # killed (`kill_one`): no update routed to them
        self.bots: list[BotProcess] = []
        for i in range(workers):
            home = workdir / f"worker{i}"  # its logs
            home.mkdir(parents=True, exist_ok=True)
            if self.webhook:
                # --bot-env WORKERS=... wins (to see what a worker that does not know does)
                hook = WebhookBot(fake, home, **{"WORKERS": str(workers), **env})
                self.hooks.append(hook)
                self.bots.append(hook)
            else:
                self.bots.append(BotProcess(fake, home, **env))
        if self.webhook:
            reuse_ssl_context()
            fake.deliver_webhook_to(self.route)

    def route(self, update: dict[str, Any]) -> list[str]:
        living = [hook for hook in self.hooks if hook not in self.down] or self.hooks
        return [self.rng.choice(living).url]

    async def kill_one(self, down: float) -> tuple[float, float]:
        """`--kill-worker`: SIGKILL the first worker (updates in flight to it are lost with
        it, as on a real host), route to the others while it is down for `down` seconds,
        start it again; (when it was killed, when it served again) in monotonic time."""
        victim = self.hooks[0]
        self.down.add(victim)
        killed = time.monotonic()
        await victim.kill9()
        await asyncio.sleep(down)
        await victim.start()
        self.down.discard(victim)
        return killed, time.monotonic()

    @property
    def ready_call(self) -> str:
        """The call a process makes once it serves updates (PTB deletes the webhook to poll)."""
        return "setWebhook" if self.webhook else "deleteWebhook"

    def describe(self) -> str:
        mode = "webhook" if self.webhook else "polling"
        return f"{len(self.bots)} process{'es' if len(self.bots) > 1 else ''}, {mode}"

    async def start(self, *, together: bool) -> float:
        """Start every process (one after another the first time: the first creates the
        schema); seconds from the start to the last one's ready call."""
        mark, t0 = self.fake.mark(), time.monotonic()
        if together:
            await asyncio.gather(*(bot.start() for bot in self.bots))
        else:
            for bot in self.bots:
                await bot.start()
        ready = self.fake.calls_of(self.ready_call, since=mark)
        if len(ready) >= len(self.bots):
            return ready[len(self.bots) - 1].arrived - t0
        return time.monotonic() - t0

    def pids(self) -> list[int]:
        return [bot.proc.pid for bot in self.bots if bot.proc is not None]

    async def kill9(self) -> None:
        await asyncio.gather(*(bot.kill9() for bot in self.bots))

    async def stop(self) -> list[int | None]:
        """SIGTERM each; its exit code, or None if it was still running 30 s later (then
        SIGKILL)."""

        async def stop(bot: BotProcess) -> int | None:
            try:
                return await bot.stop(signal.SIGTERM)
            except subprocess.TimeoutExpired:
                log(f"a bot process did not exit within 30 s of SIGTERM: {bot.dir}; SIGKILL")
                bot.ensure_dead()
                return None

        return list(await asyncio.gather(*(stop(bot) for bot in self.bots)))

    def ensure_dead(self) -> None:
        for bot in self.bots:
            bot.ensure_dead()

    def restored(self) -> list[tuple[int, float]]:
        """What each process logged at its last start: (tables restored, seconds)."""
        out = []
        for bot in self.bots:
            found = RESTORED_RE.findall(bot.logs[-1].read_text("utf-8", "replace"))
            if found:
                out.append((int(found[-1][0]), float(found[-1][1])))
        return out

    def log_text(self) -> str:
        return "\n".join(bot.log_text() for bot in self.bots)

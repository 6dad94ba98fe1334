"""What the Mini App's browser tests and its benches (`bench.miniapp`, `bench.pages`) share:
the bot with a Mini App (`python -m bot`, polling, PUBLIC_URL set, its HTTP server on a local
port), Debian's Chromium driven by Playwright (never Playwright's own download: none is
reachable here; one Chromium per test process, each test in contexts of its own), and a person
opening the table from Telegram: Telegram's script is replaced by a stand-in that hands the
page an initData signed with the bot's token, as Telegram would, and records what the page asks
of it (ready, expand, haptic feedback, vertical swipes).

A browser missing is an error, never a skip: `tests/install_browser.sh` (run by the README's
test command and by CI) installs it.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Protocol

import httpx
from playwright.async_api import Browser, BrowserContext, Page, Route, async_playwright

from bench.rig.bot_process import TOKEN, WAIT, ProbedBot, free_port
from bench.rig.telegram import FakeTelegram, FakeUser
from bot.webapp.auth import TableKeys, sign_init_data

# the tests' screenshots, in tests/artifacts/ with their other artifacts (ignored by git)
ARTIFACTS = Path(__file__).parents[2] / "tests" / "artifacts"
PUBLIC_URL = "https://briscola.example.org"
SHORT_NAME = "tavolo"
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str:
    found = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    assert Path(found).exists(), (
        "Debian's chromium is needed by the Mini App's browser tests: "
        "run `bash tests/install_browser.sh` (the README's test command does)"
    )
    return found


class MiniAppBot(ProbedBot):
    """`python -m bot` with the Mini App on a free local port."""

    def __init__(self, fake: FakeTelegram, workdir: Path, **env: str) -> None:
        self.port = free_port()
        super().__init__(
            fake,
            workdir,
            **{
                "PUBLIC_URL": PUBLIC_URL,
                "MINIAPP_SHORT_NAME": SHORT_NAME,
                "WEBHOOK_LISTEN": "127.0.0.1",
                "PORT": str(self.port),
                **env,
            },
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        await super().start()
        # the HTTP server starts at the end of post_init, with polling
        deadline = time.monotonic() + WAIT
        async with httpx.AsyncClient() as client:
            while True:
                with contextlib.suppress(httpx.TransportError):
                    if (await client.get(self.url + "/app/")).status_code == 200:
                        return
                assert time.monotonic() < deadline, self.log_text()[-3000:]
                await asyncio.sleep(0.1)


def table_param(table_id: int, token: str = TOKEN) -> str:
    """The start parameter of the table's link (`t<id>_<key>`), as the bot writes it."""
    return TableKeys(token).param(table_id)


def table_key(table_id: int, token: str = TOKEN) -> str:
    return TableKeys(token).key(table_id)


def signed_init_data(
    user: FakeUser, table_id: int | None, *, age: float = 0.0, token: str = TOKEN
) -> str:
    """What Telegram hands the page of `user` opening the direct link to `table_id`."""
    fields = {
        "query_id": f"AAH{user.id}",
        "user": json.dumps(
            {
                "id": user.id,
                "first_name": user.first_name,
                "language_code": user.language_code or "it",
                "allows_write_to_pm": True,
            },
            ensure_ascii=False,
            separators=(",", ":"),
        ),
        "auth_date": str(int(time.time() - age)),
        "chat_type": "supergroup",
    }
    if table_id is not None:
        fields["start_param"] = table_param(table_id, token)
    return sign_init_data(fields, token)


# Telegram's themes as its apps send them (Android's day and night): the page must read well
# in both (issue 37: WCAG AA, 4.5:1 for text).
THEMES: dict[str, dict[str, str]] = {
    "light": {
        "bg_color": "#ffffff",
        "text_color": "#000000",
        "hint_color": "#a8a8a8",
        "link_color": "#2678b6",
        "button_color": "#50a8eb",
        "button_text_color": "#ffffff",
        "secondary_bg_color": "#f0f0f0",
    },
    "dark": {
        "bg_color": "#212d3b",
        "text_color": "#ffffff",
        "hint_color": "#7d8b99",
        "link_color": "#5eabe1",
        "button_color": "#5288c1",
        "button_text_color": "#ffffff",
        "secondary_bg_color": "#151e27",
    },
}

# Telegram's script, as the page sees it: the initData and start parameter, the theme, and a
# record of what the page called (`window.__tg`); `window.__tgFire(name)` sends the page one
# of Telegram's events (`activated`, `deactivated`: a minimised Mini App, Bot API 8.0).
STUB = """
(() => {
  const calls = [];
  const handlers = {};
  const record = (name) => (...args) => { calls.push([name, ...args]); };
  window.__tg = calls;
  const webApp = {
    initData: %(init_data)s,
    initDataUnsafe: { start_param: %(start)s, user: { id: %(user_id)d } },
    version: "8.0", platform: "tdesktop", colorScheme: %(scheme)s, isActive: true,
    themeParams: %(theme)s,
    ready: record("ready"), expand: record("expand"),
    disableVerticalSwipes: record("disableVerticalSwipes"),
    onEvent: (name, fn) => { calls.push(["onEvent", name]); (handlers[name] ||= []).push(fn); },
    offEvent: record("offEvent"),
    HapticFeedback: { impactOccurred: record("impact"),
                      notificationOccurred: record("notification"),
                      selectionChanged: record("selection") },
  };
  window.Telegram = { WebApp: webApp };
  window.__tgFire = (name) => {
    if (name === "activated") webApp.isActive = true;
    if (name === "deactivated") webApp.isActive = false;
    (handlers[name] || []).forEach((fn) => fn());
  };
})();
"""

# Every Server-Sent Event the page's EventSource receives (`window.__sse`), to check what
# reached the browser and not only what it drew.
SSE_SPY = """
(() => {
  window.__sse = [];
  window.__downs = [];  // when each pointer went down (performance.now())
  window.__downCards = [];  // the hand's card each pointer went down on (data-card), or null
  addEventListener("pointerdown", (e) => {
    window.__downs.push(performance.now());
    const card = e.target instanceof Element ? e.target.closest("#hand .card") : null;
    window.__downCards.push(card ? Number(card.dataset.card) : null);
  }, true);
  const Original = window.EventSource;
  window.EventSource = function (url, init) {
    const source = new Original(url, init);
    source.addEventListener("state", (e) => {
      window.__sse.push(e.data);
      try {  // when the viewer's turn came (the double tap test)
        const snap = JSON.parse(e.data);
        const mine = snap.me >= 0 && snap.current === snap.me;
        if (mine) (window.__turns ||= []).push(performance.now());
      } catch (err) { /* not JSON: the page says so */ }
    });
    return source;
  };
  window.EventSource.prototype = Original.prototype;
  Object.assign(window.EventSource, { CONNECTING: 0, OPEN: 1, CLOSED: 2 });
})();
"""


class _SharedChromium:
    """One Chromium per test process (per pytest-xdist worker), started by the first browser
    test and stopped when the process ends; each test connects to it over the DevTools
    protocol and works in browser contexts of its own, closed when it disconnects."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self.endpoint = ""
        self.profile: str | None = None

    def url(self) -> str:
        if self.proc is not None and self.proc.poll() is None:
            return self.endpoint
        self.profile = tempfile.mkdtemp(prefix="chromium-")
        self.proc = subprocess.Popen(
            [
                chromium_path(),
                *CHROMIUM_ARGS,
                "--remote-debugging-port=0",
                f"--user-data-dir={self.profile}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        assert self.proc.stderr is not None
        deadline = time.monotonic() + WAIT
        seen = b""
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            seen += line
            if line.startswith(b"DevTools listening on "):
                self.endpoint = line.split(b" ", 3)[3].decode().strip()
                # the rest of its messages go nowhere: nobody reads the pipe any more
                threading.Thread(target=self.proc.stderr.read, daemon=True).start()
                atexit.register(self.stop)
                return self.endpoint
            if not line and self.proc.poll() is not None:
                break
        self.stop()
        raise AssertionError(f"Chromium did not start:\n{seen.decode(errors='replace')}")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(10)
            self.proc = None
        if self.profile is not None:
            shutil.rmtree(self.profile, ignore_errors=True)
            self.profile = None


_shared = _SharedChromium()


@contextlib.asynccontextmanager
async def chromium() -> AsyncIterator[Browser]:
    """The process's Chromium (`_SharedChromium`), connected for one test."""
    async with async_playwright() as pw:
        browser = await pw.chromium.connect_over_cdp(_shared.url())
        try:
            yield browser
        finally:
            await browser.close()  # connected: closes this test's contexts and disconnects


class HasUrl(Protocol):
    @property
    def url(self) -> str: ...


async def open_page(
    browser: Browser,
    bot: HasUrl,
    user: FakeUser,
    table_id: int,
    *,
    init_data: str | None = None,
    param: str | None = None,
    viewport: tuple[int, int] = (360, 640),
    theme: str = "light",
    scripts: tuple[str, ...] = (),
) -> tuple[BrowserContext, Page]:
    """`user` taps the table message's Mini App button: Telegram opens the page with the
    table's start parameter (`param`: the link's, by default) and this user's initData.
    `scripts` run in the page before its own (as `SSE_SPY` does)."""
    context = await browser.new_context(
        viewport={"width": viewport[0], "height": viewport[1]},
        device_scale_factor=2,
        locale="it-IT",
        color_scheme="dark" if theme == "dark" else "light",
    )
    data = init_data if init_data is not None else signed_init_data(user, table_id)
    start = param if param is not None else table_param(table_id)
    stub = STUB % {
        "init_data": json.dumps(data),
        "start": json.dumps(start),
        "user_id": user.id,
        "scheme": json.dumps(theme),
        "theme": json.dumps(THEMES[theme]),
    }

    async def telegram_js(route: Route) -> None:
        await route.fulfill(status=200, content_type="application/javascript", body=stub)

    await context.route("https://telegram.org/**", telegram_js)
    for script in (SSE_SPY, *scripts):
        await context.add_init_script(script)
    page = await context.new_page()
    page.on("pageerror", lambda exc: _errors.append(f"{user.first_name}: {exc}"))
    await page.goto(f"{bot.url}/app/?tgWebAppStartParam={start}")
    return context, page


_errors: list[str] = []


def page_errors() -> list[str]:
    """JavaScript errors any test page raised (the tests assert there are none)."""
    return list(_errors)


async def move_shown(page: Page, at_least: int) -> int:
    """Wait until the page shows the table at version `at_least` or later; that version."""
    await page.wait_for_function(
        "(n) => { const t = document.getElementById('table');"
        " return t && Number(t.dataset.move) >= n; }",
        arg=at_least,
        timeout=WAIT * 1000,
    )
    return int(await page.get_attribute("#table", "data-move") or 0)


async def sse_payloads(page: Page) -> list[dict[str, Any]]:
    raw: list[str] = await page.evaluate("window.__sse")
    return [json.loads(x) for x in raw]


async def screenshot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / f"{name}.png"), scale="css")


async def fits_the_screen(page: Page) -> bool:
    """A 360 px wide phone shows the whole table without scrolling."""
    return bool(
        await page.evaluate(
            "document.documentElement.scrollHeight <= window.innerHeight + 1"
            " && document.documentElement.scrollWidth <= window.innerWidth + 1"
        )
    )

"""The bot's one HTTP application (aiohttp): the Mini App's page, its JSON API and its live
stream and, in webhook mode, Telegram's updates (`bot.telegram.webhook`).

    GET  /app/                        the page (static HTML, CSS, JavaScript)
    POST /api/session                 {"init_data"} -> {"token", "user_id", "lang", "expires"}
    GET  /api/tables/{id}/state       the snapshot this viewer may see   (Bearer token)
    GET  /api/tables/{id}/events      Server-Sent Events: `state`, id = the table's version
    POST /api/tables/{id}/act         {"hand_index", "stamp", "action"} -> {"ok", "text"}
    POST /api/tables/{id}/next        {"hand_index"} -> {"ok", "text"}

A session starts from Telegram's `initData`, checked on the server (`bot.webapp.auth`); the
start parameter (`t<table id>`) only says which table to open, it grants nothing. A seated
person acts for their seat only, through the very checks a tap on a DM button goes through
(`TableService.act`: stale, double, out of turn), and the move is stored before anyone sees
it. Anyone else watches the spectator's view. The stream sends the whole snapshot on every
(re)connect, then each new one, a keepalive comment between, and ends cleanly when the bot
stops (the page reconnects to the next process).
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

from aiohttp import web

from bot.i18n import t
from bot.service import Person, TableService
from bot.webapp.auth import AuthError, Tokens, Viewer, check_init_data
from bot.webapp.hub import LiveHub

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
KEEPALIVE = 15.0  # seconds between keepalive comments on an idle stream
RETRY_MS = 2000  # the page's EventSource waits this long before reconnecting
PAGE_HEADERS = {
    "Cache-Control": "no-cache",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    # the page's own files and Telegram's script, nothing else (names arrive as text)
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self' https://telegram.org; "
        "style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'"
    ),
}


def _json(data: Any, status: int = 200) -> web.Response:
    return web.json_response(data, status=status, dumps=lambda d: json.dumps(d, ensure_ascii=False))


class MiniApp:
    """The Mini App's routes. `service()` is the table service once the bot is up."""

    def __init__(self, application: Any, bot_token: str, hub: LiveHub) -> None:
        self.application = application
        self.bot_token = bot_token
        self.tokens = Tokens(bot_token)
        self.hub = hub

    def service(self) -> TableService:
        service: TableService | None = self.application.bot_data.service
        if service is None:
            raise web.HTTPServiceUnavailable(headers={"Retry-After": "2"})
        return service

    def add_routes(self, app: web.Application) -> None:
        app.router.add_get("/app", self.to_page)
        app.router.add_get("/app/", self.page)
        app.router.add_static("/app/static/", STATIC, append_version=False)
        app.router.add_post("/api/session", self.session)
        app.router.add_get(r"/api/tables/{table_id:\d{1,18}}/state", self.state)
        app.router.add_get(r"/api/tables/{table_id:\d{1,18}}/events", self.events)
        app.router.add_post(r"/api/tables/{table_id:\d{1,18}}/act", self.act)
        app.router.add_post(r"/api/tables/{table_id:\d{1,18}}/next", self.next_hand)
        app.on_shutdown.append(self._on_shutdown)

    async def _on_shutdown(self, app: web.Application) -> None:
        await self.hub.close()  # the open streams end before the server waits for them

    async def to_page(self, request: web.Request) -> web.StreamResponse:
        """`/app` -> `/app/` (the page's files are relative to it), the query kept."""
        url = request.rel_url
        raise web.HTTPFound(url.with_path("/app/").with_query(url.query))

    async def page(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / "index.html", headers=PAGE_HEADERS)

    async def session(self, request: web.Request) -> web.Response:
        try:
            body = await request.json()
            raw = body["init_data"] if isinstance(body, dict) else None
            if not isinstance(raw, str):
                raise ValueError("init_data is no string")
            viewer = check_init_data(raw, self.bot_token)
        except (ValueError, KeyError) as exc:
            log.info("miniapp session refused: %s", exc)
            return _json({"error": "bad request"}, 400)
        except AuthError as exc:
            log.info("miniapp session refused: %s", exc.reason)
            lang = self.service().default_lang
            return _json({"error": t(lang, "err_miniapp_auth")}, 401)
        token, expires = self.tokens.issue(viewer)
        lang = viewer.lang or self.service().default_lang
        return _json({"token": token, "user_id": viewer.user_id, "lang": lang, "expires": expires})

    def _viewer(self, request: web.Request) -> Viewer:
        header = request.headers.get("Authorization", "")
        token = header[7:] if header.startswith("Bearer ") else request.query.get("token", "")
        try:
            return self.tokens.check(token)
        except AuthError as exc:
            raise web.HTTPUnauthorized(
                text=json.dumps({"error": exc.reason}), content_type="application/json"
            ) from None

    def _lang(self, viewer: Viewer, table: Any) -> str:
        seat = table.seat_of(viewer.user_id)
        seated = table.seats[seat].lang if seat is not None else None
        lang: str = viewer.lang or seated or table.lang
        return lang

    async def _table(self, request: web.Request) -> Any:
        table = await self.service().table_view(int(request.match_info["table_id"]))
        if table is None:
            raise web.HTTPNotFound(
                text=json.dumps({"error": "no such table"}), content_type="application/json"
            )
        return table

    async def state(self, request: web.Request) -> web.Response:
        viewer = self._viewer(request)
        table = await self._table(request)
        return _json(self.hub.view(table, viewer, self._lang(viewer, table)))

    async def events(self, request: web.Request) -> web.StreamResponse:
        viewer = self._viewer(request)
        if self.hub.closed:
            raise web.HTTPServiceUnavailable(headers={"Retry-After": "2"})
        table = await self._table(request)
        page = self.hub.open(table, viewer, self._lang(viewer, table))
        response = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream; charset=utf-8",
                "Cache-Control": "no-cache",
                "X-Accel-Buffering": "no",  # a proxy in front must not hold the stream back
            }
        )
        try:
            await response.prepare(request)
            await response.write(f"retry: {RETRY_MS}\n\n".encode())
            while True:
                snap = await page.next(KEEPALIVE)
                if page.closed:
                    break
                if snap is None:
                    await response.write(b": keepalive\n\n")
                    continue
                data = json.dumps(snap, ensure_ascii=False, separators=(",", ":"))
                await response.write(f"id: {snap['move']}\nevent: state\ndata: {data}\n\n".encode())
        except (ConnectionResetError, asyncio.CancelledError):
            pass  # the page went away
        finally:
            self.hub.leave(page)
        return response

    async def _body(self, request: web.Request, *names: str) -> list[int]:
        try:
            body = await request.json()
            values = [body[n] for n in names]
        except (ValueError, KeyError, TypeError):
            raise web.HTTPBadRequest(
                text=json.dumps({"error": "bad request"}), content_type="application/json"
            ) from None
        if not all(type(v) is int and 0 <= v < 1 << 31 for v in values):
            raise web.HTTPBadRequest(
                text=json.dumps({"error": "bad request"}), content_type="application/json"
            )
        return values

    async def act(self, request: web.Request) -> web.Response:
        viewer = self._viewer(request)
        hand_index, stamp, action = await self._body(request, "hand_index", "stamp", "action")
        person = Person(viewer.user_id, viewer.name, viewer.lang)
        table_id = int(request.match_info["table_id"])
        reply = await self.service().act(person, table_id, hand_index, stamp, action)
        return _json({"ok": reply.key == "ok_played", "text": reply.text})

    async def next_hand(self, request: web.Request) -> web.Response:
        viewer = self._viewer(request)
        (hand_index,) = await self._body(request, "hand_index")
        person = Person(viewer.user_id, viewer.name, viewer.lang)
        table_id = int(request.match_info["table_id"])
        reply = await self.service().next_hand(person, table_id, hand_index)
        return _json({"ok": reply.key == "ok_played", "text": reply.text})


class WebServer:
    """The aiohttp application on LISTEN:PORT, started and stopped by the bot (no signal
    handling of its own: the bot's decides when to stop)."""

    def __init__(self, app: web.Application, listen: str, port: int) -> None:
        self.app = app
        self.listen = listen
        self.port = port
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        self._runner = web.AppRunner(
            self.app, handle_signals=False, access_log=None, shutdown_timeout=30.0
        )
        await self._runner.setup()
        await web.TCPSite(self._runner, self.listen, self.port).start()
        log.info("serving HTTP on %s:%d", self.listen, self.port)

    async def stop(self) -> None:
        """Stop listening, end the live streams, finish the requests in progress."""
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()

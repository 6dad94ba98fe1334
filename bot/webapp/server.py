"""The bot's one HTTP application (aiohttp): the Mini App's page, its JSON API and its live
stream and, in webhook mode, Telegram's updates (`bot.telegram.webhook`).

    GET  /app/                            the page (HTML; its files' names carry versions)
    GET  /app/static/<file>?v=<version>   CSS, JavaScript, icon: gzip, cached for a year
    POST /api/session                     {"init_data"} -> {"token", "user_id", "lang", "expires"}
    POST /api/session/renew               (Bearer) -> the same, for the same session
    GET  /api/tables/{id}/state           the snapshot this viewer may see
    GET  /api/tables/{id}/events          Server-Sent Events: `state`, id = the table's version
    POST /api/tables/{id}/act             {"hand_index", "stamp", "action", "ply"} -> {"ok", "text"}
    POST /api/tables/{id}/next            {"hand_index"} -> {"ok", "text"}
    POST /api/tables/{id}/rematch         -> {"ok", "text", "rematch"}
    POST /api/tables/{id}/start           -> {"ok", "text"}
    POST /api/tables/{id}/visibility      {"page", "visible", "seq"} -> {"ok"}
    GET  /api/tables/{id}/hands/{k}/replay a finished hand, every card and move (`replay`)

A session starts from Telegram's `initData`, checked on the server (`bot.webapp.auth`), and
at most `SESSIONS_PER_ADDRESS` / `SESSIONS_PER_USER` sessions are opened in a burst. Every
table request carries a session token (Bearer, or `token=` on the stream) and either the
table's key (`X-Table-Key`, or `k=`; from the start parameter `t<id>_<key>` of the link on the
group's message) or comes from someone seated at the table: anyone else gets 403, whether
the table exists or not. A seated person acts for their seat only, through the very checks a
tap on a DM button goes through (`Play.act`: stale, double, out of turn), and a tap
names the ply it was made on: once the table has moved past it, the answer is a quiet
`moved_on` (the page shows the table as it is, no error). Anyone else watches the
spectator's view. The stream sends the whole snapshot on every (re)connect, then each new
one, a keepalive comment between, and ends cleanly when the bot stops (the page reconnects
to the next process). A page names itself (`page=`) and says whether it is visible
(`visible=` on the stream, then `/visibility`), each report numbered (`seq`) so that an
older one overtaken on the way changes nothing: `LiveHub.visible` is what the bot asks.

A finished hand's replay (issue 51.3) is for the same people, seated or with the key: the
table's hand still being played is refused (409) before anything of it is read, and a hand
that does not exist is 404; every refusal says why in the viewer's language.

`local`: `python -m bot play --web` serves the same page on localhost without Telegram; a
session is then opened without initData, for the one person at the table.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import ipaddress
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web

from bot.i18n import t
from bot.service import Person, TableService
from bot.table.replay import REPLAY_BROKEN, REPLAY_IN_PLAY, ReplayError
from bot.webapp.auth import AuthError, RateLimit, TableKeys, Tokens, Viewer, check_init_data
from bot.webapp.hub import LiveHub
from bot.webapp.replay import replay_view
from bot.webapp.snapshot import plain

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
KEEPALIVE = 15.0  # seconds between keepalive comments on an idle stream
GONE_CHECK = 1.0  # seconds between two looks at whether a stream's page went away
RETRY_MS = 2000  # the page's EventSource waits this long before reconnecting
SESSIONS_PER_ADDRESS = (60, 1.0)  # a burst of 60 sessions from one address, then 1 a second
SESSIONS_PER_USER = (10, 6.0)  # a burst of 10 for one person, then one every 6 s
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
TELEGRAM_SCRIPT = '<script src="https://telegram.org/js/telegram-web-app.js"></script>\n'
TYPES = {
    ".js": "application/javascript",
    ".css": "text/css",
    ".svg": "image/svg+xml",
    ".html": "text/html",
}


def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    return web.json_response(
        data,
        status=status,
        headers=headers,
        dumps=lambda d: json.dumps(d, ensure_ascii=False),
    )


def _seq(value: Any) -> int | None:
    """A page's report number (a count from 0), or None if `value` is not one."""
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 15:
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10**15:
        return value
    return None


def _refuse(kind: type[web.HTTPException], error: str) -> web.HTTPException:
    return kind(text=json.dumps({"error": error}), content_type="application/json")


@dataclass(frozen=True, slots=True)
class Asset:
    """A file served from memory: as it is and gzip-compressed, with its version."""

    body: bytes
    gz: bytes
    version: str  # 12 hex characters of its SHA-256: its ETag, and `?v=` in the page
    content_type: str

    @classmethod
    def of(cls, body: bytes, content_type: str) -> Asset:
        return cls(
            body,
            gzip.compress(body, 9, mtime=0),
            hashlib.sha256(body).hexdigest()[:12],
            content_type,
        )

    def response(self, request: web.Request, cache: str, **headers: str) -> web.Response:
        etag = f'"{self.version}"'
        base = {"Cache-Control": cache, "ETag": etag, "Vary": "Accept-Encoding", **headers}
        if etag in request.headers.get("If-None-Match", ""):
            return web.Response(status=304, headers=base)
        if "gzip" in request.headers.get("Accept-Encoding", ""):
            return web.Response(
                body=self.gz,
                content_type=self.content_type,
                charset="utf-8" if self.content_type != "image/svg+xml" else None,
                headers={**base, "Content-Encoding": "gzip"},
            )
        return web.Response(
            body=self.body,
            content_type=self.content_type,
            charset="utf-8" if self.content_type != "image/svg+xml" else None,
            headers=base,
        )


class Static:
    """The page and its files, read once: each file gzip-compressed, and the page naming
    each one with its version, so that a file is cached for a year and a new version of it
    is fetched at once."""

    def __init__(self, telegram: bool = True) -> None:
        self.files = {
            p.name: Asset.of(p.read_bytes(), TYPES[p.suffix])
            for p in sorted(STATIC.iterdir())
            if p.suffix in TYPES and p.name != "index.html"
        }
        html = (STATIC / "index.html").read_text(encoding="utf-8")
        for name, asset in self.files.items():
            html = html.replace(f'"static/{name}"', f'"static/{name}?v={asset.version}"')
        if not telegram:  # outside Telegram its script is not needed (and may be offline)
            html = html.replace(TELEGRAM_SCRIPT, "")
        self.page = Asset.of(html.encode(), "text/html")

    def file(self, request: web.Request) -> web.Response:
        asset = self.files.get(request.match_info["name"])
        if asset is None:
            raise web.HTTPNotFound()
        versioned = request.query.get("v") == asset.version
        cache = "public, max-age=31536000, immutable" if versioned else "no-cache"
        return asset.response(request, cache, **{"X-Content-Type-Options": "nosniff"})


IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


def _in(address: str, networks: Sequence[IPNetwork]) -> bool:
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return False
    return any(ip in net for net in networks)


def client_address(request: web.Request, trusted: Sequence[IPNetwork]) -> str:
    """Whom the sessions' rate limit counts a request against (issue 52.3): its connection's
    address, unless that is a trusted reverse proxy, then the client it forwards: the rightmost
    address of X-Forwarded-For that is not a trusted proxy (what a client writes there itself
    stands left of what the proxies add, so it cannot pose as another). Behind the proxy that
    docs/operating.md asks for, every player came from one address, and 60 sessions filled it."""
    remote = request.remote or ""
    if not trusted or not _in(remote, trusted):
        return remote
    forwarded = [
        a.strip()
        for header in request.headers.getall("X-Forwarded-For", [])
        for a in header.split(",")
        if a.strip()
    ]
    for address in reversed(forwarded):
        if not _in(address, trusted):
            return address
    return forwarded[0] if forwarded else remote


class MiniApp:
    """The Mini App's routes. `service()` is the table service once the bot is up (None
    before). `local`: the one person of `python -m bot play --web` (no Telegram)."""

    def __init__(
        self,
        service: Callable[[], TableService | None],
        bot_token: str,
        hub: LiveHub,
        local: Viewer | None = None,
        trusted_proxies: Sequence[IPNetwork] = (),
    ) -> None:
        self._service = service
        # the reverse proxies in front (`TRUSTED_PROXIES`): a request from one of them is
        # keyed on the client address it forwards (`client_address`), any other on its own
        self.trusted_proxies = tuple(trusted_proxies)
        self.bot_token = bot_token
        self.tokens = Tokens(bot_token)
        self.keys = TableKeys(bot_token)
        self.hub = hub
        self.local = local
        self.static = Static(telegram=local is None)
        self.by_address = RateLimit(*SESSIONS_PER_ADDRESS)
        self.by_user = RateLimit(*SESSIONS_PER_USER)

    def service(self) -> TableService:
        service = self._service()
        if service is None:
            raise web.HTTPServiceUnavailable(headers={"Retry-After": "2"})
        return service

    def add_routes(self, app: web.Application) -> None:
        app.router.add_get("/app", self.to_page)
        app.router.add_get("/app/", self.page)
        app.router.add_get("/app/static/{name}", self.file)
        app.router.add_get("/favicon.ico", self.favicon)
        app.router.add_post("/api/session", self.session)
        app.router.add_post("/api/session/renew", self.renew)
        table = r"/api/tables/{table_id:\d{1,18}}"
        app.router.add_get(table + "/state", self.state)
        app.router.add_get(table + "/events", self.events)
        app.router.add_post(table + "/act", self.act)
        app.router.add_post(table + "/next", self.next_hand)
        app.router.add_post(table + "/rematch", self.rematch)
        app.router.add_post(table + "/start", self.start)
        app.router.add_post(table + "/visibility", self.visibility)
        app.router.add_get(table + r"/hands/{hand_index:\d{1,6}}/replay", self.replay)
        app.on_shutdown.append(self._on_shutdown)

    async def _on_shutdown(self, app: web.Application) -> None:
        await self.hub.close()  # the open streams end before the server waits for them

    # ------------------------------------------------------------------ files

    async def to_page(self, request: web.Request) -> web.StreamResponse:
        """`/app` -> `/app/` (the page's files are relative to it), the query kept."""
        url = request.rel_url
        raise web.HTTPFound(url.with_path("/app/").with_query(url.query))

    async def page(self, request: web.Request) -> web.StreamResponse:
        return self.static.page.response(request, "no-cache", **PAGE_HEADERS)

    async def file(self, request: web.Request) -> web.StreamResponse:
        return self.static.file(request)

    async def favicon(self, request: web.Request) -> web.StreamResponse:
        return self.static.files["favicon.svg"].response(request, "public, max-age=86400")

    # ------------------------------------------------------------------ sessions

    def _issued(self, viewer: Viewer, token: str, expires: int) -> web.Response:
        lang = viewer.lang or self.service().langs.default
        return _json(
            {
                "token": token,
                "user_id": viewer.user_id,
                "lang": lang,
                "expires": expires,
                "heartbeat": self.hub.heartbeat,  # seconds between a visible page's reports
            }
        )

    async def session(self, request: web.Request) -> web.Response:
        wait = self.by_address.take(client_address(request, self.trusted_proxies))
        if wait:
            return self._too_many(wait)
        try:
            body = await request.json()
            raw = body["init_data"] if isinstance(body, dict) else None
            if not isinstance(raw, str):
                raise ValueError("init_data is no string")
            if self.local is not None and not raw:
                viewer = self.local
            else:
                viewer = check_init_data(raw, self.bot_token)
        except (ValueError, KeyError) as exc:
            log.info("miniapp session refused: %s", exc)
            return _json({"error": "bad request"}, 400)
        except AuthError as exc:
            log.info("miniapp session refused: %s", exc.reason)
            lang = self.service().langs.default
            return _json({"error": t(lang, "err_miniapp_auth"), "reason": exc.reason}, 401)
        wait = self.by_user.take(viewer.user_id)
        if wait:
            return self._too_many(wait)
        return self._issued(viewer, *self.tokens.issue(viewer))

    def _too_many(self, wait: float) -> web.Response:
        seconds = max(1, int(wait + 0.999))
        log.info("miniapp session refused: too many (retry in %d s)", seconds)
        return _json({"error": "too many sessions"}, 429, {"Retry-After": str(seconds)})

    async def renew(self, request: web.Request) -> web.Response:
        """A new token for the session the request's token names (the page keeps its
        session this way: a new one would need an initData signed within the hour)."""
        try:
            viewer, token, expires = self.tokens.renew(self._token(request))
        except AuthError as exc:
            raise _refuse(web.HTTPUnauthorized, exc.reason) from None
        return self._issued(viewer, token, expires)

    def _token(self, request: web.Request) -> str:
        header = request.headers.get("Authorization", "")
        return header[7:] if header.startswith("Bearer ") else request.query.get("token", "")

    def _viewer(self, request: web.Request, token: str | None = None) -> Viewer:
        try:
            return self.tokens.check(self._token(request) if token is None else token)
        except AuthError as exc:
            raise _refuse(web.HTTPUnauthorized, exc.reason) from None

    # ------------------------------------------------------------------ tables

    def _lang(self, viewer: Viewer, table: Any) -> str:
        seat = table.seat_of(viewer.user_id)
        seated = table.seats[seat].lang if seat is not None else None
        lang: str = viewer.lang or seated or table.lang
        return lang

    async def _table(self, request: web.Request, viewer: Viewer, load: bool = True) -> Any:
        """The table the request names, if the viewer may see it: with its key, or from a
        seat at it (else 403, whether it exists or not). `load=False`: with the key, only
        the table's id (a move: the service reads the table and checks the seat itself)."""
        table_id = int(request.match_info["table_id"])
        key = request.headers.get("X-Table-Key") or request.query.get("k", "")
        keyed = self.keys.check(table_id, key)
        if keyed and not load:
            return table_id
        table = await self.service().registry.table_view(table_id)
        if table is None and keyed:
            raise _refuse(web.HTTPNotFound, "no such table")
        if table is None or not (keyed or table.seat_of(viewer.user_id) is not None):
            raise _refuse(web.HTTPForbidden, "not your table")
        return table if load else table_id

    async def state(self, request: web.Request) -> web.Response:
        viewer = self._viewer(request)
        table = await self._table(request, viewer)
        return _json(self.hub.view(table, viewer, self._lang(viewer, table)))

    async def replay(self, request: web.Request) -> web.Response:
        """A finished hand of the table, to step through (`bot.webapp.replay`): for its
        players and whoever has its key; never the hand still being played."""
        viewer = self._viewer(request)
        service = self.service()
        try:
            table = await self._table(request, viewer)
        except (web.HTTPForbidden, web.HTTPNotFound) as exc:
            lang = viewer.lang or service.langs.default
            key = "replay_denied" if isinstance(exc, web.HTTPForbidden) else "replay_no_hand"
            return self._no_replay(lang, key, exc.status)
        lang = self._lang(viewer, table)
        try:
            played = await service.replays.hand(table, int(request.match_info["hand_index"]))
        except ReplayError as exc:
            status = {REPLAY_IN_PLAY: 409, REPLAY_BROKEN: 500}.get(exc.key, 404)
            return self._no_replay(lang, exc.key, status)
        return _json(replay_view(played, lang))

    def _no_replay(self, lang: str, key: str, status: int) -> web.Response:
        """A replay refused: why (`error`), under a title for the page, and nothing else."""
        text = {"title": plain(t(lang, "replay_refused")), "error": plain(t(lang, key))}
        return _json({**text, "reason": key}, status)

    async def events(self, request: web.Request) -> web.StreamResponse:
        viewer = self._viewer(request)
        if self.hub.closed:
            raise web.HTTPServiceUnavailable(headers={"Retry-After": "2"})
        table = await self._table(request, viewer)
        page_id = request.query.get("page", "")[:64]
        visible = request.query.get("visible") == "1"
        seq = _seq(request.query.get("seq", "0"))
        if seq is None:
            raise _refuse(web.HTTPBadRequest, "bad request")
        page = self.hub.open(table, viewer, self._lang(viewer, table), page_id, visible, seq)
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
            idle = 0.0
            while True:
                snap = await page.next(GONE_CHECK)
                transport = request.transport
                if page.closed or transport is None or transport.is_closing():
                    break  # the bot stops, or the page went away: it is not looking now
                if snap is None:
                    idle += GONE_CHECK
                    if idle >= KEEPALIVE:
                        idle = 0.0
                        await response.write(b": keepalive\n\n")
                    continue
                idle = 0.0
                data = json.dumps(snap, ensure_ascii=False, separators=(",", ":"))
                await response.write(f"id: {snap['move']}\nevent: state\ndata: {data}\n\n".encode())
        except (ConnectionResetError, asyncio.CancelledError):
            pass  # the page went away
        finally:
            self.hub.leave(page)
        return response

    async def _body(self, request: web.Request, *names: str) -> tuple[dict[str, Any], list[int]]:
        """The JSON body and its integer fields `names` (a name ending in `?` may be absent
        or null: -1 then)."""
        try:
            body = await request.json()
            values = []
            for name in names:
                optional = name.endswith("?")
                value = body.get(name.rstrip("?")) if optional else body[name]
                values.append(-1 if optional and value is None else value)
        except (ValueError, KeyError, TypeError, AttributeError):
            raise _refuse(web.HTTPBadRequest, "bad request") from None
        if not all(type(v) is int and -1 <= v < 1 << 31 for v in values) or any(
            v < 0 for n, v in zip(names, values, strict=True) if not n.endswith("?")
        ):
            raise _refuse(web.HTTPBadRequest, "bad request")
        return body, values

    def _person(self, viewer: Viewer) -> Person:
        return Person(viewer.user_id, viewer.name, viewer.lang)

    async def act(self, request: web.Request) -> web.Response:
        viewer = self._viewer(request)
        _, (hand_index, stamp, action, ply) = await self._body(
            request, "hand_index", "stamp", "action", "ply?"
        )
        table_id = await self._table(request, viewer, load=False)
        reply = await self.service().play.act(
            self._person(viewer), table_id, hand_index, stamp, action, ply if ply >= 0 else None
        )
        return _json(
            {
                "ok": reply.key == "ok_played",
                "moved_on": reply.key == "err_moved_on",
                "text": reply.text,
            }
        )

    async def next_hand(self, request: web.Request) -> web.Response:
        viewer = self._viewer(request)
        _, (hand_index,) = await self._body(request, "hand_index")
        table_id = await self._table(request, viewer, load=False)
        reply = await self.service().play.next_hand(self._person(viewer), table_id, hand_index)
        return _json({"ok": reply.key == "ok_played", "text": reply.text})

    async def rematch(self, request: web.Request) -> web.Response:
        """The rematch button of a finished match, in the page (as the group's button)."""
        viewer = self._viewer(request)
        table = await self._table(request, viewer)
        service = self.service()
        reply = await service.lobby.rematch(table.chat_id, self._person(viewer), table.table_id)
        after = await service.registry.table_view(table.table_id)
        rematch = None
        if after is not None:
            self.hub.publish(after)  # every page of the old table learns where it went
            if after.rematch is not None:
                rematch = {"table_id": after.rematch, "param": self.keys.param(after.rematch)}
        return _json({"ok": not reply.text, "text": reply.text, "rematch": rematch})

    async def start(self, request: web.Request) -> web.Response:
        """The table's creator starts it from the page (a rematch's lobby, seats full)."""
        viewer = self._viewer(request)
        table = await self._table(request, viewer)
        reply = await self.service().settings.start(
            table.chat_id, self._person(viewer), is_admin=False, table_id=table.table_id
        )
        return _json({"ok": not reply.text, "text": reply.text})

    async def visibility(self, request: web.Request) -> web.Response:
        """The page is visible (again), or not. A page leaving sends it with
        `navigator.sendBeacon`, which sets no header: the token may come in the body."""
        try:
            body = json.loads(await request.text())
            page_id, visible = body["page"], body["visible"]
            token, seq = body.get("token"), body.get("seq")
        except (ValueError, KeyError, TypeError, AttributeError):
            raise _refuse(web.HTTPBadRequest, "bad request") from None
        if not isinstance(page_id, str) or not isinstance(visible, bool) or len(page_id) > 64:
            raise _refuse(web.HTTPBadRequest, "bad request")
        if seq is not None and (not isinstance(seq, int) or _seq(seq) is None):
            raise _refuse(web.HTTPBadRequest, "bad request")
        viewer = self._viewer(request, token if isinstance(token, str) else None)
        found = self.hub.report(
            int(request.match_info["table_id"]), viewer.user_id, page_id, visible, seq
        )
        return _json({"ok": found})


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

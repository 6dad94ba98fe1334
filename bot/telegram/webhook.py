"""Webhook mode: Telegram posts each update to WEBHOOK_URL, and a proxy in front forwards it to
this process (a route of the bot's aiohttp application, `bot.webapp.server`, beside the Mini
App's; PTB's own webhook server answers before the update is handled, so a process killed in
between would lose it).

Every request must carry the secret given to `setWebhook` in the header
`X-Telegram-Bot-Api-Secret-Token`, else 403. An update is answered 200 only once it has been
handled (or found already handled), so Telegram delivers again what a killed process did not
finish; the database claims each `update_id` (`UpdateStore.claim_update`), so a redelivered or
twice-delivered update is applied once. `GET /healthz` says whether the bot and its database
are up, for a platform's health check.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import signal
import time
from typing import Any

from aiohttp import web
from telegram import Update
from telegram.ext import Application

from bot.service.types import APPLYING_UPDATE
from bot.webapp.server import WebServer
from storage import Database, UpdateClaim

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
# Seconds a claimed update stays another process's before it is taken over; the process
# handling it renews the claim every `RENEW_EVERY` s, so that a process that died leaves its
# updates to another within a few seconds (a tap must be answered within about 15 s, and
# the next turn message follow a move within 5 s, issue 39 §4: with 6 s, a tap whose
# worker was killed after claiming it was answered, and its turn passed on, 6.3 s late)
LEASE = 3.0
RENEW_EVERY = LEASE / 3
BUSY_RETRY_AFTER = 2  # seconds, in the Retry-After of a 503 for an update being handled


class WebhookEndpoint:
    """The HTTP side of webhook mode: its routes on the bot's aiohttp application."""

    def __init__(
        self, application: Application[Any, Any, Any, Any, Any, Any], path: str, secret: str
    ) -> None:
        self.application = application
        self.path = path
        self._secret = secret.encode()

    def add_routes(self, app: web.Application) -> None:
        app.router.add_post(self.path, self.telegram)
        app.router.add_get("/healthz", self.health)

    def _db(self) -> Database | None:
        db: Database | None = self.application.bot_data.db
        return db

    async def telegram(self, request: web.Request) -> web.Response:
        given = request.headers.get(SECRET_HEADER, "").encode()
        if not hmac.compare_digest(given, self._secret):
            log.warning("webhook request without the secret token from %s", request.remote)
            return web.Response(status=403)
        try:
            data = json.loads(await request.read())
            update = Update.de_json(data, self.application.bot)
        except (ValueError, TypeError, KeyError) as exc:
            log.warning("webhook request with a body that is no update: %s", exc)
            return web.Response(status=400)
        db = self._db()
        if db is None or not self.application.running:
            return _try_later()  # starting or stopping: Telegram delivers it again
        claim = await db.updates.claim_update(update.update_id, time.time(), LEASE)
        if claim is UpdateClaim.DONE:
            return web.Response(status=200)
        if claim is UpdateClaim.BUSY:
            return _try_later()
        applying = APPLYING_UPDATE.set(update.update_id)  # a move marks it done with itself
        renewing = asyncio.create_task(_renew(db, update.update_id), name="webhook-lease")
        try:
            await self.application.process_update(update)
        finally:
            APPLYING_UPDATE.reset(applying)
            renewing.cancel()
        await db.updates.finish_update(update.update_id, time.time())
        return web.Response(status=200)

    async def health(self, request: web.Request) -> web.Response:
        db = self._db()
        ok = db is not None and self.application.running
        if ok and db is not None:
            try:
                await db.ping()
            except Exception as exc:  # the database is unreachable: not healthy
                log.warning("health check: database: %s", exc)
                ok = False
        return web.json_response({"ok": ok}, status=200 if ok else 503)


async def _renew(db: Database, update_id: int) -> None:
    """Keep the claim on an update while it is being handled."""
    while True:
        await asyncio.sleep(RENEW_EVERY)
        try:
            await db.updates.renew_update(update_id, time.time())
        except Exception as exc:  # the next renewal, or another process, takes over
            log.warning("renewing the claim on update %s failed: %s", update_id, exc)


def _try_later() -> web.Response:
    return web.Response(status=503, headers={"Retry-After": str(BUSY_RETRY_AFTER)})


async def serve(server: WebServer) -> None:
    """Serve until SIGINT or SIGTERM, then stop: the Mini App's streams end, the requests in
    progress are finished first (an update is answered once it has been handled)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await server.start()
        await stop.wait()
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
        await server.stop()

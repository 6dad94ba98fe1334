"""Webhook mode: Telegram posts each update to WEBHOOK_URL, and a proxy in front forwards it to
this process (Starlette on uvicorn; PTB's own webhook server answers before the update is
handled, so a process killed in between would lose it).

Every request must carry the secret given to `setWebhook` in the header
`X-Telegram-Bot-Api-Secret-Token`, else 403. An update is answered 200 only once it has been
handled (or found already handled), so Telegram delivers again what a killed process did not
finish; the database claims each `update_id` (`Database.claim_update`), so a redelivered or
twice-delivered update is applied once. `GET /healthz` says whether the bot and its database
are up, for a platform's health check.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import signal
import time
from collections.abc import Iterator
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from telegram import Update
from telegram.ext import Application

from bot.service.types import APPLYING_UPDATE
from storage import Database, UpdateClaim

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
# Seconds a claimed update stays another process's before it is taken over: longer than any
# update takes to handle, shorter than Telegram's growing pauses between redeliveries.
LEASE = 30.0
BUSY_RETRY_AFTER = 2  # seconds, in the Retry-After of a 503 for an update being handled


class WebhookEndpoint:
    """The HTTP side of webhook mode: `routes()` for Starlette."""

    def __init__(
        self, application: Application[Any, Any, Any, Any, Any, Any], path: str, secret: str
    ) -> None:
        self.application = application
        self.path = path
        self._secret = secret.encode()

    def routes(self) -> list[Route]:
        return [
            Route(self.path, self.telegram, methods=["POST"]),
            Route("/healthz", self.health, methods=["GET"]),
        ]

    def _db(self) -> Database | None:
        db: Database | None = self.application.bot_data.db
        return db

    async def telegram(self, request: Request) -> Response:
        given = request.headers.get(SECRET_HEADER, "").encode()
        if not hmac.compare_digest(given, self._secret):
            log.warning("webhook request without the secret token from %s", request.client)
            return Response(status_code=403)
        try:
            data = json.loads(await request.body())
            update = Update.de_json(data, self.application.bot)
        except (ValueError, TypeError, KeyError) as exc:
            log.warning("webhook request with a body that is no update: %s", exc)
            return Response(status_code=400)
        db = self._db()
        if db is None or not self.application.running:
            return _try_later()  # starting or stopping: Telegram delivers it again
        claim = await db.claim_update(update.update_id, time.time(), LEASE)
        if claim is UpdateClaim.DONE:
            return Response(status_code=200)
        if claim is UpdateClaim.BUSY:
            return _try_later()
        applying = APPLYING_UPDATE.set(update.update_id)  # a move marks it done with itself
        try:
            await self.application.process_update(update)
        finally:
            APPLYING_UPDATE.reset(applying)
        await db.finish_update(update.update_id, time.time())
        return Response(status_code=200)

    async def health(self, request: Request) -> Response:
        db = self._db()
        ok = db is not None and self.application.running
        if ok and db is not None:
            try:
                await db.ping()
            except Exception as exc:  # the database is unreachable: not healthy
                log.warning("health check: database: %s", exc)
                ok = False
        return JSONResponse({"ok": ok}, status_code=200 if ok else 503)


def _try_later() -> Response:
    return Response(status_code=503, headers={"Retry-After": str(BUSY_RETRY_AFTER)})


class _Server(uvicorn.Server):
    """uvicorn's server without its own signal handling: it re-raises a caught SIGTERM when it
    stops serving, which would end the process before the bot's shutdown."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


async def serve(
    application: Application[Any, Any, Any, Any, Any, Any],
    *,
    listen: str,
    port: int,
    path: str,
    secret: str,
) -> None:
    """Serve the webhook until SIGINT or SIGTERM; requests in progress are finished first."""
    endpoint = WebhookEndpoint(application, path, secret)
    config = uvicorn.Config(
        Starlette(routes=endpoint.routes()),
        host=listen,
        port=port,
        lifespan="off",
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=30,
    )
    server = _Server(config)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, setattr, server, "should_exit", True)
    try:
        await server.serve()
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)

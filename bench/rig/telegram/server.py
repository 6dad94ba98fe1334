"""The stand-in's HTTP server: its state, its lifecycle (in the test's loop or on a thread), the
requests it answers and the limits it enforces, the updates it hands out by long polling or
webhook."""

from __future__ import annotations

import asyncio
import contextlib
import http
import itertools
import json
import math
import random
import sys
import threading
import time
import traceback
from collections import Counter, deque
from collections.abc import Callable, Sequence
from typing import Any, Self
from urllib.parse import urlsplit

from bench.rig.telegram.model import (
    _LIMIT_NAMES,
    _PATH_RE,
    _SERVER_ERRORS,
    _TOKEN_RE,
    ALL_UPDATE_TYPES,
    CONFLICT_POLLING,
    CONFLICT_WEBHOOK,
    DEFAULT_UPDATE_TYPES,
    LIMIT_GROUP,
    LIMIT_OVERALL,
    LIMIT_PRIVATE,
    MAX_LONG_POLL_SECONDS,
    RANDOM_FAULT,
    SCRIPTED_FAULT,
    ApiCall,
    ApiError,
    ChatRef,
    FakeChat,
    FakeFile,
    FakeMessage,
    FakeUser,
    Handler,
    JSONDict,
    Limits,
    WebhookPost,
    _bad,
    _CallbackQuery,
    _Fault,
    _Refused,
    _too_many_requests,
    _Update,
)
from bench.rig.telegram.wire import _decode_params

# --------------------------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------------------------


class _Server:
    """The HTTP server and the state every part of the stand-in shares."""

    def __init__(
        self,
        *,
        token: str | None = None,
        bot_username: str = "fake_bot",
        bot_first_name: str = "Fake Bot",
        threaded: bool = False,
        privacy_mode: bool = True,
        strict_html_ampersand: bool = True,
        callback_query_ttl: float | None = None,
        limits: Limits | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if token is not None and not _TOKEN_RE.fullmatch(token):
            raise ValueError(f"malformed token {token!r}")
        self.token = token
        self.bot_username = bot_username
        self.bot_first_name = bot_first_name
        self.threaded = threaded
        self.privacy_mode = privacy_mode
        self.strict_html_ampersand = strict_html_ampersand
        self.callback_query_ttl = callback_query_ttl
        self.limits = limits
        self._clock = clock
        self._bot_id: int | None = int(token.split(":")[0]) if token else None

        self._lock = threading.RLock()
        self._users: dict[int, FakeUser] = {}
        self._chats: dict[int, FakeChat] = {}
        self._started: set[int] = set()
        self._blocked: set[int] = set()
        self._messages: dict[int, list[FakeMessage]] = {}
        self._by_id: dict[tuple[int, int], FakeMessage] = {}
        self._next_message_id: dict[int, int] = {}
        self._updates: deque[_Update] = deque()  # not yet confirmed; delivered ones first
        self._all_updates: list[_Update] = []
        self._dropped_updates: list[_Update] = []
        self._next_update_id = 10_000
        self._allowed_updates: frozenset[str] = DEFAULT_UPDATE_TYPES
        self._queries: dict[str, _CallbackQuery] = {}
        self._query_ids = itertools.count(4_261_000_000_000_000_001)
        self._commands: dict[tuple[str, str], list[JSONDict]] = {}
        self._settings: dict[str, JSONDict] = {}
        self._webhook_url = ""
        self._webhook_secret = ""
        self._webhook_deleted_description = "Webhook is already deleted"
        self._webhook_route: Callable[[JSONDict], Sequence[str]] | None = None
        self._webhook_tasks: dict[int, asyncio.Task[None]] = {}  # update_id -> its delivery
        self.webhook_retry_delay = 0.2
        """Seconds before an update the bot did not accept (no 2xx) is delivered again."""
        self.webhook_posts: list[WebhookPost] = []
        """Every webhook request made, in the order they were answered."""
        self._faults: dict[str, deque[_Fault]] = {}
        self._calls: list[ApiCall] = []
        self._calls_by_method: dict[str, list[ApiCall]] = {}
        self._call_counts: Counter[tuple[str, bool]] = Counter()
        self.internal_errors: list[str] = []
        """Tracebacks of exceptions inside the fake itself (answered as HTTP 500)."""
        self.limit_violations: list[ApiCall] = []
        """Calls refused with 429 because they broke :attr:`limits` (``refused_by`` says which):
        the bot's own flood errors. They were not executed and do not count in the windows."""
        self.injected_faults: list[ApiCall] = []
        """Calls failed on purpose by :meth:`set_fault_rate` (not executed)."""
        self.answer_delays: dict[str, float] = {}
        """Seconds the answer to a method waits, by method (a slow Telegram): the call is
        made and logged at once, its answer comes that much later."""

        # limits: accepted calls' arrival times in the sliding windows, per chat
        self._group_windows: dict[int, deque[float]] = {}
        self._private_windows: dict[int, deque[float]] = {}
        self._overall_window: deque[float] = deque()
        self._group_log: dict[int, list[float]] = {}  # every accepted call into each group
        # random faults
        self._fault_rate = 0.0
        self._fault_methods: frozenset[str] | None = None
        self._fault_codes: tuple[int, ...] = ()
        self._fault_retry_after = 1
        self._fault_seed = 0
        self._fault_rngs: dict[str, random.Random] = {}  # one stream per method
        # latencies
        self._arrival = 0.0  # arrival time of the call being executed (under the lock)
        self._sends_at: dict[int, list[float]] = {}  # arrivals of accepted sendMessage, per chat
        self._command_updates: list[tuple[int, _Update]] = []  # send_text("/...") updates
        self._files: dict[str, FakeFile] = {}  # uploads by file_id

        # the Bot API methods, by name (filled by the class that handles them)
        self._handlers = self._methods()
        self._method_names = {name.lower(): name for name in [*self._handlers, "getUpdates"]}
        self._known_methods = frozenset(self._method_names.values())

        # networking state (lives in the server's event loop)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.Server | None = None
        self._port: int | None = None
        self._wakeup: asyncio.Event | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._stopping = False
        self._poll_generation = 0
        self._thread: threading.Thread | None = None
        self._thread_stop: asyncio.Event | None = None
        self._thread_error: BaseException | None = None

    def _methods(self) -> dict[str, Handler]:
        """The Bot API methods this server answers, by name (getUpdates aside)."""
        return {}

    # ---------------------------------------------------------------- lifecycle

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("FakeTelegram is not started")
        return self._port

    @property
    def base_url(self) -> str:
        """What to give PTB's ``base_url`` / the bot's TELEGRAM_BASE_URL."""
        return f"http://127.0.0.1:{self.port}/bot"

    @property
    def bot_id(self) -> int:
        return self._bot_id if self._bot_id is not None else 0

    async def start(self) -> Self:
        """Bind 127.0.0.1 on a free port: in this event loop, or on a thread if ``threaded``."""
        if self.threaded:
            await asyncio.to_thread(self.start_background)
        else:
            await self._serve()
        return self

    async def stop(self) -> None:
        if self._thread is not None:
            await asyncio.to_thread(self.stop_background)
        elif self._server is not None:
            await self._shutdown()

    def start_background(self, timeout: float = 10.0) -> Self:
        """Start the server on a daemon thread with its own event loop (blocking call)."""
        if self._thread is not None or self._server is not None:
            raise RuntimeError("FakeTelegram is already running")
        ready = threading.Event()
        self._thread = threading.Thread(
            target=self._thread_main, args=(ready,), name="FakeTelegram", daemon=True
        )
        self._thread.start()
        if not ready.wait(timeout):
            raise RuntimeError("FakeTelegram thread did not start in time")
        if self._thread_error is not None:
            raise RuntimeError("FakeTelegram thread failed") from self._thread_error
        return self

    def stop_background(self, timeout: float = 10.0) -> None:
        thread, loop, stop = self._thread, self._loop, self._thread_stop
        if thread is None:
            return
        if loop is not None and stop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(stop.set)
        thread.join(timeout)
        if thread.is_alive():
            raise RuntimeError("FakeTelegram thread did not stop in time")
        self._thread = None

    async def __aenter__(self) -> Self:
        return await self.start()

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    def __enter__(self) -> Self:
        return self.start_background()

    def __exit__(self, *exc_info: object) -> None:
        self.stop_background()

    def _thread_main(self, ready: threading.Event) -> None:
        async def main() -> None:
            try:
                await self._serve()
                self._thread_stop = asyncio.Event()
            except BaseException as exc:
                self._thread_error = exc
                raise
            finally:
                ready.set()
            await self._thread_stop.wait()
            await self._shutdown()

        try:
            asyncio.run(main())
        except BaseException:  # reported through _thread_error
            if self._thread_error is None:
                raise

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._wakeup = asyncio.Event()
        self._stopping = False
        self._server = await asyncio.start_server(self._handle_connection, "127.0.0.1", 0)
        self._port = self._server.sockets[0].getsockname()[1]

    async def _shutdown(self) -> None:
        self._stopping = True
        self._notify_now()
        for task in list(self._webhook_tasks.values()):
            task.cancel()
        if self._webhook_tasks:
            await asyncio.wait(list(self._webhook_tasks.values()), timeout=5)
        server, self._server = self._server, None
        if server is not None:
            server.close()
        await asyncio.sleep(0.01)  # let pending long polls answer
        for writer in list(self._writers):
            writer.close()
        if server is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(server.wait_closed(), 5)

    # ---------------------------------------------------------------- HTTP

    async def _handle_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        self._writers.add(writer)
        try:
            while not self._stopping:
                try:  # the request line and headers at once (one await, not one per line)
                    head = await reader.readuntil(b"\r\n\r\n")
                except asyncio.IncompleteReadError as eof:
                    if eof.partial.strip():
                        await self._respond(writer, 400, {"ok": False, "error_code": 400}, False)
                    break
                lines = head.decode("latin-1").lstrip("\r\n").split("\r\n")
                if not lines[0]:
                    continue  # only blank lines between requests
                parts = lines[0].split()
                if len(parts) != 3:
                    await self._respond(writer, 400, {"ok": False, "error_code": 400}, False)
                    break
                verb, target, version = parts
                headers: dict[str, str] = {}
                for header in lines[1:]:
                    if header:
                        key, _, value = header.partition(":")
                        headers[key.strip().lower()] = value.strip()
                if headers.get("transfer-encoding", "").lower() == "chunked":
                    body = await self._read_chunked(reader)
                else:
                    length = int(headers.get("content-length") or 0)
                    body = await reader.readexactly(length) if length else b""
                status, payload = await self._handle_request(verb, target, headers, body)
                keep_alive = (
                    version == "HTTP/1.1" and headers.get("connection", "").lower() != "close"
                )
                await self._respond(writer, status, payload, keep_alive)
                if not keep_alive:
                    break
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            self._writers.discard(writer)
            writer.close()

    @staticmethod
    async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
        body = bytearray()
        while True:
            size = int((await reader.readline()).split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while (await reader.readline()).strip():
                    pass
                return bytes(body)
            body += await reader.readexactly(size)
            await reader.readline()

    @staticmethod
    async def _respond(
        writer: asyncio.StreamWriter, status: int, payload: JSONDict, keep_alive: bool
    ) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        phrase = http.HTTPStatus(status).phrase
        head = (
            f"HTTP/1.1 {status} {phrase}\r\n"
            "Server: fake-telegram\r\n"
            "Content-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n"
            f"Connection: {'keep-alive' if keep_alive else 'close'}\r\n\r\n"
        )
        writer.write(head.encode("latin-1") + data)
        await writer.drain()

    async def _handle_request(
        self, verb: str, target: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, JSONDict]:
        url = urlsplit(target)
        match = _PATH_RE.fullmatch(url.path)
        not_found = ApiError(404, "Not Found")
        if match is None or verb not in ("GET", "POST") or not _TOKEN_RE.fullmatch(match[1]):
            return 404, not_found.envelope()
        token, requested = match[1], match[2]
        if self.token is not None and token != self.token:
            return 401, ApiError(401, "Unauthorized").envelope()
        if self._bot_id is None:
            self._bot_id = int(token.split(":")[0])
        method = self._method_names.get(requested.lower(), requested)
        params: JSONDict = {}
        arrived = self._clock()
        # a call's effect and its record in the log at once (readers take the lock): a test
        # never sees a message that no logged call made yet (a long poll waits unlocked)
        with contextlib.nullcontext() if method == "getUpdates" else self._lock:
            try:
                params = _decode_params(headers.get("content-type", ""), body, url.query)
                if method not in self._known_methods:
                    raise not_found
                result = await self._call(method, params, arrived)
            except ApiError as err:
                self._log(method, params, False, None, err, arrived)
                return err.error_code, err.envelope()
            except Exception:
                trace = traceback.format_exc()
                self.internal_errors.append(trace)
                print(f"FakeTelegram internal error in {method}:\n{trace}", file=sys.stderr)
                internal = ApiError(500, f"Internal Server Error: fake failed in {method}")
                self._log(method, params, False, None, internal, arrived)
                return 500, internal.envelope()
            self._log(method, params, True, result, None, arrived)
        envelope: JSONDict = {"ok": True, "result": result}
        if method == "deleteWebhook":
            envelope["description"] = self._webhook_deleted_description
        if delay := self.answer_delays.get(method, 0.0):
            await asyncio.sleep(delay)
        return 200, envelope

    async def _call(self, method: str, params: JSONDict, arrived: float) -> Any:
        with self._lock:
            faults = self._faults.get(method)
            if faults:
                fault = faults[0]
                fault.remaining -= 1
                if fault.remaining <= 0:
                    faults.popleft()
                error = fault.error
                raise _Refused(
                    error.error_code,
                    error.description,
                    error.retry_after,
                    refused_by=SCRIPTED_FAULT,
                )
            self._random_fault(method)
            self._admit(params, arrived)
            if method != "getUpdates":
                self._arrival = arrived
                result = self._handlers[method](params)
                if method == "sendMessage":
                    self._sends_at.setdefault(result["chat"]["id"], []).append(arrived)
                return result
        return await self._get_updates(params)

    def _random_fault(self, method: str) -> None:
        """Fail the call at random as :meth:`set_fault_rate` asked (under the lock)."""
        if self._fault_rate <= 0:
            return
        if self._fault_methods is None:
            if method == "getUpdates":
                return
        elif method not in self._fault_methods:
            return
        rng = self._fault_rngs.get(method)
        if rng is None:
            rng = self._fault_rngs[method] = random.Random(f"{self._fault_seed}/{method}")
        if rng.random() >= self._fault_rate:
            return
        code = rng.choice(self._fault_codes)
        if code == 429:
            raise _Refused(*_too_many_requests(self._fault_retry_after), refused_by=RANDOM_FAULT)
        description = _SERVER_ERRORS.get(code) or http.HTTPStatus(code).phrase
        raise _Refused(code, description, None, refused_by=RANDOM_FAULT)

    def _limit_key(self, value: Any) -> tuple[int, bool] | None:
        """(chat id, is a group) for a chat_id parameter, None if it names no chat."""
        if isinstance(value, bool):
            return None
        if isinstance(value, int):
            chat_id = value
        elif isinstance(value, str) and value.strip():
            try:
                chat_id = self._chat_from_param(value).id
            except ApiError:
                return None
        else:
            return None
        chat = self._chats.get(chat_id)
        return chat_id, (chat.type != "private" if chat is not None else chat_id < 0)

    def _admit(self, params: JSONDict, now: float) -> None:
        """Count a call carrying a chat_id, or refuse it with 429 if it breaks the limits."""
        if "chat_id" not in params:
            return
        key = self._limit_key(params["chat_id"])
        if key is None:
            return
        chat_id, is_group = key
        limits = self.limits
        if limits is not None:
            windows: list[tuple[str, deque[float], int, float]] = []
            if is_group and limits.group_per_minute is not None:
                window = self._group_windows.setdefault(chat_id, deque())
                windows.append((LIMIT_GROUP, window, limits.group_per_minute, 60.0))
            if not is_group and limits.private_per_second is not None:
                rate = limits.private_per_second
                burst = max(1, math.floor(rate))
                window = self._private_windows.setdefault(chat_id, deque())
                windows.append((LIMIT_PRIVATE, window, burst, burst / rate))
            if limits.overall_per_second is not None:
                overall = limits.overall_per_second
                windows.append((LIMIT_OVERALL, self._overall_window, overall, 1.0))
            for name, window, size, span in windows:
                while window and window[0] <= now - span:
                    window.popleft()
                if len(window) >= size:
                    retry_after = max(1, math.ceil(window[-size] + span - now))
                    raise _Refused(*_too_many_requests(retry_after), refused_by=name)
            for _, window, _, _ in windows:
                window.append(now)
        if is_group:
            self._group_log.setdefault(chat_id, []).append(now)

    def _log(
        self,
        method: str,
        params: JSONDict,
        ok: bool,
        result: Any,
        error: ApiError | None,
        arrived: float,
    ) -> None:
        refused_by = error.refused_by if isinstance(error, _Refused) else None
        with self._lock:
            call = ApiCall(
                seq=len(self._calls) + 1,
                method=method,
                params=params,
                ok=ok,
                result=result,
                error_code=error.error_code if error else None,
                description=error.description if error else None,
                at=self._clock(),
                arrived=arrived,
                refused_by=refused_by,
            )
            self._calls.append(call)
            self._calls_by_method.setdefault(method, []).append(call)
            self._call_counts[method, ok] += 1
            if refused_by in _LIMIT_NAMES:
                self.limit_violations.append(call)
            elif refused_by == RANDOM_FAULT:
                self.injected_faults.append(call)

    # ---------------------------------------------------------------- updates / long polling

    def _notify(self) -> None:
        """Wake long polls; callable from any thread."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._notify_now()
        else:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self._notify_now)

    def _notify_now(self) -> None:
        old, self._wakeup = self._wakeup, asyncio.Event()
        if old is not None:
            old.set()

    def _enqueue(self, kind: str, payload: JSONDict) -> _Update | None:
        with self._lock:
            update = _Update(self._next_update_id, kind, payload)
            self._next_update_id += 1
            self._all_updates.append(update)
            if kind not in self._allowed_updates:
                self._dropped_updates.append(update)
                return None
            self._updates.append(update)
        self._notify()
        self._deliver_soon()
        return update

    # ---------------------------------------------------------------- webhook delivery

    def deliver_webhook_to(self, route: Callable[[JSONDict], Sequence[str]]) -> None:
        """Webhook mode. Once the bot set a webhook, every update is POSTed, as Telegram does,
        to the local URLs ``route(update)`` names (the public HTTPS address the bot registered
        stands for a proxy): to each of them at once when it names several (a duplicate
        delivery), with the bot's secret in ``X-Telegram-Bot-Api-Secret-Token``. An update is
        confirmed when one request is answered 2xx; until then it is delivered again every
        :attr:`webhook_retry_delay` seconds."""
        self._webhook_route = route
        self._deliver_soon()

    def _deliver_soon(self) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._start_deliveries)

    def _start_deliveries(self) -> None:
        with self._lock:
            if not self._webhook_url or self._webhook_route is None or self._stopping:
                return
            waiting = [u for u in self._updates if u.update_id not in self._webhook_tasks]
        for update in waiting:
            task = asyncio.get_running_loop().create_task(self._deliver(update))
            self._webhook_tasks[update.update_id] = task

    async def _deliver(self, update: _Update) -> None:
        import httpx

        try:
            async with httpx.AsyncClient(timeout=60) as client:
                while not self._stopping:
                    with self._lock:
                        route, secret = self._webhook_route, self._webhook_secret
                        if not self._webhook_url or route is None:
                            return
                        if update not in self._updates:
                            return  # dropped meanwhile
                        body = update.to_api()
                        if not update.delivered:
                            update.delivered, update.delivered_at = True, self._clock()
                    headers = {"X-Telegram-Bot-Api-Secret-Token": secret} if secret else {}
                    urls = list(route(body))
                    results = await asyncio.gather(
                        *(self._post(client, url, body, headers) for url in urls)
                    )
                    with self._lock:
                        for url, result in zip(urls, results, strict=True):
                            self.webhook_posts.append(
                                WebhookPost(update.update_id, url, result, self._clock())
                            )
                        if any(isinstance(r, int) and 200 <= r < 300 for r in results):
                            with contextlib.suppress(ValueError):
                                self._updates.remove(update)
                            return
                    await asyncio.sleep(self.webhook_retry_delay)
        finally:
            self._webhook_tasks.pop(update.update_id, None)

    @staticmethod
    async def _post(client: Any, url: str, body: JSONDict, headers: dict[str, str]) -> int | str:
        try:
            response = await client.post(url, json=body, headers=headers)
        except Exception as exc:  # refused, reset, timed out: the bot is down
            return type(exc).__name__
        return int(response.status_code)

    async def _get_updates(self, params: JSONDict) -> list[JSONDict]:
        loop = asyncio.get_running_loop()
        limit = params.get("limit") or 100
        limit = max(1, min(100, int(limit)))
        timeout = max(0.0, min(float(params.get("timeout") or 0), MAX_LONG_POLL_SECONDS))
        with self._lock:
            if self._webhook_url:
                raise ApiError(409, CONFLICT_WEBHOOK)
            allowed = params.get("allowed_updates")
            if isinstance(allowed, list):
                self._allowed_updates = (
                    frozenset(str(a) for a in allowed) & ALL_UPDATE_TYPES
                    if allowed
                    else DEFAULT_UPDATE_TYPES
                )
            offset = params.get("offset")
            pending = self._updates
            if isinstance(offset, int) and offset != 0:
                if offset < 0:
                    while len(pending) > -offset:
                        pending.popleft()
                else:
                    while pending and pending[0].update_id < offset:
                        pending.popleft()
            self._poll_generation += 1
            generation = self._poll_generation
        self._notify_now()  # an older pending getUpdates now ends with 409 Conflict
        deadline = loop.time() + timeout
        while True:
            wakeup = self._wakeup
            with self._lock:
                if generation != self._poll_generation:
                    raise ApiError(409, CONFLICT_POLLING)
                batch = list(itertools.islice(self._updates, limit))
                if batch or self._stopping or loop.time() >= deadline:
                    now = self._clock()
                    for update in batch:
                        if not update.delivered:
                            update.delivered = True
                            update.delivered_at = now
                    return [update.to_api() for update in batch]
            assert wakeup is not None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wakeup.wait(), max(0.0, deadline - loop.time()))

    # ---------------------------------------------------------------- chats

    @staticmethod
    def _chat_id(chat: ChatRef) -> int:
        if isinstance(chat, FakeChat | FakeUser):
            return chat.id
        return int(chat)

    def _chat_for(self, chat: ChatRef) -> FakeChat:
        chat_id = self._chat_id(chat)
        found = self._chats.get(chat_id)
        if found is None:
            raise LookupError(f"unknown chat {chat_id}; create it with user() or group()")
        return found

    def _chat_from_param(self, value: Any) -> FakeChat:
        if value is None or value == "":
            raise _bad("chat_id is empty")
        if isinstance(value, str):
            name = value.removeprefix("@").lower()
            for chat in self._chats.values():
                if chat.type != "private" and chat.username and chat.username.lower() == name:
                    return chat
            raise _bad("chat not found")
        found = self._chats.get(int(value))
        if found is None:
            raise _bad("chat not found")
        return found

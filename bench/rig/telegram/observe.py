"""What a test reads of the stand-in (messages, calls, limits, latencies), the faults it injects,
and the conditions it waits for."""

from __future__ import annotations

import asyncio
import bisect
import copy
import inspect
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Iterable, Sequence

from bench.rig.telegram.methods import _BotApi
from bench.rig.telegram.model import (
    ApiCall,
    ApiError,
    ChatRef,
    FakeButton,
    FakeMessage,
    FakeUser,
    GroupPeak,
    JSONDict,
    T,
    _Fault,
)


class _Observed(_BotApi):
    """What the tests read of the stand-in: messages, calls, limits, latencies; the faults they
    inject; the conditions they wait for."""

    # ---------------------------------------------------------------- observation

    def messages(self, chat: ChatRef, *, include_deleted: bool = False) -> list[FakeMessage]:
        """Snapshots of every message in the chat (users' and the bot's), oldest first."""
        with self._lock:
            found = self._messages.get(self._chat_id(chat), [])
            return [copy.deepcopy(m) for m in found if include_deleted or not m.deleted]

    def bot_messages(self, chat: ChatRef, *, after: int = 0) -> list[FakeMessage]:
        """Snapshots of the bot's messages in the chat that are not deleted, oldest first;
        with ``after``, only those with a higher message id (sent since `last_id` said so)."""
        with self._lock:
            found = self._messages.get(self._chat_id(chat), [])
            return [
                copy.deepcopy(m)
                for m in found
                if m.from_bot and not m.deleted and m.message_id > after
            ]

    def last_id(self, chat: ChatRef) -> int:
        """The id of the chat's newest message, deleted or not (0 for none): a mark for
        `bot_messages(chat, after=...)` that deletes do not move."""
        with self._lock:
            found = self._messages.get(self._chat_id(chat), [])
            return found[-1].message_id if found else 0

    def documents(self, chat: ChatRef) -> list[FakeMessage]:
        """Snapshots of the bot's sendDocument messages in the chat, oldest first
        (``message.document.data`` holds the bytes, ``.filename`` the name)."""
        return [m for m in self.bot_messages(chat) if m.document is not None]

    def photos(self, chat: ChatRef) -> list[FakeMessage]:
        """Snapshots of the bot's sendPhoto messages in the chat, oldest first
        (``message.photo.data`` holds the bytes)."""
        return [m for m in self.bot_messages(chat) if m.photo is not None]

    def age_message(self, chat: ChatRef, message_id: int, seconds: float) -> None:
        """Make a message look ``seconds`` older (its date), e.g. past deleteMessage's 48 h."""
        with self._lock:
            found = self._by_id[(self._chat_id(chat), message_id)]
            found.date -= int(seconds)

    def message(self, chat: ChatRef, message_id: int) -> FakeMessage:
        with self._lock:
            found = self._by_id.get((self._chat_id(chat), message_id))
            if found is None:
                raise LookupError(f"no message {message_id} in chat {self._chat_id(chat)}")
            return copy.deepcopy(found)

    def _newest(self, chat: ChatRef, accept: Callable[[FakeMessage], bool]) -> FakeMessage | None:
        """A snapshot of the newest non-deleted message that ``accept``s, without copying all."""
        with self._lock:
            for message in reversed(self._messages.get(self._chat_id(chat), [])):
                if not message.deleted and accept(message):
                    return copy.deepcopy(message)
        return None

    def last_message(self, chat: ChatRef, *, from_bot: bool | None = True) -> FakeMessage:
        """The newest non-deleted message (by default the bot's); LookupError if none."""
        found = self._newest(chat, lambda m: from_bot is None or m.from_bot == from_bot)
        if found is None:
            raise LookupError(f"no message in chat {self._chat_id(chat)}")
        return found

    def find_button(self, chat: ChatRef, text_contains: str) -> FakeButton:
        """The first button whose text contains ``text_contains``, newest message first."""
        with self._lock:
            for message in reversed(self._messages.get(self._chat_id(chat), [])):
                if message.from_bot and not message.deleted:
                    for button in message.buttons:
                        if text_contains in button.text:
                            return button
        raise LookupError(f"no button containing {text_contains!r} in chat {self._chat_id(chat)}")

    def commands(self, scope: JSONDict | None = None, language_code: str = "") -> list[JSONDict]:
        """The commands setMyCommands stored for this scope and language."""
        with self._lock:
            params = {"scope": scope, "language_code": language_code}
            return copy.deepcopy(self._commands.get(self._scope_key(params), []))

    @property
    def calls(self) -> list[ApiCall]:
        """Every request so far (getUpdates included), in order."""
        with self._lock:
            return list(self._calls)

    def calls_of(self, method: str, *, since: int = 0) -> list[ApiCall]:
        with self._lock:
            found = self._calls_by_method.get(method, [])
            start = bisect.bisect_right(found, since, key=lambda c: c.seq) if since else 0
            return found[start:]

    def mark(self) -> int:
        """A position in the call log, for ``since=`` in count/counts/calls_of."""
        with self._lock:
            return len(self._calls)

    def count(self, method: str, *, since: int = 0, ok: bool | None = None) -> int:
        if not since:
            with self._lock:
                if ok is None:
                    return self._call_counts[method, True] + self._call_counts[method, False]
                return self._call_counts[method, ok]
        return sum(1 for c in self.calls_of(method, since=since) if ok is None or c.ok == ok)

    def counts(self, *, since: int = 0) -> Counter[str]:
        with self._lock:
            if not since:
                counts: Counter[str] = Counter()
                for (method, _), n in self._call_counts.items():
                    counts[method] += n
                return +counts
            # seq is the position in the log plus one
            return Counter(c.method for c in self._calls[max(0, since) :])

    # ---------------------------------------------------------------- limits and latencies

    def max_group_calls_per_minute(self) -> GroupPeak:
        """The most calls accepted into one group in any 60-second window of the whole run.

        Counts what the group limit counts (every method, with or without ``limits``): calls
        that passed the limits and fault injection, whatever the method then answered.
        ``GroupPeak(0, None, None)`` if no call went to a group.
        """
        best = GroupPeak(0, None, None)
        with self._lock:
            logs = [(chat_id, list(times)) for chat_id, times in self._group_log.items()]
        for chat_id, times in logs:
            left = 0
            for right, now in enumerate(times):
                while times[left] <= now - 60.0:
                    left += 1
                if right - left + 1 > best.calls:
                    best = GroupPeak(right - left + 1, chat_id, times[left])
        return best

    def tap_latencies(self) -> list[float]:
        """Seconds from delivering each pressed button's update to the accepted answer.

        One value per callback query made by :meth:`press`/:meth:`press_raw` whose update was
        delivered and that was answered successfully, in the order of the presses; the time
        is the arrival of the answerCallbackQuery request (see :meth:`unanswered_queries`).
        """
        with self._lock:
            return [
                query.answered_at - query.update.delivered_at
                for query in self._queries.values()
                if query.answered_at is not None
                and query.update is not None
                and query.update.delivered_at is not None
            ]

    def tap_latencies_by_query(self) -> dict[str, float]:
        """:meth:`tap_latencies` by callback query id (the id :meth:`press` returned)."""
        with self._lock:
            return {
                query.id: query.answered_at - query.update.delivered_at
                for query in self._queries.values()
                if query.answered_at is not None
                and query.update is not None
                and query.update.delivered_at is not None
            }

    def toasts(self, user: FakeUser) -> list[str]:
        """The texts of the answers to `user`'s button presses (what their phone shows as a
        toast or an alert), in the order of the presses; empty answers left out."""
        with self._lock:
            return [
                answer.text
                for query in self._queries.values()
                if query.user_id == user.id
                for answer in query.answers
                if answer.text
            ]

    def silent(self, chat: ChatRef) -> set[int]:
        """The ids of the bot's messages in the chat sent with ``disable_notification`` (they
        do not ring)."""
        chat_id = self._chat_id(chat)
        found: set[int] = set()
        for call in self.calls_of("sendMessage"):
            if not call.ok or str(call.params.get("chat_id")) != str(chat_id):
                continue
            if str(call.params.get("disable_notification", "")).lower() in ("true", "1"):
                found.add(int(call.result["message_id"]))
        return found

    def unanswered_queries(self) -> list[str]:
        """Ids of the callback queries never answered successfully, oldest first."""
        with self._lock:
            return [query.id for query in self._queries.values() if not query.answers]

    def command_latencies(self) -> list[float]:
        """Seconds from delivering each ``/command`` to the bot's next message in its chat.

        For every text starting with ``/`` written with :meth:`send_text` and delivered to the
        bot, in order: from its delivery to the arrival of the first accepted sendMessage into
        the same chat that arrived at or after it. Commands without such a message are skipped.
        """
        latencies: list[float] = []
        with self._lock:
            for chat_id, update in self._command_updates:
                delivered = update.delivered_at
                if delivered is None:
                    continue
                sends = self._sends_at.get(chat_id, [])
                i = bisect.bisect_left(sends, delivered)
                if i < len(sends):
                    latencies.append(sends[i] - delivered)
        return latencies

    @property
    def updates(self) -> list[JSONDict]:
        """Every update created (including dropped ones), as the API would send them."""
        with self._lock:
            return [u.to_api() for u in self._all_updates]

    def pending_updates(self) -> list[JSONDict]:
        """Updates not yet confirmed by the bot (getUpdates with a higher offset)."""
        with self._lock:
            return [u.to_api() for u in self._updates]

    def polls_started(self) -> int:
        """How many getUpdates requests have reached the server so far."""
        with self._lock:
            return self._poll_generation

    # ---------------------------------------------------------------- fault injection

    def inject_error(
        self,
        method: str,
        error_code: int,
        description: str,
        *,
        times: int = 1,
        retry_after: int | None = None,
    ) -> None:
        """The next ``times`` calls of ``method`` fail with this error (queued after others)."""
        canonical = self._method_names.get(method.lower(), method)
        with self._lock:
            self._faults.setdefault(canonical, deque()).append(
                _Fault(ApiError(error_code, description, retry_after), times)
            )

    def set_fault_rate(
        self,
        rate: float,
        *,
        methods: Iterable[str] | None = None,
        codes: Sequence[int] = (429, 502),
        retry_after: int = 1,
        seed: int = 0,
    ) -> None:
        """Fail each matching call with probability ``rate`` (``0`` turns this off).

        ``methods``: which methods (default: all but getUpdates). A failing call gets one of
        ``codes`` at random: 429 "Too Many Requests: retry after ``retry_after``" (PTB raises
        RetryAfter), 502 "Bad Gateway", 500 "Internal Server Error", 503, 504 (Telegram's
        JSON error with that HTTP status: PTB raises NetworkError). Failed calls are not
        executed, are not counted by the limits and are listed in :attr:`injected_faults`.
        Deterministic: each method has its own ``random.Random`` stream seeded from ``seed``
        and the method's name, so whether the k-th call of a method fails depends only on
        ``seed``, the method and k, not on how the bot's calls of different methods
        interleave. Calling this again restarts the streams.
        """
        if not 0 <= rate <= 1:
            raise ValueError(f"rate must be within [0, 1], not {rate}")
        codes = tuple(int(code) for code in codes)
        if rate and not codes:
            raise ValueError("no error codes to inject")
        for code in codes:
            if code != 429 and not 500 <= code <= 599:
                raise ValueError(f"random faults are 429 or 5xx, not {code}")
        if retry_after < 1:
            raise ValueError("retry_after must be at least 1")
        chosen = (
            None
            if methods is None
            else frozenset(self._method_names.get(m.lower(), m) for m in methods)
        )
        with self._lock:
            self._fault_rate = float(rate)
            self._fault_methods = chosen
            self._fault_codes = codes
            self._fault_retry_after = retry_after
            self._fault_seed = seed
            self._fault_rngs = {}

    def inject_retry_after(self, method: str, retry_after: int = 5, *, times: int = 1) -> None:
        """The next ``times`` calls of ``method`` get 429 "Too Many Requests: retry after N"."""
        self.inject_error(
            method,
            429,
            f"Too Many Requests: retry after {retry_after}",
            times=times,
            retry_after=retry_after,
        )

    # ---------------------------------------------------------------- waiting

    async def wait_for(
        self,
        predicate: Callable[[], T | Awaitable[T | None] | None],
        timeout: float = 10.0,
        *,
        interval: float = 0.02,
        message: str | None = None,
    ) -> T:
        """Poll ``predicate`` until it returns something truthy, and return that.

        LookupError/AssertionError raised by the predicate count as "not yet". TimeoutError
        after ``timeout`` seconds.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        last_error: BaseException | None = None
        while True:
            try:
                value = predicate()
                if inspect.isawaitable(value):
                    value = await value
                if value:
                    return value
            except (LookupError, AssertionError) as err:
                last_error = err
            if loop.time() >= deadline:
                detail = f": {last_error}" if last_error else ""
                raise TimeoutError(
                    (message or "condition not met") + f" within {timeout}s{detail}"
                ) from last_error
            await asyncio.sleep(interval)

    async def wait_for_call(
        self, method: str, *, count: int = 1, since: int = 0, timeout: float = 10.0
    ) -> list[ApiCall]:
        """Wait until ``method`` was called ``count`` times after ``since``; returns the calls."""
        return await self.wait_for(
            lambda: calls if len(calls := self.calls_of(method, since=since)) >= count else [],
            timeout,
            message=f"{count} call(s) of {method}",
        )

    async def wait_for_text(
        self, chat: ChatRef, contains: str, *, timeout: float = 10.0
    ) -> FakeMessage:
        """Wait for a (non-deleted) bot message in ``chat`` whose text contains ``contains``."""

        def find() -> FakeMessage | None:
            return self._newest(chat, lambda m: m.from_bot and contains in m.text)

        return await self.wait_for(find, timeout, message=f"a bot message containing {contains!r}")

    async def wait_taken(self, timeout: float = 10.0) -> None:
        """Wait until the bot has taken every update created so far: it asked for the ones
        after them (a getUpdates whose offset confirms them), which a bot polling in a loop
        does once it has queued those it got."""
        with self._lock:
            newest = self._updates[-1].update_id if self._updates else None

        def taken() -> bool:
            with self._lock:
                return newest is None or not self._updates or self._updates[0].update_id > newest

        await self.wait_for(taken, timeout, message="all updates taken")

    async def wait_delivered(self, timeout: float = 10.0) -> None:
        """Wait until the bot has fetched every update created so far."""

        def delivered() -> bool:
            # getUpdates hands out the oldest pending updates first: the delivered ones are a
            # prefix of the pending ones, so the newest tells.
            with self._lock:
                return not self._updates or self._updates[-1].delivered

        await self.wait_for(delivered, timeout, message="all updates delivered")

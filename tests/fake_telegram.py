"""A stand-in Telegram Bot API server for end-to-end tests.

It speaks the real wire protocol: PTB's ``HTTPXRequest`` POSTs
``application/x-www-form-urlencoded`` bodies whose string parameters are sent as they are
and every other value JSON-encoded (``RequestData.json_parameters``); uploads switch to
``multipart/form-data``. Answers use Telegram's envelope ``{"ok": true, "result": ...}`` /
``{"ok": false, "error_code": N, "description": "..."}`` with the real descriptions, so
``telegram.error.BadRequest``/``Forbidden``/``RetryAfter`` surface exactly as in production.

Two ways to run it (both bind 127.0.0.1 on a free port only):

* in the test's event loop: ``async with FakeTelegram() as fake: ...`` (the bot runs in the
  same loop, e.g. a PTB ``Application``);
* on a background thread, for a bot started as another process (``python -m bot`` with
  ``TELEGRAM_BASE_URL=fake.base_url``): ``async with FakeTelegram(threaded=True) as fake``
  or the synchronous ``with FakeTelegram() as fake``.

Scripted people: :meth:`FakeTelegram.user`, :meth:`FakeTelegram.group`,
:meth:`FakeTelegram.send_text`, :meth:`FakeTelegram.press`; observation:
:meth:`FakeTelegram.messages`, :meth:`FakeTelegram.last_message`,
:meth:`FakeTelegram.find_button`, :attr:`FakeTelegram.calls`, :meth:`FakeTelegram.count`,
:meth:`FakeTelegram.wait_for`; files the bot uploaded (sendDocument, sendPhoto, multipart):
:meth:`FakeTelegram.documents`, :meth:`FakeTelegram.photos` (``message.document.data`` /
``message.photo.data`` hold the bytes, ``.filename`` the name; the caption is ``text``).

Load and robustness (all off by default):

* ``FakeTelegram(limits=Limits())`` enforces Telegram's flood limits (20 calls a minute per
  group, 30 a second overall, optionally N a second per private chat): a call over a limit
  gets 429 "Too Many Requests: retry after N" and is not executed; such refusals are the
  bot's own doing and are listed in :attr:`FakeTelegram.limit_violations`.
  :meth:`FakeTelegram.max_group_calls_per_minute` reports the busiest group minute.
* :meth:`FakeTelegram.set_fault_rate` fails a random share of calls with 429 or 5xx
  (reproducibly from a seed); they are listed in :attr:`FakeTelegram.injected_faults`.
* :meth:`FakeTelegram.tap_latencies`, :meth:`FakeTelegram.command_latencies` and
  :meth:`FakeTelegram.unanswered_queries` measure how fast the bot reacts, from the moment
  getUpdates handed it the update.
* ``FakeTelegram(clock=...)`` replaces the monotonic clock of all of the above (and of
  ``callback_query_ttl``), so a test can move time forward instead of sleeping.

Every request is O(1) in the size of the run (call log, messages, updates), so a load test
can push thousands of calls a minute through it for long runs.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import copy
import email.parser
import email.policy
import http
import inspect
import itertools
import json
import math
import random
import re
import sys
import threading
import time
import traceback
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Self, TypeVar
from urllib.parse import parse_qsl, urlsplit

__all__ = [
    "ApiCall",
    "ApiError",
    "ButtonNotFound",
    "CallbackAnswer",
    "EntityParseError",
    "FakeButton",
    "FakeChat",
    "FakeFile",
    "FakeMessage",
    "FakeTelegram",
    "FakeUser",
    "GroupPeak",
    "Limits",
    "bot_command_entities",
    "parse_html",
]

T = TypeVar("T")
JSONDict = dict[str, Any]

MAX_MESSAGE_LENGTH = 4096
MAX_CAPTION_LENGTH = 1024
MAX_INLINE_BUTTONS = 100  # buttons of one inline keyboard ("reply markup is too long")
DELETE_MAX_AGE = 48 * 3600  # seconds after which deleteMessage refuses (Bot API)
MAX_CALLBACK_DATA_BYTES = 64
MAX_CALLBACK_ANSWER_LENGTH = 200
MAX_LONG_POLL_SECONDS = 50.0

NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are exactly "
    "the same as a current content and reply markup of the message"
)
QUERY_TOO_OLD = "query is too old and response timeout expired or query ID is invalid"
CANT_INITIATE = "bot can't initiate conversation with a user"
CONFLICT_POLLING = (
    "Conflict: terminated by other getUpdates request; "
    "make sure that only one bot instance is running"
)
CONFLICT_WEBHOOK = (
    "Conflict: can't use getUpdates method while webhook is active; "
    "use deleteWebhook to delete the webhook first"
)

ALL_UPDATE_TYPES = frozenset(
    {
        "message",
        "edited_message",
        "channel_post",
        "edited_channel_post",
        "business_connection",
        "business_message",
        "edited_business_message",
        "deleted_business_messages",
        "message_reaction",
        "message_reaction_count",
        "inline_query",
        "chosen_inline_result",
        "callback_query",
        "shipping_query",
        "pre_checkout_query",
        "purchased_paid_media",
        "poll",
        "poll_answer",
        "my_chat_member",
        "chat_member",
        "chat_join_request",
        "chat_boost",
        "removed_chat_boost",
    }
)
# "Specify an empty list to receive all update types except chat_member, message_reaction,
# and message_reaction_count (default)."
DEFAULT_UPDATE_TYPES = ALL_UPDATE_TYPES - {
    "chat_member",
    "message_reaction",
    "message_reaction_count",
}

INLINE_BUTTON_ACTIONS = (
    "url",
    "callback_data",
    "web_app",
    "login_url",
    "switch_inline_query",
    "switch_inline_query_current_chat",
    "switch_inline_query_chosen_chat",
    "copy_text",
    "callback_game",
    "pay",
)

# How form fields are typed: PTB sends str values as they are and JSON-dumps everything else.
_JSON_FIELDS = frozenset(
    {
        "reply_markup",
        "commands",
        "scope",
        "allowed_updates",
        "entities",
        "caption_entities",
        "link_preview_options",
        "reply_parameters",
        "message_ids",
        "rights",
        "menu_button",
    }
)
_INT_FIELDS = frozenset(
    {
        "message_id",
        "offset",
        "limit",
        "timeout",
        "user_id",
        "cache_time",
        "message_thread_id",
        "reply_to_message_id",
        "until_date",
        "max_connections",
    }
)
_BOOL_FIELDS = frozenset(
    {
        "show_alert",
        "disable_notification",
        "protect_content",
        "drop_pending_updates",
        "allow_sending_without_reply",
        "disable_web_page_preview",
        "only_if_banned",
        "for_channels",
        "allow_paid_broadcast",
        "is_personal",
    }
)
_COMMAND_RE = re.compile(r"[a-z0-9_]{1,32}")
_TOKEN_RE = re.compile(r"\d+:[A-Za-z0-9_-]+")
_PATH_RE = re.compile(r"/bot([^/]+)/([A-Za-z]+)/?")


# --------------------------------------------------------------------------------------------
# Errors and records
# --------------------------------------------------------------------------------------------


class ApiError(Exception):
    """An error answer of the Bot API (raised by handlers, or injected by a test)."""

    def __init__(self, error_code: int, description: str, retry_after: int | None = None):
        super().__init__(description)
        self.error_code = error_code
        self.description = description
        self.retry_after = retry_after

    def envelope(self) -> JSONDict:
        body: JSONDict = {
            "ok": False,
            "error_code": self.error_code,
            "description": self.description,
        }
        if self.retry_after is not None:
            body["parameters"] = {"retry_after": self.retry_after}
        return body


class _Refused(ApiError):
    """An error answered before the method ran: a rate limit, a random or a scripted fault."""

    def __init__(
        self, error_code: int, description: str, retry_after: int | None, *, refused_by: str
    ) -> None:
        super().__init__(error_code, description, retry_after)
        self.refused_by = refused_by


def _too_many_requests(retry_after: int) -> tuple[int, str, int]:
    return 429, f"Too Many Requests: retry after {retry_after}", retry_after


# What ApiCall.refused_by says for a call refused by one of the Limits ...
LIMIT_GROUP = "group_per_minute"
LIMIT_OVERALL = "overall_per_second"
LIMIT_PRIVATE = "private_per_second"
# ... by set_fault_rate, and by inject_error/inject_retry_after.
RANDOM_FAULT = "random_fault"
SCRIPTED_FAULT = "injected"
_LIMIT_NAMES = frozenset({LIMIT_GROUP, LIMIT_OVERALL, LIMIT_PRIVATE})

# Telegram's answers for server-side failures (the JSON its gateway sends with the status).
_SERVER_ERRORS = {
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}


@dataclass(frozen=True)
class Limits:
    """Telegram's flood limits, enforced by :class:`FakeTelegram` when given as ``limits=``.

    Calls count by their ``chat_id`` parameter (any method); calls without one
    (answerCallbackQuery, getUpdates, getMe, setMyCommands, ...) are never limited. A call
    over a limit is refused with 429 "Too Many Requests: retry after N" (N = whole seconds
    until the window has room, at least 1), is not executed and is not counted.

    Args:
        group_per_minute: calls into one group/supergroup in any sliding 60 s.
        overall_per_second: calls carrying any chat_id, across all chats, in any sliding 1 s.
        private_per_second: calls into one private chat per second: bursts of up to
            ``max(1, floor(rate))`` calls in a sliding window of that many ``/ rate`` seconds
            (1.0 = one per second, 0.5 = one per 2 s, 3 = three per second). ``None``: no limit.
        Any of them ``None``: that limit is not enforced.
    """

    group_per_minute: int | None = 20
    overall_per_second: int | None = 30
    private_per_second: float | None = None

    def __post_init__(self) -> None:
        for name in (LIMIT_GROUP, LIMIT_OVERALL, LIMIT_PRIVATE):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise ValueError(f"{name} must be positive (or None), not {value!r}")


class GroupPeak(NamedTuple):
    """The busiest minute of one group: see :meth:`FakeTelegram.max_group_calls_per_minute`."""

    calls: int
    chat_id: int | None
    start: float | None
    """Arrival time (the fake's clock) of the first call of that 60-second window."""


def _bad(message: str) -> ApiError:
    return ApiError(400, f"Bad Request: {message}")


def _forbidden(message: str) -> ApiError:
    return ApiError(403, f"Forbidden: {message}")


class EntityParseError(ValueError):
    """Raised by :func:`parse_html`; the message is what follows "can't parse entities: "."""


class ButtonNotFound(AssertionError):
    """A scripted user pressed a button that is not on the message's current keyboard."""


@dataclass(frozen=True)
class FakeUser:
    id: int
    first_name: str
    username: str | None = None
    last_name: str | None = None
    language_code: str | None = "it"  # scripted people speak Italian unless told otherwise

    def to_api(self) -> JSONDict:
        data: JSONDict = {"id": self.id, "is_bot": False, "first_name": self.first_name}
        if self.last_name:
            data["last_name"] = self.last_name
        if self.username:
            data["username"] = self.username
        if self.language_code:
            data["language_code"] = self.language_code
        return data


@dataclass
class FakeChat:
    """A private chat (``id == user.id``) or a supergroup (negative id)."""

    id: int
    type: str
    title: str | None = None
    username: str | None = None
    user: FakeUser | None = None
    owner_id: int | None = None
    admin_ids: set[int] = field(default_factory=set)
    member_ids: set[int] = field(default_factory=set)
    bot_is_admin: bool = False
    bot_is_member: bool = True
    pinned: list[int] = field(default_factory=list)  # pinned message ids, the newest last

    def to_api(self) -> JSONDict:
        if self.type == "private":
            assert self.user is not None
            data = {"id": self.id, "type": "private", "first_name": self.user.first_name}
            if self.user.last_name:
                data["last_name"] = self.user.last_name
            if self.user.username:
                data["username"] = self.user.username
            return data
        data = {"id": self.id, "type": self.type, "title": self.title}
        if self.username:
            data["username"] = self.username
        return data


@dataclass(frozen=True)
class FakeButton:
    """One inline keyboard button of a message, as found by :meth:`FakeTelegram.find_button`."""

    chat_id: int
    message_id: int
    text: str
    callback_data: str | None
    url: str | None
    row: int
    col: int


@dataclass
class FakeMessage:
    """State of one message. Snapshots are handed out; mutating them changes nothing.

    ``text`` is what users see (HTML tags removed, entities decoded, trimmed), ``raw_text``
    what the bot sent, ``versions`` every ``text`` it had (first = as sent).
    """

    chat_id: int
    message_id: int
    date: int
    from_user: JSONDict
    from_bot: bool
    text: str
    raw_text: str
    parse_mode: str | None = None
    entities: list[JSONDict] = field(default_factory=list)
    reply_markup: JSONDict | None = None
    other_markup: JSONDict | None = None
    reply_to_message_id: int | None = None
    edit_date: int | None = None
    edited: int = 0
    deleted: bool = False
    seen_by_bot: bool = True
    versions: list[str] = field(default_factory=list)
    service: str | None = None  # a service message ("pinned_message", "new_chat_members")
    document: FakeFile | None = None  # sendDocument (``text`` is then the caption)
    photo: FakeFile | None = None  # sendPhoto (``text`` is then the caption)

    @property
    def buttons(self) -> list[FakeButton]:
        """All inline buttons, row by row."""
        found: list[FakeButton] = []
        rows = (self.reply_markup or {}).get("inline_keyboard") or []
        for r, row in enumerate(rows):
            for c, button in enumerate(row):
                found.append(
                    FakeButton(
                        chat_id=self.chat_id,
                        message_id=self.message_id,
                        text=str(button.get("text", "")),
                        callback_data=button.get("callback_data"),
                        url=button.get("url"),
                        row=r,
                        col=c,
                    )
                )
        return found

    @property
    def keyboard(self) -> list[list[str]]:
        """Texts of the inline keyboard, as rows."""
        rows = (self.reply_markup or {}).get("inline_keyboard") or []
        return [[str(b.get("text", "")) for b in row] for row in rows]

    def button(self, text_contains: str) -> FakeButton:
        for button in self.buttons:
            if text_contains in button.text:
                return button
        raise LookupError(
            f"no button containing {text_contains!r} on message {self.message_id}; "
            f"keyboard: {self.keyboard}"
        )


@dataclass(frozen=True)
class CallbackAnswer:
    text: str | None
    show_alert: bool
    url: str | None
    cache_time: int | None


@dataclass
class _CallbackQuery:
    id: str
    user_id: int
    chat_id: int
    message_id: int
    data: str
    created_at: float
    answers: list[CallbackAnswer] = field(default_factory=list)
    attempts: int = 0
    update: _Update | None = None
    answered_at: float | None = None  # arrival of the accepted answerCallbackQuery


@dataclass(frozen=True)
class ApiCall:
    """One request the bot made: the method, its decoded parameters and what it got back.

    ``at`` is when it was answered (for getUpdates: after the long poll), ``arrived`` when
    the request had been read; both on the fake's clock. ``refused_by`` says why the call
    was answered without running: a limit (``"group_per_minute"``, ``"overall_per_second"``,
    ``"private_per_second"``), ``"random_fault"`` (:meth:`FakeTelegram.set_fault_rate`) or
    ``"injected"`` (:meth:`FakeTelegram.inject_error`); ``None`` if it ran.
    """

    seq: int
    method: str
    params: JSONDict
    ok: bool
    result: Any
    error_code: int | None
    description: str | None
    at: float
    arrived: float = 0.0
    refused_by: str | None = None


@dataclass
class WebhookPost:
    """One webhook request of the fake: the update, where it went, what came back (the HTTP
    status, or the connection error's name)."""

    update_id: int
    url: str
    result: int | str
    at: float


@dataclass
class _Update:
    update_id: int
    kind: str
    payload: JSONDict
    delivered: bool = False
    delivered_at: float | None = None  # first handed to the bot by getUpdates (fake's clock)

    def to_api(self) -> JSONDict:
        return {"update_id": self.update_id, self.kind: _copy_json(self.payload)}


def _copy_json(value: Any) -> Any:
    """A deep copy of JSON-like data (dicts, lists, scalars), much faster than deepcopy."""
    if isinstance(value, dict):
        return {key: _copy_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy_json(item) for item in value]
    return value


class _Upload(dict[str, Any]):
    """An uploaded file as a parameter: equal to ``{"filename": ..., "size": ...}`` (what the
    call log shows), with the bytes in ``data`` for sendDocument/sendPhoto."""

    def __init__(self, filename: str, data: bytes) -> None:
        super().__init__(filename=filename, size=len(data))
        self.data = data


@dataclass(frozen=True)
class FakeFile:
    """A file the bot uploaded (sendDocument, sendPhoto): what a test reads back."""

    file_id: str
    file_unique_id: str
    filename: str
    data: bytes
    mime_type: str | None = None


@dataclass
class _Fault:
    error: ApiError
    remaining: int


# --------------------------------------------------------------------------------------------
# Telegram's HTML parse mode (a port of tdlib's parse_html, td/telegram/MessageEntity.cpp)
# --------------------------------------------------------------------------------------------

_HTML_TAGS = frozenset(
    {
        "a",
        "b",
        "strong",
        "i",
        "em",
        "s",
        "strike",
        "del",
        "u",
        "ins",
        "tg-spoiler",
        "tg-emoji",
        "span",
        "pre",
        "code",
        "blockquote",
    }
)
_SPACES = frozenset(b" \t\r\n\v\f\x00")  # tdlib's is_space treats the terminating NUL as space
_UNICODE_ERROR = (
    "Text contains invalid Unicode characters after decoding HTML entities, "
    "check for unmatched surrogate code units"
)


def _decode_html_entity(data: bytes, pos: int) -> tuple[int, int]:
    """(code point, position after the entity), or (0, pos) if ``&`` starts no entity."""
    n = len(data)

    def at(i: int) -> int:
        return data[i] if i < n else 0

    end = pos + 1
    code = 0
    if at(pos + 1) == ord("#"):
        end += 1
        if at(pos + 2) == ord("x"):
            end += 1
            while chr(at(end)) in "0123456789abcdefABCDEF" and at(end):
                code = code * 16 + int(chr(at(end)), 16)
                end += 1
        else:
            while ord("0") <= at(end) <= ord("9"):
                code = code * 10 + at(end) - ord("0")
                end += 1
        if code == 0 or code >= 0x10FFFF or end - pos >= 10:
            return 0, pos
    else:
        while chr(at(end)).isascii() and chr(at(end)).isalpha():
            end += 1
        name = data[pos + 1 : end]
        code = {b"lt": 0x3C, b"gt": 0x3E, b"amp": 0x26, b"quot": 0x22}.get(name, 0)
        if code == 0:
            return 0, pos
    if at(end) == ord(";"):
        end += 1
    return code, end


def _append_code_point(out: bytearray, code: int) -> None:
    if 0xD800 <= code <= 0xDFFF:
        raise EntityParseError(_UNICODE_ERROR)
    out += chr(code).encode("utf-8")


def parse_html(text: str, *, strict_ampersand: bool = True) -> tuple[str, list[JSONDict]]:
    """Parse Telegram HTML into (plain text, entities) or raise :class:`EntityParseError`.

    Same grammar and error messages as Telegram (tdlib): allowed tags b, strong, i, em, u,
    ins, s, strike, del, span class="tg-spoiler", tg-spoiler, a href, code, pre, blockquote
    [expandable], tg-emoji emoji-id; entities &lt; &gt; &amp; &quot; and numeric ones.
    A bare ``<`` fails as Telegram does ("Unsupported start tag ..." or "Unclosed start
    tag ..."). Telegram keeps a bare ``&`` that starts no entity as text; with
    ``strict_ampersand`` (the default) this fake refuses it instead, since the API
    documentation requires escaping it and ``&lt`` in user-supplied text would otherwise be
    silently decoded. Entity offsets/lengths are in UTF-16 code units.
    """
    data = text.encode("utf-8")
    n = len(data)

    def at(i: int) -> int:
        return data[i] if i < n else 0

    def is_space(c: int) -> bool:
        return c in _SPACES

    def s(b: bytes) -> str:
        return b.decode("utf-8", "replace")

    out = bytearray()
    utf16 = 0
    entities: list[JSONDict] = []
    # (tag name, argument, utf16 offset of the entity start, byte offset in out)
    stack: list[tuple[str, str, int, int]] = []
    i = 0
    while i < n:
        c = data[i]
        if c == ord("&"):
            code, end = _decode_html_entity(data, i)
            if code:
                _append_code_point(out, code)
                utf16 += 2 if code > 0xFFFF else 1
                i = end
                continue
            if strict_ampersand:
                raise EntityParseError(
                    f'Unescaped "&" at byte offset {i} (this fake refuses it; escape it as &amp;)'
                )
        if c != ord("<"):
            if c & 0xC0 != 0x80:
                utf16 += 2 if c >= 0xF0 else 1
            out.append(c)
            i += 1
            continue

        begin = i
        i += 1
        if at(i) != ord("/"):
            while not is_space(at(i)) and at(i) != ord(">"):
                i += 1
            if at(i) == 0:
                raise EntityParseError(f"Unclosed start tag at byte offset {begin}")
            tag = s(data[begin + 1 : i]).lower()
            if tag not in _HTML_TAGS:
                raise EntityParseError(f'Unsupported start tag "{tag}" at byte offset {begin}')
            argument = ""
            while at(i) != ord(">"):
                while at(i) != 0 and is_space(at(i)):
                    i += 1
                if at(i) == ord(">"):
                    break
                attr_begin = i
                while not is_space(at(i)) and at(i) not in b"=>/\"'":
                    i += 1
                attr_name = s(data[attr_begin:i])
                if not attr_name:
                    raise EntityParseError(
                        f'Empty attribute name in the tag "{tag}" at byte offset {begin}'
                    )
                while at(i) != 0 and is_space(at(i)):
                    i += 1
                if at(i) != ord("="):
                    if at(i) == 0:
                        raise EntityParseError(f'Unclosed start tag "{tag}" at byte offset {begin}')
                    if tag == "blockquote" and attr_name == "expandable":
                        argument = "1"
                    continue
                i += 1
                while at(i) != 0 and is_space(at(i)):
                    i += 1
                if at(i) == 0:
                    raise EntityParseError(f'Unclosed start tag "{tag}" at byte offset {begin}')
                if at(i) not in b"\"'":
                    token_begin = i
                    while (chr(at(i)).isascii() and chr(at(i)).isalnum()) or at(i) in b".-":
                        i += 1
                    value = s(data[token_begin:i]).lower()
                    if not is_space(at(i)) and at(i) != ord(">"):
                        raise EntityParseError(
                            f"Unexpected end of name token at byte offset {token_begin}"
                        )
                else:
                    quote = at(i)
                    i += 1
                    buf = bytearray()
                    while at(i) != quote and at(i) != 0:
                        if at(i) == ord("&"):
                            code, end = _decode_html_entity(data, i)
                            if code:
                                _append_code_point(buf, code)
                                i = end
                                continue
                        buf.append(at(i))
                        i += 1
                    if at(i) == quote:
                        i += 1
                    value = s(bytes(buf))
                if at(i) == 0:
                    raise EntityParseError(f"Unclosed start tag at byte offset {begin}")
                if tag == "a" and attr_name == "href":
                    argument = value
                elif tag == "code" and attr_name == "class" and value.startswith("language-"):
                    argument = value[len("language-") :]
                elif tag == "span" and attr_name == "class" and value.startswith("tg-"):
                    argument = value[3:]
                elif (tag == "tg-emoji" and attr_name == "emoji-id") or (
                    tag == "blockquote" and attr_name == "expandable"
                ):
                    argument = value if tag == "tg-emoji" else "1"
            if tag == "span" and argument != "spoiler":
                raise EntityParseError(
                    f'Tag "span" must have class "tg-spoiler" at byte offset {begin}'
                )
            stack.append((tag, argument, utf16, len(out)))
            i += 1  # past ">"
            continue

        # an end tag
        if not stack:
            raise EntityParseError(f"Unexpected end tag at byte offset {begin}")
        while not is_space(at(i)) and at(i) != ord(">"):
            i += 1
        end_tag = s(data[begin + 2 : i]).lower()
        while is_space(at(i)) and at(i) != 0:
            i += 1
        if at(i) != ord(">"):
            raise EntityParseError(f"Unclosed end tag at byte offset {begin}")
        tag, argument, offset, out_pos = stack[-1]
        if end_tag and end_tag != tag:
            raise EntityParseError(
                f'Unmatched end tag at byte offset {begin}, expected "</{tag}>", '
                f'found "</{end_tag}>"'
            )
        if utf16 > offset:
            _close_entity(entities, tag, argument, offset, utf16 - offset, out, out_pos)
        stack.pop()
        i += 1  # past ">"

    if stack:
        raise EntityParseError(f'Can\'t find end tag corresponding to start tag "{stack[-1][0]}"')
    for entity in entities:
        if entity["type"] == "code":
            entity.pop("language", None)
    entities.sort(key=lambda e: (e["offset"], -e["length"]))
    return out.decode("utf-8"), entities


def _close_entity(
    entities: list[JSONDict],
    tag: str,
    argument: str,
    offset: int,
    length: int,
    out: bytearray,
    out_pos: int,
) -> None:
    simple = {
        "i": "italic",
        "em": "italic",
        "b": "bold",
        "strong": "bold",
        "s": "strikethrough",
        "strike": "strikethrough",
        "del": "strikethrough",
        "u": "underline",
        "ins": "underline",
        "tg-spoiler": "spoiler",
        "span": "spoiler",
    }
    last = entities[-1] if entities else None
    same_span = last is not None and last["offset"] == offset and last["length"] == length
    if tag in simple:
        entities.append({"type": simple[tag], "offset": offset, "length": length})
    elif tag == "tg-emoji":
        if not argument.isdigit() or int(argument) == 0:
            raise EntityParseError("Invalid custom emoji identifier specified")
        entities.append(
            {
                "type": "custom_emoji",
                "offset": offset,
                "length": length,
                "custom_emoji_id": argument,
            }
        )
    elif tag == "a":
        url = argument or out[out_pos:].decode("utf-8", "replace")
        if url:
            entities.append({"type": "text_link", "offset": offset, "length": length, "url": url})
    elif tag == "pre":
        if last is not None and same_span and last["type"] == "code" and last.get("language"):
            last["type"] = "pre"
        else:
            entities.append({"type": "pre", "offset": offset, "length": length})
    elif tag == "code":
        if last is not None and same_span and last["type"] == "pre" and argument:
            last["language"] = argument
        else:
            entity: JSONDict = {"type": "code", "offset": offset, "length": length}
            if argument:
                entity["language"] = argument
            entities.append(entity)
    elif tag == "blockquote":
        kind = "expandable_blockquote" if argument else "blockquote"
        entities.append({"type": kind, "offset": offset, "length": length})


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _trim(text: str, entities: list[JSONDict]) -> tuple[str, list[JSONDict]]:
    """Telegram strips leading and trailing whitespace; entities are shifted and clipped."""
    stripped = text.strip()
    if stripped == text:
        return text, entities
    lead = _utf16_len(text[: len(text) - len(text.lstrip())])
    total = _utf16_len(stripped)
    kept: list[JSONDict] = []
    for entity in entities:
        start = max(0, entity["offset"] - lead)
        end = min(total, entity["offset"] + entity["length"] - lead)
        if end > start:
            kept.append({**entity, "offset": start, "length": end - start})
    return stripped, kept


def bot_command_entities(text: str) -> list[JSONDict]:
    """bot_command entities as Telegram detects them (tdlib's match_bot_commands)."""

    def is_word(ch: str) -> bool:
        return ch.isalnum() or ch == "_"

    def is_cmd(ch: str) -> bool:
        return ch.isascii() and (ch.isalnum() or ch == "_")

    found: list[JSONDict] = []
    n = len(text)
    i = 0
    while (j := text.find("/", i)) != -1:
        i = j + 1
        if j > 0 and (is_word(text[j - 1]) or text[j - 1] in "/<>"):
            continue
        k = j + 1
        while k < n and is_cmd(text[k]):
            k += 1
        i = max(i, k)
        if not 1 <= k - j - 1 <= 64:
            continue
        if k < n and text[k] == "@":
            m = k + 1
            while m < n and is_cmd(text[m]):
                m += 1
            i = max(i, m)
            if not 3 <= m - k - 1 <= 32:
                continue
            k = m
        if k < n and (is_word(text[k]) or text[k] in "/<>"):
            continue
        found.append(
            {"type": "bot_command", "offset": _utf16_len(text[:j]), "length": _utf16_len(text[j:k])}
        )
    return found


# --------------------------------------------------------------------------------------------
# Request decoding
# --------------------------------------------------------------------------------------------


def _coerce_field(name: str, value: Any) -> Any:
    """Type one parameter the way the Bot API reads it from a form field or JSON body."""
    if isinstance(value, str):
        if name in _JSON_FIELDS:
            try:
                return json.loads(value)
            except ValueError:
                if name == "reply_markup":
                    raise _bad("can't parse reply keyboard markup JSON object") from None
                raise _bad(f"can't parse {name} JSON object") from None
        if name in _INT_FIELDS:
            try:
                number = float(value) if name == "timeout" else int(value)
            except ValueError:
                raise _bad(f"invalid {name} specified") from None
            return number
        if name == "chat_id":
            return int(value) if re.fullmatch(r"-?\d+", value.strip()) else value.strip()
        if name in _BOOL_FIELDS:
            return value.strip().lower() in ("true", "1")
    return value


def _decode_params(content_type: str, body: bytes, query: str) -> JSONDict:
    raw: JSONDict = dict(parse_qsl(query, keep_blank_values=True))
    ctype = content_type.split(";", 1)[0].strip().lower()
    if body:
        if ctype == "application/json":
            try:
                loaded = json.loads(body)
            except ValueError:
                raise _bad("can't parse JSON object") from None
            if not isinstance(loaded, dict):
                raise _bad("can't parse JSON object")
            raw.update(loaded)
        elif ctype == "multipart/form-data":
            message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
                b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + body
            )
            for part in message.iter_parts():
                name = part.get_param("name", header="content-disposition")
                if not isinstance(name, str):
                    continue
                payload = part.get_payload(decode=True)
                content = payload if isinstance(payload, bytes) else b""
                filename = part.get_filename()
                if filename is not None:
                    raw[name] = _Upload(filename, content)
                else:
                    raw[name] = content.decode("utf-8")
        else:
            raw.update(parse_qsl(body.decode("utf-8"), keep_blank_values=True))
    return {name: _coerce_field(name, value) for name, value in raw.items()}


# --------------------------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------------------------

ChatRef = FakeChat | FakeUser | int
Handler = Callable[[JSONDict], Any]


class FakeTelegram:
    """A Bot API stand-in with scripted users. See the module docstring.

    Args:
        token: if set, only this token is accepted (401 "Unauthorized" otherwise); by default
            any well-formed ``<digits>:<chars>`` token is, and the bot's id is its number.
        bot_username, bot_first_name: what getMe returns (commands ``/cmd@<bot_username>``).
        threaded: run the HTTP server on its own thread and event loop (for a bot in another
            process, or a test that blocks its own loop).
        privacy_mode: Telegram's default for bots. In groups where the bot is not an admin it
            then only receives commands (``/cmd`` or ``/cmd@bot_username``) and replies to its
            own messages; other group messages are stored but produce no update.
        strict_html_ampersand: refuse a bare ``&`` in HTML text (see :func:`parse_html`).
        callback_query_ttl: seconds after which answerCallbackQuery says the query is too old
            (``None``: never, only unknown or already answered ids fail).
        limits: enforce Telegram's flood limits (see :class:`Limits`); ``None``: no limits.
            Refused calls are in :attr:`limit_violations`.
        clock: the monotonic clock used for the limits' windows, the query TTL and every
            timestamp of the fake (``ApiCall.at``/``arrived``, deliveries, latencies); a test
            can pass its own to advance time instead of sleeping.
    """

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

        self._handlers: dict[str, Handler] = {
            "getMe": self._get_me,
            "logOut": self._true,
            "close": self._true,
            "deleteWebhook": self._delete_webhook,
            "setWebhook": self._set_webhook,
            "getWebhookInfo": self._get_webhook_info,
            "sendMessage": self._send_message,
            "sendDocument": self._send_document,
            "sendPhoto": self._send_photo,
            "editMessageText": self._edit_message_text,
            "editMessageReplyMarkup": self._edit_message_reply_markup,
            "deleteMessage": self._delete_message,
            "answerCallbackQuery": self._answer_callback_query,
            "getChat": self._get_chat,
            "getChatMember": self._get_chat_member,
            "getChatAdministrators": self._get_chat_administrators,
            "getChatMemberCount": self._get_chat_member_count,
            "setMyCommands": self._set_my_commands,
            "getMyCommands": self._get_my_commands,
            "deleteMyCommands": self._delete_my_commands,
            "sendChatAction": self._send_chat_action,
            "pinChatMessage": self._pin_chat_message,
            "unpinChatMessage": self._unpin_chat_message,
        }
        for name in ("setMyDescription", "setMyShortDescription", "setMyName", "setChatMenuButton"):
            self._handlers[name] = self._setting_handler(name)
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

    # ---------------------------------------------------------------- method handlers

    def _bot_user(self) -> JSONDict:
        return {
            "id": self.bot_id,
            "is_bot": True,
            "first_name": self.bot_first_name,
            "username": self.bot_username,
        }

    def _get_me(self, params: JSONDict) -> JSONDict:
        return {
            **self._bot_user(),
            "can_join_groups": True,
            "can_read_all_group_messages": not self.privacy_mode,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    def _true(self, params: JSONDict) -> bool:
        return True

    def _delete_webhook(self, params: JSONDict) -> bool:
        self._webhook_deleted_description = (
            "Webhook was deleted" if self._webhook_url else "Webhook is already deleted"
        )
        self._webhook_url = self._webhook_secret = ""
        if params.get("drop_pending_updates"):
            self._updates.clear()
        return True

    def _set_webhook(self, params: JSONDict) -> bool:
        url = str(params.get("url") or "")
        if url and not url.startswith("https://"):
            raise _bad("bad webhook: An HTTPS URL must be provided for webhook")
        secret = str(params.get("secret_token") or "")
        if secret and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", secret):
            raise _bad("bad webhook: secret token contains unallowed characters")
        allowed = params.get("allowed_updates")
        if isinstance(allowed, list) and allowed:
            self._allowed_updates = frozenset(str(a) for a in allowed) & ALL_UPDATE_TYPES
        self._webhook_url, self._webhook_secret = url, secret
        if params.get("drop_pending_updates"):
            self._updates.clear()
        self._deliver_soon()
        return True

    def _get_webhook_info(self, params: JSONDict) -> JSONDict:
        return {
            "url": self._webhook_url,
            "has_custom_certificate": False,
            "pending_update_count": len(self._updates),
        }

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

    def _check_can_write(self, chat: FakeChat) -> None:
        if chat.type == "private":
            if chat.id in self._blocked:
                raise _forbidden("bot was blocked by the user")
            if chat.id not in self._started:
                raise _forbidden(CANT_INITIATE)
        elif not chat.bot_is_member:
            raise _forbidden(f"bot was kicked from the {chat.type} chat")

    def _format_text(self, params: JSONDict) -> tuple[str, str, str | None, list[JSONDict]]:
        """(plain text, raw text, parse_mode, entities) or the Bot API's 400."""
        raw = params.get("text")
        if raw is None or str(raw) == "":
            raise _bad("message text is empty")
        raw = str(raw)
        parse_mode = params.get("parse_mode") or None
        explicit = params.get("entities")
        if explicit is not None:
            if not isinstance(explicit, list):
                raise _bad("can't parse entities JSON object")
            text, entities = raw, [dict(e) for e in explicit if isinstance(e, dict)]
            parse_mode = None
        elif parse_mode is None:
            text, entities = raw, []
        elif str(parse_mode).lower() == "html":
            try:
                text, entities = parse_html(raw, strict_ampersand=self.strict_html_ampersand)
            except EntityParseError as err:
                raise _bad(f"can't parse entities: {err}") from None
        elif str(parse_mode).lower() in ("markdown", "markdownv2"):
            text, entities = raw, []  # not validated by this fake
        else:
            raise _bad("unsupported parse_mode")
        text, entities = _trim(text, entities)
        entities = [m for e in entities if (m := self._mention(e)) is not None]
        if not text:
            raise _bad("message text is empty")
        if len(text) > MAX_MESSAGE_LENGTH:
            raise _bad("message is too long")
        return text, raw, parse_mode, entities

    def _mention(self, entity: JSONDict) -> JSONDict | None:
        """An inline link to tg://user?id=<id> mentions that user: Telegram turns it into a
        "text_mention" entity carrying the user (and notifies them). Only a user Telegram
        lets the bot mention becomes one (this fake: one it knows); otherwise the link is
        dropped and the text stays plain."""
        url = entity.get("url") or ""
        if entity.get("type") != "text_link" or not url.startswith("tg://user?id="):
            return entity
        user_id = url.removeprefix("tg://user?id=")
        user = self._users.get(int(user_id)) if user_id.isdigit() else None
        if user is None:
            return None
        return {
            "type": "text_mention",
            "offset": entity["offset"],
            "length": entity["length"],
            "user": user.to_api(),
        }

    @staticmethod
    def _validate_markup(markup: Any) -> JSONDict | None:
        """Validate reply_markup; returns it (inline or not) or None."""
        if markup is None:
            return None
        if not isinstance(markup, dict):
            raise _bad("can't parse reply keyboard markup JSON object")
        if "inline_keyboard" not in markup:
            return markup
        rows = markup["inline_keyboard"]
        if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
            raise _bad(
                'can\'t parse inline keyboard button: Field "inline_keyboard" of the '
                "InlineKeyboardMarkup must be an Array of Arrays"
            )
        if sum(len(row) for row in rows) > MAX_INLINE_BUTTONS:
            raise _bad("reply markup is too long")
        for row in rows:
            for button in row:
                if not isinstance(button, dict):
                    raise _bad(
                        "can't parse inline keyboard button: InlineKeyboardButton must be an Object"
                    )
                if not isinstance(button.get("text"), str):
                    raise _bad('can\'t parse inline keyboard button: Field "text" must be a String')
                actions = [a for a in INLINE_BUTTON_ACTIONS if a in button]
                if not actions:
                    raise _bad(
                        "can't parse inline keyboard button: "
                        "Text buttons are unallowed in the inline keyboard"
                    )
                if "callback_data" in button:
                    data = button["callback_data"]
                    size = len(str(data).encode("utf-8"))
                    if not isinstance(data, str) or not 1 <= size <= MAX_CALLBACK_DATA_BYTES:
                        raise _bad("BUTTON_DATA_INVALID")
                if "url" in button:
                    url = str(button["url"])
                    if not re.match(r"(https?|tg)://\S+", url):
                        raise _bad("BUTTON_URL_INVALID")
        return markup

    def _new_message(
        self,
        chat: FakeChat,
        *,
        from_user: JSONDict,
        from_bot: bool,
        text: str,
        raw_text: str,
        parse_mode: str | None,
        entities: list[JSONDict],
        markup: JSONDict | None = None,
        reply_to: int | None = None,
    ) -> FakeMessage:
        message_id = self._next_message_id.get(chat.id, 1)
        self._next_message_id[chat.id] = message_id + 1
        inline = markup if markup is not None and "inline_keyboard" in markup else None
        message = FakeMessage(
            chat_id=chat.id,
            message_id=message_id,
            date=int(time.time()),
            from_user=from_user,
            from_bot=from_bot,
            text=text,
            raw_text=raw_text,
            parse_mode=parse_mode,
            entities=entities,
            reply_markup=_copy_json(inline),
            other_markup=None if inline is not None else _copy_json(markup),
            reply_to_message_id=reply_to,
            versions=[text],
        )
        self._messages.setdefault(chat.id, []).append(message)
        self._by_id[(chat.id, message_id)] = message
        return message

    def _service_message(
        self,
        chat: FakeChat,
        service: str,
        *,
        from_user: JSONDict,
        from_bot: bool,
        reply_to: int | None = None,
    ) -> FakeMessage:
        """A service message (a pin, a member added): no text of its own."""
        note = self._new_message(
            chat,
            from_user=from_user,
            from_bot=from_bot,
            text="",
            raw_text="",
            parse_mode=None,
            entities=[],
            reply_to=reply_to,
        )
        note.service = service
        return note

    def _message_api(self, message: FakeMessage, *, with_reply: bool = True) -> JSONDict:
        data: JSONDict = {
            "message_id": message.message_id,
            "from": _copy_json(message.from_user),
            "chat": self._chats[message.chat_id].to_api(),
            "date": message.date,
        }
        if message.edit_date is not None:
            data["edit_date"] = message.edit_date
        if with_reply and message.reply_to_message_id is not None:
            replied = self._by_id.get((message.chat_id, message.reply_to_message_id))
            if replied is not None and not replied.deleted:
                data["reply_to_message"] = self._message_api(replied, with_reply=False)
        if message.document is not None or message.photo is not None:
            if message.document is not None:
                data["document"] = self._file_api(message.document)
            if message.photo is not None:
                size = {**self._file_api(message.photo), "width": 640, "height": 480}
                del size["file_name"]
                data["photo"] = [size]
            if message.text:
                data["caption"] = message.text
            if message.entities:
                data["caption_entities"] = _copy_json(message.entities)
        else:
            data["text"] = message.text
            if message.entities:
                data["entities"] = _copy_json(message.entities)
        if message.reply_markup is not None:
            data["reply_markup"] = _copy_json(message.reply_markup)
        return data

    def _reply_target(self, chat: FakeChat, params: JSONDict) -> int | None:
        reply = params.get("reply_parameters")
        message_id: Any = None
        allow_missing = bool(params.get("allow_sending_without_reply"))
        if isinstance(reply, dict):
            message_id = reply.get("message_id")
            allow_missing = allow_missing or bool(reply.get("allow_sending_without_reply"))
        elif params.get("reply_to_message_id") is not None:
            message_id = params["reply_to_message_id"]
        if message_id is None:
            return None
        target = self._by_id.get((chat.id, int(message_id)))
        if target is None or target.deleted:
            if allow_missing:
                return None
            raise _bad("message to be replied not found")
        return int(message_id)

    def _send_message(self, params: JSONDict) -> JSONDict:
        chat = self._chat_from_param(params.get("chat_id"))
        text, raw, parse_mode, entities = self._format_text(params)
        markup = self._validate_markup(params.get("reply_markup"))
        self._check_can_write(chat)
        message = self._bot_message(chat, params, text, raw, parse_mode, entities, markup)
        return self._message_api(message)

    def _bot_message(
        self,
        chat: FakeChat,
        params: JSONDict,
        text: str,
        raw: str,
        parse_mode: str | None,
        entities: list[JSONDict],
        markup: JSONDict | None,
    ) -> FakeMessage:
        """A message the bot sends to `chat` (sendMessage, sendDocument, sendPhoto), a reply
        where `params` ask for one."""
        reply_to = self._reply_target(chat, params)
        return self._new_message(
            chat,
            from_user=self._bot_user(),
            from_bot=True,
            text=text,
            raw_text=raw,
            parse_mode=parse_mode,
            entities=entities,
            markup=markup,
            reply_to=reply_to,
        )

    @staticmethod
    def _file_api(file: FakeFile) -> JSONDict:
        data: JSONDict = {
            "file_id": file.file_id,
            "file_unique_id": file.file_unique_id,
            "file_name": file.filename,
            "file_size": len(file.data),
        }
        if file.mime_type:
            data["mime_type"] = file.mime_type
        return data

    def _upload(self, params: JSONDict, field_name: str) -> FakeFile:
        """The file of sendDocument/sendPhoto: a multipart upload or a known file_id."""
        value = params.get(field_name)
        if isinstance(value, _Upload):
            unique = f"U{len(self._files) + 1:06d}"
            name = str(value["filename"])
            mime = "image/png" if name.lower().endswith(".png") else None
            if name.lower().endswith((".csv", ".txt")):
                mime = "text/csv" if name.lower().endswith(".csv") else "text/plain"
            elif name.lower().endswith(".json"):
                mime = "application/json"
            file = FakeFile(f"F{field_name}{unique}", unique, name, value.data, mime)
            self._files[file.file_id] = file
            return file
        if isinstance(value, str) and value in self._files:
            return self._files[value]
        if value is None or value == "":
            raise _bad(f"there is no {field_name} in the request")
        raise _bad("wrong file identifier/HTTP URL specified")

    def _send_file(self, params: JSONDict, field_name: str) -> JSONDict:
        chat = self._chat_from_param(params.get("chat_id"))
        caption = params.get("caption")
        entities: list[JSONDict] = []
        text, raw, parse_mode = "", "", None
        if caption is not None and str(caption) != "":
            text, raw, parse_mode, entities = self._format_text({**params, "text": caption})
            if len(text) > MAX_CAPTION_LENGTH:
                raise _bad("message caption is too long")
        markup = self._validate_markup(params.get("reply_markup"))
        self._check_can_write(chat)
        file = self._upload(params, field_name)
        message = self._bot_message(chat, params, text, raw, parse_mode, entities, markup)
        if field_name == "photo":
            message.photo = file
        else:
            message.document = file
        return self._message_api(message)

    def _send_document(self, params: JSONDict) -> JSONDict:
        return self._send_file(params, "document")

    def _send_photo(self, params: JSONDict) -> JSONDict:
        return self._send_file(params, "photo")

    def _message_to_edit(self, params: JSONDict, *, what: str = "edit") -> FakeMessage:
        if params.get("inline_message_id"):
            raise _bad("MESSAGE_ID_INVALID")
        chat = self._chat_from_param(params.get("chat_id"))
        message_id = params.get("message_id")
        if message_id is None:
            raise _bad("message identifier is not specified")
        message = self._by_id.get((chat.id, int(message_id)))
        if message is None or message.deleted:
            raise _bad(f"message to {what} not found")
        return message

    def _apply_edit(
        self,
        message: FakeMessage,
        text: str,
        raw: str,
        parse_mode: str | None,
        entities: list[JSONDict],
        markup: JSONDict | None,
    ) -> JSONDict:
        if markup is not None and "inline_keyboard" not in markup:
            raise _bad("inline keyboard expected")
        if (
            text == message.text
            and entities == message.entities
            and (markup or None) == message.reply_markup
        ):
            raise _bad(NOT_MODIFIED)
        if text != message.text:
            message.versions.append(text)
        message.text, message.raw_text, message.parse_mode = text, raw, parse_mode
        message.entities = entities
        message.reply_markup = _copy_json(markup)
        message.edit_date = int(time.time())
        message.edited += 1
        return self._message_api(message)

    def _edit_message_text(self, params: JSONDict) -> JSONDict:
        message = self._message_to_edit(params)
        text, raw, parse_mode, entities = self._format_text(params)
        markup = self._validate_markup(params.get("reply_markup"))
        if not message.from_bot:
            raise _bad("message can't be edited")
        if message.document is not None or message.photo is not None:
            raise _bad("there is no text in the message to edit")
        # Without reply_markup, Telegram removes the message's inline keyboard.
        return self._apply_edit(message, text, raw, parse_mode, entities, markup)

    def _edit_message_reply_markup(self, params: JSONDict) -> JSONDict:
        message = self._message_to_edit(params)
        markup = self._validate_markup(params.get("reply_markup"))
        if not message.from_bot:
            raise _bad("message can't be edited")
        return self._apply_edit(
            message, message.text, message.raw_text, message.parse_mode, message.entities, markup
        )

    def _delete_message(self, params: JSONDict) -> bool:
        message = self._message_to_edit(params, what="delete")
        chat = self._chats[message.chat_id]
        if not message.from_bot and chat.type != "private" and not chat.bot_is_admin:
            raise _bad("message can't be deleted")
        # Bot API: "a message can only be deleted if it was sent less than 48 hours ago"
        if time.time() - message.date >= DELETE_MAX_AGE:
            raise _bad("message can't be deleted for everyone")
        message.deleted = True
        if message.message_id in chat.pinned:  # a deleted message is no longer pinned
            chat.pinned.remove(message.message_id)
        return True

    def _answer_callback_query(self, params: JSONDict) -> bool:
        query = self._queries.get(str(params.get("callback_query_id") or ""))
        if query is None:
            raise _bad(QUERY_TOO_OLD)
        query.attempts += 1
        expired = (
            self.callback_query_ttl is not None
            and self._clock() - query.created_at > self.callback_query_ttl
        )
        if query.answers or expired:
            raise _bad(QUERY_TOO_OLD)
        text = params.get("text")
        if text is not None and len(str(text)) > MAX_CALLBACK_ANSWER_LENGTH:
            raise _bad("MESSAGE_TOO_LONG")
        cache_time = params.get("cache_time")
        query.answers.append(
            CallbackAnswer(
                text=None if text is None else str(text),
                show_alert=bool(params.get("show_alert")),
                url=params.get("url"),
                cache_time=None if cache_time is None else int(cache_time),
            )
        )
        query.answered_at = self._arrival
        return True

    def _get_chat(self, params: JSONDict) -> JSONDict:
        chat = self._chat_from_param(params.get("chat_id"))
        return {
            **chat.to_api(),
            "accent_color_id": 0,
            "max_reaction_count": 11,
            "accepted_gift_types": {
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        }

    def _member_api(self, chat: FakeChat, user_id: int) -> JSONDict:
        if user_id == self.bot_id:
            user = self._bot_user()
            if chat.type != "private" and chat.bot_is_admin:
                return self._admin_api(user)
            return {"status": "member" if chat.bot_is_member else "left", "user": user}
        fake_user = self._users.get(user_id)
        if fake_user is None:
            raise _bad("user not found")
        user = fake_user.to_api()
        if chat.type == "private":
            status = "member" if user_id == chat.id else "left"
            return {"status": status, "user": user}
        if user_id == chat.owner_id:
            return {"status": "creator", "user": user, "is_anonymous": False}
        if user_id in chat.admin_ids:
            return self._admin_api(user)
        if user_id in chat.member_ids:
            return {"status": "member", "user": user}
        return {"status": "left", "user": user}

    @staticmethod
    def _admin_api(user: JSONDict) -> JSONDict:
        return {
            "status": "administrator",
            "user": user,
            "can_be_edited": False,
            "is_anonymous": False,
            "can_manage_chat": True,
            "can_delete_messages": True,
            "can_manage_video_chats": True,
            "can_restrict_members": True,
            "can_promote_members": False,
            "can_change_info": True,
            "can_invite_users": True,
            "can_post_stories": False,
            "can_edit_stories": False,
            "can_delete_stories": False,
            "can_pin_messages": True,
            "can_manage_topics": False,
        }

    def _get_chat_member(self, params: JSONDict) -> JSONDict:
        chat = self._chat_from_param(params.get("chat_id"))
        user_id = params.get("user_id")
        if user_id is None:
            raise _bad("user_id is empty")
        return self._member_api(chat, int(user_id))

    def _get_chat_administrators(self, params: JSONDict) -> list[JSONDict]:
        chat = self._chat_from_param(params.get("chat_id"))
        if chat.type == "private":
            raise _bad("there are no administrators in the private chat")
        ids = ([chat.owner_id] if chat.owner_id is not None else []) + sorted(chat.admin_ids)
        admins = [self._member_api(chat, uid) for uid in dict.fromkeys(ids)]
        if chat.bot_is_admin:
            admins.append(self._admin_api(self._bot_user()))
        return admins

    def _get_chat_member_count(self, params: JSONDict) -> int:
        chat = self._chat_from_param(params.get("chat_id"))
        if chat.type == "private":
            return 2
        humans = chat.member_ids | chat.admin_ids
        if chat.owner_id is not None:
            humans = humans | {chat.owner_id}
        return len(humans) + (1 if chat.bot_is_member else 0)

    @staticmethod
    def _scope_key(params: JSONDict) -> tuple[str, str]:
        scope = params.get("scope") or {"type": "default"}
        if not isinstance(scope, dict) or "type" not in scope:
            raise _bad("can't parse BotCommandScope JSON object")
        return json.dumps(scope, sort_keys=True), str(params.get("language_code") or "")

    def _set_my_commands(self, params: JSONDict) -> bool:
        commands = params.get("commands")
        if not isinstance(commands, list):
            raise _bad("can't parse commands JSON object")
        cleaned: list[JSONDict] = []
        for command in commands:
            if not isinstance(command, dict) or not _COMMAND_RE.fullmatch(
                str(command.get("command", ""))
            ):
                raise _bad("BOT_COMMAND_INVALID")
            description = str(command.get("description", ""))
            if not 1 <= len(description) <= 256:
                raise _bad("BOT_COMMAND_DESCRIPTION_INVALID")
            cleaned.append({"command": command["command"], "description": description})
        self._commands[self._scope_key(params)] = cleaned
        return True

    def _get_my_commands(self, params: JSONDict) -> list[JSONDict]:
        return copy.deepcopy(self._commands.get(self._scope_key(params), []))

    def _delete_my_commands(self, params: JSONDict) -> bool:
        self._commands.pop(self._scope_key(params), None)
        return True

    def _pin_chat_message(self, params: JSONDict) -> bool:
        """pinChatMessage: in a group only an admin with can_pin_messages (this fake's admin
        bot has it) may pin; the group then shows a service message from the bot, which
        notifies nobody with disable_notification."""
        chat = self._chat_from_param(params.get("chat_id"))
        if params.get("message_id") is None:
            raise _bad("message identifier is not specified")
        if chat.type != "private" and not chat.bot_is_admin:
            raise _bad("not enough rights to manage pinned messages in the chat")
        message = self._by_id.get((chat.id, int(params["message_id"])))
        if message is None or message.deleted:
            raise _bad("message to pin not found")
        if message.message_id in chat.pinned:
            chat.pinned.remove(message.message_id)
        chat.pinned.append(message.message_id)
        if chat.type != "private":
            self._service_message(
                chat,
                "pinned_message",
                from_user=self._bot_user(),
                from_bot=True,
                reply_to=message.message_id,
            )
        return True

    def _unpin_chat_message(self, params: JSONDict) -> bool:
        chat = self._chat_from_param(params.get("chat_id"))
        if chat.type != "private" and not chat.bot_is_admin:
            raise _bad("not enough rights to manage pinned messages in the chat")
        message_id = params.get("message_id")
        if message_id is None:
            if chat.pinned:
                chat.pinned.pop()
        elif int(message_id) in chat.pinned:
            chat.pinned.remove(int(message_id))
        else:
            raise _bad("message to unpin not found")
        return True

    def _send_chat_action(self, params: JSONDict) -> bool:
        chat = self._chat_from_param(params.get("chat_id"))
        self._check_can_write(chat)
        return True

    def _setting_handler(self, method: str) -> Handler:
        def store(params: JSONDict) -> bool:
            self._settings[method] = params
            return True

        return store

    # ---------------------------------------------------------------- scripted people

    def user(
        self,
        id: int,
        first_name: str,
        username: str | None = None,
        last_name: str | None = None,
        *,
        language_code: str | None = "it",
    ) -> FakeUser:
        """Register a person; their private chat has ``chat_id == id``."""
        if id <= 0:
            raise ValueError("user ids are positive")
        user = FakeUser(id, first_name, username, last_name, language_code)
        with self._lock:
            self._users[id] = user
            self._chats[id] = FakeChat(id=id, type="private", user=user)
        return user

    def group(
        self,
        chat_id: int,
        title: str,
        admins: Iterable[FakeUser] = (),
        *,
        owner: FakeUser | None = None,
        members: Iterable[FakeUser] = (),
        username: str | None = None,
        bot_is_admin: bool = False,
        bot_is_member: bool = True,
    ) -> FakeChat:
        """A supergroup the bot is in (``chat_id`` negative, e.g. -1001234567890)."""
        if chat_id >= 0:
            raise ValueError("group chat ids are negative")
        chat = FakeChat(
            id=chat_id,
            type="supergroup",
            title=title,
            username=username,
            owner_id=owner.id if owner else None,
            admin_ids={a.id for a in admins},
            member_ids={m.id for m in members},
            bot_is_admin=bot_is_admin,
            bot_is_member=bot_is_member,  # False: the bot is added later (`add_bot_to`)
        )
        with self._lock:
            for person in [*([owner] if owner else []), *admins, *members]:
                self._users.setdefault(person.id, person)
            self._chats[chat_id] = chat
        return chat

    def set_admins(self, chat: ChatRef, admins: Iterable[FakeUser]) -> None:
        with self._lock:
            group = self._chats[self._chat_id(chat)]
            group.admin_ids = {a.id for a in admins}

    def add_bot_to(self, chat: ChatRef, by: FakeUser, *, as_admin: bool = False) -> None:
        """``by`` adds the bot to the group ``chat``: Telegram sends the bot a my_chat_member
        update (its status from "left" to "member", or "administrator") and the group gets
        the service message "``by`` added the bot" (a message update: bots see service
        messages even with privacy mode on)."""
        with self._lock:
            group = self._chat_for(chat)
            if group.type == "private":
                raise ValueError("bots are added to groups")
            old = self._member_api(group, self.bot_id)
            group.bot_is_member = True
            group.bot_is_admin = as_admin
            group.member_ids.add(by.id)
            self._users.setdefault(by.id, by)
            new = self._member_api(group, self.bot_id)
            payload = {
                "chat": group.to_api(),
                "from": by.to_api(),
                "date": int(time.time()),
                "old_chat_member": old,
                "new_chat_member": new,
            }
            note = self._service_message(
                group, "new_chat_members", from_user=by.to_api(), from_bot=False
            )
            data = self._message_api(note)
            data.pop("text", None)
            data["new_chat_members"] = [self._bot_user()]
            data["new_chat_member"] = self._bot_user()
            data["new_chat_participant"] = self._bot_user()
        self._enqueue("my_chat_member", payload)
        self._enqueue("message", data)

    def pinned(self, chat: ChatRef) -> list[int]:
        """The chat's pinned message ids, the newest last."""
        with self._lock:
            return list(self._chat_for(chat).pinned)

    def set_bot_admin(
        self, chat: ChatRef, is_admin: bool = True, *, by: FakeUser | None = None
    ) -> None:
        """Promote (or demote) the bot. With ``by`` (who did it), the bot gets the
        my_chat_member update Telegram sends when its rights change."""
        with self._lock:
            group = self._chats[self._chat_id(chat)]
            old = self._member_api(group, self.bot_id)
            group.bot_is_admin = is_admin
            new = self._member_api(group, self.bot_id)
            payload = {
                "chat": group.to_api(),
                "from": by.to_api() if by is not None else {},
                "date": int(time.time()),
                "old_chat_member": old,
                "new_chat_member": new,
            }
        if by is not None and old != new and group.bot_is_member:
            self._enqueue("my_chat_member", payload)

    def block_bot(self, user: FakeUser) -> None:
        """The user blocks the bot: sends to them fail with 403 until they write again."""
        with self._lock:
            self._blocked.add(user.id)

    def has_started(self, user: FakeUser) -> bool:
        with self._lock:
            return user.id in self._started

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

    async def send_text(
        self,
        user: FakeUser,
        chat: ChatRef,
        text: str,
        *,
        reply_to: FakeMessage | int | None = None,
    ) -> FakeMessage:
        """``user`` writes ``text`` in ``chat`` (a group, or the user for their private chat).

        ``/cmd@bot args`` gets its bot_command entity. A private message (the first one is
        /start in real clients) marks the user as having started the bot and unblocks it.
        In groups the user becomes a member; with privacy mode the bot only gets an update
        for commands and replies to its messages (unless it is admin).
        """
        with self._lock:
            if user.id not in self._users:
                self._users[user.id] = user
                self._chats.setdefault(user.id, FakeChat(id=user.id, type="private", user=user))
            target = self._chat_for(chat)
            if target.type == "private":
                if target.id != user.id:
                    raise ValueError(f"user {user.id} cannot write in the private chat {target.id}")
                self._started.add(user.id)
                self._blocked.discard(user.id)
            else:
                target.member_ids.add(user.id)
            reply_id = reply_to.message_id if isinstance(reply_to, FakeMessage) else reply_to
            if reply_id is not None and (target.id, reply_id) not in self._by_id:
                raise LookupError(f"no message {reply_id} in chat {target.id} to reply to")
            message = self._new_message(
                target,
                from_user=user.to_api(),
                from_bot=False,
                text=text,
                raw_text=text,
                parse_mode=None,
                entities=bot_command_entities(text),
                reply_to=reply_id,
            )
            message.seen_by_bot = self._bot_sees(target, message)
            if message.seen_by_bot:
                update = self._enqueue("message", self._message_api(message))
                if update is not None and text.startswith("/"):
                    self._command_updates.append((target.id, update))
            return copy.deepcopy(message)

    def _bot_sees(self, chat: FakeChat, message: FakeMessage) -> bool:
        if chat.type == "private" or not self.privacy_mode or chat.bot_is_admin:
            return True
        if message.reply_to_message_id is not None:
            replied = self._by_id.get((chat.id, message.reply_to_message_id))
            if replied is not None and replied.from_bot:
                return True
        first = message.entities[0] if message.entities else None
        if first is not None and first["type"] == "bot_command" and first["offset"] == 0:
            command = message.text.encode("utf-16-le")[: first["length"] * 2].decode("utf-16-le")
            _, _, addressee = command.partition("@")
            return not addressee or addressee.lower() == self.bot_username.lower()
        return False

    async def press(
        self, user: FakeUser, target: FakeMessage | FakeButton, callback_data: str | None = None
    ) -> str:
        """``user`` presses an inline button; returns the callback_query id.

        ``target`` is a message (then ``callback_data`` names the button) or a
        :class:`FakeButton`. The button must be on the message's *current* keyboard, else
        :class:`ButtonNotFound`.
        """
        if isinstance(target, FakeButton):
            data = callback_data if callback_data is not None else target.callback_data
        else:
            data = callback_data
        if data is None:
            raise ValueError("which button? give callback_data")
        with self._lock:
            message = self._by_id.get((target.chat_id, target.message_id))
            if message is None or message.deleted:
                raise ButtonNotFound(
                    f"message {target.message_id} in chat {target.chat_id} does not exist"
                )
            if data not in [b.callback_data for b in message.buttons]:
                raise ButtonNotFound(
                    f"no button with callback_data={data!r} on message {message.message_id} "
                    f"in chat {message.chat_id}; current keyboard: "
                    f"{[(b.text, b.callback_data) for b in message.buttons]}"
                )
            return self._callback_query(user, message.chat_id, message.message_id, data)

    async def press_raw(self, user: FakeUser, chat: ChatRef, message_id: int, data: str) -> str:
        """A forged callback query (any data, any message id: a tampered client)."""
        with self._lock:
            return self._callback_query(user, self._chat_id(chat), message_id, data)

    def _callback_query(self, user: FakeUser, chat_id: int, message_id: int, data: str) -> str:
        chat = self._chat_for(chat_id)
        if chat.type == "private" and chat.id != user.id:
            raise ValueError(f"user {user.id} cannot press buttons in private chat {chat.id}")
        if chat.type != "private":
            chat.member_ids.add(user.id)
        self._users.setdefault(user.id, user)
        message = self._by_id.get((chat_id, message_id))
        if message is not None and not message.deleted:
            message_api = self._message_api(message)
        else:  # InaccessibleMessage
            message_api = {"chat": chat.to_api(), "message_id": message_id, "date": 0}
        query_id = str(next(self._query_ids))
        query = self._queries[query_id] = _CallbackQuery(
            id=query_id,
            user_id=user.id,
            chat_id=chat_id,
            message_id=message_id,
            data=data,
            created_at=self._clock(),
        )
        query.update = self._enqueue(
            "callback_query",
            {
                "id": query_id,
                "from": user.to_api(),
                "message": message_api,
                "chat_instance": str(abs(chat_id) * 7919 % 10**18),
                "data": data,
            },
        )
        return query_id

    async def answer_for(
        self, callback_query_id: str, timeout: float = 10.0, *, settle: float = 0.0
    ) -> CallbackAnswer:
        """What the bot's answerCallbackQuery said; waits for it up to ``timeout`` seconds.

        Raises AssertionError if the bot answered (tried to) more than once, also when that
        happens within ``settle`` seconds after the first answer.
        """
        with self._lock:
            if callback_query_id not in self._queries:
                raise KeyError(f"unknown callback query {callback_query_id}")
        query = self._queries[callback_query_id]
        await self.wait_for(
            lambda: query.attempts > 0,
            timeout,
            message=f"callback query {callback_query_id} was never answered",
        )
        if settle:
            await asyncio.sleep(settle)
        with self._lock:
            if query.attempts > 1:
                raise AssertionError(
                    f"callback query {callback_query_id} was answered {query.attempts} times"
                )
            if not query.answers:
                raise AssertionError(f"answering callback query {callback_query_id} failed")
            return query.answers[0]

    def answer_attempts(self, callback_query_id: str) -> int:
        with self._lock:
            return self._queries[callback_query_id].attempts

    def answers_to(self, callback_query_id: str) -> list[CallbackAnswer]:
        """The accepted answers to a callback query so far (none or one), without waiting.

        KeyError for an id :meth:`press`/:meth:`press_raw` never returned.
        """
        with self._lock:
            return list(self._queries[callback_query_id].answers)

    # ---------------------------------------------------------------- observation

    def messages(self, chat: ChatRef, *, include_deleted: bool = False) -> list[FakeMessage]:
        """Snapshots of every message in the chat (users' and the bot's), oldest first."""
        with self._lock:
            found = self._messages.get(self._chat_id(chat), [])
            return [copy.deepcopy(m) for m in found if include_deleted or not m.deleted]

    def bot_messages(self, chat: ChatRef) -> list[FakeMessage]:
        with self._lock:
            found = self._messages.get(self._chat_id(chat), [])
            return [copy.deepcopy(m) for m in found if m.from_bot and not m.deleted]

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

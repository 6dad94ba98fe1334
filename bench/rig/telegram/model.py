"""The stand-in's data: Telegram's limits and texts, the people, chats, messages and buttons it
keeps, the calls it logs."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar

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


ChatRef = FakeChat | FakeUser | int
Handler = Callable[[JSONDict], Any]

"""A stand-in Telegram Bot API server for the end-to-end tests and the benches that run the
bot (`bench.bot_load`, `bench.pages`).

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

from bench.rig.telegram.html import bot_command_entities, parse_html
from bench.rig.telegram.model import (
    ApiCall,
    ApiError,
    ButtonNotFound,
    CallbackAnswer,
    EntityParseError,
    FakeButton,
    FakeChat,
    FakeFile,
    FakeMessage,
    FakeUser,
    GroupPeak,
    JSONDict,
    Limits,
)
from bench.rig.telegram.people import _People

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
    "JSONDict",
    "Limits",
    "bot_command_entities",
    "parse_html",
]


class FakeTelegram(_People):
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

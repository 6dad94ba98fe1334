"""The Bot API stand-in (bench/rig/telegram/), exercised with a real PTB Bot/Application."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dtm
import os
import subprocess
import sys
import textwrap
import time
import warnings
from collections import Counter
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from telegram import (
    Bot,
    BotCommand,
    BotCommandScopeChat,
    BotCommandScopeChatAdministrators,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Update,
)
from telegram.constants import ParseMode
from telegram.error import BadRequest, Conflict, Forbidden, NetworkError, RetryAfter
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)
from telegram.warnings import PTBDeprecationWarning

from bench.rig.telegram import (
    ButtonNotFound,
    CallbackAnswer,
    EntityParseError,
    FakeTelegram,
    GroupPeak,
    Limits,
    bot_command_entities,
    parse_html,
)

TOKEN = "123:ABC"
# Telegram's own wording, written out here so that the tests check the fake's texts.
NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are exactly "
    "the same as a current content and reply markup of the message"
)
QUERY_TOO_OLD_TEXT = "query is too old and response timeout expired or query ID is invalid"
GROUP_ID = -1001234567890


@pytest.fixture
async def bot(fake: FakeTelegram) -> AsyncIterator[Bot]:
    async with Bot(TOKEN, base_url=fake.base_url) as ptb_bot:
        yield ptb_bot


@asynccontextmanager
async def polling_app(
    fake: FakeTelegram, *handlers: Any
) -> AsyncIterator[Application[Any, Any, Any, Any, Any, Any]]:
    app = ApplicationBuilder().token(TOKEN).base_url(fake.base_url).build()
    app.add_handlers(list(handlers))
    async with app:
        await app.start()
        assert app.updater is not None
        await app.updater.start_polling(poll_interval=0.0, timeout=dtm.timedelta(seconds=1))
        try:
            yield app
        finally:
            await app.updater.stop()
            await app.stop()


def ptb_message(text: str) -> str:
    """How PTB shows a Bad Request description (prefix dropped, capitalize())."""
    return text.removeprefix("Bad Request: ").capitalize()


def keyboard(*pairs: tuple[str, str]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(t, callback_data=d)] for t, d in pairs])


# ------------------------------------------------------------------ HTML parse mode (unit)


@pytest.mark.parametrize(
    ("html", "text", "entities"),
    [
        (
            "<b>Briscola</b> di <i>coppe</i>",
            "Briscola di coppe",
            [
                {"type": "bold", "offset": 0, "length": 8},
                {"type": "italic", "offset": 12, "length": 5},
            ],
        ),
        ("a &lt; b &gt; c &amp; d &quot;e&quot; &#33;&#x41;", 'a < b > c & d "e" !A', []),
        ("🂡 <b>asso</b>", "🂡 asso", [{"type": "bold", "offset": 3, "length": 4}]),
        (
            '<pre><code class="language-python">x = 1</code></pre>',
            "x = 1",
            [{"type": "pre", "offset": 0, "length": 5, "language": "python"}],
        ),
        (
            '<a href="https://x.org/?a=1&amp;b=2">link</a>',
            "link",
            [{"type": "text_link", "offset": 0, "length": 4, "url": "https://x.org/?a=1&b=2"}],
        ),
        (
            '<tg-spoiler>s</tg-spoiler><span class="tg-spoiler">t</span>',
            "st",
            [
                {"type": "spoiler", "offset": 0, "length": 1},
                {"type": "spoiler", "offset": 1, "length": 1},
            ],
        ),
        (
            "<blockquote expandable>q</blockquote><u>u</u><s>s</s><code>c</code>",
            "qusc",
            [
                {"type": "expandable_blockquote", "offset": 0, "length": 1},
                {"type": "underline", "offset": 1, "length": 1},
                {"type": "strikethrough", "offset": 2, "length": 1},
                {"type": "code", "offset": 3, "length": 1},
            ],
        ),
        ("<B>x</B > 2 > 1", "x 2 > 1", [{"type": "bold", "offset": 0, "length": 1}]),
    ],
)
def test_parse_html_accepts(html: str, text: str, entities: list[dict[str, Any]]) -> None:
    assert parse_html(html) == (text, entities)


@pytest.mark.parametrize(
    ("html", "error"),
    [
        ("<b>x", 'Can\'t find end tag corresponding to start tag "b"'),
        ("<b>x</i>", 'Unmatched end tag at byte offset 4, expected "</b>", found "</i>"'),
        ("x</b>", "Unexpected end tag at byte offset 1"),
        ("<p>x</p>", 'Unsupported start tag "p" at byte offset 0'),
        ("1 < 2", 'Unsupported start tag "" at byte offset 2'),
        ("a<b", "Unclosed start tag at byte offset 1"),
        ("<b>x</b", "Unclosed end tag at byte offset 4"),
        ('<span class="x">y</span>', 'Tag "span" must have class "tg-spoiler" at byte offset 0'),
        ("<tg-emoji emoji-id=abc>x</tg-emoji>", "Invalid custom emoji identifier specified"),
        ("Tom & Jerry", 'Unescaped "&" at byte offset 4'),
    ],
)
def test_parse_html_refuses(html: str, error: str) -> None:
    with pytest.raises(EntityParseError) as info:
        parse_html(html)
    assert str(info.value).startswith(error)


def test_parse_html_bare_ampersand_like_telegram_when_not_strict() -> None:
    assert parse_html("Tom & Jerry &copy;", strict_ampersand=False) == ("Tom & Jerry &copy;", [])


def testbot_command_entities() -> None:
    def spans(text: str) -> list[tuple[int, int]]:
        return [(e["offset"], e["length"]) for e in bot_command_entities(text)]

    assert spans("/start") == [(0, 6)]
    assert spans("/new@fake_bot due") == [(0, 13)]
    assert spans("🂡 /x") == [(3, 2)]
    assert spans("a/b") == []
    assert spans("/cmd@ab") == []
    assert spans("/") == []


# ------------------------------------------------------------------ updates through PTB


async def test_start_handler_receives_update(fake: FakeTelegram) -> None:
    seen: list[Update] = []

    async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        seen.append(update)
        assert update.effective_message is not None and update.effective_user is not None
        await update.effective_message.reply_text(f"Ciao {update.effective_user.first_name}")

    alice = fake.user(1001, "Alice", username="alice")
    async with polling_app(fake, CommandHandler("start", start)):
        sent = await fake.send_text(alice, alice, "/start")
        reply = await fake.wait_for_text(alice, "Ciao Alice")

    assert [u.effective_user.id for u in seen if u.effective_user] == [1001]
    assert seen[0].effective_chat is not None and seen[0].effective_chat.type == "private"
    assert (sent.message_id, reply.message_id) == (1, 2)
    assert reply.from_bot and reply.reply_to_message_id is None
    assert fake.has_started(alice)
    assert fake.count("getMe") == 1 and fake.count("deleteWebhook") == 1
    assert fake.count("sendMessage") == 1
    assert not fake.pending_updates()


async def test_group_commands_args_and_privacy_mode(fake: FakeTelegram) -> None:
    args: list[list[str]] = []
    texts: list[str] = []

    async def new(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        args.append(list(context.args or []))

    async def text(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_message is not None
        texts.append(update.effective_message.text or "")

    alice, bob = fake.user(1, "Alice"), fake.user(2, "Bob")
    group = fake.group(GROUP_ID, "Tavolo", admins=[alice])
    handlers = (CommandHandler("new", new), MessageHandler(filters.TEXT & ~filters.COMMAND, text))
    async with polling_app(fake, *handlers) as app:
        await fake.send_text(bob, group, "/new@fake_bot due")
        await fake.send_text(bob, group, "/new")
        ignored = await fake.send_text(bob, group, "/new@other_bot")
        hidden = await fake.send_text(bob, group, "hello")  # privacy mode: not delivered
        await fake.wait_for(lambda: len(args) == 2)
        asked = await app.bot.send_message(GROUP_ID, "Quante carte?")
        answer = await fake.send_text(bob, group, "tre", reply_to=asked.message_id)
        await fake.wait_for(lambda: texts == ["tre"])
        fake.set_bot_admin(group)
        await fake.send_text(alice, group, "now I see")
        await fake.wait_for(lambda: texts == ["tre", "now I see"])
        await fake.wait_delivered()

    assert args == [["due"], []]
    assert not ignored.seen_by_bot and not hidden.seen_by_bot and answer.seen_by_bot
    assert [m.message_id for m in fake.messages(group)] == [1, 2, 3, 4, 5, 6, 7]
    assert fake.message(group, 6).reply_to_message_id == 5
    assert fake.updates[0]["message"]["entities"] == [
        {"type": "bot_command", "offset": 0, "length": 13}
    ]
    assert fake.updates[0]["message"]["chat"] == {
        "id": GROUP_ID,
        "type": "supergroup",
        "title": "Tavolo",
    }


# ------------------------------------------------------------------ sending and editing


async def test_send_and_edit_roundtrip(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.user(1001, "Alice")
    await fake.send_text(alice, alice, "/start")
    markup = keyboard(("Gioca", "play:1"), ("Passa", "pass"))

    sent = await bot.send_message(
        alice.id, "<b>Mano</b> 1 &amp; 2", parse_mode=ParseMode.HTML, reply_markup=markup
    )
    assert sent.text == "Mano 1 & 2" and sent.message_id == 2
    assert sent.reply_markup == markup
    assert sent.entities[0].type == "bold" and sent.entities[0].length == 4
    assert sent.from_user is not None and sent.from_user.username == "fake_bot"
    state = fake.last_message(alice)
    assert (state.text, state.raw_text, state.parse_mode) == (
        "Mano 1 & 2",
        "<b>Mano</b> 1 &amp; 2",
        "HTML",
    )
    assert state.keyboard == [["Gioca"], ["Passa"]] and state.edited == 0

    edited = await bot.edit_message_text(
        "Mano 2", chat_id=alice.id, message_id=sent.message_id, reply_markup=markup
    )
    assert isinstance(edited, type(sent)) and edited.edit_date is not None
    with pytest.raises(BadRequest) as info:
        await bot.edit_message_text(
            "Mano 2", chat_id=alice.id, message_id=sent.message_id, reply_markup=markup
        )
    assert info.value.message == ptb_message(NOT_MODIFIED)
    assert fake.calls[-1].description == f"Bad Request: {NOT_MODIFIED}"
    assert fake.calls[-1].error_code == 400

    # Like Telegram, editing the text without reply_markup drops the inline keyboard.
    await bot.edit_message_text("Mano 2", chat_id=alice.id, message_id=sent.message_id)
    assert fake.message(alice, sent.message_id).reply_markup is None
    await bot.edit_message_reply_markup(alice.id, sent.message_id, reply_markup=markup)
    with pytest.raises(BadRequest, match="Message is not modified"):
        await bot.edit_message_reply_markup(alice.id, sent.message_id, reply_markup=markup)

    state = fake.message(alice, sent.message_id)
    assert state.edited == 3 and state.versions == ["Mano 1 & 2", "Mano 2"]

    with pytest.raises(BadRequest) as info:
        await bot.edit_message_text("x", chat_id=alice.id, message_id=99)
    assert info.value.message == "Message to edit not found"
    with pytest.raises(BadRequest, match="Message can't be edited"):
        await bot.edit_message_text("x", chat_id=alice.id, message_id=1)  # Alice's /start

    assert await bot.delete_message(alice.id, sent.message_id)
    with pytest.raises(BadRequest, match="Message to delete not found"):
        await bot.delete_message(alice.id, sent.message_id)
    with pytest.raises(BadRequest, match="Message to edit not found"):
        await bot.edit_message_text("x", chat_id=alice.id, message_id=sent.message_id)
    assert [m.message_id for m in fake.messages(alice)] == [1]
    assert [m.deleted for m in fake.messages(alice, include_deleted=True)] == [False, True]


async def test_delete_messages_skips_what_it_cannot_delete(fake: FakeTelegram, bot: Bot) -> None:
    """deleteMessages: 1 to 100 ids of one chat; the ones not found, already deleted or past
    deleteMessage's limits (48 hours) are skipped, the call still succeeds."""
    alice = fake.user(1001, "Alice")
    await fake.send_text(alice, alice, "/start")
    sent = [await bot.send_message(alice.id, f"m{i}") for i in range(4)]
    ids = [m.message_id for m in sent]
    fake.age_message(alice, ids[3], 48 * 3600 + 1)
    assert await bot.delete_message(alice.id, ids[0])
    assert await bot.delete_messages(alice.id, [ids[0], ids[1], ids[2], ids[3], 999])
    alive = [m.message_id for m in fake.messages(alice)]
    assert alive == [1, ids[3]]  # Alice's /start (hers, in private: deletable, not asked)
    assert fake.calls[-1].method == "deleteMessages" and fake.calls[-1].ok
    with pytest.raises(BadRequest, match="Message identifiers are not specified"):
        await bot.delete_messages(alice.id, [])
    with pytest.raises(BadRequest, match="Too many message identifiers specified"):
        await bot.delete_messages(alice.id, list(range(1, 102)))


async def test_private_chat_errors(fake: FakeTelegram, bot: Bot) -> None:
    bob = fake.user(2002, "Bob")
    with pytest.raises(Forbidden) as info:
        await bot.send_message(bob.id, "hi")
    assert info.value.message == "Forbidden: bot can't initiate conversation with a user"
    assert fake.calls[-1].error_code == 403

    await fake.send_text(bob, bob, "/start")
    await bot.send_message(bob.id, "hi")
    fake.block_bot(bob)
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await bot.send_message(bob.id, "hi")
    with pytest.raises(BadRequest, match="Chat not found"):
        await bot.send_message(999, "hi")


async def test_text_validation_errors(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.user(1, "Alice")
    await fake.send_text(alice, alice, "/start")

    with pytest.raises(BadRequest) as info:
        await bot.send_message(alice.id, "<p>x</p>", parse_mode=ParseMode.HTML)
    assert fake.calls[-1].description == (
        'Bad Request: can\'t parse entities: Unsupported start tag "p" at byte offset 0'
    )
    assert info.value.message.startswith("Can't parse entities:")
    for bad_html in ("<b>x", "a < b", "Tom & Jerry", "<b>x</i>"):
        with pytest.raises(BadRequest, match="Can't parse entities"):
            await bot.send_message(alice.id, bad_html, parse_mode=ParseMode.HTML)

    with pytest.raises(BadRequest) as info:
        await bot.send_message(alice.id, "x" * 4097)
    assert info.value.message == "Message is too long"
    await bot.send_message(alice.id, "x" * 4096)
    await bot.send_message(alice.id, "<b>" + "x" * 4096 + "</b>", parse_mode=ParseMode.HTML)
    with pytest.raises(BadRequest, match="Message text is empty"):
        await bot.send_message(alice.id, "<b> </b>", parse_mode=ParseMode.HTML)

    with pytest.raises(BadRequest) as info:
        await bot.send_message(alice.id, "x", reply_markup=keyboard(("a", "y" * 65)))
    assert fake.calls[-1].description == "Bad Request: BUTTON_DATA_INVALID"
    assert info.value.message == "Button_data_invalid"
    with pytest.raises(BadRequest, match="Button_data_invalid"):  # 66 UTF-8 bytes
        await bot.send_message(alice.id, "x", reply_markup=keyboard(("a", "é" * 33)))
    await bot.send_message(alice.id, "x", reply_markup=keyboard(("a", "é" * 32)))

    assert fake.count("sendMessage", ok=True) == 3
    assert fake.count("sendMessage", ok=False) == 9


async def test_injected_retry_after(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.user(1, "Alice")
    await fake.send_text(alice, alice, "/start")
    fake.inject_retry_after("sendMessage", 7, times=2)
    for _ in range(2):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PTBDeprecationWarning)  # retry_after int -> timedelta
            with pytest.raises(RetryAfter) as info:
                await bot.send_message(alice.id, "hi")
            assert info.value.retry_after in (7, dtm.timedelta(seconds=7))
    await bot.send_message(alice.id, "hi")
    assert [c.error_code for c in fake.calls_of("sendMessage")] == [429, 429, None]
    assert fake.calls_of("sendMessage")[0].description == "Too Many Requests: retry after 7"

    fake.inject_retry_after("getChat", 3)
    async with httpx.AsyncClient() as client:
        response = await client.post(f"{fake.base_url}{TOKEN}/getChat", data={"chat_id": "1"})
    assert_flood_wait(response, 3)


# ------------------------------------------------------------------ callback queries


async def test_callback_query_flow(fake: FakeTelegram) -> None:
    answered_twice: list[str] = []

    async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_message is not None
        markup = keyboard(("Gioca 🂡", "play:1S"), ("Due volte", "twice"))
        await update.effective_message.reply_text("Scegli", reply_markup=markup)

    async def button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        assert query is not None
        if query.data == "twice":
            await query.answer("uno")
            try:
                await query.answer("due")
            except BadRequest as err:
                answered_twice.append(err.message)
            return
        await query.answer(f"ok {query.data}", show_alert=query.data == "forged")
        if query.data == "play:1S":
            await query.edit_message_text("Giocata")

    alice = fake.user(1, "Alice")
    async with polling_app(fake, CommandHandler("start", start), CallbackQueryHandler(button)):
        await fake.send_text(alice, alice, "/start")
        play = await fake.wait_for(lambda: fake.find_button(alice, "Gioca"))
        assert play.callback_data == "play:1S"

        query_id = await fake.press(alice, play)
        answer = await fake.answer_for(query_id)
        assert (answer.text, answer.show_alert) == ("ok play:1S", False)
        await fake.wait_for(lambda: fake.last_message(alice).text == "Giocata")
        # the edit dropped the keyboard: the old button cannot be pressed any more
        with pytest.raises(ButtonNotFound):
            await fake.press(alice, play)

        forged = await fake.press_raw(alice, alice, play.message_id, "forged")
        assert (await fake.answer_for(forged)).show_alert

        await fake.send_text(alice, alice, "/start")
        twice_button = await fake.wait_for(lambda: fake.find_button(alice, "Due volte"))
        twice = await fake.press(alice, fake.last_message(alice), "twice")
        assert twice_button.message_id == fake.last_message(alice).message_id
        await fake.wait_for(lambda: answered_twice)
        with pytest.raises(AssertionError, match="answered 2 times"):
            await fake.answer_for(twice)

    assert answered_twice == [ptb_message(f"Bad Request: {QUERY_TOO_OLD_TEXT}")]
    assert fake.answer_attempts(query_id) == 1
    assert fake.count("answerCallbackQuery") == 4
    callback = next(u["callback_query"] for u in fake.updates if "callback_query" in u)
    assert callback["message"]["reply_markup"]["inline_keyboard"][0][0]["text"] == "Gioca 🂡"
    assert callback["from"]["id"] == alice.id and callback["data"] == "play:1S"


async def test_answer_unknown_callback_query(fake: FakeTelegram, bot: Bot) -> None:
    with pytest.raises(BadRequest) as info:
        await bot.answer_callback_query("12345")
    assert fake.calls[-1].description == f"Bad Request: {QUERY_TOO_OLD_TEXT}"
    assert info.value.message == ptb_message(QUERY_TOO_OLD_TEXT)


async def test_callback_query_expires_with_ttl() -> None:
    async with FakeTelegram(callback_query_ttl=0.05) as fake, Bot(TOKEN, fake.base_url) as bot:
        alice = fake.user(1, "Alice")
        late = await fake.press_raw(alice, alice, 42, "x")  # no such message: inaccessible
        assert fake.updates[-1]["callback_query"]["message"]["date"] == 0
        await asyncio.sleep(0.1)
        with pytest.raises(BadRequest, match="Query is too old"):
            await bot.answer_callback_query(late)
        with pytest.raises(AssertionError, match="failed"):
            await fake.answer_for(late)


async def test_webhook_blocks_get_updates(fake: FakeTelegram, bot: Bot) -> None:
    assert await bot.set_webhook("https://example.org/hook")
    with pytest.raises(Conflict, match="can't use getUpdates method while webhook is active"):
        await bot.get_updates()
    assert (await bot.get_webhook_info()).url == "https://example.org/hook"
    assert await bot.delete_webhook()
    assert await bot.get_updates() == ()


# ------------------------------------------------------------------ getUpdates semantics


async def test_get_updates_offset_timeout_and_allowed_updates(fake: FakeTelegram) -> None:
    alice = fake.user(1, "Alice")
    url = f"{fake.base_url}{TOKEN}/getUpdates"
    async with httpx.AsyncClient(timeout=10) as client:

        async def get_updates(**params: Any) -> list[dict[str, Any]]:
            response = await client.post(url, data={k: str(v) for k, v in params.items()})
            body = response.json()
            assert body["ok"], body
            result: list[dict[str, Any]] = body["result"]
            return result

        await fake.send_text(alice, alice, "/start")
        await fake.send_text(alice, alice, "two")
        first = await get_updates()
        assert [u["message"]["text"] for u in first] == ["/start", "two"]
        assert await get_updates() == first  # not confirmed yet
        last_id = first[-1]["update_id"]
        assert [u["update_id"] for u in await get_updates(offset=last_id)] == [last_id]
        assert await get_updates(offset=last_id + 1) == []  # confirms everything

        started = time.monotonic()
        assert await get_updates(offset=last_id + 1, timeout=1) == []
        assert time.monotonic() - started >= 0.9

        poll = asyncio.create_task(get_updates(offset=last_id + 1, timeout=5))
        await asyncio.sleep(0.2)
        started = time.monotonic()
        await fake.send_text(alice, alice, "three")
        woken = await asyncio.wait_for(poll, 3)
        assert [u["message"]["text"] for u in woken] == ["three"]
        assert time.monotonic() - started < 1

        # allowed_updates persists; types outside it are dropped when created
        await get_updates(offset=woken[-1]["update_id"] + 1, allowed_updates='["callback_query"]')
        await fake.send_text(alice, alice, "dropped")
        assert await get_updates() == []
        await get_updates(allowed_updates="[]")
        await fake.send_text(alice, alice, "kept")
        await fake.send_text(alice, alice, "kept too")
        assert [u["message"]["text"] for u in await get_updates(offset=-1)] == ["kept too"]

        # a second getUpdates ends the pending one with 409 Conflict
        latest = (await get_updates(offset=-1))[-1]["update_id"]
        after = {"timeout": "5", "offset": str(latest + 1)}
        polls = fake.polls_started()
        pending = asyncio.create_task(client.post(url, data=after))
        async with asyncio.timeout(5):
            while fake.polls_started() == polls:  # it has reached the server and waits
                await asyncio.sleep(0.01)
        assert await get_updates(offset=latest + 1) == []
        conflict = await asyncio.wait_for(pending, 3)
        assert conflict.status_code == 409
        assert conflict.json()["description"].startswith("Conflict: terminated by other getUpdates")

        # unknown methods and malformed tokens are 404 Not Found, like Telegram
        missing = await client.post(f"{fake.base_url}{TOKEN}/noSuchMethod")
        assert missing.status_code == 404
        assert missing.json() == {"ok": False, "error_code": 404, "description": "Not Found"}
        assert (await client.post(f"{fake.base_url}nonsense/getMe")).status_code == 404
        # method names are case-insensitive
        me = (await client.get(f"{fake.base_url}{TOKEN}/getme")).json()
        assert me["ok"] and me["result"]["username"] == "fake_bot"


async def test_request_encodings(fake: FakeTelegram) -> None:
    """Form fields (PTB's way), a JSON body and multipart all decode to the same params."""
    alice = fake.user(1, "Alice")
    await fake.send_text(alice, alice, "/start")
    url = f"{fake.base_url}{TOKEN}/sendMessage"
    markup = '{"inline_keyboard": [[{"text": "a", "callback_data": "b"}]]}'
    async with httpx.AsyncClient() as client:
        await client.post(url, data={"chat_id": "1", "text": "123", "reply_markup": markup})
        await client.post(url, json={"chat_id": 1, "text": "json", "disable_notification": True})
        await client.post(
            url, data={"chat_id": "1", "text": "multi"}, files={"doc": ("a.txt", b"xyz")}
        )
    params = [c.params for c in fake.calls_of("sendMessage")]
    assert params[0]["chat_id"] == 1 and params[0]["text"] == "123"
    assert params[0]["reply_markup"]["inline_keyboard"][0][0]["callback_data"] == "b"
    assert params[1]["disable_notification"] is True
    assert params[2]["text"] == "multi" and params[2]["doc"] == {"filename": "a.txt", "size": 3}
    assert [m.text for m in fake.bot_messages(alice)] == ["123", "json", "multi"]


# ------------------------------------------------------------------ commands, chats, members


async def test_my_commands_per_scope_and_language(fake: FakeTelegram, bot: Bot) -> None:
    group_admins = BotCommandScopeChatAdministrators(GROUP_ID)
    assert await bot.set_my_commands([BotCommand("nuova", "Nuova partita")])
    assert await bot.set_my_commands([BotCommand("new", "New game")], language_code="en")
    assert await bot.set_my_commands([BotCommand("chiudi", "Chiudi il tavolo")], scope=group_admins)
    assert [c.command for c in await bot.get_my_commands()] == ["nuova"]
    assert [c.command for c in await bot.get_my_commands(language_code="en")] == ["new"]
    assert [c.command for c in await bot.get_my_commands(scope=group_admins)] == ["chiudi"]
    assert await bot.get_my_commands(scope=BotCommandScopeChat(GROUP_ID)) == ()
    assert fake.commands(language_code="en") == [{"command": "new", "description": "New game"}]
    with pytest.raises(BadRequest, match="Bot_command_invalid"):
        await bot.set_my_commands([BotCommand("Nuova!", "x")])


async def test_chats_and_members(fake: FakeTelegram, bot: Bot) -> None:
    owner, admin, member = fake.user(1, "Olga"), fake.user(2, "Ada"), fake.user(3, "Max")
    stranger = fake.user(4, "Sam")
    group = fake.group(GROUP_ID, "Tavolo", admins=[admin], owner=owner, members=[member])

    chat = await bot.get_chat(GROUP_ID)
    assert (chat.id, chat.type, chat.title) == (GROUP_ID, "supergroup", "Tavolo")
    private = await bot.get_chat(member.id)
    assert (private.type, private.first_name) == ("private", "Max")

    admins = await bot.get_chat_administrators(GROUP_ID)
    assert [(a.user.id, a.status) for a in admins] == [(1, "creator"), (2, "administrator")]
    statuses = [(await bot.get_chat_member(GROUP_ID, u.id)).status for u in (member, stranger)]
    assert statuses == ["member", "left"]
    assert (await bot.get_chat_member(GROUP_ID, bot.id)).status == "member"

    fake.set_admins(group, [admin, member])
    fake.set_bot_admin(group)
    admins = await bot.get_chat_administrators(GROUP_ID)
    assert [a.user.id for a in admins] == [1, 2, 3, bot.id]
    assert await bot.get_chat_member_count(GROUP_ID) == 4

    with pytest.raises(BadRequest, match="There are no administrators in the private chat"):
        await bot.get_chat_administrators(member.id)
    with pytest.raises(BadRequest, match="User not found"):
        await bot.get_chat_member(GROUP_ID, 777)
    with pytest.raises(BadRequest, match="Chat not found"):
        await bot.get_chat(-100999)
    assert await bot.send_chat_action(GROUP_ID, "typing")
    assert await bot.log_out() and await bot.close()


async def test_log_counters_and_waiting(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.user(1, "Alice")
    await fake.send_text(alice, alice, "/start")
    mark = fake.mark()

    async def later() -> None:
        await asyncio.sleep(0.1)
        await bot.send_message(alice.id, "uno")
        await bot.send_message(alice.id, "due", reply_to_message_id=1)

    task = asyncio.create_task(later())
    calls = await fake.wait_for_call("sendMessage", count=2, since=mark, timeout=5)
    await task
    assert [c.params["text"] for c in calls] == ["uno", "due"]
    assert fake.counts(since=mark) == {"sendMessage": 2}
    assert fake.last_message(alice).reply_to_message_id == 1
    assert fake.last_message(alice, from_bot=False).text == "/start"
    with pytest.raises(TimeoutError, match="never"):
        await fake.wait_for(lambda: False, timeout=0.1, message="never")
    with pytest.raises(LookupError):
        fake.find_button(alice, "nothing")


# ------------------------------------------------------------------ threaded mode


async def test_threaded_server_with_bot_in_another_process(tmp_path: Any) -> None:
    script = textwrap.dedent(
        """
        import asyncio, os, sys
        from telegram import Bot

        async def main() -> None:
            token, base_url = os.environ["BOT_TOKEN"], os.environ["TELEGRAM_BASE_URL"]
            async with Bot(token, base_url=base_url) as bot:
                await bot.send_message(int(sys.argv[1]), f"hello from {bot.username}")

        asyncio.run(main())
        """
    )
    async with FakeTelegram(threaded=True) as fake:
        alice = fake.user(1, "Alice")
        await fake.send_text(alice, alice, "/start")
        env = {**os.environ, "BOT_TOKEN": TOKEN, "TELEGRAM_BASE_URL": fake.base_url}
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", script, "1", env=env, stderr=asyncio.subprocess.PIPE
        )
        _, stderr = await asyncio.wait_for(proc.communicate(), 60)
        assert proc.returncode == 0, stderr.decode()
        assert fake.last_message(alice).text == "hello from fake_bot"


def test_threaded_server_survives_a_blocked_caller() -> None:
    """Plain `with`: the server thread answers while this thread blocks on a subprocess."""
    script = (
        "import httpx, sys; r = httpx.post(sys.argv[1] + '123:ABC/getMe', timeout=10); "
        "print(r.json()['result']['username'])"
    )
    with FakeTelegram(bot_username="briscola_bot") as fake:
        out = subprocess.run(
            [sys.executable, "-c", script, fake.base_url],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        assert out.stdout.strip() == "briscola_bot"
        assert fake.count("getMe") == 1


# ------------------------------------------------------------------ flood limits


class ManualClock:
    """A monotonic clock the test moves by hand (``FakeTelegram(clock=...)``)."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


async def retry_after_of(call: Awaitable[Any]) -> int:
    """Await a PTB call that must fail with RetryAfter; its retry_after in whole seconds."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PTBDeprecationWarning)  # retry_after int -> timedelta
        with pytest.raises(RetryAfter) as info:
            await call
        value = info.value.retry_after
    seconds = value.total_seconds() if isinstance(value, dtm.timedelta) else value
    assert seconds == int(seconds)
    return int(seconds)


@asynccontextmanager
async def limited(
    limits: Limits | None, clock: ManualClock, **options: Any
) -> AsyncIterator[tuple[FakeTelegram, Bot]]:
    async with (
        FakeTelegram(limits=limits, clock=clock, **options) as fake,
        Bot(TOKEN, base_url=fake.base_url) as ptb_bot,  # no rate limiter: the fake must refuse
    ):
        yield fake, ptb_bot
        assert not fake.internal_errors, fake.internal_errors


async def test_group_limit_refuses_with_retry_after_and_does_not_execute() -> None:
    clock = ManualClock()
    async with limited(Limits(), clock) as (fake, bot):
        alice = fake.user(1, "Alice")
        fake.group(GROUP_ID, "Tavolo", members=[alice])
        await fake.send_text(alice, alice, "/start")
        first = await bot.send_message(GROUP_ID, "Tavolo aperto")  # t = 0
        for _ in range(9):
            clock.advance(1)
            await bot.edit_message_text(f"t={clock.now}", GROUP_ID, first.message_id)
        for _ in range(10):  # any method with the group's chat_id counts
            clock.advance(1)
            await bot.get_chat_member(GROUP_ID, alice.id)
        assert clock.now == 19  # 20 calls into the group within 19 s: the limit
        await bot.send_message(alice.id, "private chats are not the group")
        query = await fake.press_raw(alice, GROUP_ID, first.message_id, "x")
        assert await bot.answer_callback_query(query)  # no chat_id: never limited

        clock.advance(1.5)  # t = 20.5; the window has room when the call at t = 0 is 60 s old
        assert await retry_after_of(bot.send_message(GROUP_ID, "di troppo")) == 40
        async with httpx.AsyncClient() as client:
            response = await client.post(
                f"{fake.base_url}{TOKEN}/editMessageText",
                data={"chat_id": str(GROUP_ID), "message_id": "1", "text": "nope"},
            )
        assert_flood_wait(response, 40)
        assert await retry_after_of(bot.get_chat(GROUP_ID)) == 40

        # not executed: no new message, the text is the last accepted edit
        assert [m.text for m in fake.messages(GROUP_ID)] == ["t=9.0"]
        violations = fake.limit_violations
        assert [(c.method, c.refused_by) for c in violations] == [
            ("sendMessage", "group_per_minute"),
            ("editMessageText", "group_per_minute"),
            ("getChat", "group_per_minute"),
        ]
        assert all(c.error_code == 429 and c.arrived == 20.5 for c in violations)
        assert fake.injected_faults == []

        clock.advance(39.4)  # t = 59.9: still full, a little less to wait
        assert await retry_after_of(bot.send_message(GROUP_ID, "quasi")) == 1
        clock.advance(0.1)  # t = 60: the first call left the window
        await bot.send_message(GROUP_ID, "di nuovo")
        assert await retry_after_of(bot.send_message(GROUP_ID, "e ancora")) == 1
        assert fake.max_group_calls_per_minute() == GroupPeak(20, GROUP_ID, 0.0)


async def test_overall_limit_counts_calls_with_a_chat_id_only() -> None:
    clock = ManualClock(100.0)
    overall = Limits(group_per_minute=None, overall_per_second=30)
    async with limited(overall, clock, threaded=True) as (fake, bot):
        users = [fake.user(i, f"U{i}") for i in range(1, 11)]
        for user in users:
            await fake.send_text(user, user, "/start")
        fake.group(GROUP_ID, "Tavolo")
        for i in range(30):  # 30 calls in the same instant, into 11 chats
            await bot.send_message(GROUP_ID if i % 3 == 0 else users[i % 10].id, f"#{i}")
        assert await retry_after_of(bot.send_message(users[0].id, "31st")) == 1
        assert await retry_after_of(bot.get_chat(GROUP_ID)) == 1
        # calls without chat_id are not counted
        assert (await bot.get_me()).username == "fake_bot"
        assert await bot.set_my_commands([BotCommand("nuova", "Nuova partita")])
        assert await bot.get_updates() != ()
        assert [c.refused_by for c in fake.limit_violations] == ["overall_per_second"] * 2

        clock.advance(0.999)
        assert await retry_after_of(bot.send_message(users[1].id, "not yet")) == 1
        clock.advance(0.001)  # a second after the burst
        await bot.send_message(users[1].id, "room again")
        assert fake.count("sendMessage", ok=True) == 31
        assert len(fake.limit_violations) == 3


async def test_private_limit_per_chat() -> None:
    clock = ManualClock()
    one_per_second = Limits(group_per_minute=None, overall_per_second=None, private_per_second=1)
    async with limited(one_per_second, clock) as (fake, bot):
        alice, bob = fake.user(1, "Alice"), fake.user(2, "Bob")
        fake.group(GROUP_ID, "Tavolo")
        for user in (alice, bob):
            await fake.send_text(user, user, "/start")
        await bot.send_message(alice.id, "uno")
        assert await retry_after_of(bot.send_message(alice.id, "due")) == 1
        await bot.send_message(bob.id, "another chat")  # per chat
        for i in range(5):
            await bot.send_message(GROUP_ID, f"groups are not private {i}")
        clock.advance(1)
        await bot.send_message(alice.id, "due")
        assert [m.text for m in fake.bot_messages(alice)] == ["uno", "due"]
        assert [(c.params["chat_id"], c.refused_by) for c in fake.limit_violations] == [
            (alice.id, "private_per_second")
        ]

    clock = ManualClock()
    slow = Limits(group_per_minute=None, overall_per_second=None, private_per_second=0.5)
    async with limited(slow, clock) as (fake, bot):
        alice = fake.user(1, "Alice")
        await fake.send_text(alice, alice, "/start")
        await bot.send_message(alice.id, "uno")
        assert await retry_after_of(bot.send_message(alice.id, "due")) == 2  # one per 2 s
        clock.advance(1.5)
        assert await retry_after_of(bot.send_message(alice.id, "due")) == 1
        clock.advance(0.5)
        await bot.send_message(alice.id, "due")

    clock = ManualClock()
    bursts = Limits(group_per_minute=None, overall_per_second=None, private_per_second=3)
    async with limited(bursts, clock) as (fake, bot):
        alice = fake.user(1, "Alice")
        await fake.send_text(alice, alice, "/start")
        for i in range(3):
            await bot.send_message(alice.id, f"burst {i}")
        assert await retry_after_of(bot.send_message(alice.id, "fourth")) == 1
        assert len(fake.bot_messages(alice)) == 3


async def test_refused_calls_are_not_counted() -> None:
    clock = ManualClock()
    async with limited(Limits(group_per_minute=3), clock) as (fake, bot):
        fake.group(GROUP_ID, "Tavolo")
        for _ in range(3):  # t = 0, 1, 2
            await bot.send_message(GROUP_ID, f"t={clock.now}")
            clock.advance(1)
        while clock.now < 60:  # a bot hammering on: refused every second, t = 3 ... 59
            expected = 60 - int(clock.now)
            assert await retry_after_of(bot.send_message(GROUP_ID, "again")) == expected
            clock.advance(1)
        assert len(fake.limit_violations) == 57
        # at t = 60 the call of t = 0 has left the window; 57 refusals did not fill it
        await bot.send_message(GROUP_ID, "t=60")
        assert len(fake.bot_messages(GROUP_ID)) == 4
        assert fake.max_group_calls_per_minute() == GroupPeak(3, GROUP_ID, 0.0)


async def test_max_group_calls_per_minute_without_limits() -> None:
    clock = ManualClock()
    other = GROUP_ID - 1
    async with limited(None, clock) as (fake, bot):
        assert fake.max_group_calls_per_minute() == GroupPeak(0, None, None)
        alice = fake.user(1, "Alice")
        await fake.send_text(alice, alice, "/start")
        fake.group(GROUP_ID, "Tavolo")
        fake.group(other, "Altro", username="altro")
        for at in (0, 10, 50, 59, 60, 70):  # 60 s after a call is another minute
            clock.now = at
            await bot.get_chat(GROUP_ID)
        for _ in range(4):
            await bot.send_message("@altro", "by username")  # t = 70
        fake.inject_error("sendMessage", 400, "Bad Request: scripted", times=5)
        for _ in range(5):  # refused before the limits: not counted
            with pytest.raises(BadRequest):
                await bot.send_message(other, "x")
        assert [c.refused_by for c in fake.calls_of("sendMessage")[-5:]] == ["injected"] * 5
        for _ in range(10):
            await bot.send_message(alice.id, "private chats are not groups")
        assert fake.max_group_calls_per_minute() == GroupPeak(4, GROUP_ID, 0.0)
        with pytest.raises(BadRequest, match="Unsupported parse_mode"):
            await bot.send_message(other, "a 400 counts too: it passed the limits", parse_mode="x")
        assert fake.max_group_calls_per_minute() == GroupPeak(5, other, 70.0)


# ------------------------------------------------------------------ random faults


async def fault_pattern(seed: int, rate: float = 0.5) -> list[str]:
    """Make 40 calls under set_fault_rate; what each raised ("ok" if nothing)."""
    async with limited(None, ManualClock()) as (fake, bot):
        alice = fake.user(1, "Alice")
        await fake.send_text(alice, alice, "/start")
        fake.set_fault_rate(rate, seed=seed, retry_after=3)
        outcomes: list[str] = []
        for i in range(40):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", PTBDeprecationWarning)  # RetryAfter(int)
                    if i % 2:
                        await bot.send_message(alice.id, f"#{i}")
                    else:
                        await bot.get_chat(alice.id)
            except RetryAfter:
                outcomes.append("RetryAfter")
            except NetworkError as err:
                assert type(err) is NetworkError and err.message == "Bad Gateway"
                outcomes.append("NetworkError")
            else:
                outcomes.append("ok")
        for _ in range(5):
            await bot.get_updates()  # never faulted by default
        sent = sum(1 for i, o in enumerate(outcomes) if i % 2 and o == "ok")
        assert len(fake.bot_messages(alice)) == sent  # failed calls were not executed
        faults = fake.injected_faults
        assert len(faults) == outcomes.count("RetryAfter") + outcomes.count("NetworkError")
        assert {(c.error_code, c.description, c.refused_by) for c in faults} <= {
            (429, "Too Many Requests: retry after 3", "random_fault"),
            (502, "Bad Gateway", "random_fault"),
        }
        assert fake.limit_violations == []
        return outcomes


async def test_random_faults_are_reproducible_and_502_is_a_network_error() -> None:
    first = await fault_pattern(seed=7)
    assert first == await fault_pattern(seed=7)
    assert first != await fault_pattern(seed=8)
    assert {"ok", "RetryAfter", "NetworkError"} == set(first)
    assert await fault_pattern(seed=7, rate=0) == ["ok"] * 40
    assert set(await fault_pattern(seed=7, rate=1)) == {"RetryAfter", "NetworkError"}


async def test_random_faults_of_a_method_do_not_depend_on_other_calls() -> None:
    async def send_statuses(interleaved: str | None) -> list[int]:
        async with limited(None, ManualClock()) as (fake, _):
            alice = fake.user(1, "Alice")
            await fake.send_text(alice, alice, "/start")
            fake.set_fault_rate(0.3, seed=5, codes=(502,))
            statuses: list[int] = []
            async with httpx.AsyncClient() as client:
                for i in range(30):
                    if interleaved and i % 3:
                        await client.post(f"{fake.base_url}{TOKEN}/{interleaved}", data={})
                    response = await client.post(
                        f"{fake.base_url}{TOKEN}/sendMessage", data={"chat_id": "1", "text": "x"}
                    )
                    statuses.append(response.status_code)
            return statuses

    alone = await send_statuses(None)
    assert {200, 502} == set(alone)
    assert await send_statuses("getMe") == alone
    assert await send_statuses("getMyCommands") == alone


async def test_random_faults_per_method_and_code(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.user(1, "Alice")
    await fake.send_text(alice, alice, "/start")
    fake.set_fault_rate(1, methods=["sendmessage"], codes=(500,))
    await bot.get_chat(alice.id)  # other methods pass
    with pytest.raises(NetworkError) as info:
        await bot.send_message(alice.id, "x")
    assert info.value.message == "Internal Server Error"
    assert fake.calls[-1].error_code == 500
    fake.set_fault_rate(0)
    await bot.send_message(alice.id, "x")
    fake.set_fault_rate(1, methods=["getUpdates"], codes=(502,))
    async with httpx.AsyncClient() as client:
        response = await client.post(f"{fake.base_url}{TOKEN}/getUpdates")
    assert response.status_code == 502
    assert response.json() == {"ok": False, "error_code": 502, "description": "Bad Gateway"}
    assert [c.method for c in fake.injected_faults] == ["sendMessage", "getUpdates"]
    with pytest.raises(ValueError):
        fake.set_fault_rate(1.5)
    with pytest.raises(ValueError):
        fake.set_fault_rate(0.1, codes=(400,))


# ------------------------------------------------------------------ latencies


async def test_tap_and_command_latencies_on_the_fake_clock() -> None:
    clock = ManualClock()
    async with limited(None, clock) as (fake, bot):
        alice, bob = fake.user(1, "Alice"), fake.user(2, "Bob")
        group = fake.group(GROUP_ID, "Tavolo")
        await fake.send_text(alice, alice, "/start")
        updates = await bot.get_updates()  # delivered at t = 0
        clock.advance(0.5)
        await bot.send_message(alice.id, "Scegli", reply_markup=keyboard(("A", "a")))
        pressed = await fake.press(alice, fake.last_message(alice), "a")
        forged = await fake.press_raw(alice, alice, 99, "forged")
        failed = await fake.press_raw(alice, alice, 98, "failed")
        clock.advance(1)
        updates = await bot.get_updates(offset=updates[-1].update_id + 1)  # t = 1.5
        assert len(updates) == 3
        clock.advance(0.25)
        assert await bot.answer_callback_query(pressed)  # t = 1.75
        clock.advance(1)
        with pytest.raises(BadRequest):  # the second answer is refused: the first one counts
            await bot.answer_callback_query(pressed)
        fake.inject_error("answerCallbackQuery", 400, "Bad Request: scripted")
        with pytest.raises(BadRequest):
            await bot.answer_callback_query(failed)

        await fake.send_text(bob, group, "/new")
        await bot.send_message(GROUP_ID, "before the delivery: not an answer")
        clock.advance(1)
        updates = await bot.get_updates(offset=updates[-1].update_id + 1)  # t = 3.75
        clock.advance(2)
        await bot.send_message(alice.id, "another chat")
        clock.advance(1)
        await bot.send_message(GROUP_ID, "Nuova partita")  # t = 6.75: 3 s
        await bot.send_message(GROUP_ID, "only the first message counts")
        await fake.send_text(bob, group, "/help")  # never answered: no latency
        await fake.send_text(bob, group, "not a command")
        clock.advance(1)
        await bot.get_updates(offset=updates[-1].update_id + 1)

        assert fake.tap_latencies() == [0.25]
        assert fake.unanswered_queries() == [forged, failed]
        assert fake.answers_to(pressed) == [CallbackAnswer(None, False, None, None)]
        assert fake.answers_to(failed) == []
        assert fake.answer_attempts(failed) == 0  # refused before it ran
        assert fake.command_latencies() == [0.5, 3.0]


async def test_latencies_of_a_polling_app(fake: FakeTelegram) -> None:
    async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_message is not None
        await update.effective_message.reply_text("Menu", reply_markup=keyboard(("A", "a")))

    async def button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.callback_query is not None
        await update.callback_query.answer()

    alice = fake.user(1, "Alice")
    async with polling_app(fake, CommandHandler("start", start), CallbackQueryHandler(button)):
        await fake.send_text(alice, alice, "/start")
        menu = await fake.wait_for_text(alice, "Menu")
        await fake.answer_for(await fake.press(alice, menu, "a"))
    (command,) = fake.command_latencies()
    (tap,) = fake.tap_latencies()
    assert 0 <= command < 5 and 0 <= tap < 5
    assert fake.unanswered_queries() == []
    arrived = fake.calls_of("sendMessage")[0].arrived
    assert fake.calls_of("sendMessage")[0].at >= arrived > 0


async def test_clock_drives_callback_query_ttl() -> None:
    clock = ManualClock()
    async with limited(None, clock, callback_query_ttl=15) as (fake, bot):
        alice = fake.user(1, "Alice")
        fresh = await fake.press_raw(alice, alice, 1, "a")
        old = await fake.press_raw(alice, alice, 1, "b")
        clock.advance(15)
        assert await bot.answer_callback_query(fresh)
        clock.advance(0.001)
        with pytest.raises(BadRequest, match="Query is too old"):
            await bot.answer_callback_query(old)


# ------------------------------------------------------------------ a long run


async def test_wait_taken_waits_for_the_offset_that_confirms_the_updates(
    fake: FakeTelegram, bot: Bot
) -> None:
    """Delivered is not taken: an update is taken once a getUpdates offset confirms it (a
    polling bot asks for the next ones only after queueing those it got)."""
    alice = fake.user(1, "Alice")
    await fake.wait_taken(timeout=0.1)  # nothing sent yet: nothing to wait for
    await fake.send_text(alice, alice, "one")
    await fake.send_text(alice, alice, "two")
    got = await bot.get_updates()
    await fake.wait_delivered(timeout=1)
    with pytest.raises(TimeoutError):
        await fake.wait_taken(timeout=0.1)
    await bot.get_updates(offset=got[0].update_id + 1)  # "one" confirmed, "two" not yet
    with pytest.raises(TimeoutError):
        await fake.wait_taken(timeout=0.1)
    await bot.get_updates(offset=got[-1].update_id + 1)
    await fake.wait_taken(timeout=1)


async def test_many_updates_and_calls_stay_consistent(fake: FakeTelegram, bot: Bot) -> None:
    """The indexes behind getUpdates, wait_delivered and count agree with the call log."""
    alice = fake.user(1, "Alice")
    for i in range(450):
        await fake.send_text(alice, alice, f"m{i}")
    seen: list[str] = []
    offset = 0
    while len(seen) < 450:
        batch = await bot.get_updates(offset=offset, limit=100)
        assert 0 < len(batch) <= 100
        seen += [u.message.text for u in batch if u.message and u.message.text]
        offset = batch[-1].update_id + 1
        assert fake.pending_updates()[0]["update_id"] == batch[0].update_id
    assert seen == [f"m{i}" for i in range(450)]
    await fake.wait_delivered(timeout=1)
    await fake.send_text(alice, alice, "late")
    with pytest.raises(TimeoutError):
        await fake.wait_delivered(timeout=0.1)
    assert len(await bot.get_updates(offset=-1)) == 1
    await fake.wait_delivered(timeout=1)

    mark = fake.mark()
    for i in range(30):
        with contextlib.suppress(BadRequest):
            await bot.send_message(alice.id, "" if i % 3 == 0 else f"#{i}")
    log = fake.calls
    for method in ("sendMessage", "getUpdates", "getMe"):
        for since in (0, 5, mark, mark + 7, len(log)):
            expected = [c for c in log if c.method == method and c.seq > since]
            assert fake.calls_of(method, since=since) == expected
            for ok in (None, True, False):
                assert fake.count(method, since=since, ok=ok) == sum(
                    1 for c in expected if ok is None or c.ok == ok
                )
    assert fake.counts() == Counter(c.method for c in log)
    assert fake.counts(since=mark) == {"sendMessage": 30}


def assert_flood_wait(response: httpx.Response, seconds: int) -> None:
    """`response` is the Bot API's flood wait (HTTP 429): retry after `seconds`."""
    assert response.status_code == 429
    assert response.json() == {
        "ok": False,
        "error_code": 429,
        "description": f"Too Many Requests: retry after {seconds}",
        "parameters": {"retry_after": seconds},
    }

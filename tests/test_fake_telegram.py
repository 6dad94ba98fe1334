"""The Bot API stand-in (tests/fake_telegram.py), exercised with a real PTB Bot/Application."""

from __future__ import annotations

import asyncio
import datetime as dtm
import os
import subprocess
import sys
import textwrap
import time
import warnings
from collections.abc import AsyncIterator
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
from telegram.error import BadRequest, Conflict, Forbidden, RetryAfter
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

from tests.fake_telegram import (
    ButtonNotFound,
    EntityParseError,
    FakeTelegram,
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
async def fake() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as server:
        yield server
        assert not server.internal_errors, server.internal_errors


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
    assert response.status_code == 429
    assert response.json() == {
        "ok": False,
        "error_code": 429,
        "description": "Too Many Requests: retry after 3",
        "parameters": {"retry_after": 3},
    }


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
        pending = asyncio.create_task(client.post(url, data=after))
        await asyncio.sleep(0.2)
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

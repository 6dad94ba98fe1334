"""The stand-in Bot API's sendDocument and sendPhoto (multipart uploads), which /export and
the charts use: the bytes and the file name come back to the test, the message is a normal
message with `document` / `photo` and the caption as its text."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, InputFile
from telegram.error import BadRequest, Forbidden
from telegram.request import HTTPXRequest

from bench.rig.telegram import FakeTelegram

TOKEN = "123456:TEST-token"
GROUP_ID = -100777


@pytest.fixture
async def bot(fake: FakeTelegram) -> AsyncIterator[Bot]:
    async with Bot(
        TOKEN, base_url=f"{fake.base_url}", request=HTTPXRequest(connection_pool_size=4)
    ) as client:
        yield client


async def test_send_document_keeps_the_bytes_and_the_name(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.user(1, "Alice")
    group = fake.group(GROUP_ID, "Tavolo", members=[alice])
    data = b"when,who\n2026-11-23,<Alice>\n"
    sent = await bot.send_document(
        GROUP_ID,
        InputFile(data, filename="ledger.csv"),
        caption="<b>Registro</b> &amp; co",
        parse_mode="HTML",
        reply_markup=InlineKeyboardMarkup([[InlineKeyboardButton("x", callback_data="y")]]),
    )
    assert sent.document is not None and sent.document.file_name == "ledger.csv"
    assert sent.document.file_size == len(data) and sent.caption == "Registro & co"
    assert sent.text is None
    [message] = fake.documents(group)
    assert message.document is not None and message.document.data == data
    assert message.document.filename == "ledger.csv" and message.text == "Registro & co"
    assert message.keyboard == [["x"]] and message.message_id == sent.message_id
    assert fake.photos(group) == []
    # the call log shows the upload as before: its name and size
    [call] = fake.calls_of("sendDocument")
    assert call.params["document"] == {"filename": "ledger.csv", "size": len(data)}
    # a known file_id is sent again without uploading; an unknown one is refused
    again = await bot.send_document(GROUP_ID, sent.document.file_id)
    assert again.document is not None and again.document.file_id == sent.document.file_id
    assert [m.document.data for m in fake.documents(group) if m.document] == [data, data]
    with pytest.raises(BadRequest, match=r"(?i)wrong file identifier"):
        await bot.send_document(GROUP_ID, "nonsense")
    # a document has no text to edit
    with pytest.raises(BadRequest, match=r"(?i)no text in the message"):
        await bot.edit_message_text("new", chat_id=GROUP_ID, message_id=sent.message_id)


async def test_send_photo_and_refusals(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.user(1, "Alice")
    group = fake.group(GROUP_ID, "Tavolo", members=[alice])
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4
    sent = await bot.send_photo(GROUP_ID, InputFile(png, filename="chart.png"))
    assert sent.photo and sent.photo[-1].file_size == len(png) and sent.caption is None
    [message] = fake.photos(group)
    assert message.photo is not None and message.photo.data == png
    assert message.photo.filename == "chart.png" and message.text == ""
    assert fake.documents(group) == []
    with pytest.raises(BadRequest, match=r"(?i)can't parse entities"):
        await bot.send_photo(
            GROUP_ID, InputFile(png, filename="c.png"), caption="<b>", parse_mode="HTML"
        )
    with pytest.raises(BadRequest, match=r"(?i)caption is too long"):
        await bot.send_photo(GROUP_ID, InputFile(png, filename="c.png"), caption="x" * 1025)
    # a private chat that never started the bot cannot get one
    with pytest.raises(Forbidden):
        await bot.send_photo(alice.id, InputFile(png, filename="c.png"))
    assert len(fake.photos(group)) == 1

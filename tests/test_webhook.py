"""Issue 15, webhook mode: `python -m bot` with WEBHOOK_URL serves Telegram's webhook instead of
polling. The stand-in Bot API posts every update to the bot's local port, as Telegram posts to
the public address a proxy forwards, and sometimes twice at once (a duplicate delivery); it
delivers again what got no 2xx answer. The bot checks the secret header on every request,
answers a health check, and applies each update once (`update_id` claimed in the database),
also across a SIGKILL and a restart."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from pathlib import Path

import httpx
import pytest

from bench.rig.backends import BACKENDS, fresh_url
from bench.rig.bot_process import PUBLIC, SECRET, WebhookBot, bot_guard, check_ledger
from bench.rig.people import (
    OK,
    Game,
    card_buttons,
    hand_message,
    open_table,
    say,
    start_bot,
    start_table,
)
from bench.rig.stand_in import telegram
from bench.rig.telegram import JSONDict
from bot.config import Settings


def test_the_secret_defaults_to_one_derived_from_the_token() -> None:
    """Every process of the bot derives the same secret, which is not the token."""
    a = Settings(bot_token="1:abc", webhook_url=PUBLIC)
    b = Settings(bot_token="1:abc", webhook_url=PUBLIC)
    c = Settings(bot_token="1:abd", webhook_url=PUBLIC)
    assert a.secret_token() == b.secret_token() != c.secret_token()
    assert "abc" not in a.secret_token() and len(a.secret_token()) == 64
    assert a.webhook_path() == "/telegram/updates"


@pytest.mark.parametrize("backend", BACKENDS)
async def test_webhook_secret_health_duplicates_and_a_sigkill(tmp_path: Path, backend: str) -> None:
    """On SQLite, and on PostgreSQL (DATABASE_URL=postgresql://...; the export that checks
    the ledger reads it there too)."""
    database = {"DATABASE_URL": fresh_url(backend, tmp_path)}
    async with asyncio.timeout(240), telegram() as fake:
        luigi = fake.user(301, "<Luigi & Co>")
        bea = fake.user(302, "Bea_*")
        group = fake.group(-100301, "Webhook <Bar>", members=[luigi, bea])
        rng = random.Random(15)
        with bot_guard(WebhookBot(fake, tmp_path, **database)) as bot:

            def route(update: JSONDict) -> list[str]:
                # about one update in four is delivered twice at once
                return [bot.url, bot.url] if rng.random() < 0.25 else [bot.url]

            fake.deliver_webhook_to(route)
            store = await start_bot(bot, [luigi, bea])
            [hook] = fake.calls_of("setWebhook")
            assert hook.params["url"] == PUBLIC and hook.params["secret_token"] == SECRET
            assert fake.count("getUpdates") == 0  # it never polls

            # ---- the endpoint: secret, body, health
            async with httpx.AsyncClient(timeout=10) as client:
                update = {"update_id": 1, "message": {"message_id": 1, "date": 0, "chat": {}}}
                assert (await client.post(bot.url, json=update)).status_code == 403
                wrong = {"X-Telegram-Bot-Api-Secret-Token": SECRET + "x"}
                assert (await client.post(bot.url, json=update, headers=wrong)).status_code == 403
                right = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
                garbage = await client.post(bot.url, content=b"{not json", headers=right)
                assert garbage.status_code == 400
                health = await client.get(f"http://127.0.0.1:{bot.port}/healthz")
                assert health.status_code == 200 and health.json() == {"ok": True}
                assert (await client.get(bot.url)).status_code == 405  # POST only

            # ---- a due match, a person against another, updates delivered twice at times
            await open_table(fake, group, luigi, [bea], "due", settings="match=single")
            await start_table(fake, group, luigi)
            game = Game(fake, group, [luigi, bea], store)
            for _ in range(8):
                assert await game.step()
            # ---- SIGKILL between two moves (once the next turn is shown: a kill before its
            # message went out leaves nothing to tap); taps made while it is down wait for it
            who, before = await game.turn()
            await bot.kill9()
            assert who is not None
            card = card_buttons(hand_message(fake, who))[0]
            pending = asyncio.create_task(game.press(who, card))
            await asyncio.sleep(0.5)
            assert not pending.done()
            await bot.start()
            assert await pending == OK
            await game.settled(who, before, card)  # the answer comes before the table's edit
            await game.play_match()
            assert "Partita finita" in game.table().text
            check_ledger(bot, group.id, 1)

            # ---- duplicates happened, and each update was applied once
            posts = Counter(p.update_id for p in fake.webhook_posts)
            assert any(n >= 2 for n in posts.values())
            answered = Counter(
                c.params["callback_query_id"] for c in fake.calls_of("answerCallbackQuery")
            )
            assert answered and max(answered.values()) == 1, answered
            score = await say(fake, luigi, group, "/score")
            assert "Bea_*" in score.text and "Luigi" in score.text
        bot.check_logs()
        assert SECRET not in bot.log_text()

"""Stats, ratings, /top, /h2h and the charts end to end (issue 14): `python -m bot` against the
stand-in Bot API. A due match played through the chat writes its hand and match records with
its ledger entry (migration 6); chiamata hands are added to the database as a finished table
writes them. /stats (/statistiche) by default, by @username, by name and by replying to a
message; /top; /h2h; /stats grafico and /score grafico as PNG photos; in Italian and then in
English; in a private chat one's own numbers in every group; refusals (garbage arguments, an
unknown person, /top in a private chat) answer clearly and change nothing."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.rig.bot_process import WAIT, BotProcess, Store, bot_guard
from bench.rig.people import say, started_game
from bench.rig.stand_in import telegram
from bench.rig.telegram import FakeChat, FakeMessage, FakeTelegram, FakeUser
from storage import Database
from storage.stats import PlayRecord

GROUP = -100777042
WHEN = datetime(2026, 11, 20, 21, 0, tzinfo=UTC)
PNG = b"\x89PNG\r\n\x1a\n"


def records(store: Store) -> list[tuple[Any, ...]]:
    """Everything a refusal must leave alone: the records, the ledger, the season."""
    hands = store.rows("SELECT * FROM hand_records ORDER BY table_id, hand_index")
    matches = store.rows("SELECT * FROM match_records ORDER BY table_id")
    ledger = store.rows("SELECT * FROM ledger_entries ORDER BY rowid")
    epoch = store.rows("SELECT league_epoch FROM chats WHERE chat_id = ?", GROUP)
    return [tuple(r) for r in [*hands, *matches, *ledger, *epoch]]


def chiamata_hand(
    index: int, users: list[int], names: list[str], caller: int, partner: int, won: bool
) -> PlayRecord:
    """A chiamata hand's record as `bot.table.stats.hand_data` writes it (the fields read)."""
    side_of = [0 if s in (caller, partner) else 1 for s in range(5)]
    counted = [0] * 5
    sign = 1 if won else -1
    for s in range(5):
        if s == caller:
            counted[s] = sign * (4 if caller == partner else 2)
        elif s == partner:
            counted[s] = sign
        else:
            counted[s] = -sign
    data = {
        "players": names,
        "users": users,
        "computers": [],
        "card_points": [30, 20, 30, 20, 20],
        "counted": counted,
        "caller": caller,
        "partner": partner,
        "auction": [[caller, 2]] + [[s, "pass"] for s in range(5) if s != caller],
        "result": {
            "side_of": side_of,
            "winning_sides": [0 if won else 1],
            "void": False,
            "redeal": False,
            "cappotto": False,
        },
    }
    when = WHEN + timedelta(minutes=index)
    return PlayRecord(GROUP, 900, index, "chiamata", "chiamata", when, data)


def quattro_match(users: list[int], names: list[str]) -> PlayRecord:
    """A Briscola a quattro match of one hand (two pairs: seats 0 and 2 beat 1 and 3), as a
    finished table writes its last hand and the match's result."""
    side_of = [0, 1, 0, 1]
    hand = {
        "players": names,
        "users": users,
        "computers": [],
        "card_points": [40, 20, 30, 30],
        "counted": [0] * 4,
        "caller": None,
        "partner": None,
        "auction": [],
        "result": {
            "side_of": side_of,
            "winning_sides": [0],
            "void": False,
            "redeal": False,
            "cappotto": False,
        },
    }
    result = {
        "users": users,
        "names": names,
        "computers": [],
        "side_of": side_of,
        "winners": [0],
        "counted": [1, -1, 1, -1],
    }
    when = WHEN + timedelta(minutes=30)
    return PlayRecord(GROUP, 901, 0, "quattro", "two", when, hand, result)


async def photo(fake: FakeTelegram, user: FakeUser, chat: FakeChat, text: str) -> FakeMessage:
    reply = await say(fake, user, chat, text)
    assert reply.photo is not None, reply.text
    assert reply.photo.data.startswith(PNG) and len(reply.photo.data) > 1000
    return reply


# the charts of /stats and /score in each language: (command, its caption; `name`: whose)
CHARTS = {
    "it": (
        ("/stats grafico", "Il rating di {name}"),
        ("/score grafico", "I saldi della stagione 1"),
    ),
    "en": (("/stats chart", "{name}'s rating"), ("/score chart", "Season 1 balances")),
}


async def charts(fake: FakeTelegram, user: FakeUser, chat: FakeChat, lang: str, name: str) -> None:
    """`user` asks for each chart of `CHARTS[lang]`: a `photo`, with its caption (`name`: the
    user's, as the bot writes it)."""
    for command, caption in CHARTS[lang]:
        shot = await photo(fake, user, chat, command)
        assert caption.format(name=name) in shot.text, (command, shot.text)


async def say_replying(
    fake: FakeTelegram, user: FakeUser, chat: FakeChat, text: str, to: FakeMessage
) -> FakeMessage:
    command = await fake.send_text(user, chat, text, reply_to=to)
    return await fake.wait_for(
        lambda: next(
            (m for m in fake.bot_messages(chat) if m.reply_to_message_id == command.message_id),
            None,
        ),
        WAIT,
        message=f"a reply to {text!r}",
    )


async def test_stats_top_h2h_and_charts_in_italian_and_english(tmp_path: Path) -> None:
    async with asyncio.timeout(200), telegram() as fake:
        ana = fake.user(901, "Ana", username="ana_b")
        bea = fake.user(902, "<Bea & Co>", username="bea")
        ciro = fake.user(903, "Ciro")
        dario = fake.user(904, "Dario")
        eva = fake.user(905, "Eva")
        zoe = fake.user(906, "Zoe", username="zoe")
        group = fake.group(GROUP, "Lega 📊", owner=ana, members=[bea, ciro, dario, eva, zoe])
        with bot_guard(BotProcess(fake, tmp_path)) as bot:
            game = await started_game(bot, group, [ana, bea], "due", settings="match=single")
            store = game.store
            await game.play_match()
            table_id = game.table_id()
            # the played match wrote its hands and its result with its ledger entry
            await fake.wait_for(
                lambda: store.rows("SELECT * FROM match_records WHERE table_id = ?", table_id),
                WAIT,
                message="the match's record",
            )
            hands = store.rows("SELECT * FROM hand_records WHERE table_id = ?", table_id)
            assert hands and all(r["family"] == "two" and r["epoch"] == 0 for r in hands)
            (row,) = [r for r in store.ledger(GROUP) if r["delta"] > 0]
            winner = row["user_id"]
            loser = bea if winner == ana.id else ana
            # chiamata hands, as a finished table of five writes them
            five = [ana.id, bea.id, ciro.id, dario.id, eva.id]
            names = ["Ana", "<Bea & Co>", "Ciro", "Dario", "Eva"]
            db = await Database.open(f"sqlite:///{bot.db_path}")
            try:
                for i, (caller, partner, won) in enumerate(
                    [(0, 1, True), (2, 0, False), (0, 0, True), (3, 4, True)]
                ):
                    await db.stats.record_play(chiamata_hand(i, five, names, caller, partner, won))
                # two pairs: Ciro and Eva beat Dario and Gino (issue 54.8: two teams)
                pairs = [ciro.id, dario.id, eva.id, 907]
                await db.stats.record_play(quattro_match(pairs, ["Ciro", "Dario", "Eva", "Gino"]))
            finally:
                await db.close()

            # ---- /stats: the sender by default, per variant, the season said
            stats = await say(fake, ana, group, "/stats")
            text = stats.text
            assert "📊 Ana — Stagione 1 (in corso)" in text, text
            assert "Briscola a due" in text and "Briscola chiamata (5)" in text
            won_due = 1 if winner == ana.id else 0
            assert f"Partite: 1, vinte {won_due} ({100 * won_due}%)" in text
            # chiamata: 4 hands (caller twice, won both; socio of Ciro, lost; a defender,
            # lost), she bid in 2 of 4 auctions
            assert "Mani: 4, vinte 2" in text and "Ha chiamato in 2 aste su 4 (50%)" in text
            assert "Da chiamante: 2 vinte su 2 (100%) · da socio: 0 su 1 (0%)" in text
            assert "Vincita più grande: +4" in text
            assert "Rating chiamata:" in text and "provvisorio (4 su 10)" in text
            assert "Conti: pagati 0 punti, ricevuti 0 punti" in text
            assert "Contano le mani finite" in text
            # by @username (any case), by the name played under, by replying to a message
            by_user = await say(fake, ana, group, "/stats @BEA")
            assert "📊 <Bea & Co>" in by_user.text and "&lt;Bea &amp; Co&gt;" in by_user.raw_text
            assert "Da chiamante: 0 vinte su 0" in by_user.text
            # one auction: "asta", singular
            ciro_stats = (await say(fake, ana, group, "/statistiche ciro")).text
            assert "📊 Ciro" in ciro_stats and "Ha chiamato in 1 asta su 4 (25%)" in ciro_stats
            note = await fake.send_text(dario, group, "bella partita")
            replied = await say_replying(fake, ana, group, "/stats", note)
            assert "📊 Dario" in replied.text and "Mani: 4, vinte 2" in replied.text
            assert "Da chiamante: 1 vinta su 1 (100%)" in replied.text
            assert (
                "📊 Ana — tutte le stagioni" in (await say(fake, ana, group, "/stats tutte")).text
            )

            # ---- refusals change nothing
            before = records(store)
            for command, want in (
                ("/stats @nessuno", "Non conosco «@nessuno»"),
                ("/stats boh", "Non conosco «boh»"),
                ("/stats @bea @ana_b", "Uso: /stats"),
                ("/stats 7", "le stagioni vanno da 1 a 1"),
                ("/stats ultima", "non ce n'è una precedente"),
                ("/top boh", "Uso: /top"),
                ("/top due tre", "Uso: /top"),
                ("/h2h", "Uso: /h2h"),
                ("/h2h @a @b @c", "Uso: /h2h"),
                ("/h2h @ana_b @ANA_B", "Servono due persone diverse"),
                ("/h2h @fantasma", "Non conosco «@fantasma»"),
                ("/score grafico boh", "Quale stagione?"),
                ("/score grafico 1 2", "Uso: /score grafico"),
                (f"/stats grafico @{'x' * 80}", "Non conosco"),
            ):
                reply = await say(fake, ana, group, command)
                assert want in reply.text, (command, reply.text)
                assert reply.photo is None
            # privately, /stats is one's own numbers in every group (issue 49), not a refusal
            mine = await say(fake, ana, ana, "/stats")
            assert "📊 Ana — i tuoi numeri" in mine.text and "👥 Lega 📊" in mine.text
            assert f"Briscola a due: 1 partita, vinte {won_due}" in mine.text, mine.text
            assert "Briscola chiamata (5): 4 mani, vinte 2 (50%)" in mine.text
            assert "Rating chiamata:" in mine.text and "Conti della stagione 1" in mine.text
            bea_mine = await say(fake, bea, bea, "/statistiche")
            assert "&lt;Bea &amp; Co&gt;" in bea_mine.raw_text
            assert "non hai ancora partite" in (await say(fake, zoe, zoe, "/stats")).text
            assert "si usa in un gruppo" in (await say(fake, ana, ana, "/top")).text
            assert "📊 Eva" in (await say(fake, ana, group, "/stats eva")).text
            zoe_stats = await say(fake, zoe, group, "/stats")
            assert "📊 Zoe" in zoe_stats.text and "Nessuna partita registrata" in zoe_stats.text
            no_chart = await say(fake, zoe, group, "/stats grafico")
            assert "Zoe non ha ancora partite con rating" in no_chart.text
            assert no_chart.photo is None
            assert records(store) == before

            # ---- /top: each family, the uncertainty in words; /top chiamata alone
            top = await say(fake, ana, group, "/top")
            # issue 54.8: the due match is one against one, not "due squadre" (two teams);
            # "due squadre" is the pairs' board
            boards = {b.splitlines()[0]: b for b in top.text.split("🏆 ")[1:]}
            assert list(boards) == [
                "Classifica — uno contro uno",
                "Classifica — due squadre",
                "Classifica — chiamata",
            ], top.text
            one = boards["Classifica — uno contro uno"]
            assert "Ana" in one and "<Bea & Co>" in one and "Ciro" not in one
            teams = boards["Classifica — due squadre"]
            assert all(n in teams for n in ("Ciro", "Dario", "Eva", "Gino")) and "Ana" not in teams
            assert "provvisorio (1 su 10)" in top.text and "1 partita" in top.text
            assert "mani" in top.text and "sotto 10 partite" in top.text
            only = await say(fake, ana, group, "/classifica chiamata")
            assert "chiamata" in only.text and "due squadre" not in only.text
            assert "uno contro uno" not in only.text
            only = await say(fake, ana, group, "/top uno")
            assert "Classifica — uno contro uno" in only.text and "squadre" not in only.text
            # ---- /h2h: me against Bea, and two others
            h2h = await say(fake, ana, group, "/h2h @bea")
            assert "⚔️ Ana e <Bea & Co>" in h2h.text
            # chiamata: together in hands 0 (won) and 3 (lost), against in 1 (Bea's side won)
            # and 2 (Ana's)
            assert "Insieme: 2 mani, vinte 1" in h2h.text
            assert "Contro: 2 mani — Ana 1, <Bea & Co> 1" in h2h.text
            ana_due = 1 if winner == ana.id else 0
            assert f"Contro: 1 partita — Ana {ana_due}, <Bea & Co> {1 - ana_due}" in h2h.text
            other = await say(fake, ana, group, "/scontri Ciro Dario")
            assert "⚔️ Ciro e Dario" in other.text and "Insieme: 2 mani, vinte 0" in other.text
            assert "Contro: 2 mani — Ciro 0, Dario 2" in other.text
            # ---- charts: PNG photos, drawn off the event loop; the text stays
            await charts(fake, ana, group, "it", "Ana")
            assert "Stagione 1" in (await say(fake, ana, group, "/score")).text
            await photo(fake, loser, group, "/stats grafico @eva")
            assert records(store) == before

            # ---- English
            assert "English" in (await say(fake, ana, group, "/lang en")).text
            stats = await say(fake, bea, group, "/stats")
            assert "📊 <Bea & Co> — Season 1 (current)" in stats.text
            assert "Two-player Briscola" in stats.text and "Games: 1, won" in stats.text
            assert "As chiamante: won 0 of 0" in stats.text and "Tab: paid 0 points" in stats.text
            top = await say(fake, bea, group, "/top")
            assert "🏆 Leaderboard — one-on-one" in top.text and "provisional (1 of 10)" in top.text
            assert "🏆 Leaderboard — two teams" in top.text and "sides" not in top.text
            h2h = await say(fake, bea, group, "/h2h @ana_b")
            assert "⚔️ <Bea & Co> and Ana" in h2h.text and "Together: 2 hands, won 1" in h2h.text
            assert "Against each other: 2 hands — <Bea & Co> 1, Ana 1" in h2h.text
            await charts(fake, bea, group, "en", "<Bea & Co>")
            for command, want in (
                ("/stats @nobody", 'I don\'t know "@nobody"'),
                ("/top xyz", "Usage: /top"),
                ("/h2h", "Usage: /h2h"),
                ("/score chart 1 2", "Usage: /score chart"),
                ("/stats 3", "seasons go from 1 to 1"),
            ):
                reply = await say(fake, bea, group, command)
                assert want in reply.text, (command, reply.text)
            assert records(store) == before
            bot.check_logs()

"""The ledger from the chat, end to end (issue 14, RULES §10): `python -m bot` against the
stand-in Bot API. /score of a season, /beer (/birra) and its "pagato" buttons, /undo, /export
(a CSV or JSON document), /season (/stagione), in Italian and then in English; refusals (not
an admin, garbage arguments, a double tap on a confirm, forged button data, a private chat)
answer clearly and change nothing."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import sqlite3
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from bench.rig.bot_process import WAIT, BotProcess, Store, bot_guard
from bench.rig.people import say
from bench.rig.stand_in import REAL_PACE, strict_telegram, telegram
from bench.rig.telegram import FakeChat, FakeMessage, FakeTelegram, FakeUser
from storage import Database
from storage.tournaments import NewFixture

GROUP = -100777001
WHEN = datetime(2026, 11, 20, 21, 0, tzinfo=UTC)


def ledger(store: Store, chat_id: int) -> list[tuple[Any, ...]]:
    """Every stored ledger entry and audit row (what a refusal must leave alone)."""
    entries = store.rows(
        "SELECT epoch, hand_key, user_id, delta FROM ledger_entries WHERE chat_id = ?"
        " ORDER BY rowid",
        chat_id,
    )
    audit = store.rows("SELECT * FROM ledger_audit WHERE chat_id = ? ORDER BY audit_id", chat_id)
    epoch = store.rows("SELECT league_epoch FROM chats WHERE chat_id = ?", chat_id)
    return [tuple(r) for r in [*entries, *audit, *epoch]]


async def answer(fake: FakeTelegram, user: FakeUser, button: Any) -> str:
    qid = await fake.press(user, button)
    return (await fake.answer_for(qid, WAIT)).text or ""


async def raw(fake: FakeTelegram, user: FakeUser, chat: FakeChat, mid: int, data: str) -> str:
    qid = await fake.press_raw(user, chat, mid, data)
    return (await fake.answer_for(qid, WAIT)).text or ""


async def edited(fake: FakeTelegram, chat: FakeChat, mid: int, contains: str) -> FakeMessage:
    return await fake.wait_for(
        lambda: m if contains in (m := fake.message(chat, mid)).text else None,
        WAIT,
        message=f"message {mid} showing {contains!r}",
    )


async def document(fake: FakeTelegram, user: FakeUser, chat: FakeChat, text: str) -> bytes:
    reply = await say(fake, user, chat, text)
    assert reply.document is not None, reply.text
    return reply.document.data


def stored_entries(store: Store, epoch: int) -> dict[str, dict[int, int]]:
    out: dict[str, dict[int, int]] = {}
    for r in store.rows(
        "SELECT hand_key, user_id, delta FROM ledger_entries WHERE chat_id = ? AND epoch = ?",
        GROUP,
        epoch,
    ):
        out.setdefault(r["hand_key"], {})[r["user_id"]] = r["delta"]
    return out


async def test_ledger_commands_in_italian_and_english(tmp_path: Path) -> None:
    async with asyncio.timeout(150), telegram() as fake:
        boss = fake.user(801, "Boss")
        ana = fake.user(802, "Ana")
        bea = fake.user(803, "<Bea & Co>")
        eve = fake.user(804, "Eve", language_code="en")
        group = fake.group(GROUP, "Lega 🍺", owner=boss, members=[ana, bea, eve])
        with bot_guard(BotProcess(fake, tmp_path)) as bot:
            await bot.start()
            store = Store(bot.db_path)
            assert "Nessuna partita" in (await say(fake, ana, group, "/score")).text
            assert "Nessuna partita" in (await say(fake, ana, group, "/beer")).text
            # two hands in the ledger (as a finished table writes them)
            db = await Database.open(f"sqlite:///{bot.db_path}")
            try:
                names = {ana.id: "Ana", bea.id: "<Bea & Co>", eve.id: "Eve"}
                for key, deltas in (
                    ("t1:h0", {ana.id: 2, bea.id: -1, eve.id: -1}),
                    ("t1:h1", {ana.id: 1, bea.id: -2, eve.id: 1}),
                ):
                    assert await db.ledger.record_ledger(
                        GROUP, key, 1, "chiamata", deltas, names, WHEN
                    )
            finally:
                await db.close()

            # ---- /score of a season; garbage arguments
            score = await say(fake, ana, group, "/score")
            assert "Stagione 1 (in corso)" in score.text and "Ana: +3" in score.text
            assert "&lt;Bea &amp; Co&gt;: −3 punti" in score.raw_text  # in points (issue 38)
            before = ledger(store, GROUP)
            for text, want in (
                ("/score boh", "Quale stagione?"),
                ("/score last", "non ce n'è una precedente"),
                ("/score 2", "le stagioni vanno da 1 a 1"),
                ("/export xml", "Uso: /export"),
            ):
                assert want in (await say(fake, ana, group, text)).text, text
            assert "si usa in un gruppo" in (await say(fake, ana, ana, "/beer")).text

            # ---- /beer: a "Segna pagato" button per payment; the payer, the one paid (or an
            # admin) taps it (issue 38)
            beer = await say(fake, ana, group, "/birra")
            assert "<Bea & Co> → Ana: 3 punti" in beer.text and len(beer.buttons) == 1
            button = beer.button("pagato")
            # owed, not paid: no ✅ on it (issue 49)
            assert button.text == "💶 Segna pagato: <Bea & Co> → Ana"
            # (Eve's phone speaks English: the toast, hers alone, is in English, issue 38)
            assert "<Bea & Co> or Ana (or an admin)" in await answer(fake, eve, button)
            assert "Pulsante non valido" in await raw(
                fake, bea, group, beer.message_id, "L:p:0:1:1:2:3"
            )
            assert "Pulsante non valido" in await raw(fake, bea, group, beer.message_id, "L:zz")
            assert ledger(store, GROUP) == before
            assert await answer(fake, bea, button) == "Segnato come pagato."
            # (not "pagato": the hint under the buttons says "Segna pagato" already)
            paid = await edited(fake, group, beer.message_id, "Tutto pagato")
            assert paid.buttons == []
            assert "✅ <s>&lt;Bea &amp; Co&gt; → Ana: 3 punti</s> pagato" in paid.raw_text
            assert "Già segnato" in await raw(
                fake, bea, group, beer.message_id, str(button.callback_data)
            )
            balances = {
                r["user_id"]: r["b"]
                for r in store.rows(
                    "SELECT user_id, SUM(delta) AS b FROM ledger_entries WHERE chat_id = ?"
                    " GROUP BY user_id",
                    GROUP,
                )
            }
            assert balances == {ana.id: 0, bea.id: 0, eve.id: 0}

            # ---- /undo: admins only, a confirm button, once
            assert "Solo un amministratore" in (await say(fake, ana, group, "/undo")).text
            ask = await say(fake, boss, group, "/undo")
            assert "pagamento <Bea & Co> → Ana: 3" in ask.text, ask.text
            before = ledger(store, GROUP)
            assert "Solo un amministratore" in await answer(fake, ana, ask.button("Annulla"))
            assert ledger(store, GROUP) == before
            undo_data = str(ask.button("Annulla").callback_data)
            assert await answer(fake, boss, ask.button("Annulla")) == "Fatto."
            await edited(fake, group, ask.message_id, "Boss ha annullato")
            after = ledger(store, GROUP)
            assert "già stata annullata" in await raw(fake, boss, group, ask.message_id, undo_data)
            assert ledger(store, GROUP) == after
            assert "Ana: +3" in (await say(fake, ana, group, "/score")).text

            # ---- /export: the season as a CSV document, or JSON; equal to what is stored
            # (issue 38: a spreadsheet in the group's language, ";" for Italian, no keys)
            data = await document(fake, ana, group, "/export")
            text = data.decode("utf-8-sig")
            assert "pay:" not in text and "+00:00" not in text
            rows = list(csv.DictReader(io.StringIO(text), delimiter=";"))
            stored = stored_entries(store, 0)
            assert len(rows) == sum(len(d) for d in stored.values()) and len(stored) == 4
            by_name = {"Ana": ana.id, "<Bea & Co>": bea.id, "Eve": eve.id}
            totals: dict[int, int] = {}
            for row in rows:
                uid = by_name[row["Giocatore"]]
                totals[uid] = totals.get(uid, 0) + int(row["Punti"])
            per_person: dict[int, int] = {}
            for deltas in stored.values():
                for uid, d in deltas.items():
                    per_person[uid] = per_person.get(uid, 0) + d
            assert totals == per_person
            assert any(r["Voce"] == "Pagamento" for r in rows)
            assert any(r["Voce"].startswith("Annulla") and r["Segnato da"] == "Boss" for r in rows)
            exported = json.loads(await document(fake, ana, group, "/export json"))
            got = {
                h["hand_key"]: {int(u): d for u, d in h["deltas"].items()}
                for h in exported["hands"]
            }
            assert got == stored
            assert [a["action"] for a in exported["audit"]] == ["payment", "undo"]
            assert sum(b["balance"] for b in exported["balances"]) == 0
            names_sent = [m.document.filename for m in fake.documents(group) if m.document]
            assert names_sent == [
                f"briscola-{-GROUP}-stagione1.csv",
                f"briscola-{-GROUP}-stagione1.json",
            ]

            # ---- /stagione: admins only, a confirm button; a double tap changes nothing
            assert "Solo un amministratore" in (await say(fake, ana, group, "/stagione")).text
            ask = await say(fake, boss, group, "/stagione")
            assert "Iniziare una nuova stagione?" in ask.text
            season_data = str(ask.button("Nuova stagione").callback_data)
            assert "Solo un amministratore" in await answer(fake, bea, ask.button("Nuova"))
            assert await answer(fake, boss, ask.button("Nuova stagione")) == "Fatto."
            await edited(fake, group, ask.message_id, "Boss ha iniziato la stagione 2")
            after = ledger(store, GROUP)
            assert "già cambiata" in await raw(fake, boss, group, ask.message_id, season_data)
            assert "già cambiata" in await raw(fake, boss, group, ask.message_id, "L:s:7:y")
            assert ledger(store, GROUP) == after
            assert "La stagione 2 non ha voci" in (await say(fake, ana, group, "/score")).text
            for text in ("/score last", "/score ultima", "/score 1"):
                old = await say(fake, ana, group, text)
                assert "Stagione 1 (archiviata)" in old.text and "Ana: +3" in old.text
            assert "le stagioni vanno da 1 a 2" in (await say(fake, ana, group, "/score 3")).text
            old_export = await document(fake, ana, group, "/export 1")
            assert old_export == data  # season 1's export as before
            assert await document(fake, ana, group, "/export ultima") == data
            assert "La stagione 2 non ha voci" in (await say(fake, ana, group, "/export")).text

            # ---- English
            assert "English" in (await say(fake, boss, group, "/lang en")).text
            ask = await say(fake, boss, group, "/season")
            assert ask.text.startswith("🏁 Start a new season? Season 2")
            before = ledger(store, GROUP)
            # (the toast is Boss's alone: in his phone's Italian, issue 38)
            assert await answer(fake, boss, ask.button("Keep it")) == "Nessun cambiamento."
            await edited(fake, group, ask.message_id, "Nothing changed.")
            assert ledger(store, GROUP) == before
            assert "Season 1 (archived)" in (await say(fake, eve, group, "/score last")).text
            assert "Which season?" in (await say(fake, eve, group, "/score x")).text
            assert "Only a group admin" in (await say(fake, eve, group, "/season")).text
            assert "nothing to undo" in (await say(fake, boss, group, "/undo")).text
            assert "Usage: /export" in (await say(fake, eve, group, "/export 1 2")).text
            exported = json.loads(await document(fake, eve, group, "/export json last"))
            assert exported["season"] == 1 and len(exported["hands"]) == 4
            caption = fake.documents(group)[-1].text
            assert caption.startswith("📒 Ledger of season 1: 4 entries")
            db = await Database.open(f"sqlite:///{bot.db_path}")
            try:
                deltas = {ana.id: -1, eve.id: 1}
                names = {ana.id: "Ana", eve.id: "Eve"}
                assert await db.ledger.record_ledger(
                    GROUP, "t2:match", 2, "due", deltas, names, WHEN
                )
            finally:
                await db.close()
            # a beer worth 10 points: 1 point is said in points, not "0.1 beers" (issue 49)
            assert "A beer is worth 10 points" in (await say(fake, boss, group, "/beer 10")).text
            score = await say(fake, eve, group, "/score")
            assert "Ana → Eve: 1 point" in score.text.splitlines(), score.text
            beer = await say(fake, eve, group, "/beer")
            assert beer.text.startswith("🍺 Who buys the beer (season 2; a beer is worth 10")
            assert "Ana → Eve: 1 point" in beer.text.splitlines(), beer.text
            assert "0.1" not in score.text + beer.text
            # (Ana's toast, hers alone: in her phone's Italian, issue 38)
            assert await answer(fake, ana, beer.button("paid")) == "Segnato come pagato."
            await edited(fake, group, beer.message_id, "All paid")
            ask = await say(fake, boss, group, "/undo")
            assert ask.text.startswith("↩️ Undo the ledger's last entry?")
            assert "payment Ana → Eve: 1" in ask.text
            assert await answer(fake, boss, ask.button("Undo it")) == "Fatto."  # his toast
            assert await bot.stop() == 0
            bot.check_logs()
        # every write in every season sums to zero (§10.1)
        conn = sqlite3.connect(bot.db_path)
        try:
            sums = conn.execute(
                "SELECT SUM(delta) FROM ledger_entries GROUP BY epoch, hand_key"
            ).fetchall()
        finally:
            conn.close()
        assert sums and all(s == 0 for (s,) in sums)


def local_times(rows: list[dict[str, str]], day: str, hour: str) -> list[datetime]:
    """Each CSV row's date and time (the groups' clock) as a naive datetime."""
    return [datetime.strptime(f"{r[day]} {r[hour]}", "%d/%m/%Y %H:%M") for r in rows]


async def test_export_in_time_order_with_undos_tournaments_and_the_zone(tmp_path: Path) -> None:
    """Issue 54.7: /export (CSV and JSON) lists the season in time order, the new season's
    row first where it began (it came last); an undo row names the entry it undid and when
    (it said only "Annulla: Pagamento"); a tournament's match is marked; both formats say
    the groups' clock (TIMEZONE): the CSV's time column names the zone, the JSON names it
    and gives every time on it with its offset (it gave UTC while the CSV was local)."""
    rome = ZoneInfo("Europe/Rome")
    async with asyncio.timeout(120), telegram() as fake:
        boss = fake.user(821, "Boss")
        ana = fake.user(822, "Ana")
        bea = fake.user(823, "<Bea & Co>")
        group = fake.group(GROUP - 2, "Lega 🏆", owner=boss, members=[ana, bea])
        names = {ana.id: "Ana", bea.id: "<Bea & Co>"}
        with bot_guard(BotProcess(fake, tmp_path)) as bot:
            await bot.start()
            db = await Database.open(f"sqlite:///{bot.db_path}")
            try:
                # a hand at a table of the group, then a tournament's match (its table 7)
                deltas = {ana.id: 2, bea.id: -2}
                assert await db.ledger.record_ledger(
                    group.id, "t6:h0", 6, "due", deltas, names, WHEN
                )
                tour = await db.tournaments.create_tournament(
                    group.id, boss.id, "Boss", "it", "{}", "[]", "due"
                )
                assert tour is not None
                await db.tournaments.update_tournament(
                    tour.tournament_id,
                    tour.version,
                    status="finished",
                    schedule=[NewFixture(0, 0, 0, 1)],
                    table=(0, 7, None),
                )
                later = WHEN + timedelta(hours=1)
                deltas = {ana.id: 1, bea.id: -1}
                assert await db.ledger.record_ledger(
                    group.id, "t7:match", 7, "due", deltas, names, later
                )
            finally:
                await db.close()
            # Bea pays (now), and the admin undoes the payment
            beer = await say(fake, bea, group, "/beer")
            assert await answer(fake, bea, beer.button("pagato")) == "Segnato come pagato."
            ask = await say(fake, boss, group, "/undo")
            assert "pagamento <Bea & Co> → Ana: 3" in ask.text, ask.text
            assert await answer(fake, boss, ask.button("Annulla")) == "Fatto."
            await edited(fake, group, ask.message_id, "Boss ha annullato")

            # ---- CSV: time order, the zone in the header, the undo names its entry
            text = (await document(fake, ana, group, "/export")).decode("utf-8-sig")
            rows = list(csv.DictReader(io.StringIO(text), delimiter=";"))
            hour = "Ora (Europe/Rome)"
            assert list(rows[0])[:5] == ["Data", hour, "Voce", "Gioco", "Torneo"], list(rows[0])
            times = local_times(rows, "Data", hour)
            assert times == sorted(times)
            entries = [r["Voce"] for r in rows[::2]]  # two people per entry
            assert entries[:2] == ["Tavolo 6, mano 1", "Tavolo 7, partita"], entries
            assert entries[2] == "Pagamento" and entries[3].startswith("Annulla: Pagamento ")
            marked = "Torneo 1, partita 1"
            assert [r["Torneo"] for r in rows] == ["", "", marked, marked, *[""] * 4]
            assert (rows[0]["Data"], rows[0][hour]) == ("20/11/2026", "22:00")  # 21:00 UTC
            paid_at = f"{rows[4]['Data']} {rows[4][hour]}"
            assert entries[3] == f"Annulla: Pagamento <Bea & Co> → Ana ({paid_at})", entries
            assert rows[6]["Segnato da"] == "Boss" and rows[4]["Note"].endswith("annullata")

            # ---- JSON: the same order, the zone named, every time on it with its offset
            data = json.loads(await document(fake, ana, group, "/export json"))
            assert data["timezone"] == "Europe/Rome"
            hands = data["hands"]
            assert [h["hand_key"] for h in hands[:2]] == ["t6:h0", "t7:match"]
            assert [h["kind"] for h in hands] == ["game", "game", "payment", "undo"]
            assert hands[0]["finished_at"] == "2026-11-20T22:00:00+01:00"
            stamps = [h["finished_at"] for h in hands] + [a["at"] for a in data["audit"]]
            for stamp in stamps:
                at = datetime.fromisoformat(stamp)
                assert at.utcoffset() == at.astimezone(rome).utcoffset(), stamp
            moments = [datetime.fromisoformat(h["finished_at"]) for h in hands]
            assert moments == sorted(moments)
            # the CSV and the JSON say the same local time of each entry
            assert [h["finished_at"][11:16] for h in hands] == [r[hour] for r in rows[::2]]
            payment, undo = hands[2], hands[3]
            assert undo["undoes"] == payment["hand_key"] and payment["undoes"] is None
            assert undo["hand_key"] == f"undo:{payment['hand_key']}"
            assert payment["undone_by"] == undo["hand_key"]
            tournament = {"tournament_id": tour.tournament_id, "number": 1, "match": 1}
            assert [h["tournament"] for h in hands] == [None, tournament, None, None]

            # ---- a new season: its row comes first in its export, not last
            ask = await say(fake, boss, group, "/stagione")
            assert await answer(fake, boss, ask.button("Nuova stagione")) == "Fatto."
            await edited(fake, group, ask.message_id, "Boss ha iniziato la stagione 2")
            db = await Database.open(f"sqlite:///{bot.db_path}")
            try:
                deltas = {ana.id: -1, bea.id: 1}
                now = datetime.now(UTC)
                assert await db.ledger.record_ledger(
                    group.id, "t8:match", 8, "due", deltas, names, now
                )
            finally:
                await db.close()
            text = (await document(fake, ana, group, "/export")).decode("utf-8-sig")
            rows = list(csv.DictReader(io.StringIO(text), delimiter=";"))
            assert [(r["Voce"], r["Segnato da"]) for r in rows] == [
                ("Inizia la stagione 2", "Boss"),
                ("Tavolo 8, partita", ""),
                ("Tavolo 8, partita", ""),
            ]
            times = local_times(rows, "Data", hour)
            assert times == sorted(times)
            data = json.loads(await document(fake, ana, group, "/export json"))
            (season,) = data["audit"]
            assert season["action"] == "season" and season["season"] == 2
            began = datetime.fromisoformat(season["at"])
            assert began.utcoffset() == began.astimezone(rome).utcoffset()
            assert began <= datetime.fromisoformat(data["hands"][0]["finished_at"])

            # ---- English: commas, the same zone named
            assert "English" in (await say(fake, boss, group, "/lang en")).text
            text = (await document(fake, ana, group, "/export last")).decode("utf-8-sig")
            en = list(csv.reader(io.StringIO(text)))
            assert en[0][:5] == ["Date", "Time (Europe/Rome)", "Entry", "Game", "Tournament"]
            assert en[3][2:5] == ["Table 7, match", "Two-player Briscola", "Tournament 1, match 1"]
            assert en[7][2].startswith("Undo: Payment <Bea & Co> → Ana (2026-"), en[7]
            bot.check_logs()


@pytest.mark.slow
async def test_ledger_taps_are_answered_at_once_when_the_group_has_spent_its_minute(
    tmp_path: Path,
) -> None:
    """Issue 54 §1: a tap on /beer's "Segna pagato" or on /undo's confirm is answered at
    once (the issue's 1 s; the bound here leaves room for a loaded machine) even when the
    group's 20 calls a minute are spent (here by replies to a burst of /help, as after a
    match's end): the change is stored and answered first, the message shows it when the
    group's budget lets it (two groups: one pays, one undoes)."""
    async with asyncio.timeout(240), strict_telegram() as fake:
        boss = fake.user(811, "Boss")
        ana = fake.user(812, "Ana")
        bea = fake.user(813, "Bea")
        pub = fake.group(GROUP, "Lega 🍺", owner=boss, members=[ana, bea])
        bar = fake.group(GROUP - 1, "Bar", owner=boss, members=[ana, bea])
        with bot_guard(BotProcess(fake, tmp_path, **REAL_PACE)) as bot:
            await bot.start()
            store = Store(bot.db_path)
            db = await Database.open(f"sqlite:///{bot.db_path}")
            try:
                deltas = {ana.id: 2, bea.id: -2}
                names = {ana.id: "Ana", bea.id: "Bea"}
                for chat in (pub, bar):
                    assert await db.ledger.record_ledger(
                        chat.id, "t1:h0", 1, "due", deltas, names, WHEN
                    )
            finally:
                await db.close()
            beer = await say(fake, bea, pub, "/beer")
            ask = await say(fake, boss, bar, "/undo")
            assert "Ana +2" in ask.text, ask.text
            # each group's minute spent: a burst of commands, each answered in the group
            for _ in range(22):
                for chat in (pub, bar):
                    await fake.send_text(ana, chat, "/help")

            def replies(chat: FakeChat) -> int:  # the bot's messages in `chat` so far
                return len(
                    [c for c in fake.calls_of("sendMessage") if c.params.get("chat_id") == chat.id]
                )

            await fake.wait_for(
                lambda: min(replies(pub), replies(bar)) >= 4 or None, WAIT, message="replies"
            )
            # the replies to /help still wait for the groups' budgets when the taps come
            assert replies(pub) < 22 and replies(bar) < 22, (replies(pub), replies(bar))

            began = time.monotonic()
            assert await answer(fake, bea, beer.button("pagato")) == "Segnato come pagato."
            paid_in = time.monotonic() - began
            began = time.monotonic()
            assert await answer(fake, boss, ask.button("Annulla")) == "Fatto."
            undone_in = time.monotonic() - began
            # 0.1-0.2 s on an idle machine; waiting behind the group's replies would take the
            # rest of its minute (each reply 3 s): 5 s tells the two apart under any CI load
            assert paid_in <= 5.0 and undone_in <= 5.0, (paid_in, undone_in)
            # stored at once
            audit = store.rows("SELECT chat_id, action FROM ledger_audit ORDER BY audit_id")
            assert [(r["chat_id"], r["action"]) for r in audit] == [
                (pub.id, "payment"),
                (bar.id, "undo"),
            ]
            # the messages catch up when each group's budget allows, without their buttons
            paid = await fake.wait_for(
                lambda: (
                    m if "Tutto pagato" in (m := fake.message(pub, beer.message_id)).text else None
                ),
                90.0,
                message="the /beer message showing the payment",
            )
            done = await fake.wait_for(
                lambda: (
                    m if "ha annullato" in (m := fake.message(bar, ask.message_id)).text else None
                ),
                90.0,
                message="the /undo message showing the undo",
            )
            assert paid.buttons == [] and done.buttons == []
            assert fake.max_group_calls_per_minute().calls <= 20


async def test_ledger_messages_stay_true_when_another_one_changes_the_ledger(
    tmp_path: Path,
) -> None:
    """Issue 54 §6: a second /undo question loses its buttons once the first was used; a
    /beer message that showed a payment as paid shows it owed again once the payment is
    undone (and a second /beer message shows a payment marked on the first); after a new
    season, the older /season and /beer messages say they are out of date."""
    async with asyncio.timeout(150), telegram() as fake:
        boss = fake.user(821, "Boss")
        ana = fake.user(822, "Ana")
        bea = fake.user(823, "Bea")
        group = fake.group(GROUP, "Lega 🍺", owner=boss, members=[ana, bea])
        with bot_guard(BotProcess(fake, tmp_path)) as bot:
            await bot.start()
            db = await Database.open(f"sqlite:///{bot.db_path}")
            try:
                names = {ana.id: "Ana", bea.id: "Bea"}
                for key in ("t1:h0", "t1:h1"):
                    deltas = {ana.id: 2, bea.id: -2}
                    assert await db.ledger.record_ledger(GROUP, key, 1, "due", deltas, names, WHEN)
            finally:
                await db.close()

            # two questions for the same entry: the second loses its buttons after the first
            first = await say(fake, boss, group, "/undo")
            second = await say(fake, boss, group, "/undo")
            assert second.buttons
            assert await answer(fake, boss, first.button("Annulla")) == "Fatto."
            gone = await edited(fake, group, second.message_id, "Il registro è cambiato")
            assert gone.buttons == []
            assert "Boss ha annullato" in fake.message(group, first.message_id).text

            # a payment marked on one /beer message shows on the other
            beer = await say(fake, bea, group, "/beer")
            other = await say(fake, ana, group, "/beer")
            assert "Bea → Ana: 2 punti" in beer.text and beer.buttons and other.buttons
            assert await answer(fake, bea, beer.button("pagato")) == "Segnato come pagato."
            await edited(fake, group, beer.message_id, "Tutto pagato")
            synced = await edited(fake, group, other.message_id, "Tutto pagato")
            assert synced.buttons == []
            # the payment undone: both show it owed again, with the button back
            ask = await say(fake, boss, group, "/undo")
            assert "pagamento Bea → Ana" in ask.text, ask.text
            assert await answer(fake, boss, ask.button("Annulla")) == "Fatto."
            for m in (beer, other):
                owed = await fake.wait_for(
                    lambda m=m: (
                        x  # type: ignore[misc]
                        if (x := fake.message(group, m.message_id)).buttons
                        else None
                    ),
                    WAIT,
                    message="the /beer message showing the payment owed again",
                )
                assert "Tutto pagato" not in owed.text and "✅" not in owed.text, owed.text
                assert "Bea → Ana: 2 punti" in owed.text, owed.text
            # its button, on the settlement as it is now, works
            button = fake.message(group, beer.message_id).button("pagato")
            assert await answer(fake, ana, button) == "Segnato come pagato."

            # a new season: the other /season question and the /beer messages are out of date
            season = await say(fake, boss, group, "/stagione")
            again = await say(fake, boss, group, "/stagione")
            later = await say(fake, ana, group, "/beer")
            assert "Nessuna partita" in later.text or later.buttons == []
            assert await answer(fake, boss, season.button("Nuova stagione")) == "Fatto."
            stale = await edited(fake, group, again.message_id, "La stagione è già cambiata")
            assert stale.buttons == []

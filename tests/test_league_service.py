"""The ledger from the chat at the service (issue 14, RULES §10): /score of a season, /season
with its confirm, /undo, /export, /beer and its "pagato" buttons, in Italian and English;
refusals change nothing. §10.5: a table with computer seats never puts a computer in /score or
/beer."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime

from bot.i18n import t
from bot.service import Person, Reply
from bot.service.league import Document, parse_season
from bot.table.ledger import settle
from bot.table.table import FINISHED
from bot.view.callback_data import CB_PAID, paid_data
from tests.support.rig import CHAT, Rig

ANA = Person(1, "Ana")
BEA = Person(2, "Bea <&>")
CIRO = Person(3, "Ciro")
BOSS = Person(9, "Boss")
NAMES = {p.user_id: p.name for p in (ANA, BEA, CIRO)}
WHEN = datetime(2026, 11, 20, 21, 0, tzinfo=UTC)


async def hand(rig: Rig, key: str, deltas: dict[int, int]) -> None:
    names = {u: NAMES[u] for u in deltas}
    assert await rig.db.ledger.record_ledger(CHAT, key, 5, "chiamata", deltas, names, WHEN)


async def snapshot(rig: Rig) -> tuple[object, ...]:
    """Everything the ledger holds, every season."""
    epoch = await rig.db.people.league_epoch(CHAT)
    seasons = [await rig.db.ledger.season_entries(CHAT, e) for e in range(epoch + 1)]
    trails = [await rig.db.ledger.ledger_audit(CHAT, e) for e in range(epoch + 1)]
    return epoch, seasons, trails


def test_season_arguments() -> None:
    assert parse_season("", 2) == 2
    assert parse_season("last", 2) == parse_season("Ultima", 2) == 1
    assert parse_season("3", 2) == 2 and parse_season("1", 2) == 0
    assert parse_season("last", 0) == "lg_err_no_previous"
    assert parse_season("4", 2) == parse_season("0", 2) == "lg_err_no_season"
    for garbage in ("-1", "x", "1.5", "²", "1 2", "9999999"):
        assert parse_season(garbage, 2) in ("lg_err_season_arg", "lg_err_no_season"), garbage


async def test_s10_4_season_confirm_archive_and_score_of_a_season(rig: Rig) -> None:
    svc = rig.svc
    assert (await svc.league.season_score(CHAT)).key == "err_no_ledger"
    await hand(rig, "t5:h0", {ANA.user_id: 2, BEA.user_id: -1, CIRO.user_id: -1})
    before = await snapshot(rig)
    # not an admin: refused, nothing asked
    assert (await svc.league.ask_new_season(CHAT, ANA, is_admin=False)).key == "lg_err_admin"
    ask = await svc.league.ask_new_season(CHAT, BOSS, is_admin=True)
    assert ask.key == "lg_season_ask" and ask.keyboard is not None
    # the question lists the beers still unpaid, which the new season clears
    assert "Restano da pagare" in ask.text, ask.text
    assert "Bea &lt;&amp;&gt; → Ana: 1 punto" in ask.text and "Ciro → Ana: 1 punto" in ask.text
    yes, keep = [b.data for b in ask.keyboard[0]]
    assert yes == "L:s:0:y" and keep == "L:s:0:n"
    # a non-admin taps the confirm: refused
    assert (await svc.league.confirm_new_season(CHAT, 77, ANA, 0, True, is_admin=False)).key == (
        "lg_err_admin"
    )
    # keep: nothing changes, the message loses its buttons
    kept = await svc.league.confirm_new_season(CHAT, 77, BOSS, 0, False, is_admin=True)
    assert kept.key == "lg_kept" and rig.out.edits[-1][2].keyboard == []
    assert await snapshot(rig) == before
    # confirm: season 2 begins, season 1 archived; a double tap or a forged epoch: nothing
    done = await svc.league.confirm_new_season(CHAT, 78, BOSS, 0, True, is_admin=True)
    assert done.key == "lg_season_started"
    assert rig.out.edits[-1][:2] == (CHAT, 78) and "stagione 2" in rig.out.edits[-1][2].text
    after = await snapshot(rig)
    for epoch in (0, 5, -1):
        again = await svc.league.confirm_new_season(CHAT, 78, BOSS, epoch, True, is_admin=True)
        assert again.key == "lg_err_season_stale"
    assert await snapshot(rig) == after and after[0] == 1
    # /score: the new season is empty; `last` and `1` show the archived one
    assert (await svc.league.season_score(CHAT)).key == "lg_season_empty"
    for arg in ("last", "ultima", "1"):
        old = await svc.league.season_score(CHAT, arg)
        assert "Stagione 1 (archiviata)" in old.text and "Ana: +2 punti" in old.text, old.text
        assert "Bea &lt;&amp;&gt;: −1 punto" in old.text and " → " in old.text
        assert "Conti del gruppo" in old.text and "Classifica" not in old.text
    for arg, key in (("3", "lg_err_no_season"), ("boh", "lg_err_season_arg")):
        assert (await svc.league.season_score(CHAT, arg)).key == key
    # in English
    await rig.db.people.set_chat_lang(CHAT, "en")
    old = await svc.league.season_score(CHAT, "1")
    assert "Season 1 (archived)" in old.text
    assert "Which season?" in (await svc.league.season_score(CHAT, "x")).text
    assert (await svc.league.ask_new_season(CHAT, ANA, is_admin=False)).text == t(
        "en", "lg_err_admin"
    )


async def test_undo_confirm_once_audit_and_refusals(rig: Rig) -> None:
    svc = rig.svc
    assert (await svc.league.ask_undo(CHAT, BOSS, is_admin=True)).key == "lg_err_nothing_to_undo"
    await hand(rig, "t5:h0", {ANA.user_id: 2, BEA.user_id: -1, CIRO.user_id: -1})
    await hand(rig, "t5:h1", {ANA.user_id: -2, BEA.user_id: 1, CIRO.user_id: 1})
    assert (await svc.league.ask_undo(CHAT, ANA, is_admin=False)).key == "lg_err_admin"
    ask = await svc.league.ask_undo(CHAT, BOSS, is_admin=True)
    assert ask.key == "lg_undo_ask" and ask.keyboard is not None
    assert "Ana −2" in ask.text and "Bea &lt;&amp;&gt; +1" in ask.text, ask.text
    assert "20/11/2026 22:00" in ask.text and "UTC" not in ask.text  # the groups' clock
    data = ask.keyboard[0][0].data
    assert data is not None
    hand_id = int(data.split(":")[2])
    before = await snapshot(rig)
    assert (await svc.league.confirm_undo(CHAT, 50, ANA, hand_id, True, is_admin=False)).key == (
        "lg_err_admin"
    )
    # a forged entry (the first, not the last) is refused
    assert (
        await svc.league.confirm_undo(CHAT, 50, BOSS, hand_id - 1, True, is_admin=True)
    ).key == ("lg_err_undo_stale")
    assert await snapshot(rig) == before
    done = await svc.league.confirm_undo(CHAT, 50, BOSS, hand_id, True, is_admin=True)
    assert done.key == "lg_undone" and "Boss" in rig.out.edits[-1][2].text
    after = await snapshot(rig)
    again = await svc.league.confirm_undo(CHAT, 50, BOSS, hand_id, True, is_admin=True)
    assert again.key == "lg_err_undone_already" and await snapshot(rig) == after
    balances = {b.user_id: b.balance for b in await rig.db.ledger.balances(CHAT)}
    assert balances == {ANA.user_id: 2, BEA.user_id: -1, CIRO.user_id: -1}
    # the next /undo offers the entry before; an undo itself is never offered
    ask = await svc.league.ask_undo(CHAT, BOSS, is_admin=True)
    assert ask.keyboard is not None and ask.keyboard[0][0].data == f"L:u:{hand_id - 1}:y"
    (row,) = await rig.db.ledger.ledger_audit(CHAT)
    assert (row.action, row.actor_id, row.actor_name, row.target_key) == (
        "undo",
        BOSS.user_id,
        "Boss",
        "t5:h1",
    )


async def test_export_csv_and_json_equal_the_stored_entries(rig: Rig) -> None:
    svc = rig.svc
    await hand(rig, "t5:h0", {ANA.user_id: 2, BEA.user_id: -1, CIRO.user_id: -1})
    await hand(rig, "t5:h1", {ANA.user_id: -2, BEA.user_id: 1, CIRO.user_id: 1})
    (_, last) = await rig.db.ledger.season_entries(CHAT)
    await svc.league.confirm_undo(CHAT, 1, BOSS, last.hand_id, True, is_admin=True)
    beer = await svc.league.beer(CHAT)
    assert beer.keyboard is not None
    payment = CB_PAID.match(beer.keyboard[0][0].data or "")
    assert payment is not None and payment[6] is None  # nothing paid of it before
    e, v, d, c, a = map(int, payment.groups()[:5])
    assert (
        await svc.league.mark_paid(CHAT, 2, BEA, e, v, (d, c, a), is_admin=False)
    ).key == "lg_ok_paid"
    stored = await rig.db.ledger.season_entries(CHAT)
    assert [x.kind for x in stored] == ["game", "game", "undo", "payment"]

    doc = await svc.league.export_season(CHAT, [])
    assert isinstance(doc, Document) and doc.filename.endswith("stagione1.csv")
    assert "4 voci" in doc.caption
    # a spreadsheet in the group's language: Italian columns and `;`, dates on the groups'
    # clock (21:00 UTC is 22:00 in Rome), no internal keys, UTF-8 with a BOM
    assert doc.data.startswith("\ufeff".encode())
    text = doc.data.decode("utf-8-sig")
    assert "t5:h" not in text and "pay:" not in text and "+00:00" not in text
    rows = list(csv.DictReader(io.StringIO(text), delimiter=";"))
    # issue 54.7: the time's column names the groups' clock; a tournament's column
    assert list(rows[0]) == [
        "Data",
        "Ora (Europe/Rome)",
        "Voce",
        "Gioco",
        "Torneo",
        "Giocatore",
        "Punti",
        "Segnato da",
        "Note",
    ]
    got = [(r["Voce"], r["Giocatore"], int(r["Punti"])) for r in rows]
    names = {"t5:h0": "Tavolo 5, mano 1", "t5:h1": "Tavolo 5, mano 2"}
    # an undo names the entry it undid and when that was written (issue 54.7)
    names[f"undo:{last.hand_key}"] = "Annulla: Tavolo 5, mano 2 (20/11/2026 22:00)"
    names[stored[3].hand_key] = "Pagamento"
    assert got == [(names[x.hand_key], x.names[u], d) for x in stored for u, d in x.deltas.items()]
    first = rows[0]
    assert (first["Data"], first["Ora (Europe/Rome)"], first["Gioco"], first["Torneo"]) == (
        "20/11/2026",
        "22:00",
        "Briscola chiamata (5)",
        "",
    )
    by = {(r["Voce"], r["Segnato da"], r["Note"]) for r in rows}
    assert ("Tavolo 5, mano 2", "", "annullata") in by  # undone, and by whom below
    assert ("Annulla: Tavolo 5, mano 2 (20/11/2026 22:00)", "Boss", "") in by
    assert ("Pagamento", BEA.name, "Bea <&> → Ana") in by

    doc = await svc.league.export_season(CHAT, ["json"])
    assert isinstance(doc, Document) and doc.filename.endswith(".json")
    data = json.loads(doc.data)
    assert data["season"] == 1 and [h["hand_key"] for h in data["hands"]] == [
        x.hand_key for x in stored
    ]
    assert [{int(u): d for u, d in h["deltas"].items()} for h in data["hands"]] == [
        x.deltas for x in stored
    ]
    assert [a["action"] for a in data["audit"]] == ["undo", "payment"]
    assert sum(b["balance"] for b in data["balances"]) == 0

    # a past season, by number or `last`, in either order with the format
    await svc.league.confirm_new_season(CHAT, 3, BOSS, 0, True, is_admin=True)
    for args in (["1"], ["last", "json"], ["csv", "1"]):
        assert isinstance(await svc.league.export_season(CHAT, args), Document), args
    empty = await svc.league.export_season(CHAT, [])
    assert isinstance(empty, Reply) and empty.key == "lg_season_empty"
    for args, key in (
        (["xml"], "lg_err_export_usage"),
        (["1", "2"], "lg_err_export_usage"),
        (["7"], "lg_err_no_season"),
    ):
        refused = await svc.league.export_season(CHAT, args)
        assert isinstance(refused, Reply) and refused.key == key, args
    await rig.db.people.set_chat_lang(CHAT, "en")
    refused = await svc.league.export_season(CHAT, ["xml"])
    assert isinstance(refused, Reply) and refused.text.startswith("Usage: /export")
    doc = await svc.league.export_season(CHAT, ["1"])
    assert isinstance(doc, Document) and "season1" in doc.filename and "entries" in doc.caption
    en_rows = list(csv.reader(io.StringIO(doc.data.decode("utf-8-sig"))))  # English: commas
    assert en_rows[0][:3] == ["Date", "Time (Europe/Rome)", "Entry"]
    assert en_rows[1][:2] == ["2026-11-20", "22:00"]


async def test_s10_3_beer_payments_only_the_payer_or_an_admin_once(rig: Rig) -> None:
    svc = rig.svc
    assert (await svc.league.beer(CHAT)).key == "err_no_ledger"
    await hand(rig, "t5:h0", {ANA.user_id: 2, BEA.user_id: -1, CIRO.user_id: -1})
    beer = await svc.league.beer(CHAT)
    assert beer.keyboard is not None and len(beer.keyboard) == 2
    assert "Bea &lt;&amp;&gt; → Ana: 1 punto" in beer.text
    # "Segna pagato" until it is paid (not "pagato" before anyone paid); no ✅ on a button of
    # a payment still owed: it reads as paid (issue 49)
    assert [row[0].text for row in beer.keyboard] == [
        "💶 Segna pagato: Bea <&> → Ana",
        "💶 Segna pagato: Ciro → Ana",
    ]
    version = await rig.db.ledger.ledger_version(CHAT)
    assert beer.keyboard[0][0].data == paid_data(0, version, (BEA.user_id, ANA.user_id, 1))
    bea_pays = (BEA.user_id, ANA.user_id, 1)
    before = await snapshot(rig)
    # not the payer, not an admin: refused; forged payments: refused
    refused = await svc.league.mark_paid(CHAT, 60, CIRO, 0, version, bea_pays, is_admin=False)
    assert refused.key == "lg_err_not_payer" and refused.alert
    for epoch, v, pay in (
        (0, version, (BEA.user_id, ANA.user_id, 2)),
        (0, version, (ANA.user_id, BEA.user_id, 1)),
        (0, version - 1, bea_pays),
        (3, version, bea_pays),
    ):
        forged = await svc.league.mark_paid(CHAT, 60, BEA, epoch, v, pay, is_admin=True)
        assert forged.key in ("err_bad_data", "lg_err_beer_stale"), (epoch, v, pay)
    assert await snapshot(rig) == before
    # the payer taps: an entry (+1 Bea, -1 Ana), the message shows it paid
    ok = await svc.league.mark_paid(CHAT, 60, BEA, 0, version, bea_pays, is_admin=False)
    assert ok.key == "lg_ok_paid"
    shown = rig.out.edits[-1][2]
    assert "✅ <s>Bea &lt;&amp;&gt; → Ana: 1 punto</s> pagato" in shown.text  # paid: ✅
    assert [row[0].text for row in shown.keyboard] == ["💶 Segna pagato: Ciro → Ana"]
    after = await snapshot(rig)
    double = await svc.league.mark_paid(CHAT, 60, BEA, 0, version, bea_pays, is_admin=False)
    assert double.key == "lg_err_paid_already" and await snapshot(rig) == after
    balances = {b.user_id: b.balance for b in await rig.db.ledger.balances(CHAT)}
    assert balances == {ANA.user_id: 1, BEA.user_id: 0, CIRO.user_id: -1}
    # the one owed marks Ciro's (the same settlement's other payment still stands)
    ciro_pays = (CIRO.user_id, ANA.user_id, 1)
    ok = await svc.league.mark_paid(CHAT, 60, ANA, 0, version, ciro_pays, is_admin=False)
    assert ok.key == "lg_ok_paid" and rig.out.edits[-1][2].keyboard == []
    assert "Tutto pagato" in rig.out.edits[-1][2].text
    assert settle({b.user_id: b.balance for b in await rig.db.ledger.balances(CHAT)}) == []
    # a hand after the settlement was shown makes its buttons stale
    await hand(rig, "t5:h1", {ANA.user_id: -2, BEA.user_id: 1, CIRO.user_id: 1})
    beer = await svc.league.beer(CHAT)
    assert beer.keyboard is not None
    fresh = await rig.db.ledger.ledger_version(CHAT)
    await hand(rig, "t5:h2", {ANA.user_id: 2, BEA.user_id: -1, CIRO.user_id: -1})
    pay = settle(await rig.db.ledger.balances_at(CHAT, 0, fresh))[0]
    before = await snapshot(rig)
    stale = await svc.league.mark_paid(CHAT, 61, ANA, 0, fresh, pay, is_admin=True)
    assert stale.key == "lg_err_beer_stale" and await snapshot(rig) == before
    # English
    await rig.db.people.set_chat_lang(CHAT, "en")
    assert "Everybody is even" in (await svc.league.beer(CHAT)).text
    await hand(rig, "t5:h3", {ANA.user_id: -2, BEA.user_id: 1, CIRO.user_id: 1})
    beer = await svc.league.beer(CHAT)
    assert beer.text.startswith("🍺 Who buys the beer (season 1)")
    assert beer.keyboard is not None and beer.keyboard[0][0].text.startswith("💶 Mark paid: ")


async def test_s10_3_beers_are_whole_and_less_than_one_is_said_in_points(rig: Rig) -> None:
    """Issue 49: "1 punto (0,3 birre)" said nothing a person can buy. /score and /beer say the
    same: whole beers, what is left over in points, and below one beer the points alone."""
    svc = rig.svc
    await hand(rig, "t5:h0", {ANA.user_id: 1, BEA.user_id: -1})
    assert (await svc.league.beer(CHAT, ["3"], is_admin=True)).key == "lg_beer_value_set"
    score, beer = await svc.league.season_score(CHAT), await svc.league.beer(CHAT)
    for text in (score.text, beer.text):
        assert "Bea &lt;&amp;&gt; → Ana: 1 punto" in text.splitlines(), text
        assert "birre)" not in text and "0,3" not in text
    assert beer.keyboard is not None and len(beer.keyboard) == 1  # no "one beer" button
    await hand(rig, "t5:h1", {ANA.user_id: 6, BEA.user_id: -6})  # 7 points: 2 beers and 1
    score, beer = await svc.league.season_score(CHAT), await svc.league.beer(CHAT)
    for text in (score.text, beer.text):
        assert "Bea &lt;&amp;&gt; → Ana: 7 punti (2 birre e 1 punto)" in text, text
    await hand(rig, "t5:h2", {ANA.user_id: -4, BEA.user_id: 4})  # 3 points: one beer exactly
    assert "→ Ana: 3 punti (1 birra)" in (await svc.league.season_score(CHAT)).text
    await rig.db.people.set_chat_lang(CHAT, "en")
    await hand(rig, "t5:h3", {ANA.user_id: 2, BEA.user_id: -2})  # 5 points
    score, beer = await svc.league.season_score(CHAT), await svc.league.beer(CHAT)
    for text in (score.text, beer.text):
        assert "→ Ana: 5 points (1 beer and 2 points)" in text, text


async def test_s10_3_a_beer_worth_points_and_payments_in_parts(rig: Rig) -> None:
    """Issue 38: a group says what a beer is worth (admins), /beer says "2 birre (20 punti)",
    and a debt is paid one beer at a time or all of it, marked by the payer or the one owed;
    a double tap on a part changes nothing."""
    svc = rig.svc
    await hand(rig, "t5:h0", {ANA.user_id: 25, BEA.user_id: -25})
    # what a beer is worth: admins only, a number; not set, /beer says how to set it
    assert "/beer 10" in (await svc.league.beer(CHAT)).text
    assert (await svc.league.beer(CHAT, ["10"], is_admin=False)).key == "lg_err_admin"
    for garbage in (["x"], ["-3"], ["10", "20"], ["99999"]):
        assert (await svc.league.beer(CHAT, garbage, is_admin=True)).key == "lg_err_beer_usage"
    assert (await rig.db.people.chat_settings(CHAT)).get("beer") is None
    set_ = await svc.league.beer(CHAT, ["vale", "10"], is_admin=True)
    assert set_.text == "🍺 Una birra vale 10 punti."
    beer = await svc.league.beer(CHAT)
    assert "una birra vale 10 punti" in beer.text
    assert "Bea &lt;&amp;&gt; → Ana: 25 punti (2 birre e 5 punti)" in beer.text, beer.text
    assert (await svc.league.season_score(CHAT)).text.count("25 punti (2 birre e 5 punti)") == 1
    assert beer.keyboard is not None
    labels = [row[0].text for row in beer.keyboard]
    assert labels == ["💶 Segna pagato: Bea <&> → Ana", "🍺 Segna pagata una birra: Bea <&> → Ana"]
    version = await rig.db.ledger.ledger_version(CHAT)
    one = beer.keyboard[1][0].data
    assert one == paid_data(0, version, (BEA.user_id, ANA.user_id, 10))
    # one beer, marked by the one owed; a second tap of the same button: nothing more
    ok = await svc.league.mark_paid(
        CHAT, 7, ANA, 0, version, (BEA.user_id, ANA.user_id, 10), 0, is_admin=False
    )
    assert ok.key == "lg_ok_paid"
    shown = rig.out.edits[-1][2]
    assert "restano 15 punti (1 birra e 5 punti)" in shown.text, shown.text
    after = await snapshot(rig)
    again = await svc.league.mark_paid(
        CHAT, 7, ANA, 0, version, (BEA.user_id, ANA.user_id, 10), 0, is_admin=False
    )
    assert again.key == "lg_err_paid_already" and await snapshot(rig) == after
    # the buttons now carry what was paid; a part bigger than what is left is refused
    assert [b.data for row in shown.keyboard for b in row] == [
        paid_data(0, version, (BEA.user_id, ANA.user_id, 15), 10),
        paid_data(0, version, (BEA.user_id, ANA.user_id, 10), 10),
    ]
    too_much = await svc.league.mark_paid(
        CHAT, 7, BEA, 0, version, (BEA.user_id, ANA.user_id, 20), 10, is_admin=False
    )
    assert too_much.key == "err_bad_data" and await snapshot(rig) == after
    # the rest, by the payer: all paid, nobody owes
    ok = await svc.league.mark_paid(
        CHAT, 7, BEA, 0, version, (BEA.user_id, ANA.user_id, 15), 10, is_admin=False
    )
    assert ok.key == "lg_ok_paid" and rig.out.edits[-1][2].keyboard == []
    assert "Tutto pagato" in rig.out.edits[-1][2].text
    assert {b.user_id: b.balance for b in await rig.db.ledger.balances(CHAT)} == {
        ANA.user_id: 0,
        BEA.user_id: 0,
    }
    kinds = [e.kind for e in await rig.db.ledger.season_entries(CHAT)]
    assert kinds == ["game", "payment", "payment"]
    # no value any more: points only
    assert (await svc.league.beer(CHAT, ["0"], is_admin=True)).key == "lg_beer_value_off"
    assert (await rig.db.people.chat_settings(CHAT)).get("beer") is None


async def test_s10_5_computers_never_in_score_or_beer(rig: Rig) -> None:
    """A quattro table of two people and two computers that counts in the ledger (§10.5):
    only the people's deltas are written, so /score and /beer name no computer."""
    svc = rig.svc
    for p in (ANA, BEA):
        await rig.db.people.upsert_user(p.user_id, p.name, can_dm=True)
    await svc.lobby.new_table(CHAT, ANA, "quattro", True)
    await svc.lobby.join(CHAT, BEA)
    for _ in range(2):
        assert (await svc.lobby.add_bot(CHAT)).text == ""
    for key, value in (("match", "single"), ("counts", "true")):
        reply = await svc.settings.set_options(CHAT, ANA, [(key, value)], panel=False)
        assert reply.key == "ok_option", reply
    assert (await svc.settings.start(CHAT, ANA, is_admin=False)).text == ""
    await svc.idle()
    table = rig.table()
    people = {0: ANA, 1: BEA}
    assert table.computer_seats() == {2, 3}
    while table.status != FINISHED:
        assert table.hand is not None
        if table.hand.is_terminal():
            await svc.play.next_hand(ANA, table.table_id, table.hand.hand_index)
        else:
            person = people[table.hand.current]
            action = table.hand.legal_actions()[0]
            await svc.play.act(person, table.table_id, table.hand.hand_index, 0, action)
        await svc.idle()
    balances = await rig.db.ledger.balances(CHAT)
    assert {b.user_id for b in balances} == {ANA.user_id, BEA.user_id}, balances
    assert sum(b.balance for b in balances) == 0
    computers = [s.name for s in table.seats if s.user_id is None]
    for reply in (await svc.league.season_score(CHAT), await svc.league.beer(CHAT)):
        assert "🤖" not in reply.text and not any(n in reply.text for n in computers), reply.text
        for row in reply.keyboard or []:
            assert all("🤖" not in b.text for b in row)

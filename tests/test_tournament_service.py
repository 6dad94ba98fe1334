"""RULES §11 through the service, without Telegram: registration and its refusals (nothing
changes), a tournament of computer teams played to the end with a restart in the middle (a
new service on the same database), storage (migration V7)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from bot.i18n import t
from bot.service import Person, TableService
from bot.table.tournament import DEFAULT_POINTS
from storage import Database
from tests.support.rig import CHAT, Rig

ORG = Person(11, "Org")
ANA = Person(12, "Ana <b>", lang="en")


def rows(rig: Rig, sql: str) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(rig.db.path)
    try:
        return list(conn.execute(sql))
    finally:
        conn.close()


async def finish(rig: Rig, table_id: int) -> None:
    """The table's timer fires until its match is over."""
    svc = rig.svc
    for _ in range(50):
        if table_id not in svc.registry.by_id:
            break
        if table_id in rig.timers.armed:
            await rig.fire(table_id)
        await svc.idle()
    await svc.idle()


async def finish_then_restart(rig: Rig, table_id: int) -> TableService:
    """`finish` the table's match; then a restart: a new service on the same database,
    restored and idle."""
    await finish(rig, table_id)
    await rig.svc.close()
    rig.svc = svc = rig.service(rig.db)
    await svc.restore()
    await svc.idle()
    return svc


async def play_out(rig: Rig, limit: int = 400) -> None:
    """Every open table's timer fires until no table is left (computers play the hands)."""
    for _ in range(limit):
        await rig.svc.idle()
        if not rig.svc.registry.by_id:
            await rig.svc.idle()
            if not rig.svc.registry.by_id:
                return
            continue
        for tid in list(rig.svc.registry.by_id):
            if tid in rig.timers.armed:
                await rig.fire(tid)
    raise AssertionError("the tournament did not end")


async def test_s11_registration_refusals_and_a_computer_tournament_across_a_restart(
    rig: Rig,
) -> None:
    svc = rig.svc
    assert (await svc.tournaments.tournament(CHAT, ORG, False)).key == ""  # a private chat
    assert (await svc.tournaments.tournament(CHAT, ORG, False)).text == t("it", "err_group_only")
    assert (await svc.tournaments.tournament(CHAT, ORG, True)).text == ""
    (chat, msg) = rig.out.posted[-1]
    assert chat == CHAT and "Torneo all'italiana" in msg.text
    tid = rows(rig, "SELECT tournament_id FROM tournaments")[0][0]
    assert isinstance(tid, int)
    reply = await svc.tournaments.tour_new_team(CHAT, ORG, tid)  # he never opened a private chat
    assert reply.text.startswith(t("it", "ok_tour_team", n=1)) and reply.keyboard
    assert reply.keyboard[0][0].url == "https://t.me/test_bot"
    await rig.db.people.upsert_user(ORG.user_id, ORG.name, can_dm=True)
    await rig.db.people.upsert_user(ANA.user_id, ANA.name, can_dm=True)
    before = rows(rig, "SELECT version, teams_json FROM tournaments")
    # refusals change nothing: a double tap, a stranger adding a computer, a garbage team
    assert (await svc.tournaments.tour_new_team(CHAT, ORG, tid)).key == "err_tour_in_team"
    assert (
        await svc.tournaments.tour_add_bot(CHAT, ANA, is_admin=False)
    ).key == "err_tour_not_organiser"
    assert (await svc.tournaments.tour_join(CHAT, ANA, 7, tid)).key == "err_tour_no_team"
    assert (
        await svc.tournaments.tour_start(CHAT, ANA, is_admin=False)
    ).key == "err_tour_not_organiser"
    assert (await svc.tournaments.tour_start(CHAT, ORG, is_admin=False)).key == "err_tour_few_teams"
    assert (
        await svc.tournaments.tour_points(CHAT, ORG, [0, 2, 3, 4, 5, 7], is_admin=False)
    ).key == ("err_tour_points")
    assert rows(rig, "SELECT version, teams_json FROM tournaments") == before
    # a team of a person and a computer, a full team refused, two computer teams
    assert (await svc.tournaments.tour_add_bot(CHAT, ORG, is_admin=False)).key == "ok_tour_bot"
    assert (await svc.tournaments.tour_join(CHAT, ANA, 0, tid)).key == "err_tour_team_full"
    assert (await svc.tournaments.tour_leave(CHAT, ORG)).key == "ok_tour_left"
    assert (await svc.tournaments.tour_leave(CHAT, ORG)).key == "err_tour_not_in_team"
    # the computer's team stays (it has a member); Org takes the other place back
    assert (await svc.tournaments.tour_join(CHAT, ORG, 0, tid)).key == "ok_tour_team"
    for _ in range(4):
        await svc.tournaments.tour_add_bot(CHAT, ORG, is_admin=False)
    assert (
        await svc.tournaments.tour_points(CHAT, ORG, [7, 5, 4, 3, 2, 0], is_admin=True)
    ).key == ("ok_tour_points")
    # Org leaves: a computer takes his place in every match he would play (§11.3)
    await svc.tournaments.tour_leave(CHAT, ORG)
    await svc.tournaments.tour_add_bot(CHAT, ORG, is_admin=False, team=0)
    assert (await svc.tournaments.tour_start(CHAT, ORG, is_admin=False)).text == ""
    await svc.idle()
    said = rig.out.group_said()
    assert any("Turno 1 di 3" in s for s in said), said
    assert len(svc.registry.by_id) == 1  # the first match is playing
    # play the first match, then restart: a new service on the same database
    (first,) = svc.registry.by_id
    svc = await finish_then_restart(rig, first)
    await play_out(rig)
    status, points = rows(rig, "SELECT status, points_json FROM tournaments")[0]
    assert status == "finished" and points == str(list(DEFAULT_POINTS))
    matches = rows(rig, "SELECT team_a, team_b, hands_a, hands_b, table_id FROM tournament_matches")
    assert sorted(tuple(sorted(m[:2])) for m in matches) == [(0, 1), (0, 2), (1, 2)]  # type: ignore[type-var]
    assert all(m[2] is not None and m[2] + m[3] == 5 for m in matches)  # type: ignore[operator]
    assert len({m[4] for m in matches}) == 3
    assert any("Torneo finito" in s for s in rig.out.group_said())


async def test_v7_migrates_a_database_of_the_previous_schema(tmp_path: Path) -> None:
    """A database made by the schema before the tournaments opens and gains their tables;
    its tables and ledger are untouched."""
    import aiosqlite

    from storage import MIGRATIONS, migrate, schema_version

    path = tmp_path / "old.db"
    before = len(MIGRATIONS) - 1
    async with aiosqlite.connect(path, isolation_level=None) as conn:
        await migrate(conn, MIGRATIONS[:before])
        await conn.execute(
            "INSERT INTO chats (chat_id, updated_at) VALUES (-5, '2026-01-01T00:00:00+00:00')"
        )
    db = await Database.open(f"sqlite:///{path}")
    try:
        assert (await db.people.get_chat(-5)) is not None
        row = await db.tournaments.create_tournament(-5, 1, "Org", "it", "[0, 2, 3, 4, 5, 7]", "[]")
        assert row is not None and row.status == "registering" and row.fixtures == ()
        assert await db.tournaments.create_tournament(-5, 2, "Other", "it", "[]", "[]") is None
    finally:
        await db.close()
    async with aiosqlite.connect(path, isolation_level=None) as conn:
        assert await schema_version(conn) == len(MIGRATIONS)


async def test_s11_in_english(rig: Rig) -> None:
    """A group whose language is English reads the tournament in English, refusals too."""
    svc = rig.svc
    await rig.db.people.set_chat_lang(CHAT, "en")
    await rig.db.people.upsert_user(ANA.user_id, ANA.name, can_dm=True)
    assert (await svc.tournaments.tournament(CHAT, ANA, True)).text == ""
    _, msg = rig.out.posted[-1]
    assert msg.text.startswith("🏆 <b>Round-robin tournament</b>")
    assert "Organised by Ana &lt;b&gt;." in msg.text  # the name escaped
    assert [b.text for b in msg.keyboard[0]] == ["🆕 New team"]
    assert (await svc.tournaments.tour_new_team(CHAT, ANA)).text == "You are in team 1."
    assert (await svc.tournaments.tour_new_team(CHAT, ANA)).text == "You are already in team 1."
    assert (await svc.tournaments.tour_start(CHAT, ORG, is_admin=False)).text == (
        "Only the tournament's organiser or an admin can do that."
    )
    assert (await svc.tournaments.tour_leave(CHAT, ORG)).text == "You are in no team."
    # while it runs, /tournament shows the standings and the next match
    await svc.tournaments.tour_add_bot(CHAT, ANA, is_admin=False)
    await svc.tournaments.tour_add_bot(CHAT, ANA, is_admin=False)
    await svc.tournaments.tour_add_bot(CHAT, ANA, is_admin=False)
    assert (await svc.tournaments.tour_start(CHAT, ANA, is_admin=False)).text == ""
    await svc.idle()
    status = (await svc.tournaments.tournament(CHAT, ANA, True)).text
    assert "<b>Standings</b>:" in status and "Playing (1 of 1, round 1 of 1)" in status
    assert (await svc.tournaments.tour_cancel(CHAT, ANA, is_admin=False)).text == (
        "Tournament cancelled by Ana &lt;b&gt;."
    )
    await svc.idle()
    assert not svc.registry.by_id  # its match was cancelled with it


async def test_singles_tournament_of_five_computers_across_a_restart(rig: Rig) -> None:
    """Issue 14: /torneo due, a tournament of single players (one "Entra" each), refusals
    that change nothing, five players (one rests each round, §11.1), each match 5 hands of
    Briscola a due between two players (§11.2), played to the end across a restart."""
    svc = rig.svc
    await rig.db.people.upsert_user(ORG.user_id, ORG.name, can_dm=True)
    await rig.db.people.upsert_user(ANA.user_id, ANA.name, can_dm=True)
    assert (await svc.tournaments.tournament(CHAT, ORG, True, "due")).text == ""
    _, msg = rig.out.posted[-1]
    assert "Briscola a due, uno contro uno" in msg.text and "Giocatori iscritti: 0" in msg.text
    assert [b.text for b in msg.keyboard[0]] == ["✋ Entra"]
    assert "Squadr" not in msg.text and "squadr" not in msg.text
    assert rows(rig, "SELECT variant FROM tournaments") == [("due",)]
    # /torneo due again while it registers: the same tournament, its message again
    assert (await svc.tournaments.tournament(CHAT, ANA, True, "due")).text == ""
    assert len(rows(rig, "SELECT tournament_id FROM tournaments")) == 1
    reply = await svc.tournaments.tour_new_team(CHAT, ORG)
    assert reply.key == "ok_tour_team_solo"
    assert reply.text == "Sei iscritto al torneo (giocatore 1)."
    before = rows(rig, "SELECT version, teams_json FROM tournaments")
    reply = await svc.tournaments.tour_new_team(CHAT, ORG)  # a second "Entra"
    assert reply.text == "Sei già iscritto al torneo (giocatore 1)."
    assert (await svc.tournaments.tour_join(CHAT, ANA, 0)).text == "Il posto 1 è già preso."
    assert (
        await svc.tournaments.tour_start(CHAT, ORG, is_admin=False)
    ).text == "Servono almeno 2 giocatori."
    assert rows(rig, "SELECT version, teams_json FROM tournaments") == before
    assert (await svc.tournaments.tour_new_team(CHAT, ANA)).key == "ok_tour_team_solo"
    reply = await svc.tournaments.tour_add_bot(CHAT, ORG, is_admin=False)
    assert reply.text == "Un computer è iscritto al torneo (giocatore 3)."
    # the people leave (their places go while registering): five computers play
    assert (await svc.tournaments.tour_leave(CHAT, ORG)).text == "Sei uscito dal torneo."
    assert (await svc.tournaments.tour_leave(CHAT, ORG)).text == "Non sei iscritto al torneo."
    await svc.tournaments.tour_leave(CHAT, ANA)
    for _ in range(4):
        await svc.tournaments.tour_add_bot(CHAT, ORG, is_admin=False)
    assert [
        len(m) for m in json.loads(str(rows(rig, "SELECT teams_json FROM tournaments")[0][0]))
    ] == [1] * 5
    assert (await svc.tournaments.tour_start(CHAT, ORG, is_admin=False)).text == ""
    await svc.idle()
    said = rig.out.group_said()
    assert any("Giocatori: 5 · partite: 10 · turni: 5" in s for s in said), said
    assert any("Turno 1 di 5" in s and "Riposa:" in s for s in said), said
    (table,) = svc.registry.by_id.values()
    assert table.options.variant == "due" and table.options.match == "fixed5"
    assert len(table.seats) == 2
    # the first match to its end, then a restart: a new service on the same database
    first = table.table_id
    svc = await finish_then_restart(rig, first)
    await play_out(rig, limit=1000)
    assert rows(rig, "SELECT status FROM tournaments") == [("finished",)]
    matches = rows(rig, "SELECT round, team_a, team_b, hands_a, hands_b FROM tournament_matches")
    assert len(matches) == 10 and {m[0] for m in matches} == set(range(5))
    assert all(m[3] is not None and m[3] + m[4] == 5 for m in matches)  # type: ignore[operator]
    seats = rows(rig, "SELECT seats_json FROM tournament_matches")
    assert all(len(json.loads(str(s[0]))) == 2 for s in seats)
    final = [s for s in rig.out.group_said() if "Torneo finito" in s]
    assert len(final) == 1 and "🏆 Vince " in final[0] and "Vince la" not in final[0]


async def test_singles_in_english(rig: Rig) -> None:
    """/tournament due in an English group: the texts name players, refusals too."""
    svc = rig.svc
    await rig.db.people.set_chat_lang(CHAT, "en")
    await rig.db.people.upsert_user(ANA.user_id, ANA.name, can_dm=True)
    assert (await svc.tournaments.tournament(CHAT, ANA, True, "scoperta")).text == ""
    _, msg = rig.out.posted[-1]
    assert "Open-hand Briscola, one against one" in msg.text
    assert [b.text for b in msg.keyboard[0]] == ["✋ Join"]
    assert "Leave the tournament" in [b.text for row in msg.keyboard for b in row]
    assert (
        await svc.tournaments.tour_new_team(CHAT, ANA)
    ).text == "You are in the tournament (player 1)."
    assert (await svc.tournaments.tour_new_team(CHAT, ANA)).text == (
        "You are in the tournament already (player 1)."
    )
    assert (await svc.tournaments.tour_leave(CHAT, ORG)).text == "You are not in the tournament."
    assert (await svc.tournaments.tour_start(CHAT, ANA, is_admin=False)).text == (
        "At least 2 players are needed."
    )
    await svc.tournaments.tour_add_bot(CHAT, ANA, is_admin=False)
    await svc.idle()
    _, _, msg = rig.out.edits[-1]  # the message brought up to date
    assert "Players registered: 2" in msg.text and "🤖 Ada" in msg.text
    assert (await svc.tournaments.tour_start(CHAT, ANA, is_admin=False)).text == ""
    await svc.idle()
    said = rig.out.group_said()
    assert any("Players: 2 · matches: 1 · rounds: 1" in s for s in said), said
    status = (await svc.tournaments.tournament(CHAT, ANA, True)).text
    assert "Ana &lt;b&gt;" in status and "Playing (1 of 1, round 1 of 1)" in status
    assert "Team" not in status
    (table,) = svc.registry.by_id.values()
    assert table.options.variant == "scoperta" and len(table.seats) == 2
    assert (await svc.tournaments.tour_cancel(CHAT, ANA, is_admin=False)).text == (
        "Tournament cancelled by Ana &lt;b&gt;."
    )
    await svc.idle()
    assert not svc.registry.by_id


async def test_s10_5_a_tournament_counts_when_asked_and_offers_a_new_one_in_english(
    rig: Rig,
) -> None:
    """Issues 54.3 and 54.5 in an English group: the registration message says whether the
    matches with a computer go on the group's tab, `counts` refuses what is no yes or no and
    anyone but the organiser, and is refused once it runs; its tables take it (and name
    their tournament: no rematch); once over, /tournament shows the final standings with a
    button for a new one, which a second tap does not open twice."""
    svc = rig.svc
    await rig.db.people.set_chat_lang(CHAT, "en")
    await rig.db.people.upsert_user(ANA.user_id, ANA.name, can_dm=True)
    assert (await svc.tournaments.tournament(CHAT, ANA, True, "due")).text == ""
    _, msg = rig.out.posted[-1]
    assert (
        "📒 Matches among people go on the group's tab; one with a computer at the table does"
        " not. The organiser can make them count (without the computers): /tournament counts"
        " yes." in msg.text
    )
    assert ["📒 Count matches with computers"] in [[b.text for b in r] for r in msg.keyboard]
    # two computers play (a person away from a match would have it abandoned and replayed)
    await svc.tournaments.tour_add_bot(CHAT, ANA, is_admin=False)
    await svc.tournaments.tour_add_bot(CHAT, ANA, is_admin=False)
    await svc.idle()
    _, _, msg = rig.out.edits[-1]
    assert "📒 Matches with a computer at the table stay off the group's tab" in msg.text
    before = rows(rig, "SELECT version, counts FROM tournaments")
    usage = (
        "The group's tab: /tournament counts yes (matches with a computer at the table count,"
        " without the computers) or /tournament counts no."
    )
    assert (await svc.tournaments.tour_counts(CHAT, ANA, "maybe", is_admin=False)).text == usage
    reply = await svc.tournaments.tour_counts(CHAT, ORG, "yes", is_admin=False)
    assert reply.key == "err_tour_not_organiser"
    assert rows(rig, "SELECT version, counts FROM tournaments") == before
    reply = await svc.tournaments.tour_counts(CHAT, ANA, "yes", is_admin=False)
    assert reply.text == (
        "Matches with a computer at the table go on the group's tab (without the computers)."
    )
    await svc.idle()
    _, _, msg = rig.out.edits[-1]
    assert "📒 The matches go on the group's tab; where a computer plays, only the" in msg.text
    assert ["📒 Don't count matches with computers"] in [[b.text for b in r] for r in msg.keyboard]
    assert (await svc.tournaments.tour_start(CHAT, ANA, is_admin=False)).text == ""
    await svc.idle()
    (started,) = [s for s in rig.out.group_said() if "The tournament begins" in s]
    assert "📒 The matches go on the group's tab" in started
    reply = await svc.tournaments.tour_counts(CHAT, ANA, "no", is_admin=False)
    assert reply.key == "err_tour_started"
    (table,) = svc.registry.by_id.values()
    tid = rows(rig, "SELECT tournament_id FROM tournaments")[0][0]
    assert table.counts and table.tournament == tid
    await play_out(rig)
    reply = await svc.lobby.rematch(CHAT, ANA, table.table_id)
    assert reply.text == "A tournament match has no rematch: the tournament goes on by itself."
    # over: /tournament shows it, with the button for a new one; nothing opens by itself
    reply = await svc.tournaments.tournament(CHAT, ORG, True)
    assert reply.text.startswith("🏆 <b>The tournament is over!</b> Final standings:")
    assert reply.keyboard is not None
    assert [[b.text for b in r] for r in reply.keyboard] == [["🆕 New tournament"]]
    assert reply.keyboard[0][0].data == f"T:{tid}:again"
    assert len(rows(rig, "SELECT 1 FROM tournaments")) == 1
    assert (await svc.tournaments.tour_again(CHAT, ORG, 77)).text == ""
    await svc.idle()
    assert rig.out.cleared[-1] == (CHAT, 77)  # the button has done its work
    reply = await svc.tournaments.tour_again(CHAT, ANA, 77)
    assert reply.text == "This group has a tournament open already: /tournament shows it."
    assert rows(rig, "SELECT status, variant, organiser_id, counts FROM tournaments") == [
        ("finished", "due", ANA.user_id, 1),
        ("registering", "due", ORG.user_id, 0),
    ]


async def test_s11_a_result_the_stopping_bot_did_not_say_is_said_and_stored_by_the_next(
    rig: Rig,
) -> None:
    """Issue 50.2: a match ends while the bot is stopping and its result cannot be said
    (`Outbox.say` False: it would wait for the group's room). Nothing of it is stored, so
    the next run finds the finished table, says the result once and stores it; the result
    is never stored unsaid (it was, and the group never heard of that match)."""
    svc = rig.svc
    await rig.db.people.upsert_user(ANA.user_id, ANA.name, can_dm=True)
    assert (await svc.tournaments.tournament(CHAT, ANA, True)).text == ""
    for _ in range(4):  # two teams of computers
        await svc.tournaments.tour_add_bot(CHAT, ANA, is_admin=False)
    assert (await svc.tournaments.tour_start(CHAT, ANA, is_admin=False)).text == ""
    await svc.idle()
    (first,) = svc.registry.by_id
    rig.out.stopping = True  # SIGTERM: what waits for room is not sent
    said = len(rig.out.said)
    await finish(rig, first)
    assert rows(rig, f"SELECT status FROM tables WHERE table_id = {first}") == [("finished",)]
    assert rows(rig, "SELECT COUNT(*) FROM tournament_matches WHERE hands_a IS NOT NULL") == [(0,)]
    assert len(rig.out.said) == said  # nothing said
    await svc.close()
    rig.out.stopping = False
    rig.svc = svc = rig.service(rig.db)
    await svc.restore()
    await svc.idle()
    done = [s for s in rig.out.group_said() if "Partita del torneo finita" in s]
    assert len(done) == 1, done
    assert rows(rig, "SELECT COUNT(*) FROM tournament_matches WHERE hands_a IS NOT NULL") == [(1,)]

"""The table service's deadlines without Telegram (issue 11 §3: nobody stalls the table):
the turn timer, the mention and the reminder, the seat kept by the computer and taken back,
the next hand and the lobby's expiry, deadlines across a restart, and cancel consent.

Time is a fake clock; the timer the service arms is fired by hand (as PTB's JobQueue would)."""

from __future__ import annotations

import asyncio
import html
import json
from pathlib import Path
from typing import Any

import pytest

from bot.service import Person, Reply
from bot.table.deadlines import Pending
from bot.table.table import CANCELLED, LOBBY, PLAYING, Table
from bot.view.render import Rendered
from storage import Database
from tests.support.rig import CHAT, Rig

ANA = Person(11, "Ana")
BEA = Person(12, "Bea <&> *x*")
CLEO = Person(13, "Cleo_")
BOSS = Person(99, "Boss")  # a group admin who does not play


async def open_game(
    rig: Rig, variant: str, people: list[Person], timer: str = "60", match: str = "single"
) -> int:
    svc = rig.svc
    for p in people:  # they opened a private chat with the bot
        await rig.db.people.upsert_user(p.user_id, p.name, can_dm=True)
    await svc.lobby.new_table(CHAT, people[0], variant, True)
    for p in people[1:]:
        await svc.lobby.join(CHAT, p)
    await svc.settings.set_options(CHAT, people[0], [("match", match)], panel=False)
    if timer != "60":
        await svc.settings.set_options(CHAT, people[0], [("timer", timer)], panel=False)
    reply = await svc.settings.start(CHAT, people[0], is_admin=False, fill=True)
    assert reply.text == "", reply
    await svc.idle()
    table = rig.table()
    assert table.status == PLAYING
    return table.table_id


def to_act(table: Table) -> int:
    assert table.hand is not None
    return table.hand.current


async def play(rig: Rig, person: Person) -> Reply:
    """`person` plays their first legal action."""
    table = rig.table()
    assert table.hand is not None
    action = table.hand.legal_actions()[0]
    stamp = 0 if action < 100 else table.turn_start()
    reply = await rig.svc.play.act(person, table.table_id, table.hand.hand_index, stamp, action)
    await rig.svc.idle()
    return reply


async def test_timer_defaults_to_60_and_settings_offer_off_to_300(rig: Rig) -> None:
    await rig.svc.lobby.new_table(CHAT, ANA, "due", True)
    table = rig.table()
    assert table.timer == 60
    for value in ("0", "30", "60", "120", "300"):
        reply = await rig.svc.settings.set_options(CHAT, ANA, [("timer", value)], panel=False)
        assert reply.text == "Impostato.", reply
        assert table.timer == int(value)
    for garbage in ("45", "-1", "1e9", "<b>"):
        reply = await rig.svc.settings.set_options(CHAT, ANA, [("timer", garbage)], panel=False)
        assert reply.text != "Impostato." and table.timer == 300


async def test_slow_player_is_mentioned_reminded_then_the_computer_plays(rig: Rig) -> None:
    tid = await open_game(rig, "due", [ANA, BEA])
    table = rig.table()
    names = {ANA.user_id: ANA, BEA.user_id: BEA}
    first = table.seats[to_act(table)]
    assert first.user_id is not None
    who = names[first.user_id]
    moves = len(await rig.db.tables.moves(tid))
    # half the timer: the group mentions them (a real mention, the name escaped)
    assert rig.armed(tid) == pytest.approx(30.0)
    await rig.fire(tid)
    (mention,) = rig.out.group_said()
    assert f'<a href="tg://user?id={who.user_id}">' in mention
    if who is BEA:
        assert "Bea &lt;&amp;&gt; *x*</a>" in mention
    assert "30 secondi" in mention
    ((mention_id, _),) = rig.out.posted_to(CHAT)
    # three quarters: the reminder in private, with the seconds left (and the group's name)
    assert rig.armed(tid) == pytest.approx(15.0)
    await rig.fire(tid)
    ((reminder_id, reminder),) = rig.out.posted_to(who.user_id)
    assert "15 secondi" in reminder and "#" in reminder
    assert len(await rig.db.tables.moves(tid)) == moves  # nobody has moved yet
    _, pending, _ = rig.stored(tid)  # both notices are noted with the table
    assert {n.message_id for n in pending.notices} == {mention_id, reminder_id}
    # the timer runs out: the computer plays that move, the group is told once: the
    # turn's mention becomes that notice (no new message), and the reminder goes
    assert rig.armed(tid) == pytest.approx(15.0)
    await rig.fire(tid)
    log = await rig.db.tables.moves(tid)
    assert len(log) == moves + 1 and log[-1].user_id is None
    assert log[-1].seat == table.seats.index(first)
    name = html.escape(first.name, quote=False)
    assert rig.out.edits[-1] == (
        CHAT,
        mention_id,
        Rendered(f"⏱ {name}: tempo scaduto, gioca il computer.", []),
    )
    assert len(rig.out.group_said()) == 1  # no second message in the group
    assert rig.out.deleted == [(who.user_id, reminder_id)]  # not true any more: deleted
    _, pending, _ = rig.stored(tid)  # the group's notice stays while the hand goes on
    assert [(n.message_id, n.turn) for n in pending.notices] == [(mention_id, None)]
    assert first.timeouts == 1 and not first.is_bot  # one timeout: the seat is still theirs
    _, _, seats = rig.stored(tid)
    assert [s.get("timeouts", 0) for s in seats["seats"]] == [s.timeouts for s in table.seats]


async def test_two_timeouts_in_a_row_hand_the_seat_to_the_computer_until_taken_back(
    rig: Rig,
) -> None:
    tid = await open_game(rig, "due", [ANA, BEA])
    table = rig.table()
    bea_seat = table.seat_of(BEA.user_id)
    assert bea_seat is not None
    # Ana plays at once whenever it is her turn; Bea never does
    for _ in range(10):
        if table.seats[bea_seat].is_bot:
            break
        if to_act(table) == bea_seat:
            await rig.fire(tid)
        else:
            assert (await play(rig, ANA)).text == "Fatto."
    seat = table.seats[bea_seat]
    assert seat.is_bot and seat.away == "timeout" and seat.timeouts == 2
    # each slow turn: one mention, which then says that the computer played (an edit)
    notices = [c.text for _, _, c in rig.out.edits if "Bea" in c.text and "⏱" in c.text]
    assert notices[-1].startswith("⏱ Bea &lt;&amp;&gt; *x*: tempo scaduto due volte di fila")
    assert len(notices) == 2  # one per timeout, nothing more
    mentions = [x for x in rig.out.group_said() if "tg://user?id=12" in x]
    assert len(mentions) == 2  # once per slow turn
    assert len(rig.out.group_said()) == 2  # and no other message
    # her private message: no cards, the button that takes the seat back
    private = rig.out.private[BEA.user_id]
    assert [[b.data for b in row] for row in private.keyboard] == [[f"b:{tid}"]]
    assert "🤖" in rig.out.group[-1].text
    # from now on the computer plays her turns without waiting
    said = len(rig.out.group_said()) + len(rig.out.said)
    for _ in range(4):
        if to_act(table) == bea_seat:
            break
        assert (await play(rig, ANA)).text == "Fatto."
    assert to_act(table) != bea_seat  # the computer moved for her at once
    # and nobody was mentioned or told anything
    assert len(rig.out.group_said()) + len(rig.out.said) == said
    _, _, seats = rig.stored(tid)
    assert seats["seats"][bea_seat]["away"] == "timeout"
    # a card button from before: refused while the computer has the seat
    assert table.hand is not None
    card = table.hand.hands[bea_seat][0]
    stale = await rig.svc.play.act(BEA, tid, table.hand.hand_index, 0, card)
    assert stale.text.startswith("Al tuo posto gioca il computer")
    # a stale timer does nothing
    before = len(await rig.db.tables.moves(tid))
    await rig.svc.waits.timeout(tid, "not-the-token")
    assert len(await rig.db.tables.moves(tid)) == before
    # the button: someone else, a forged table, then Bea herself (twice)
    assert (await rig.svc.lobby.resume(CLEO, tid)).text == "Non giochi a questo tavolo."
    assert (await rig.svc.lobby.resume(BEA, tid + 50)).text == "Quella mano è finita."
    assert (await rig.svc.lobby.resume(ANA, tid)).text == "Il posto è già tuo."
    assert (await rig.svc.lobby.resume(BEA, tid)).text == "Bentornato: il posto è di nuovo tuo."
    seat = rig.table().seats[bea_seat]  # (a refused tap reloads the table from the database)
    assert not seat.is_bot and seat.away is None and seat.timeouts == 0
    assert (await rig.svc.lobby.resume(BEA, tid)).text == "Il posto è già tuo."
    assert rig.out.private[BEA.user_id].text != private.text
    _, _, seats = rig.stored(tid)
    assert "away" not in seats["seats"][bea_seat]


async def test_leave_then_join_takes_the_seat_back(rig: Rig) -> None:
    tid = await open_game(rig, "due", [ANA, BEA], timer="0")
    table = rig.table()
    left = await rig.svc.lobby.leave(CHAT, BEA)
    assert "gioca il computer" in left.text and "/join" in left.text
    seat = table.seats[table.seat_of(BEA.user_id) or 0]
    assert seat.is_bot and seat.away == "left"
    assert rig.out.private[BEA.user_id].keyboard == []  # no live buttons after /leave
    assert (await rig.svc.lobby.join(CHAT, CLEO)).text == "La partita è già iniziata."
    assert (await rig.svc.lobby.join(CHAT, BEA)).text == "Bentornato: il posto è di nuovo tuo."
    seat = rig.table().seats[table.seat_of(BEA.user_id) or 0]
    assert not seat.is_bot and seat.away is None
    assert (await rig.svc.lobby.join(CHAT, BEA)).text == "Il posto è già tuo."
    assert rig.table().table_id == tid


async def test_no_timer_still_mentions_a_slow_player_once_and_never_plays_for_them(
    rig: Rig,
) -> None:
    tid = await open_game(rig, "due", [ANA, BEA], timer="0")
    assert rig.armed(tid) == pytest.approx(45.0)
    moves = len(await rig.db.tables.moves(tid))
    await rig.fire(tid)
    (mention,) = rig.out.group_said()
    assert "tg://user?id=" in mention and mention.endswith("tocca a te!")
    assert tid not in rig.timers.armed  # nothing more to wait for
    assert len(await rig.db.tables.moves(tid)) == moves


async def test_deadlines_survive_a_restart_and_what_passed_fires_at_once(rig: Rig) -> None:
    tid = await open_game(rig, "due", [ANA, BEA])
    _, pending, _ = rig.stored(tid)
    assert pending.at["timeout"] == pytest.approx(rig.clock.now + 60)  # absolute, stored
    # a restart 10 s into the turn: what is left is armed, not a fresh timer
    rig.clock.now += 10
    db2 = await Database.open(rig.url)
    svc2 = rig.service(db2)
    assert await svc2.restore() == 1
    assert rig.armed(tid) == pytest.approx(20.0)  # the mention, at 30 s from the turn's start
    await svc2.close()
    await db2.close()
    # a restart after the turn timer ran out while the bot was down: the timer's move at
    # once, without the mention and the reminder that are moot by now
    rig.clock.now += 120
    db3 = await Database.open(rig.url)
    svc3 = rig.service(db3)
    rig.svc = svc3
    moves = len(await db3.tables.moves(tid))
    said = len(rig.out.group_said())
    assert await svc3.restore() == 1
    assert rig.armed(tid) == 0.0
    await rig.fire(tid)
    assert len(await db3.tables.moves(tid)) == moves + 1
    (notice,) = rig.out.group_said()[said:]  # no mention was sent: a notice of its own
    assert notice.endswith(": tempo scaduto, gioca il computer.")
    assert not any("tg://user" in text for text in rig.out.group_said()[said:])
    await db3.close()
    rig.db = await Database.open(rig.url)  # for the fixture's teardown


async def test_the_next_hand_starts_by_itself_after_a_pause(rig: Rig) -> None:
    tid = await open_game(rig, "due", [ANA], match="best3")
    table = rig.table()
    assert table.hand is not None
    while not table.hand.is_terminal():
        assert (await play(rig, ANA)).text == "Fatto."
    assert table.status == PLAYING
    index = table.hand.hand_index
    assert rig.armed(tid) == pytest.approx(15.0)
    await rig.fire(tid)
    assert table.hand.hand_index == index + 1 and not table.hand.is_terminal()
    # the "next hand" button of the finished hand is stale now
    reply = await rig.svc.play.next_hand(ANA, tid, index)
    assert reply.text == "Pulsante scaduto: usa quelli aggiornati."


async def test_a_lobby_nobody_starts_expires_with_a_message_and_no_buttons(rig: Rig) -> None:
    await rig.svc.lobby.new_table(CHAT, ANA, "due", True)
    tid = rig.table().table_id
    assert rig.armed(tid) == pytest.approx(1800.0)
    rig.clock.now += 600
    await rig.svc.lobby.join(CHAT, BEA)  # a change in the lobby starts the wait again
    assert rig.armed(tid) == pytest.approx(1800.0)
    await rig.fire(tid)
    assert rig.svc.registry.by_id == {}
    status, pending, seats = rig.stored(tid)
    assert status == CANCELLED and pending.at == {}
    assert seats["closed"] == {"key": "lobby_expired", "drop": "1"}
    # announced once: the lobby's message (and its buttons) goes, a notice says why
    assert rig.out.dropped == [tid]
    assert rig.out.group_said() == [
        "⌛ Il tavolo di Briscola a due è scaduto: nessuno l'ha avviato. Per giocare, aprine"
        " un altro con /new."
    ]
    assert "Non c'è un tavolo" in (await rig.svc.lobby.join(CHAT, CLEO)).text
    assert "sei seduto" in (await rig.svc.lobby.new_table(CHAT, CLEO, "due", True)).text
    assert rig.table().status == LOBBY  # a new table opens


async def test_cancelling_a_match_with_the_ledger_at_stake_needs_everyone(rig: Rig) -> None:
    tid = await open_game(rig, "tre", [ANA, BEA, CLEO], timer="0")
    svc = rig.svc
    # not seated and not an admin: refused
    assert "un amministratore" in (await svc.closing.cancel(CHAT, BOSS, is_admin=False)).text
    # the creator is no admin: the others are asked, with buttons
    assert (await svc.closing.cancel(CHAT, ANA, is_admin=False)).text == ""
    ((chat, request),) = rig.out.posted
    assert chat == CHAT and rig.table().status == PLAYING
    assert "tg://user?id=12" in request.text and "tg://user?id=13" in request.text
    assert "Bea &lt;&amp;&gt; *x*" in request.text
    assert [b.data for b in request.keyboard[0]] == [f"c:{tid}:y", f"c:{tid}:n"]
    assert "già una richiesta" in (await svc.closing.cancel(CHAT, BEA, is_admin=False)).text
    # who may answer, and only once
    assert (await svc.closing.cancel_vote(CHAT, ANA, tid, True)).text.startswith("L'hai chiesto tu")
    assert (await svc.closing.cancel_vote(CHAT, BOSS, tid, True)).text.startswith("Decidono")
    assert (await svc.closing.cancel_vote(CHAT - 1, BEA, tid, True)).text.startswith("Nessuna")
    assert (await svc.closing.cancel_vote(CHAT, BEA, tid + 9, True)).text.startswith("Nessuna")
    assert (await svc.closing.cancel_vote(CHAT, BEA, tid, True)).text.startswith("D'accordo")
    assert (await svc.closing.cancel_vote(CHAT, BEA, tid, True)).text == "Hai già risposto."
    _, pending, _ = rig.stored(tid)
    assert pending.cancel is not None and pending.cancel.agreed == [BEA.user_id]
    # Cleo says no: play goes on, the request loses its buttons
    assert (await svc.closing.cancel_vote(CHAT, CLEO, tid, False)).text.startswith("Va bene")
    await svc.idle()
    (_, mid, refused) = rig.out.edits[-1]
    assert mid == 901 and "Cleo_ non è d'accordo" in refused.text and refused.keyboard == []
    assert rig.table().status == PLAYING
    assert (await svc.closing.cancel_vote(CHAT, BEA, tid, True)).text.startswith("Nessuna")
    # asked again, and this time everyone agrees
    assert (await svc.closing.cancel(CHAT, BEA, is_admin=False)).text == ""
    assert (await svc.closing.cancel_vote(CHAT, ANA, tid, True)).text.startswith("D'accordo")
    reply = await svc.closing.cancel_vote(CHAT, CLEO, tid, True)
    assert reply.text == "Tavolo annullato."
    await svc.idle()
    (_, mid, done) = rig.out.edits[-1]
    assert mid == 902 and done.keyboard == []
    assert "l'ha chiesto Bea &lt;&amp;&gt; *x*, d'accordo Ana, Cleo_" in done.text
    status, _, seats = rig.stored(tid)
    assert status == CANCELLED
    assert seats["closed"] == {"key": "cancelled_agreed", "who": BEA.name, "drop": "1"}
    # announced once, by the request's message: the table's message (its buttons) goes
    assert rig.out.dropped == [tid]
    assert all(not c.keyboard for c in rig.out.private.values())
    assert await rig.db.ledger.balances(CHAT) == []  # nothing written to the ledger


async def test_an_admin_cancels_at_once_and_an_unanswered_request_lapses(rig: Rig) -> None:
    tid = await open_game(rig, "due", [ANA, BEA], timer="0")
    assert (await rig.svc.closing.cancel(CHAT, BEA, is_admin=False)).text == ""
    # nobody answers: after two minutes the request lapses (the mention comes first)
    for _ in range(3):
        if rig.table().pending.cancel is None:
            break
        await rig.fire(tid)
    assert rig.table().pending.cancel is None and rig.table().status == PLAYING
    (_, _, lapsed) = rig.out.edits[-1]
    assert lapsed.text.startswith("⌛ Non hanno risposto tutti") and lapsed.keyboard == []
    # a group admin who does not play cancels at once; the group is told who
    reply = await rig.svc.closing.cancel(CHAT, BOSS, is_admin=True)
    assert reply.text == "🛑 Tavolo annullato da Boss."
    status, _, seats = rig.stored(tid)
    assert status == CANCELLED
    assert seats["closed"] == {"key": "cancelled_by", "who": "Boss", "drop": "1"}
    assert rig.out.dropped == [tid]  # the reply says it: the table's message goes


async def test_a_match_against_computers_is_cancelled_by_its_creator_at_once(rig: Rig) -> None:
    tid = await open_game(rig, "due", [ANA], timer="0")
    assert (await rig.svc.closing.cancel(CHAT, ANA, is_admin=False)).text == (
        "🛑 Tavolo annullato da Ana."
    )
    assert rig.stored(tid)[0] == CANCELLED
    assert rig.out.posted == []
    # the lobby keeps its rule: the creator or an admin
    await rig.svc.lobby.new_table(CHAT, ANA, "due", True)
    assert rig.table().status == LOBBY
    assert "Solo chi" in (await rig.svc.closing.cancel(CHAT, BEA, is_admin=False)).text
    assert (await rig.svc.closing.cancel(CHAT, ANA, is_admin=False)).text == "Tavolo annullato."
    assert rig.out.group[-1] == Rendered("🛑 Tavolo annullato da Ana.", [])


async def test_storage_writes_deadlines_without_changing_the_version(tmp_path: Path) -> None:
    db = await Database.open(f"sqlite:///{tmp_path / 's.db'}")
    try:
        row = await db.tables.create_table(
            CHAT, 1, "due", '{"variant": "due"}', '{"seats": []}', "it", timers_json='{"at": {}}'
        )
        tid = row.table_id
        assert row.timers_json == '{"at": {}}' and row.move_no == 0
        assert await db.tables.set_timers(tid, '{"at": {"expire": 5.0}}')
        row2 = await db.tables.get_table(tid)
        assert row2 is not None and row2.move_no == 0
        assert Pending.from_json(row2.timers_json).at == {"expire": 5.0}
        row3 = await db.tables.update_lobby(tid, timers_json=None)  # alone: no new version
        assert row3.move_no == 0 and row3.timers_json is None
        new_no = await db.tables.save_move(
            tid,
            0,
            match_json=None,
            hand_json=None,
            status=PLAYING,
            move=None,
            seats_json='{"seats": [], "timer": 30}',
            timers_json='{"at": {"timeout": 9.5}}',
        )
        row4 = await db.tables.get_table(tid)
        assert row4 is not None and row4.move_no == new_no == 1
        assert json.loads(row4.seats_json)["timer"] == 30
        assert Pending.from_json(row4.timers_json).at == {"timeout": 9.5}
        await db.tables.update_lobby(tid, status=CANCELLED)
        assert not await db.tables.set_timers(tid, '{"at": {}}')  # a closed table waits for nothing
    finally:
        await db.close()


async def test_join_at_a_running_table_spares_the_groups_messages(rig: Rig) -> None:
    """Issue 49: the group's /join at a running table answers in the group only when nothing
    else reaches the person (the group's messages are counted, 20 a minute): a player in their
    seat is told privately, so is anyone else with a private chat with the bot; without one,
    a short reply once per table, then nothing. /join after /leave still takes the seat back,
    in the group."""
    await rig.svc.registry.note_chat(CHAT, "Bar <Sport>")
    tid = await open_game(rig, "due", [ANA, BEA], timer="0")
    said = len(rig.out.said)
    mine = await rig.svc.lobby.join(CHAT, BEA, command=True)
    assert mine.text == "" and mine.key == "join_running_seated"
    assert rig.out.said[said:] == [
        (BEA.user_id, "🃏 Sei già al tavolo di Bar &lt;Sport&gt;: la partita è in corso e le"
         " tue carte sono qui.")
    ]  # fmt: skip
    # someone else, with a private chat (and their own language): told there
    dan = Person(14, "Dan", "en")
    await rig.db.people.upsert_user(dan.user_id, dan.name, can_dm=True)
    late = await rig.svc.lobby.join(CHAT, dan, command=True)
    assert late.text == "" and late.key == "join_running"
    assert rig.out.said[-1][0] == dan.user_id
    assert "has already started" in rig.out.said[-1][1], rig.out.said[-1]
    # without a private chat: a short reply in the group, once; again, nothing
    said = len(rig.out.said)
    first = await rig.svc.lobby.join(CHAT, CLEO, command=True)
    assert first.text == "La partita è già iniziata."
    again = await rig.svc.lobby.join(CHAT, CLEO, command=True)
    assert again.text == "" and again.key == "err_started"
    assert len(rig.out.said) == said
    # nobody seated by any of it; /leave then /join: the seat back, said in the group
    table = rig.table()
    assert table.table_id == tid and sorted(table.people()) == [ANA.user_id, BEA.user_id]
    assert "gioca il computer" in (await rig.svc.lobby.leave(CHAT, BEA)).text
    back = await rig.svc.lobby.join(CHAT, BEA, command=True)
    assert back.text == "Bentornato: il posto è di nuovo tuo."
    seat = rig.table().seats[table.seat_of(BEA.user_id) or 0]
    assert not seat.is_bot and seat.away is None
    # a player who never opened the private chat gets its link in the group: their cards
    await rig.db.people.upsert_user(ANA.user_id, ANA.name, can_dm=False)
    link = await rig.svc.lobby.join(CHAT, ANA, command=True)
    assert link.keyboard is not None and link.keyboard[0][0].url, link


async def test_a_seat_taken_back_while_the_computer_thinks_is_not_played_for(rig: Rig) -> None:
    # issue 11 §3: "Riprendo il posto" (or /join after /leave) gives the seat back at once;
    # a move the computer was still thinking about for it is dropped, not played
    tid = await open_game(rig, "due", [ANA, BEA], timer="0")
    table = rig.table()
    bea_seat = table.seat_of(BEA.user_id)
    assert bea_seat is not None
    assert "gioca il computer" in (await rig.svc.lobby.leave(CHAT, BEA)).text
    await rig.svc.idle()
    # the computer answers for Bea at once; Ana plays until she leads a trick
    while (hand := rig.table().hand) is not None and hand.trick:
        assert (await play(rig, ANA)).text == "Fatto."
    table = rig.table()
    assert table.hand is not None and to_act(table) == 1 - bea_seat
    # the computer thinks slowly now: it has her next move in mind when she comes back
    thinking, release = asyncio.Event(), asyncio.Event()
    choose = rig.svc.play.thinker.choose

    async def slow(job: Any) -> int:
        thinking.set()
        await release.wait()
        return await choose(job)

    rig.svc.play.thinker.choose = slow  # type: ignore[method-assign]
    action = table.hand.legal_actions()[0]
    reply = await rig.svc.play.act(ANA, tid, table.hand.hand_index, 0, action)
    assert reply.text == "Fatto."
    await asyncio.wait_for(thinking.wait(), 5)
    moves = len(await rig.db.tables.moves(tid))
    assert (await rig.svc.lobby.join(CHAT, BEA)).text == "Bentornato: il posto è di nuovo tuo."
    release.set()
    await rig.svc.idle()
    table = rig.table()
    assert (
        len(await rig.db.tables.moves(tid)) == moves
    )  # nothing played for her after she came back
    assert to_act(table) == bea_seat and not table.seats[bea_seat].is_bot
    assert (await play(rig, BEA)).text == "Fatto."  # her own move
    log = await rig.db.tables.moves(tid)
    assert log[moves].seat == bea_seat and log[moves].user_id == BEA.user_id


async def test_a_deadline_armed_before_the_scheduler_starts_fires_however_late(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Deadlines across a restart (issue 11 §3): the restarted bot arms the deadlines
    that passed while it was down (`restore`, at once) before PTB's JobQueue starts. A start
    that takes longer than a second (a loaded machine: 26 s in a full test run) made
    APScheduler drop the job as missed, and the table waited for ever. `JobTimers` arms it to
    run however late."""
    from telegram.ext import ApplicationBuilder

    from bot import app as app_module

    fired: list[Any] = []

    async def on_timer(context: Any) -> None:
        fired.append(context.job.data)

    monkeypatch.setattr(app_module, "_on_timer", on_timer)
    application = ApplicationBuilder().token("123:abc").build()
    timers = app_module.JobTimers(application)
    timers.start(7, 0.0, "tok")  # due now; the scheduler is not running yet
    await asyncio.sleep(1.5)  # longer than APScheduler's default grace of 1 s
    jq = application.job_queue
    assert jq is not None
    await jq.start()
    try:
        for _ in range(100):
            if fired:
                break
            await asyncio.sleep(0.02)
    finally:
        await jq.stop(wait=False)
    assert fired == [(7, "tok")]

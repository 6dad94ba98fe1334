"""Issue 38 in the table service, without Telegram: the chat as the evening's log (each
hand's result a silent message of its own, the match's end a new message that rings, with
the rematch button; each private summary kept), and a match against computers that waits for
its absent person (no result nobody played for; abandoned after a while, with no ledger
entry)."""

from __future__ import annotations

from bot.engine import actions as A
from bot.service import Person
from bot.table.deadlines import ABANDON_AFTER
from bot.table.table import CANCELLED, FINISHED, Table
from tests.support.rig import CHAT, Rig
from tests.test_service_timers import open_game, play, to_act

ANA = Person(11, "Ana")
BEA = Person(12, "Bea <&>")


async def pass_n(rig: Rig, people: list[Person], n: int) -> None:
    """The next `n` in the auction pass, each with their own tap (§7.2)."""
    table = rig.table()
    for _ in range(n):
        assert table.hand is not None
        seat = to_act(table)
        person = next(p for p in people if table.seat_of(p.user_id) == seat)
        hand = table.hand
        reply = await rig.svc.play.act(
            person, table.table_id, hand.hand_index, table.turn_start(), A.PASS
        )
        assert reply.key == "ok_played", reply
        await rig.svc.idle()


async def play_hand_out(rig: Rig, people: list[Person]) -> Table:
    """The people play their first legal action on their turns (the computers play
    theirs) until the hand is over; the table (let go by the service once finished)."""
    table = rig.table()
    for _ in range(200):
        hand = table.hand
        assert hand is not None
        if hand.is_terminal():
            return table
        seat = to_act(table)
        person = next(p for p in people if table.seat_of(p.user_id) == seat)
        assert (await play(rig, person)).key == "ok_played"
    raise AssertionError("the hand never ended")


async def test_a_hand_result_and_the_match_end_are_messages_of_their_own(rig: Rig) -> None:
    """Issue 38.1-2: against a computer (a table that writes nothing to the ledger, §10.5): the
    hand's result goes to the group silently, then the match's end, which rings, with the
    final standing, that the match does not count and the rematch button."""
    tid = await open_game(rig, "due", [ANA], timer="0")
    voids = 0
    while True:  # the deal is random: a 60-60 hand is void and replayed (§4.1)
        table = await play_hand_out(rig, [ANA])
        await rig.svc.idle()
        if table.status == FINISHED:
            break
        assert table.match is not None and table.match.records[-1].void, table.status
        voids += 1
        assert (await rig.svc.play.next_hand(ANA, tid, voids - 1)).key == "ok_played"
        await rig.svc.idle()
    in_group = [(c, silent) for chat, c, silent in rig.out.announced if chat == CHAT]
    assert len(in_group) == voids + 2, [c.text for c, _ in in_group]
    assert all(silent for _, silent in in_group[:voids])  # each void hand's line, silent
    # the replayed hand keeps its number (a void hand is not counted, §4.1)
    (log, log_silent), (end, end_silent) = in_group[voids:]
    assert log_silent and log.text.startswith("🏁 <b>Mano 1</b>") and not log.keyboard
    assert "Ana" in log.text and "🤖" in log.text
    assert not end_silent and "Partita finita" in end.text and "Non va nei conti" in end.text
    assert [[b.data for b in row] for row in end.keyboard] == [[f"r:{tid}"]]
    assert table.final_message_id is not None  # its button goes once a rematch is open


async def test_each_private_summary_stays_and_the_next_hand_is_a_new_message(rig: Rig) -> None:
    """Issue 38.1: "Prossima mano" no longer edits everyone's summary into the next hand: each stays
    as it is, without its button; a void hand's too (issue 49: §4.1's 60-60 was played)."""
    tid = await open_game(rig, "due", [ANA, BEA], timer="0", match="best3")
    index = 0
    summaries: dict[int, list[str]] = {ANA.user_id: [], BEA.user_id: []}
    while True:  # the deal is random: a 60-60 hand is void and replayed (§4.1)
        table = await play_hand_out(rig, [ANA, BEA])
        assert table.hand is not None and table.hand.is_terminal() and table.match is not None
        void = table.match.records[-1].void
        for p in (ANA, BEA):
            summaries[p.user_id].append(rig.out.private[p.user_id].text)
        reply = await rig.svc.play.next_hand(ANA, tid, index)
        assert reply.key == "ok_played", reply
        await rig.svc.idle()
        index += 1
        if not void:
            break
    for p in (ANA, BEA):
        kept = rig.out.kept[p.user_id]
        assert [k.text for k in kept] == summaries[p.user_id]
        assert not any(k.keyboard for k in kept)
    hand = rig.table().hand
    assert hand is not None and hand.hand_index == index


def away(table: Table, person: Person) -> bool:
    seat = table.seat_of(person.user_id)
    return seat is not None and table.seats[seat].is_bot


async def test_a_match_against_a_computer_waits_for_its_person_then_is_abandoned(
    rig: Rig,
) -> None:
    """Issue 38.5: Ana runs out of time twice in a row: the computer would play alone, so nobody
    plays; she is told (a message that rings); after ABANDON_AFTER the match is abandoned,
    with no ledger entry and no winner."""
    tid = await open_game(rig, "due", [ANA], timer="30")
    table = rig.table()
    for _ in range(10):
        if away(table, ANA):
            break
        if to_act(table) == table.seat_of(ANA.user_id):
            await rig.fire(tid)
        else:
            await rig.svc.idle()
    assert away(table, ANA) and table.paused()
    moves = table.move_no
    assert table.bot_to_act() is None
    assert set(table.pending.at) == {"abandon"}
    assert rig.armed(tid) == ABANDON_AFTER
    private = rig.out.private[ANA.user_id]
    assert "⏸" in private.text and private.keyboard == [
        [private.keyboard[0][0]]
    ]  # the button that takes the seat back
    assert private.keyboard[0][0].data == f"b:{tid}"
    await rig.svc.idle()
    assert table.move_no == moves  # nobody played while she was away
    assert not [c for _, c, _ in rig.out.announced if "Partita finita" in c.text]
    # nobody came back
    await rig.fire(tid)
    status, _, _ = rig.stored(tid)
    assert status == CANCELLED
    closed = rig.svc.registry.by_id.get(tid)
    assert closed is None or closed.closed == {"key": "abandoned"}
    assert "abbandonata" in rig.out.private[ANA.user_id].text
    assert not rig.out.private[ANA.user_id].keyboard  # the dead button goes
    assert await rig.db.ledger.balances(CHAT) == []


async def test_s7_4_an_all_pass_redeal_leaves_its_turn_messages_to_the_played_hands_sweep(
    rig: Rig,
) -> None:
    """RULES §7.4: five people all pass, the hand is dealt again. The redeal's replaced turn
    messages are not swept on their own (issue 49: one deleteMessages per chat and hand
    played); the sweep comes when a hand is played to its end."""
    people = [Person(21 + i, n) for i, n in enumerate(("Ada", "Bo", "Cy", "Di", "Ed"))]
    tid = await open_game(rig, "chiamata", people, timer="0")
    table = rig.table()
    assert table.hand is not None
    await pass_n(rig, people, 5)  # everyone passes (§7.2)
    assert table.hand.is_terminal() and table.hand.result().redeal
    assert rig.out.sweeps == []  # the redeal's messages wait
    await rig.svc.play.next_hand(people[0], tid, table.hand.hand_index)
    await rig.svc.idle()
    for _ in range(200):  # a hand played: its end sweeps the redeal's messages too
        hand = rig.table().hand
        assert hand is not None
        if hand.is_terminal():
            break
        seat = to_act(rig.table())
        person = next(p for p in people if rig.table().seat_of(p.user_id) == seat)
        if hand.phase == "auction" and A.CALL_RANK + 1 in hand.legal_actions():
            # someone calls the Asso, so that this hand is played (§7.2)
            stamp = rig.table().turn_start()
            reply = await rig.svc.play.act(person, tid, hand.hand_index, stamp, A.CALL_RANK + 1)
            assert reply.key == "ok_played", reply
            await rig.svc.idle()
        else:
            assert (await play(rig, person)).key == "ok_played"
    assert rig.out.sweeps == [tid]


async def test_s7_4_a_new_deal_reaches_each_person_with_their_turn(rig: Rig) -> None:
    """Issue 49's budget: the match's first deal shows every person their cards at once; a
    later deal (here §7.4's all-pass redeal) costs nobody's chat a call until their turn, whose
    new message shows the new cards: one call fewer per person and hand. The redeal's news
    reaches only the last to pass (the tapped message says what came of it); the others'
    chats keep their pass as recorded, and their next turn says the cards were dealt again
    (five calls fewer a redeal)."""
    people = [Person(41 + i, n) for i, n in enumerate(("Ada", "Bo", "Cy", "Di", "Ed"))]
    tid = await open_game(rig, "chiamata", people, timer="0")
    table = rig.table()
    assert table.hand is not None
    # the first deal: everyone's hand message shows their cards
    assert {p.user_id for p in people} <= set(rig.out.private_shown)
    await pass_n(rig, people, 5)  # everyone passes (§7.2)
    assert table.hand.is_terminal() and table.hand.result().redeal
    last = table.seats[table.hand.actions[-1][0]].user_id
    for p in people:  # the redeal's news: on the last pass's own message alone
        text = rig.out.private[p.user_id].text
        assert ("Tutti hanno passato" in text) == (p.user_id == last), (p.name, text)
        assert "Tocca a te" not in text and not rig.out.private[p.user_id].keyboard
    shown = len(rig.out.private_shown)
    await rig.svc.play.next_hand(people[0], tid, table.hand.hand_index)
    await rig.svc.idle()
    hand = rig.table().hand
    assert hand is not None and not hand.is_terminal() and hand.hand_index == 1
    first = to_act(rig.table())
    first_id = rig.table().seats[first].user_id
    # the new deal: only the one to act got a message (their turn, with their new cards)
    assert rig.out.private_shown[shown:] == [first_id]
    assert rig.out.private_flags[-1].get("turn")
    assert first_id is not None
    assert "Tutti avevano passato" in rig.out.private[first_id].text
    for p in people:
        if p.user_id not in (first_id, last):
            assert "Hai detto: passo" in rig.out.private[p.user_id].text
    # each of the others gets theirs when the auction comes round to them, cards and all
    seen = {first_id}
    for _ in range(4):
        seat = to_act(rig.table())
        person = next(p for p in people if rig.table().seat_of(p.user_id) == seat)
        reply = await rig.svc.play.act(
            person, tid, hand.hand_index, rig.table().turn_start(), A.PASS
        )
        assert reply.key == "ok_played", reply
        await rig.svc.idle()
        nxt = rig.table().seats[to_act(rig.table())].user_id
        assert nxt is not None and nxt not in seen
        seen.add(nxt)
        text = rig.out.private[nxt].text
        assert "Tocca a te" in text and "Tutti avevano passato" in text, text
        assert "Le tue carte: " in text and len(hand.hands[to_act(rig.table())]) == 8


async def test_s3_5_the_last_trick_plays_itself_as_the_players_cards(rig: Rig) -> None:
    """RULES §3.5, §2.2: in the last trick each player holds one card, their one legal move.
    It is played for them (issue 49: a turn message and its edit for a tap that chooses
    nothing), stored as theirs; nobody's chat gets a turn for it, no timer waits on it."""
    people = [Person(61, "Ada"), Person(62, "Bo")]
    tid = await open_game(rig, "due", people, timer="30")
    table = rig.table()  # the one table, changed in place (gone from the service at its end)
    hand = table.hand
    assert hand is not None
    taps = 0
    while not hand.is_terminal():
        seat = to_act(table)
        assert len(hand.hands[seat]) > 1 or hand.talon_left(), "a forced card waited for a tap"
        person = next(p for p in people if table.seat_of(p.user_id) == seat)
        action = hand.legal_actions()[0]
        before = len(rig.out.private_flags)
        reply = await rig.svc.play.act(person, tid, hand.hand_index, 0, action)
        assert reply.key == "ok_played", reply
        await rig.svc.idle()
        taps += 1
        if hand.is_terminal():  # this tap ended the last trick but one: the last played
            turns = [f for f in rig.out.private_flags[before:] if f.get("turn")]
            assert turns == [], turns  # ... and nobody's chat was asked for it
    assert taps == 38  # 40 cards, the last two played for their players
    stored = await rig.db.tables.moves(tid)
    assert len(stored) == 40
    last = stored[-2:]
    assert [m.user_id for m in last] == [table.seats[m.seat].user_id for m in last]
    assert {m.user_id for m in last} == {p.user_id for p in people}
    assert sorted(m.action for m in last) == sorted(hand.tricks[-1].cards)

"""End to end, issue 38 ("The evening in the chat"): `python -m bot` against the stand-in Bot
API, people who play as friends would on their phones.

- five people at a chiamata table, one of them English among Italians: each hand's result
  stays in the group as a silent message of its own, each private summary stays in its
  chat, the private messages name the group and show the cards with suit symbols, nothing
  Italian reaches the English player (every private message, every toast); the chat calls
  per card (Telegram's budget);
- a whole Briscola a due match of an Italian and an English player: the match's end is a
  new message that rings, with the final standing, the ledger and the rematch button;
- a Briscola a due against a computer in an English group, with a person who walks away: the
  timer's notices go once the turn is over, the match waits for her instead of letting the
  computer finish it, she is told in private, it is abandoned with no ledger entry and her
  dead button goes.

Each test writes phone-width transcripts of the chats to tests/artifacts/evening/.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from bench.rig.bot_process import WAIT, ProbedBot, Store, bot_guard, export
from bench.rig.cards import cards_named
from bench.rig.people import (
    Game,
    act_buttons,
    action_of,
    hand_message,
    open_table,
    own_cards,
    quiet,
    say,
    start_bot,
    start_table,
    suit_button,
    suit_phase,
    untruths,
)
from bench.rig.stand_in import telegram
from bench.rig.telegram import FakeButton, FakeChat, FakeMessage, FakeTelegram, FakeUser
from bot.engine import actions as A
from tests.support.transcript import italian_words, transcript, write_transcript

GROUP_NAME = "Amici del giovedì 🍕"


def first_call_then_pass(
    game: Game, who: FakeUser, msg: FakeMessage, bids: list[FakeButton]
) -> FakeButton:
    """The first to speak calls the highest rank offered, everybody else passes (in any
    language: by the buttons' actions); the caller names a suit whose card they lack, so
    that there is a socio (any suit if they hold them all)."""
    if suit_phase(bids):
        try:
            return suit_button(bids, held=own_cards(msg), want_held=False)
        except AssertionError:
            return bids[0]
    if game.bids_in_hand == 0:
        calls = [b for b in bids if A.CALL_RANK <= action_of(b) < A.BID_POINTS]
        if calls:
            return calls[0]
    passes = [b for b in bids if action_of(b) == A.PASS]
    return passes[0] if passes else bids[0]


def logs(fake: FakeTelegram, group: FakeChat) -> list[FakeMessage]:
    """The hands' results in the group: messages of their own ("🏁 Mano 3 · …")."""
    return [m for m in fake.bot_messages(group) if m.text.startswith("🏁")]


def logged(fake: FakeTelegram, group: FakeChat, n: int) -> Callable[[], bool]:
    """For `wait_for`: the group has the results of `n` hands."""
    return lambda: len(logs(fake, group)) >= n


def finals(fake: FakeTelegram, group: FakeChat) -> list[FakeMessage]:
    return [m for m in fake.bot_messages(group) if m.text.startswith("🏆")]


def private_texts(fake: FakeTelegram, user: FakeUser) -> list[str]:
    """Every text the bot ever showed in the person's private chat (deleted messages and
    every version of an edited one included)."""
    return [v for m in fake.messages(user, include_deleted=True) if m.from_bot for v in m.versions]


def keep_transcripts(
    request: pytest.FixtureRequest,
    name: str,
    fake: FakeTelegram,
    group: FakeChat,
    mario: FakeUser,
    lucy: FakeUser,
    head: list[str] | None = None,
) -> None:
    """The chats as the players see them (the group in Italian, Mario's in Italian, Lucy's
    in English), written to tests/artifacts/evening/<name>.txt however the test ends, after
    the lines of `head` (filled in by then)."""
    request.addfinalizer(
        lambda: write_transcript(
            name,
            *(head or []),
            transcript(fake, group, f"{GROUP_NAME} (gruppo, italiano)"),
            transcript(fake, mario, "Mario (privato, italiano)"),
            transcript(fake, lucy, "Lucy (private, English)"),
        )
    )


async def play_hands(game: Game, group: FakeChat, hands: int | None) -> int:
    """Play `hands` hands (None: until the match is over); each hand's result comes as a
    message of its own. Returns the hands played."""
    fake = game.fake
    played = 0
    while True:
        await game.play_hand(bidder=first_call_then_pass)
        played += 1
        await fake.wait_for(logged(fake, group, played), WAIT, message="the hand's log")
        if "Partita finita" in game.table().text or played == hands:
            return played
        assert played < 40, "the match never ended"
        await game.next_hand()


def check_logs(
    fake: FakeTelegram, group: FakeChat, hands: int, names: list[str], *, chiamata: bool = True
) -> None:
    """Issue 38.1: every hand's result is there, silent, never edited or deleted, and tells the
    hand's story (chiamata: the call, the socio or alone, who won, the changes)."""
    kept = logs(fake, group)
    assert len(kept) == hands, [m.text for m in kept]
    silent = fake.silent(group)
    n = 1  # the hand's number: a void hand is replayed under its own (§4.1, §4.4)
    for m in kept:
        assert m.message_id in silent and m.edited == 0, m
        assert m.text.startswith(f"🏁 Mano {n}"), m.text
        n += "nulla" not in m.text
        assert any(name in m.text for name in names), m.text
        if chiamata:  # the caller 📣, the call, the socio 🤝 (or alone), the changes
            assert "📣" in m.text and "chiama" in m.text, m.text
            assert "🤝" in m.text or "da solo" in m.text, m.text
            assert "perde il chiamante" in m.text or "vince il chiamante" in m.text, m.text
        elif "nulla" in m.text:  # §4.1: a 60-60 hand is void, replayed; both have their 60
            assert all(f"{name} 60" in m.text for name in names), m.text
        else:
            assert "vince" in m.text and "punti" in m.text, m.text


def check_no_italian(fake: FakeTelegram, lucy: FakeUser, names: tuple[str, ...]) -> None:
    """Issue 38.3: nothing Italian reaches her, in any private message (every version) or toast."""
    texts = private_texts(fake, lucy) + fake.toasts(lucy)
    assert fake.toasts(lucy) and any("Your cards" in text for text in texts)
    for text in texts:
        assert not italian_words(text, names=names), (italian_words(text, names=names), text)


async def test_chiamata_five_people_log_summaries_english_player_and_cost(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    async with asyncio.timeout(300), telegram() as fake:
        mario = fake.user(3801, "Mario")
        luigi = fake.user(3802, "Luigi")
        giulia = fake.user(3803, "Giulia")
        paolo = fake.user(3804, "Paolo")
        lucy = fake.user(3805, "Lucy", language_code="en")  # an English phone
        people = [mario, luigi, giulia, paolo, lucy]
        group = fake.group(-1003800, GROUP_NAME, admins=[mario], members=people)
        cost: list[str] = []
        keep_transcripts(request, "chiamata_5_people_3_hands", fake, group, mario, lucy, cost)
        with bot_guard(ProbedBot(fake, tmp_path)) as bot:
            store = await start_bot(bot, people)
            await open_table(fake, group, mario, people[1:], "chiamata", settings="target=0")
            await start_table(fake, group, mario)
            game = Game(fake, group, people, store, bot=bot)
            start = fake.mark()
            hands = await play_hands(game, group, 3)
            await bot.idle()
            calls = [c for c in fake.calls[start:] if c.method != "getUpdates"]
            chats = {str(group.id), *(str(p.id) for p in people)}
            in_group = [c for c in calls if str(c.params.get("chat_id")) == str(group.id)]
            in_chats = [c for c in calls if str(c.params.get("chat_id")) in chats]

            check_logs(fake, group, hands, [p.first_name for p in people])
            # issue 51: the hands' results name their key move (people at random make some)
            keyed = [m.text for m in logs(fake, group) if "🔎 Il colpo della mano: " in m.text]
            assert keyed, [m.text for m in logs(fake, group)]
            # 38.1: each private summary stays in its chat, without buttons: one per hand
            # over (the last one is still the hand message, with "Prossima mano")
            for p in people:
                mine = [m for m in fake.bot_messages(p) if m.text.startswith("🃏")]
                assert len(mine) == hands, (p.first_name, [m.text for m in mine])
                assert all(not m.buttons for m in mine[:-1]), p.first_name
                # what the hand wrote in the ledger, with its unit (38.7)
                pattern = (
                    r"📒 This hand: [+−]\d+ point" if p is lucy else r"📒 Questa mano: [+−]\d+ punt"
                )
                for m in mine:
                    assert re.search(pattern, m.text), m.text
            # 38.10, 38.15: the group's name in private, the cards with their suit symbols
            for p in people:
                assert GROUP_NAME in hand_message(fake, p).text.splitlines()[0]
            dealt = [
                v
                for m in fake.messages(mario, include_deleted=True)
                if m.from_bot
                for v in m.versions
                if "Le tue carte:" in v
            ]
            assert dealt and len(cards_named(dealt[0])) == 8, dealt[:1]
            check_no_italian(fake, lucy, (GROUP_NAME, *(p.first_name for p in people)))
            assert any("Le tue carte" in text for text in private_texts(fake, luigi))
            # the ledger: one entry per hand (§10.1)
            assert len(export(bot, group.id)["hands"]) == hands

            # Telegram's budget: the chat calls per card (answers to taps included)
            cards = 40 * hands
            line = (
                f"[cost] chiamata, 5 people, {hands} hands: {len(in_chats) / cards:.2f} chat "
                f"calls per card, {len(in_group) / cards:.3f} in the group "
                f"({len(in_group)} group calls, {len(in_chats)} in all)"
            )
            print("\n" + line)
            cost.append(line + "\n")
            assert await bot.stop() == 0
            bot.check_logs()


async def test_a_whole_match_ends_with_a_message_that_rings(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Mario and Lucy (English) play a Briscola a due to the best of three hands, the ledger
    on: each hand's result in the group, then the match's end, a new message that rings,
    with the final standing, the ledger's change in points and the rematch button (the table
    message keeps no button); Lucy reads none of it in Italian. (A chiamata match to 11
    takes dozens of hands: its end is checked in tests/test_service_evening.py.)"""
    async with asyncio.timeout(300), telegram() as fake:
        mario = fake.user(3811, "Mario")
        lucy = fake.user(3812, "Lucy", language_code="en")
        group = fake.group(-1003810, GROUP_NAME, admins=[mario], members=[mario, lucy])
        keep_transcripts(request, "due_match_it_en", fake, group, mario, lucy)
        with bot_guard(ProbedBot(fake, tmp_path)) as bot:
            store = await start_bot(bot, [mario, lucy])
            await open_table(fake, group, mario, [lucy], "due", settings="match=best3 review=no")
            await start_table(fake, group, mario)
            game = Game(fake, group, [mario, lucy], store, bot=bot)
            hands = await play_hands(game, group, None)
            await bot.idle()
            check_logs(fake, group, hands, ["Mario", "Lucy"], chiamata=False)
            assert not [m for m in logs(fake, group) if "🔎" in m.text]  # review=no (issue 51)
            (final,) = finals(fake, group)
            assert final.message_id not in fake.silent(group)  # it rings
            assert "Partita finita" in final.text and "Partita:" in final.text
            assert "Conti del gruppo" in final.text and " punt" in final.text, final.text
            assert [b.text for b in final.buttons] == ["🔁 Rivincita"]
            assert final.message_id > logs(fake, group)[-1].message_id
            assert not game.table().buttons  # the table message keeps no dead button
            # each person's summary of each hand stays
            for p in (mario, lucy):
                mine = [m for m in fake.bot_messages(p) if m.text.startswith("🃏")]
                assert len(mine) >= hands and all(not m.buttons for m in mine[:-1])
            check_no_italian(fake, lucy, (GROUP_NAME, "Mario", "Lucy"))
            # the rematch: its button goes from the match's end once the new lobby is open
            qid = await fake.press(lucy, final.button("Rivincita"))
            await fake.answer_for(qid, WAIT)
            await fake.wait_for(lambda: not fake.message(group, final.message_id).buttons, WAIT)
            assert await bot.stop() == 0
            bot.check_logs()


async def test_due_against_a_computer_waits_for_the_person_who_walked_away(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    # TIMER_SCALE 0.03: the 60 s timer lasts 1.8 s (the group's mention at half of it, the
    # private reminder at three quarters); a paused match is abandoned after 27 s (15 min)
    async with asyncio.timeout(300), telegram() as fake:
        lucy = fake.user(3821, "Lucy", language_code="en")
        group = fake.group(-1003820, "Thursday friends", admins=[lucy], members=[lucy])
        request.addfinalizer(
            lambda: write_transcript(
                "due_absent_person_en",
                transcript(fake, group, "Thursday friends (group, English)"),
                transcript(fake, lucy, "Lucy (private, English)"),
            )
        )
        with bot_guard(ProbedBot(fake, tmp_path, TIMER_SCALE="0.03")) as bot:
            await start_bot(bot, [lucy])
            assert (await say(fake, lucy, group, "/lang en")).text == "Language set: English."
            game = await started_game_en(bot, group, lucy)
            store = game.store
            tid = game.table_id()

            # she walks away: two timeouts in a row, then the computer would play alone
            await fake.wait_for(lambda: "⏸" in game.table().text, 30, message="the match paused")
            moves = len(store.moves(tid))
            await quiet(fake)
            assert len(store.moves(tid)) == moves, "the computer played on alone"
            assert not finals(fake, group), "a result nobody played for"
            told = [m for m in fake.bot_messages(lucy) if "⏸" in m.text]
            assert told and told[-1].button("Take my seat back"), [m.text for m in told]
            assert told[-1].message_id not in fake.silent(lucy)  # it rings
            # issue 49: while it waits, no message offers her a move or says it is her turn,
            # and the group is not told that a computer plays for her
            assert not untruths(fake, [lucy], None), untruths(fake, [lucy], None)
            assert not [m.text for m in fake.bot_messages(lucy) if act_buttons(m)]
            notices = [
                m.text
                for m in fake.bot_messages(group)
                if m.text.startswith(("⏱", "⏸")) and "Lucy:" in m.text
            ]
            assert notices and "paused" in notices[-1], notices
            assert not [x for x in notices if "plays their seat" in x], notices

            # the timer's notices were deleted once their turn was over: none is left
            reminders = [m for m in fake.messages(lucy, include_deleted=True) if "⏰" in m.text]
            assert reminders, "no reminder was ever sent"
            assert all(m.deleted for m in reminders), [m.text for m in reminders]
            assert not [m for m in fake.bot_messages(lucy) if "⏰" in m.text]
            deletes = fake.calls_of("deleteMessages")
            assert deletes and all(c.ok for c in deletes)

            # nobody came back: abandoned, no ledger entry, she is told, her button goes
            await fake.wait_for(
                lambda: store.table(group.id)["status"] == "cancelled",
                60,
                message="the match abandoned",
            )
            await bot.idle()
            # issue 49: the end is news: a new message in the group and in her chat, which
            # ring (not an edit of an old message)
            said = [m for m in fake.bot_messages(group) if "abandoned" in m.text.lower()]
            assert said and said[-1].message_id not in fake.silent(group), [m.text for m in said]
            assert len(said[-1].versions) == 1 and not said[-1].buttons  # new, not an edit
            gone = [m for m in fake.bot_messages(lucy) if "abandoned" in m.text.lower()]
            assert gone, [m.text for m in fake.bot_messages(lucy)]
            assert gone[-1].message_id > told[-1].message_id
            assert gone[-1].message_id not in fake.silent(lucy)
            assert len(gone[-1].versions) == 1  # sent as it is, not an edit
            assert not any(
                b.text == "Take my seat back" for m in fake.bot_messages(lucy) for b in m.buttons
            )
            assert not export(bot, group.id)["hands"]
            for text in private_texts(fake, lucy) + fake.toasts(lucy):
                assert not italian_words(text, names=("Lucy", "Thursday friends")), text
            assert await bot.stop() == 0
            bot.check_logs()


async def started_game_en(bot: ProbedBot, group: FakeChat, lucy: FakeUser) -> Game:
    """An English group: Lucy opens a Briscola a due against a computer, with a 60 s timer,
    and starts it (the buttons in English)."""
    fake = bot.fake
    await fake.send_text(lucy, group, "/new due")
    lobby = await fake.wait_for(lambda: _table(fake, group, "Join"), WAIT)
    qid = await fake.press(lucy, lobby.button("🤖"))
    await fake.answer_for(qid, WAIT)
    reply = await say(fake, lucy, group, "/settings timer=60")
    assert reply.text == "Set.", reply.text
    lobby = await fake.wait_for(lambda: _table(fake, group, "Start"), WAIT)
    qid = await fake.press(lucy, lobby.button("Start"))
    await fake.answer_for(qid, WAIT)
    await fake.wait_for(lambda: "hand 1" in (_table(fake, group) or lobby).text, WAIT)
    return Game(fake, group, [lucy], Store(bot.db_path))


def _table(fake: FakeTelegram, group: FakeChat, button: str = "") -> FakeMessage | None:
    for m in reversed(fake.bot_messages(group)):
        if m.text.startswith("🃏"):
            if button and not any(button in b.text for b in m.buttons):
                return None
            return m
    return None

"""Issue 10 end to end: the bot (`python -m bot`, a real process) against a stand-in Bot API
that enforces Telegram's limits (20 calls a minute into a group, counting every call that
names it; 30 calls a second that name a chat; one a second into a private chat) and answers
a call over a limit with 429, as Telegram does. The bot runs with Telegram's own numbers.

Each test ends with the same checks (`strict_telegram`): no call was refused for a limit
(no 429 of the bot's own making), nothing failed but the faults the test injected, and the
bot's log holds no traceback.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import random
import signal
import statistics
import time
from pathlib import Path
from typing import Any

from bench.rig.bot_process import BOT_NAME, WAIT, BotProcess, Store, bot_guard
from bench.rig.people import (
    NOT_YOUR_TURN,
    OK,
    action_of,
    card_buttons,
    card_left,
    hand_message,
    hand_when,
    say,
    start_bot,
    table_message,
)
from bench.rig.stand_in import REAL_PACE, strict_telegram
from bench.rig.telegram import FakeButton, FakeChat, FakeTelegram, FakeUser
from bot.config import Settings
from bot.table.deadlines import NEXT_HAND_PAUSE

NOT_ALLOWED = "Solo chi ha aperto il tavolo o un amministratore può farlo."


async def answered(fake: FakeTelegram, qid: str, timeout: float = WAIT) -> str:
    """The text of the (first successful) answer to a tap, however many tries it took."""
    await fake.wait_for(
        lambda: qid not in fake.unanswered_queries(), timeout, message=f"query {qid} answered"
    )
    return fake.answers_to(qid)[0].text or ""


def people_in_groups(
    fake: FakeTelegram, n: int, first_id: int, name: str
) -> tuple[list[FakeUser], list[FakeChat]]:
    """`n` people, each alone in a group of their own (with the bot)."""
    people = [fake.user(first_id + i, name.format(i)) for i in range(n)]
    groups = [fake.group(-100000 - first_id - i, f"G{i}", members=[people[i]]) for i in range(n)]
    return people, groups


async def open_due(
    fake: FakeTelegram, group: FakeChat, creator: FakeUser, joiner: FakeUser | None
) -> None:
    await fake.send_text(creator, group, f"/new@{BOT_NAME} due")
    await fake.wait_for(lambda: table_message(fake, group).button("Entra"), WAIT)
    if joiner is not None:
        reply = await say(fake, joiner, group, "/join")
        assert "seduto" in reply.text, reply.text
    else:
        qid = await fake.press(creator, table_message(fake, group).button("+ 🤖 normale"))
        assert await answered(fake, qid) == ""


async def start(fake: FakeTelegram, group: FakeChat, creator: FakeUser) -> None:
    qid = await fake.press(creator, table_message(fake, group).button("Inizia"))
    assert await answered(fake, qid) == ""
    await fake.wait_for(lambda: "mano 1" in table_message(fake, group).text, WAIT)


async def tap_cards(
    fake: FakeTelegram, user: FakeUser, until: float, rng: random.Random
) -> tuple[int, list[str]]:
    """A person who taps a card of their hand message as soon as they see one, whether it is
    their turn or not, until `until` (loop time). Returns the taps accepted and every answer."""
    loop = asyncio.get_running_loop()
    played, answers = 0, []
    while loop.time() < until:
        try:
            msg = hand_message(fake, user)
        except LookupError:
            await asyncio.sleep(0.2)
            continue
        cards = card_buttons(msg)
        if not cards:
            await asyncio.sleep(0.2)
            continue
        button = rng.choice(cards)
        answer = await answered(fake, await fake.press(user, button))
        answers.append(answer)
        if answer == OK:
            played += 1
            with contextlib.suppress(TimeoutError):  # the card leaves the hand message
                await card_left(fake, user, action_of(button))
        else:
            await asyncio.sleep(0.3)
    return played, answers


# ------------------------------------------------------------------------------ the tests


async def test_fast_tapper_on_start_never_freezes_the_group(tmp_path: Path) -> None:
    """Issue 10.1: 40 quick taps on "Inizia" by someone who may not start the table are all
    answered at once; Telegram is asked whether they are an admin once; the table still
    starts and updates; SIGTERM then stops the bot promptly."""
    async with asyncio.timeout(120), strict_telegram() as fake:
        ana, bea = fake.user(301, "Ana"), fake.user(302, "Bea <3")
        group = fake.group(-100301, "Tappers", members=[ana, bea])
        with bot_guard(BotProcess(fake, tmp_path, **REAL_PACE)) as bot:
            await bot.start()
            await say(fake, ana, ana, "/start")
            await say(fake, bea, bea, "/start")
            await open_due(fake, group, ana, bea)
            button = await fake.wait_for(lambda: table_message(fake, group).button("Inizia"), WAIT)
            qids = [await fake.press(bea, button) for _ in range(40)]
            answers = [await answered(fake, q) for q in qids]
            assert set(answers) == {NOT_ALLOWED}, answers
            asks = [
                c
                for c in fake.calls_of("getChatMember")
                if int(c.params["user_id"]) == bea.id and c.refused_by is None
            ]
            assert len(asks) == 1  # asked once, remembered
            assert max(fake.tap_latencies()) < 5.0  # before: 15-22 s, and 40 never answered
            await start(fake, group, ana)  # the creator is never asked about
            assert not [
                c for c in fake.calls_of("getChatMember") if int(c.params["user_id"]) == ana.id
            ]
            until = asyncio.get_running_loop().time() + 8
            (played, _), (played_bea, _) = await asyncio.gather(
                tap_cards(fake, ana, until, random.Random(1)),
                tap_cards(fake, bea, until, random.Random(2)),
            )
            assert played >= 2 and played_bea >= 2, (played, played_bea)
            t0 = time.monotonic()
            assert await bot.stop(signal.SIGTERM) == 0
            assert time.monotonic() - t0 < 10.0  # before: more than 20 s
            bot.check_logs()


async def test_many_groups_at_once_stay_within_limits_and_every_tap_is_answered(
    tmp_path: Path,
) -> None:
    """Issue 10.2: 16 groups play at once, each person tapping as fast as they can. No 429 of
    the bot's own making (checked by `strict_telegram`), every tap answered, every group's
    play goes on, and every accepted tap is exactly one stored move."""
    async with asyncio.timeout(180), strict_telegram() as fake:
        people, groups = people_in_groups(fake, 16, 400, "P{} & <co>")
        with bot_guard(BotProcess(fake, tmp_path, **REAL_PACE)) as bot:
            store = await start_bot(bot, people)
            await asyncio.gather(
                *(open_due(fake, g, p, None) for g, p in zip(groups, people, strict=True))
            )
            await asyncio.gather(*(start(fake, g, p) for g, p in zip(groups, people, strict=True)))
            until = asyncio.get_running_loop().time() + 25
            results = await asyncio.gather(
                *(tap_cards(fake, p, until, random.Random(i)) for i, p in enumerate(people))
            )
            assert not fake.unanswered_queries()
            for (played, answers), p, g in zip(results, people, groups, strict=True):
                assert played >= 3, (p.first_name, answers)
                assert set(answers) <= {
                    OK,
                    NOT_YOUR_TURN,
                    "Pulsante scaduto: usa quelli aggiornati.",
                }
                tid = int(store.table(g.id)["table_id"])
                mine = [m for m in store.moves(tid) if m[4] == p.id]
                assert len(mine) == played
            lat = sorted(fake.tap_latencies())
            assert lat[int(0.99 * (len(lat) - 1))] < 2.0, lat[-10:]
            assert await bot.stop(signal.SIGTERM) == 0
            bot.check_logs()


async def test_a_tap_is_answered_before_computer_players_think(tmp_path: Path) -> None:
    """Issue 10.3: with `hard` computers thinking (their search in worker processes), a tap
    is answered as soon as the move is stored, before any computer moves; and a person at
    another table is answered at once meanwhile."""
    async with asyncio.timeout(150), strict_telegram() as fake:
        ana, bea = fake.user(501, "Ana"), fake.user(502, "Bea")
        g1 = fake.group(-100501, "Hard", members=[ana])
        g2 = fake.group(-100502, "Other", members=[bea])
        env = {**REAL_PACE, "HARD_BUDGET": "1.0", "BOT_MOVE_DELAY": "0.5"}
        with bot_guard(BotProcess(fake, tmp_path, **env)) as bot:
            store = await start_bot(bot, [ana, bea])
            await fake.send_text(ana, g1, f"/new@{BOT_NAME} quattro")
            await fake.wait_for(lambda: table_message(fake, g1).button("Entra"), WAIT)
            for _ in range(3):
                qid = await fake.press(ana, table_message(fake, g1).button("+ 🤖 difficile"))
                assert await answered(fake, qid) == ""
            await fake.wait_for(lambda: "(4/4)" in table_message(fake, g1).text, WAIT)
            await start(fake, g1, ana)
            await open_due(fake, g2, bea, None)
            await start(fake, g2, bea)
            tid = int(store.table(g1.id)["table_id"])
            bea_tid = int(store.table(g2.id)["table_id"])
            other_answers: list[float] = []
            for checked in range(4):
                # wait for Ana's turn: her cards are buttons and the computers have moved
                def ana_to_play() -> Any:
                    hand = store.hand(g1.id)
                    if hand_turn(hand) != 0:
                        return None
                    msg = hand_message(fake, ana)  # her turn's message, once it has come
                    return msg if card_buttons(msg) else None

                msg = await fake.wait_for(ana_to_play, 60, message="Ana's turn")
                before = len(store.moves(tid))
                button = random.Random(checked).choice(card_buttons(msg))
                qid = await fake.press(ana, button)
                assert await answered(fake, qid) == OK
                # the answer came before any computer moved (they move after 0.5 s and think)
                assert len(store.moves(tid)) == before + 1
                # meanwhile, at the other table, Bea's taps are answered at once
                t0 = asyncio.get_running_loop().time()
                bea_msg = hand_message(fake, bea)
                cards = card_buttons(bea_msg)
                if cards:
                    qid = await fake.press(bea, cards[0])
                else:  # out of turn her message has no button: one her phone kept (issue 49)
                    data = f"a:{bea_tid}:0:0:{BEA_CARD}"
                    qid = await fake.press_raw(bea, bea, bea_msg.message_id, data)
                await answered(fake, qid)
                other_answers.append(asyncio.get_running_loop().time() - t0)
                await card_left(fake, ana, action_of(button))
            assert max(other_answers) < 1.0, other_answers
            assert await bot.stop(signal.SIGTERM) == 0
            bot.check_logs()


BEA_CARD = 0  # a card in a tap from an old keyboard: answered (refused) like any tap


def hand_turn(hand: dict[str, Any]) -> int:
    from bot.engine import HandState

    state = HandState.from_dict(hand)
    return -1 if state.is_terminal() else state.current


async def replay_void_hand(
    fake: FakeTelegram, store: Store, group: FakeChat, user: FakeUser
) -> None:
    """A void hand (60-60, §4.1) is over: `user` taps "Prossima mano" where it shows first,
    their hand message or the group's table message, unless the turn timer has dealt the
    replay already (`NEXT_HAND_PAUSE` after the hand's end). The table message alone is no
    promise: at Telegram's pace a group's edits wait for room in its window (the first
    minute's command replies take much of it; before the outbox paced the table's edits by
    the room left, an edit could wait 27 s, longer than the pause), and the private message
    is the one that tells the player."""

    def replay() -> FakeButton | bool:
        if hand_turn(store.hand(group.id)) != -1:
            return True  # dealt by the timer
        for msg in (hand_message(fake, user), table_message(fake, group)):
            with contextlib.suppress(LookupError):
                return msg.button("Prossima mano")
        return False

    found = await fake.wait_for(replay, NEXT_HAND_PAUSE + WAIT)
    if found is not True:
        assert isinstance(found, FakeButton)
        await answered(fake, await fake.press(user, found))
    await fake.wait_for(lambda: hand_turn(store.hand(group.id)) != -1, WAIT)


async def test_faults_on_every_method_are_retried_and_every_tap_answered(tmp_path: Path) -> None:
    """Issue 10.4: with 5 % of all calls answered 429 or 502, every tap is answered exactly
    once, every command gets its reply, the match is played to the end (and, a person against
    a computer, writes nothing to the ledger, §10.5); nothing reaches the log as a traceback."""
    async with asyncio.timeout(240), strict_telegram() as fake:
        ana = fake.user(601, "Ana")
        group = fake.group(-100601, "Faulty", members=[ana])
        with bot_guard(BotProcess(fake, tmp_path, **REAL_PACE)) as bot:
            await bot.start()
            store = Store(bot.db_path)
            await say(fake, ana, ana, "/start")
            # a command's reply meets a 502, then a 429: it still arrives
            fake.inject_error("sendMessage", 502, "Bad Gateway")
            fake.inject_retry_after("sendMessage", 1)
            assert "/new" in (await say(fake, ana, group, "/help")).text
            assert len([c for c in fake.calls_of("sendMessage") if not c.ok]) == 2
            fake.set_fault_rate(0.05, codes=(429, 502), seed=10)
            for command in ("/rules", "/score"):
                await say(fake, ana, group, command)
            await open_due(fake, group, ana, None)
            reply = await say(fake, ana, group, "/settings match=single")
            assert reply.text == "Impostato."
            await start(fake, group, ana)
            rng = random.Random(3)
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 200
            while store.table(group.id)["status"] != "finished" and loop.time() < deadline:
                await tap_cards(fake, ana, loop.time() + 3, rng)
                hand = store.hand(group.id)
                if hand_turn(hand) == -1 and store.table(group.id)["status"] == "playing":
                    await replay_void_hand(fake, store, group, ana)
            assert store.table(group.id)["status"] == "finished"
            assert not fake.unanswered_queries()
            assert fake.injected_faults, "the test injected no fault"
            methods = {c.method for c in fake.injected_faults}
            assert {"answerCallbackQuery", "editMessageText"} <= methods, methods
            assert {c.error_code for c in fake.injected_faults} == {429, 502}
            # §10.5: Ana against a computer writes nothing to the ledger (nobody owes a
            # computer; the ledger written once per hand is the kill test's check)
            assert store.ledger(group.id) == []
            fake.set_fault_rate(0)
            await fake.wait_for(
                lambda: "Partita finita" in table_message(fake, group).text,
                40,
            )
            # only the rematch is offered (issue 11 §7), on the match's end (issue 38)
            assert not table_message(fake, group).buttons
            end = await fake.wait_for(
                lambda: next((m for m in fake.bot_messages(group) if m.text[:1] == "🏆"), None),
                WAIT,
            )
            assert [b.text for b in end.buttons] == ["🔁 Rivincita"]
            assert await bot.stop(signal.SIGTERM) == 0
            bot.check_logs()


async def test_leftover_buttons_are_frozen_or_cleared(tmp_path: Path) -> None:
    """Issue 10.6: the variant picker loses its buttons once a variant is chosen (it becomes
    the table); the lobby's buttons go at once when the game starts (not after the group's
    edit interval); whoever leaves a running game, and everyone when it is cancelled, keeps
    no live card buttons."""
    async with asyncio.timeout(120), strict_telegram() as fake:
        ana, bea, cleo = fake.user(701, "Ana"), fake.user(702, "Bea"), fake.user(703, "Cleo")
        group = fake.group(-100701, "Leftovers", members=[ana, bea, cleo])
        with bot_guard(BotProcess(fake, tmp_path, **REAL_PACE)) as bot:
            store = await start_bot(bot, [ana, bea, cleo])
            picker = await say(fake, ana, group, "/new")
            qid = await fake.press(ana, picker.button("Briscola a quattro (coppie)"))
            assert await answered(fake, qid) == ""
            await fake.wait_for(
                lambda: "Entra" in str(fake.message(group, picker.message_id).keyboard), WAIT
            )
            assert not any(
                "Briscola a due" in str(row)
                for row in fake.message(group, picker.message_id).keyboard
            )
            for p in (bea, cleo):
                assert "seduto" in (await say(fake, p, group, "/join")).text
            qid = await fake.press(ana, table_message(fake, group).button("+ 🤖 normale"))
            assert await answered(fake, qid) == ""
            # a join just edited the table: the start must not wait the 4 s interval
            await fake.wait_for(lambda: "(4/4)" in table_message(fake, group).text, WAIT)
            qid = await fake.press(ana, table_message(fake, group).button("Inizia"))
            assert await answered(fake, qid) == ""
            t0 = asyncio.get_running_loop().time()
            await fake.wait_for(
                lambda: "Entra" not in str(table_message(fake, group).keyboard), WAIT
            )
            assert asyncio.get_running_loop().time() - t0 < 2.0
            for p in (ana, bea, cleo):  # everyone's hand; buttons for the one to act only
                await hand_when(fake, p, lambda m: "🃏" in m.text)

            def first_person() -> FakeUser | None:
                seat = hand_turn(store.hand(group.id))
                return (ana, bea, cleo)[seat] if seat < 3 else None  # (3: the computer)

            first = await fake.wait_for(first_person, WAIT)
            await hand_when(fake, first, card_buttons)
            for p in (ana, bea, cleo):
                assert bool(card_buttons(hand_message(fake, p))) == (p is first), p.first_name
            # Cleo leaves the running game: her hand message keeps no card buttons
            reply = await say(fake, cleo, group, "/leave")
            assert "computer" in reply.text
            await fake.wait_for(lambda: not hand_message(fake, cleo).buttons, WAIT)
            # the creator cancels: nobody keeps live buttons
            table_id = table_message(fake, group).message_id
            reply = await say(fake, ana, group, "/cancel")
            assert "annullato" in reply.text.lower()
            for p in (ana, bea, cleo):
                await hand_when(fake, p, lambda m: not m.buttons)
            await fake.wait_for(lambda: not fake.message(group, table_id).buttons, WAIT)
            assert store.table(group.id)["status"] == "cancelled"
            assert await bot.stop(signal.SIGTERM) == 0
            bot.check_logs()


async def test_a_restart_edits_nothing_that_is_already_shown(tmp_path: Path) -> None:
    """Issue 10.5: after SIGKILL and a restart, the restored tables are rendered again but
    not one edit is sent for a message that already shows its content (no "message is not
    modified"), and play carries on."""
    async with asyncio.timeout(120), strict_telegram() as fake:
        people, groups = people_in_groups(fake, 3, 801, "R{}")
        with bot_guard(BotProcess(fake, tmp_path, **REAL_PACE)) as bot:
            store = await start_bot(bot, people)
            for g, p in zip(groups, people, strict=True):
                await open_due(fake, g, p, None)
                await start(fake, g, p)
            loop = asyncio.get_running_loop()
            await asyncio.gather(
                *(
                    tap_cards(fake, p, loop.time() + 4, random.Random(i))
                    for i, p in enumerate(people)
                )
            )
            # let every message show the stored state, then kill
            await fake.wait_for(
                lambda: all(
                    settled(fake, store, g, p) for g, p in zip(groups, people, strict=True)
                ),
                30,
            )
            # and the group messages too: they are edited at most every 4 s
            await no_sends_for(fake, 5.0, within=40.0)
            await bot.kill9()
            mark = fake.mark()
            await bot.start()
            await asyncio.sleep(3.0)
            after = [c for c in fake.calls[mark:] if c.method in ("editMessageText", "sendMessage")]
            assert not after, [(c.method, c.description) for c in after]
            assert not [c for c in fake.calls[mark:] if not c.ok and c.method != "getUpdates"]
            results = await asyncio.gather(
                *(
                    tap_cards(fake, p, loop.time() + 5, random.Random(9 + i))
                    for i, p in enumerate(people)
                )
            )
            assert all(played >= 1 for played, _ in results), results
            assert await bot.stop(signal.SIGTERM) == 0
            bot.check_logs()


async def no_sends_for(fake: FakeTelegram, seconds: float, within: float) -> None:
    """Wait until the bot has sent or edited nothing for `seconds` (at most `within`)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while loop.time() < deadline:
        mark = fake.mark()
        await asyncio.sleep(seconds)
        if not [c for c in fake.calls[mark:] if c.method in ("editMessageText", "sendMessage")]:
            return
    raise TimeoutError(f"the bot kept sending for {within} s")


def settled(fake: FakeTelegram, store: Store, group: FakeChat, person: FakeUser) -> bool:
    """The person's hand message shows the stored hand (their cards as buttons)."""
    from bot.engine import HandState

    state = HandState.from_dict(store.hand(group.id))
    held = sorted(int(c) for c in state.hands[0]) if not state.is_terminal() else []
    shown = sorted(action_of(b) for b in card_buttons(hand_message(fake, person)))
    return held == shown


def test_a_bad_setting_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """A wrong value in the environment names the variable, with no traceback; an empty one
    means "not set" (the default applies)."""
    import os
    import subprocess
    import sys

    from bench.rig.bot_process import REPO

    env = {k: v for k, v in os.environ.items() if not k.startswith(("BOT_", "TELEGRAM_"))}
    env.update(BOT_TOKEN="1:x", HARD_BUDGET="soon", PYTHONPATH=str(REPO))
    out = subprocess.run(
        [sys.executable, "-m", "bot"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        "python -m bot: error: HARD_BUDGET: Input should be a valid number,"
        " unable to parse string as a number"
    ]
    env.update(HARD_BUDGET="", COMPUTER_WORKERS="", BOT_TOKEN="")
    out = subprocess.run(
        [sys.executable, "-m", "bot"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert out.returncode == 2 and "BOT_TOKEN is not set" in out.stderr
    assert "Traceback" not in out.stderr


def children_of(pid: int) -> list[int]:
    """The processes whose parent is `pid` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return found


async def test_the_search_workers_leave_with_a_killed_bot(tmp_path: Path) -> None:
    """Issue 10.3: the `hard` player's worker processes (and multiprocessing's resource
    tracker) end when the bot is killed with SIGKILL, instead of living on forever."""
    async with asyncio.timeout(60), strict_telegram() as fake:
        with bot_guard(BotProcess(fake, tmp_path, COMPUTER_WORKERS="1")) as bot:
            await bot.start()
            assert bot.proc is not None
            pid = bot.proc.pid
            kids = await fake.wait_for(lambda: k if len(k := children_of(pid)) >= 2 else None, 20)
            await bot.kill9()
            await fake.wait_for(
                lambda: not [k for k in kids if Path(f"/proc/{k}").exists()],
                10,
                message="the worker processes ended",
            )


async def test_sigterm_while_polling_starts_exits_at_once(tmp_path: Path) -> None:
    """Issue 50.2: SIGTERM while PTB's updater starts (its deleteWebhook made, the answer
    not back yet): the bot exits with status 0 within seconds. (Raised out of that step, PTB
    closed the started call, whose cleanup raised for want of a loop; its shutdown never ran
    and the process was still there 30 s later: a CI run, a SIGTERM right after a restart.)"""
    async with asyncio.timeout(60), strict_telegram() as fake:
        fake.answer_delays["deleteWebhook"] = 1.0
        with bot_guard(BotProcess(fake, tmp_path)) as bot:
            for _ in range(2):  # a first start, and a restart
                await bot.start()  # back once the deleteWebhook is made
                t0 = time.monotonic()
                assert await bot.stop(signal.SIGTERM) == 0
                assert time.monotonic() - t0 < 10.0
                assert "stop signal" in bot.log_text()
                assert "the bot stopped on an error" not in bot.log_text()
                bot.check_logs()


async def test_a_tap_on_the_wire_at_sigterm_is_played_after_the_restart(tmp_path: Path) -> None:
    """Issue 50.2: a tap whose getUpdates answer is still on its way when SIGTERM lands is
    not lost. The bot never had it, so it neither answered nor confirmed it; the next run
    fetches it again, answers it and plays the card, once. (A CI run sent SIGTERM in that
    window and found the tap unanswered at the exit, as it must be.)"""
    async with asyncio.timeout(90), strict_telegram() as fake:
        ana = fake.user(331, "Ana")
        group = fake.group(-100331, "On the wire", members=[ana])
        with bot_guard(BotProcess(fake, tmp_path, **REAL_PACE)) as bot:
            store = await start_bot(bot, [ana])
            await open_due(fake, group, ana, None)
            await start(fake, group, ana)
            hand = await hand_when(fake, ana, lambda m: "Tocca a te" in m.text)
            button = card_buttons(hand)[0]
            tid = int(store.table(group.id)["table_id"])
            before = len(store.moves(tid))
            fake.answer_delays["getUpdates"] = 2.0  # the tap is fetched, its answer is slow
            qid = await fake.press(ana, button)
            await fake.wait_delivered(WAIT)
            assert await bot.stop(signal.SIGTERM) == 0
            assert fake.answer_attempts(qid) == 0  # the bot never had it
            assert len(store.moves(tid)) == before
            fake.answer_delays.clear()
            await bot.start()
            assert await answered(fake, qid) == OK
            await card_left(fake, ana, action_of(button))
            assert [m[3] for m in store.moves(tid)].count(action_of(button)) == 1
            assert await bot.stop(signal.SIGTERM) == 0
            bot.check_logs()


async def test_sigterm_after_a_fast_tapping_group_exits_within_ten_seconds(
    tmp_path: Path,
) -> None:
    """Issue 50.2: a two-person table tapped as fast as fingers go for 40 s, with the group
    asking /score meanwhile (its 20 calls a minute spent), then SIGTERM: the bot exits in
    under 10 s (it took 34 s: the updates in hand waited for the group's room), with status 0,
    and what it did not show is shown by the next run."""
    async with asyncio.timeout(180), strict_telegram() as fake:
        ana, bea = fake.user(311, "Ana"), fake.user(312, "Bea")
        group = fake.group(-100311, "Quick fingers", members=[ana, bea])
        with bot_guard(BotProcess(fake, tmp_path, **REAL_PACE)) as bot:
            store = await start_bot(bot, [ana, bea])
            await open_due(fake, group, ana, bea)
            await start(fake, group, ana)
            loop = asyncio.get_running_loop()
            until = loop.time() + 40

            async def ask_scores() -> None:
                while loop.time() < until:
                    await fake.send_text(bea, group, "/score")
                    await asyncio.sleep(2.0)

            (played, _), (played_bea, _), _ = await asyncio.gather(
                tap_cards(fake, ana, until, random.Random(3)),
                tap_cards(fake, bea, until, random.Random(4)),
                ask_scores(),
            )
            assert played + played_bea >= 10, (played, played_bea)
            moves = len(store.moves(int(store.table(group.id)["table_id"])))
            t0 = time.monotonic()
            assert await bot.stop(signal.SIGTERM) == 0
            took = time.monotonic() - t0
            print(f"\n[sigterm] {played + played_bea} cards in 40 s, exit after {took:.1f} s")
            assert took < 10.0, took
            bot.check_logs()
            # the next run carries on from what was stored, and shows the table as it is
            await bot.start()
            tid = int(store.table(group.id)["table_id"])
            assert len(store.moves(tid)) >= moves
            await fake.wait_for(lambda: "mano" in table_message(fake, group).text, 2 * WAIT)
            assert await bot.stop(signal.SIGTERM) == 0
            bot.check_logs()


async def test_a_tap_is_answered_at_once_behind_three_hundred_waiting_replies(
    tmp_path: Path,
) -> None:
    """Issue 50.1: replies waiting for their group's room (20 calls a minute) never stand
    before a tap's answer. 300 /help in a chatty group, each reply waiting for that group's
    room with its update in hand; then a tap at a table in another group is answered within
    a second. (With PTB's default of 256 updates in hand, the replies took every place and
    the tap waited for one of them to go: seconds per reply.)"""
    async with asyncio.timeout(120), strict_telegram() as fake:
        ana, bea = fake.user(321, "Ana"), fake.user(322, "Bea")
        group = fake.group(-100321, "Tavolo", members=[ana, bea])
        chatty = fake.group(-100322, "Chiacchiere", members=[bea])
        with bot_guard(BotProcess(fake, tmp_path, **REAL_PACE)) as bot:
            await start_bot(bot, [ana, bea])
            await open_due(fake, group, ana, bea)
            await start(fake, group, ana)
            for _ in range(300):
                await fake.send_text(bea, chatty, "/help")
            # the bot has fetched them all: they wait in hand for the group's room
            await fake.wait_for(lambda: not fake.pending_updates(), WAIT)
            await asyncio.sleep(1.0)
            replies = len(fake.bot_messages(chatty))
            assert replies <= 25, replies  # the group's minute: the rest wait
            who = next(u for u in (ana, bea) if "👉" in hand_message(fake, u).text)
            made = time.monotonic()
            qid = await fake.press(who, card_buttons(hand_message(fake, who))[0])
            assert await answered(fake, qid) == OK
            took = time.monotonic() - made
            print(f"\n[in hand] a tap behind {300 - replies} waiting replies: {took:.3f} s")
            assert took < 1.0, took
            assert await bot.stop(signal.SIGTERM) == 0
            bot.check_logs()


async def test_the_groups_table_shows_each_move_within_ten_seconds(tmp_path: Path) -> None:
    """Issue 50.4: the group's table message never stands still for more than 10 s while
    moves go by, though the group spends its 20 calls a minute on replies too. Two people
    play a `due` match at a human pace (a card 1-3 s after their turn shows) for 75 s while
    a third asks /score every 3 s; every card accepted reaches the group's table message
    (an edit Telegram accepted) within 10 s, and a move's lag is not all waiting for the
    next move: the table changes between moves too (the bot's own default pace)."""
    env = {
        **REAL_PACE,
        "GROUP_ROUTINE_INTERVAL": str(Settings.model_fields["group_routine_interval"].default),
    }
    async with asyncio.timeout(240), strict_telegram() as fake:
        ana, bea, cleo = fake.user(331, "Ana"), fake.user(332, "Bea"), fake.user(333, "Cleo")
        group = fake.group(-100331, "Al bar", members=[ana, bea, cleo])
        with bot_guard(BotProcess(fake, tmp_path, **env)) as bot:
            await start_bot(bot, [ana, bea, cleo])
            await open_due(fake, group, ana, bea)
            await start(fake, group, ana)
            loop = asyncio.get_running_loop()
            until = loop.time() + 75
            made: list[float] = []

            async def play(user: FakeUser, rng: random.Random) -> None:
                while loop.time() < until:
                    try:
                        cards = card_buttons(hand_message(fake, user))
                    except LookupError:
                        cards = []
                    if not cards or "👉" not in hand_message(fake, user).text:
                        await asyncio.sleep(0.2)
                        continue
                    await asyncio.sleep(rng.uniform(1.0, 3.0))
                    button = rng.choice(cards)
                    at = time.monotonic()
                    if await answered(fake, await fake.press(user, button)) == OK:
                        made.append(at)
                        with contextlib.suppress(TimeoutError):
                            await card_left(fake, user, action_of(button))

            async def ask_scores() -> None:
                while loop.time() < until:
                    await fake.send_text(cleo, group, "/score")
                    await asyncio.sleep(3.0)

            await asyncio.gather(
                play(ana, random.Random(5)), play(bea, random.Random(6)), ask_scores()
            )
            await asyncio.sleep(12.0)  # the last moves' time to show
            shown = sorted(  # the table message's edits (the group's only edited message)
                c.at
                for c in fake.calls
                if c.ok and c.method == "editMessageText" and c.params.get("chat_id") == group.id
            )
            lags = []
            for at in made:
                k = bisect.bisect_right(shown, at)
                assert k < len(shown), "a move the group's table never showed"
                lags.append(shown[k] - at)
            print(
                f"\n[group] {len(made)} cards; the group's table showed each after "
                f"p50 {statistics.median(lags):.1f} s, max {max(lags):.1f} s"
            )
            assert len(made) >= 20, len(made)
            assert max(lags) <= 10.0, sorted(lags)[-5:]
            assert await bot.stop(signal.SIGTERM) == 0
            bot.check_logs()

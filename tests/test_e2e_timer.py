"""End to end (issue 11 §1 and §3: nobody stalls the table): the turn timer plays for an
absent player and the group is told, the seat is kept by the computer after two timeouts in
a row and taken back with "Riprendo il posto" (or /join after /leave), the next hand starts by
itself, the deadlines survive a restart (SIGKILL and SIGTERM), a lobby nobody starts expires,
and a running match is cancelled only by an admin or with every other player's agreement.

The bot runs with its waits shortened by TIMER_SCALE (production keeps the issue's values).
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

from bench.rig.bot_process import WAIT, BotProcess, ProbedBot, Store, bot_guard
from bench.rig.people import (
    BAD_DATA,
    Game,
    card_buttons,
    hand_message,
    hand_over,
    hand_when,
    message_when,
    open_table,
    say,
    start_table,
    started_game,
    table_message,
)
from bench.rig.stand_in import telegram
from bench.rig.telegram import FakeChat, FakeMessage, FakeTelegram, FakeUser

BACK = "Bentornato: il posto è di nuovo tuo."
ALREADY_MINE = "Il posto è già tuo."


def mentions_of(fake: FakeTelegram, group: FakeChat, user: FakeUser) -> list[FakeMessage]:
    """The group messages that mention `user` for real (a text_mention entity)."""
    return [
        m
        for m in fake.bot_messages(group)
        if any(
            e.get("type") == "text_mention" and e.get("user", {}).get("id") == user.id
            for e in m.entities
        )
    ]


def notices(fake: FakeTelegram, group: FakeChat, text: str) -> list[FakeMessage]:
    return [m for m in fake.bot_messages(group) if text in m.text]


async def turn_of(game: Game, user: FakeUser) -> None:
    """The others act at once until it is `user`'s turn."""
    for _ in range(60):
        who, _table = await game.turn()
        if who is user:
            return
        assert who is not None, "the hand ended first"
        assert await game.step()
    raise AssertionError(f"never {user.first_name}'s turn")


async def tap(fake: FakeTelegram, user: FakeUser, message: FakeMessage, label: str) -> str:
    qid = await fake.press(user, message.button(label))
    return (await fake.answer_for(qid, WAIT)).text or ""


async def test_the_timer_plays_for_an_absent_player_who_takes_the_seat_back(
    tmp_path: Path,
) -> None:
    # TIMER_SCALE 0.2: the 60 s timer lasts 12 s (mention at 6 s, reminder at 9 s), long
    # enough for the scripted player on a busy machine; the pause before the next hand 3 s
    async with asyncio.timeout(240), telegram() as fake:
        mario = fake.user(801, "Mario <M&M>")
        luigi = fake.user(802, "Luigi_*")
        group = fake.group(-100801, "Timer <&>", members=[mario, luigi])
        with bot_guard(ProbedBot(fake, tmp_path, TIMER_SCALE="0.2")) as bot:
            game = await started_game(
                bot, group, [mario, luigi], "due", settings="match=best3 timer=60"
            )
            store = game.store
            tid = game.table_id()
            loop = asyncio.get_running_loop()

            # ---- Mario does not act: mentioned, reminded, then the computer plays for him
            await turn_of(game, mario)
            seen = loop.time()
            mention = await fake.wait_for(
                lambda: mentions_of(fake, group, mario), WAIT, message="the mention"
            )
            assert loop.time() - seen >= 3.0, "mentioned before half the timer"
            assert mention[0].text.startswith("⏰ Mario <M&M>, tocca a te")
            assert 'tg://user?id=801">Mario &lt;M&amp;M&gt;</a>' in mention[0].raw_text
            reminder = await fake.wait_for(
                lambda: [m for m in fake.bot_messages(mario) if m.text.startswith("⏰")],
                WAIT,
                message="the private reminder",
            )
            assert "gioca il computer" in reminder[0].text
            timed_out = "⏱ Mario <M&M>: tempo scaduto, gioca il computer."
            await fake.wait_for(lambda: notices(fake, group, timed_out), WAIT)
            assert loop.time() - seen >= 9.0
            # the notice may come before the table and the hands show the timer's move: a
            # look at them now could still see Mario's turn
            await bot.idle()
            move = store.moves(tid)[-1]
            assert move[2] == 0 and move[4] is None  # Mario's seat, played by the timer
            assert "🤖" not in next(x for x in game.table().text.splitlines() if "Mario" in x)

            # ---- a second timeout in a row: the computer keeps his seat
            await turn_of(game, mario)
            away = "⏱ Mario <M&M>: tempo scaduto due volte di fila"
            await fake.wait_for(lambda: notices(fake, group, away), WAIT)
            resume = await fake.wait_for(
                lambda: hand_message(fake, mario).button("Riprendo il posto"), WAIT
            )
            assert not card_buttons(hand_message(fake, mario))
            await fake.wait_for(
                lambda: next(x for x in game.table().text.splitlines() if "Mario" in x).endswith(
                    "🤖"
                ),
                WAIT,
            )
            # from now on his turns go by at once, and nobody is told anything more
            for _ in range(3):
                who, _table = await game.turn()
                if who is None:
                    break
                assert who is luigi
                assert await game.step()
            # once per slow turn a mention, which the timeout then edits into its notice
            # (issue 38: a notice lives as long as it is true; these go at the hand's end)
            told = notices(fake, group, "⏱ Mario")
            assert len(told) == 2 and all(m.edited == 1 for m in told), told
            assert not mentions_of(fake, group, mario)

            # ---- forged and stale taps on the button change nothing
            snap = store.snapshot(group.id)
            mine = hand_message(fake, luigi).message_id
            assert await game.raw(luigi, luigi, mine, f"b:{tid}") == ALREADY_MINE
            assert await game.raw(luigi, luigi, mine, "b:x") == BAD_DATA
            assert await game.raw(luigi, luigi, mine, f"b:{tid + 99}") == "Quella mano è finita."
            assert await game.raw(luigi, luigi, mine, f"b:{tid}:1") == BAD_DATA
            # ---- he takes his seat back (a double tap: once)
            q1 = await fake.press(mario, resume)
            q2 = await fake.press(mario, resume)
            answers = sorted([(await fake.answer_for(q, WAIT)).text or "" for q in (q1, q2)])
            assert answers == [BACK, ALREADY_MINE], answers
            assert store.snapshot(group.id)[4] != snap[4]  # the seats changed
            seats = json.loads(store.table(group.id)["seats_json"])["seats"]
            assert seats[0]["level"] is None and "away" not in seats[0]
            await fake.wait_for(
                lambda: (
                    not next(x for x in game.table().text.splitlines() if "Mario" in x).endswith(
                        "🤖"
                    )
                ),
                WAIT,
            )

            # ---- both play the hand out; then nobody taps "Prossima mano": it starts
            await game.play_hand()
            assert "Prossima mano" in str(game.table().keyboard), game.table().text
            # the next hand's start is a deadline stored when the hand ended
            starts = json.loads(store.table(group.id)["timers_json"])["at"]["next"]
            dealt = json.loads(store.table(group.id)["hand_json"])["hand_index"]
            # (the next hand is "mano 2", or "mano 1" again after a 60-60 void hand, §4)
            await fake.wait_for(
                lambda: (
                    json.loads(store.table(group.id)["hand_json"])["hand_index"] > dealt
                    and "Prossima mano" not in str(game.table().keyboard)
                ),
                WAIT,
                message="the next hand by itself",
            )
            assert time.time() >= starts - 0.05  # not before its pause is over
            # the timeouts' notices were true until the hand's end: gone with it (issue 38)
            await fake.wait_for(lambda: not notices(fake, group, "⏱ Mario"), WAIT)

            # ---- /leave during the game, then /join takes the seat back
            left = await say(fake, luigi, group, "/leave")
            assert "gioca il computer" in left.text and "/join" in left.text
            await fake.wait_for(lambda: not hand_message(fake, luigi).buttons, WAIT)
            back = await say(fake, luigi, group, "/join")
            assert back.text == BACK
            await turn_of(game, luigi)
            await fake.wait_for(lambda: card_buttons(hand_message(fake, luigi)), WAIT)
            assert await game.step()
            assert store.moves(tid)[-1][4] == luigi.id  # he played it himself
            assert await bot.stop() == 0
            bot.check_logs()


async def test_deadlines_survive_a_kill_and_a_restart(tmp_path: Path) -> None:
    # TIMER_SCALE 0.2: the 30 s timer lasts 6 s
    async with asyncio.timeout(180), telegram() as fake:
        mario = fake.user(811, "Mario")
        group = fake.group(-100811, "Restart", members=[mario])
        with bot_guard(BotProcess(fake, tmp_path, TIMER_SCALE="0.2")) as bot:
            game = await started_game(bot, group, [mario], "due", bots=1, settings="timer=30")
            store = game.store
            tid = game.table_id()

            def deadline() -> float:
                data = json.loads(store.table(group.id)["timers_json"] or "{}")
                return float(data.get("at", {}).get("timeout", 0.0))

            # ---- killed as his turn begins; the deadline passes while the bot is down
            await turn_of(game, mario)
            first = await fake.wait_for(deadline, WAIT, message="a stored deadline")
            assert 0 < first - time.time() <= 6.5  # absolute, stored with the turn
            await bot.kill9()
            moves = len(store.moves(tid))
            await asyncio.sleep(max(0.0, first - time.time()) + 1.0)
            await bot.start()
            up = time.time()
            await fake.wait_for(
                lambda: len(store.moves(tid)) > moves, WAIT, message="the timer's move"
            )
            assert time.time() - up < 4.0  # at once, not a fresh 6 s
            assert store.moves(tid)[moves][2] == 0 and store.moves(tid)[moves][4] is None
            await fake.wait_for(lambda: notices(fake, group, "tempo scaduto"), WAIT)
            # the mention and the reminder were moot by then: never sent
            assert not mentions_of(fake, group, mario)
            assert not [m for m in fake.bot_messages(mario) if m.text.startswith("⏰")]

            # ---- stopped in the middle of his next turn: the timer keeps its deadline
            await turn_of(game, mario)
            second = await fake.wait_for(
                lambda: (d := deadline()) > first and d, WAIT, message="the next deadline"
            )
            moves = len(store.moves(tid))
            assert await bot.stop() == 0
            await bot.start()
            up = time.time()
            await fake.wait_for(
                lambda: len(store.moves(tid)) > moves, 2 * WAIT, message="the timer's move"
            )
            fired = time.time()
            assert fired >= second - 0.3, "fired before its deadline"
            assert fired <= max(second, up) + 3.0, (fired - second, fired - up)
            assert fired - up < 5.5, "a fresh timer after the restart, not the stored one"
            # the two timeouts in a row were counted across the restart: the seat is kept,
            # and as no other person plays, the match waits for him (issue 49: the group is
            # told it is paused, not that a computer plays on)
            away = "⏸ Mario: tempo scaduto due volte di fila. La partita è in pausa"
            await fake.wait_for(lambda: notices(fake, group, away), WAIT)
            resume = await fake.wait_for(
                lambda: hand_message(fake, mario).button("Riprendo il posto"), WAIT
            )
            assert await tap(fake, mario, hand_message(fake, mario), "Riprendo") == BACK
            assert resume.callback_data == f"b:{tid}"
            back = len(store.moves(tid))
            # His turn comes. The computer may have played the hand out before he came back
            # (the table, edited a moment later, can still show his turn then): the next hand
            # starts by itself.
            for _ in range(3):
                who, _table = await game.turn()
                if who is mario:
                    break
                await fake.wait_for(lambda: not hand_over(game.table()), 2 * WAIT)
            else:
                raise AssertionError("never Mario's turn after he came back")
            before = len(store.moves(tid))
            assert await game.step()
            # his own move (the computer opposite may already have answered it), and nothing
            # was played for him since he came back
            assert store.moves(tid)[before][4] == mario.id
            assert all(m[4] == mario.id for m in store.moves(tid)[back:] if m[2] == 0)
            assert await bot.stop() == 0
            bot.check_logs()


async def test_a_lobby_nobody_starts_expires(tmp_path: Path) -> None:
    # TIMER_SCALE 0.002: the lobby's 30 minutes last 3.6 s
    async with asyncio.timeout(90), telegram() as fake:
        mario = fake.user(821, "Mario")
        luigi = fake.user(822, "Luigi")
        group = fake.group(-100821, "Lobby", members=[mario, luigi])
        with bot_guard(BotProcess(fake, tmp_path, TIMER_SCALE="0.002")) as bot:
            await bot.start()
            store = Store(bot.db_path)
            await fake.send_text(mario, group, "/new due")
            lobby = await fake.wait_for(lambda: table_message(fake, group).button("Entra"), WAIT)
            tid = int(store.table(group.id)["table_id"])
            assert "seduto" in (await say(fake, luigi, group, "/join")).text
            notice = await fake.wait_for_text(group, "è scaduto", timeout=WAIT)
            assert notice.text == (
                "⌛ Il tavolo di Briscola a due è scaduto: nessuno l'ha avviato. Per giocare,"
                " aprine un altro con /new."
            )
            assert store.table(group.id)["status"] == "cancelled"
            # said once, by the notice: the lobby's message goes, with its buttons (issue 38)
            await fake.wait_for(
                lambda: lobby.message_id not in [m.message_id for m in fake.bot_messages(group)],
                WAIT,
                message="the expired lobby's message deleted",
            )
            # a tap on the expired lobby's button: a clear answer, nothing changes
            answer = await Game(fake, group, [mario], store).raw(
                luigi, group, lobby.message_id, f"l:{tid}:join"
            )
            assert "Non c'è un tavolo" in answer
            assert len(notices(fake, group, "è scaduto")) == 1
            await fake.send_text(mario, group, "/new due")
            await fake.wait_for(
                lambda: int(store.table(group.id)["table_id"]) > tid, WAIT, message="a new table"
            )
            assert await bot.stop() == 0
            bot.check_logs()


async def test_cancelling_a_running_match_needs_an_admin_or_everyone(tmp_path: Path) -> None:
    # TIMER_SCALE 0.05: an unanswered request lapses after 6 s
    async with asyncio.timeout(150), telegram() as fake:
        mario = fake.user(831, "Mario <M&M>")
        luigi = fake.user(832, "Luigi_*")
        ada = fake.user(833, "Ada")  # a group admin who does not play
        group = fake.group(-100831, "Cancel", admins=[ada], members=[mario, luigi])
        with bot_guard(BotProcess(fake, tmp_path, TIMER_SCALE="0.05")) as bot:
            game = await started_game(bot, group, [mario, luigi], "due", settings="timer=0")
            store = game.store
            tid = game.table_id()
            table_mid = game.table().message_id

            # ---- the creator is no admin: Luigi is asked, with buttons
            await fake.send_text(mario, group, "/cancel")
            request = await fake.wait_for_text(group, "chiede di annullare", timeout=WAIT)
            assert request.text.startswith("🛑 Mario <M&M> chiede di annullare la partita.")
            assert any(
                e.get("type") == "text_mention" and e["user"]["id"] == luigi.id
                for e in request.entities
            )
            assert store.table(group.id)["status"] == "playing"
            snap = store.snapshot(group.id)
            mid = request.message_id
            assert await tap(fake, mario, request, "D'accordo") == (
                "L'hai chiesto tu: aspettiamo gli altri."
            )
            assert await tap(fake, ada, request, "D'accordo") == (
                "Decidono i giocatori di questa partita."
            )
            assert await game.raw(luigi, group, mid, f"c:{tid}:x") == BAD_DATA
            assert await game.raw(luigi, group, mid, f"c:{tid + 5}:y") == (
                "Nessuna richiesta di annullare in corso."
            )
            again = await say(fake, luigi, group, "/cancel")
            assert "già una richiesta" in again.text
            assert store.snapshot(group.id) == snap
            # ---- Luigi says no: play goes on, the request keeps no buttons
            assert await tap(fake, luigi, request, "No") == "Va bene: la partita continua."
            refused = await message_when(fake, group, mid, lambda m: m.text.startswith("❌"))
            assert refused.text == "❌ Luigi_* non è d'accordo: la partita continua."
            assert not refused.buttons
            assert store.table(group.id)["status"] == "playing"
            assert await game.step()  # the game goes on

            # ---- asked again: Luigi agrees, the table is cancelled and says who asked
            await fake.send_text(mario, group, "/cancel")
            request = await fake.wait_for(
                lambda: next(
                    (
                        m
                        for m in fake.bot_messages(group)
                        if "chiede di annullare" in m.text and m.message_id != mid
                    ),
                    None,
                ),
                WAIT,
            )
            assert await tap(fake, luigi, request, "D'accordo") == "Tavolo annullato."
            done = await message_when(fake, group, request.message_id, lambda m: not m.buttons)
            assert done.text == "🛑 Tavolo annullato: l'ha chiesto Mario <M&M>, d'accordo Luigi_*."
            # said once, by the request's message: the table's message goes (issue 38)
            await fake.wait_for(
                lambda: table_mid not in [m.message_id for m in fake.bot_messages(group)],
                WAIT,
                message="the cancelled table's message deleted",
            )
            for p in (mario, luigi):
                await hand_when(fake, p, lambda m: not m.buttons)
            assert store.table(group.id)["status"] == "cancelled"
            assert store.ledger(group.id) == []  # nobody lost anything

            # ---- nobody answers a request: it lapses; an admin cancels at once
            await open_table(fake, group, mario, [luigi], "due", settings="timer=0")
            await start_table(fake, group, mario)
            await fake.send_text(luigi, group, "/cancel")
            request = await fake.wait_for(
                lambda: next(
                    (
                        m
                        for m in fake.bot_messages(group)
                        if m.text.startswith("🛑 Luigi_* chiede di annullare")
                    ),
                    None,
                ),
                WAIT,
            )
            lapsed = await message_when(
                fake, group, request.message_id, lambda m: m.text.startswith("⌛"), 2 * WAIT
            )
            assert lapsed.text == "⌛ Non hanno risposto tutti: la partita continua."
            assert not lapsed.buttons
            assert store.table(group.id)["status"] == "playing"
            reply = await say(fake, ada, group, "/cancel")
            assert reply.text == "🛑 Tavolo annullato da Ada."
            assert store.table(group.id)["status"] == "cancelled"
            assert await bot.stop() == 0
            bot.check_logs()

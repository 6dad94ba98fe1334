"""Issue 16: the Mini App in a real headless Chromium (Debian's, driven by Playwright), against
the real bot (`python -m bot`, the stand-in Bot API on 127.0.0.1). A `due` hand played by two
browsers alone; a chiamata hand of five, two in browsers and three tapping their DM buttons,
through the auction and the play to the ledger, watched by a spectator whose stream never
carries a hidden card or the socio before the called card is played (RULES.md §7.6); forged
and stale initData refused; a page that reconnects to a restarted bot and shows the table as
it is. Screenshots go to tests/artifacts/ (ignored by git)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from playwright.async_api import Page

from bench.rig.bot_process import (
    BOT_NAME,
    WAIT,
    BotProcess,
    Store,
    WebhookBot,
    bot_guard,
    check_ledger,
)
from bench.rig.browser import (
    SHORT_NAME,
    MiniAppBot,
    chromium,
    fits_the_screen,
    move_shown,
    open_page,
    page_errors,
    screenshot,
    signed_init_data,
    sse_payloads,
    table_key,
    table_param,
)
from bench.rig.people import (
    OK,
    act_buttons,
    action_of,
    card_buttons,
    hand_message,
    open_table,
    start_bot,
    start_table,
    state,
    table_message,
    your_turn,
)
from bench.rig.stand_in import telegram
from bench.rig.telegram import FakeChat, FakeTelegram, FakeUser
from bot.engine import actions as A


def version(store: Store, chat_id: int) -> int:
    return int(store.table(chat_id)["move_no"])


def moved_on(store: Store, chat_id: int, since: int) -> Callable[[], bool]:
    return lambda: version(store, chat_id) > since


async def due_table(
    bot: BotProcess, group: FakeChat, ann: FakeUser, bob: FakeUser
) -> tuple[Store, int]:
    """The bot started; Ann opens a due table in the group, Bob joins, Ann starts it."""
    store = await start_bot(bot, [ann, bob])
    await open_table(bot.fake, group, ann, [bob], "due")
    await start_table(bot.fake, group, ann)
    return store, int(store.table(group.id)["table_id"])


def card_gone(fake: FakeTelegram, who: FakeUser, card: int) -> Callable[[], bool]:
    """The card left `who`'s hand message's buttons."""
    return lambda: card not in [action_of(b) for b in card_buttons(hand_message(fake, who))]


async def session(bot: MiniAppBot, user: FakeUser, table_id: int | None = None) -> str:
    async with httpx.AsyncClient(base_url=bot.url) as client:
        r = await client.post("/api/session", json={"init_data": signed_init_data(user, table_id)})
        assert r.status_code == 200, r.text
        token: str = r.json()["token"]
        return token


def auth(token: str, table_id: int) -> dict[str, str]:
    """A page's headers: its session, and the table's key from the link."""
    return {"Authorization": f"Bearer {token}", "X-Table-Key": table_key(table_id)}


async def api_act(bot: MiniAppBot, token: str, table_id: int, body: dict[str, Any]) -> Any:
    async with httpx.AsyncClient(base_url=bot.url) as client:
        r = await client.post(
            f"/api/tables/{table_id}/act", json=body, headers=auth(token, table_id)
        )
        return r.status_code, r.json()


async def offered(page: Page) -> set[int]:
    """The actions the page offers: its buttons', and every value of the overbid's."""
    actions = {
        int(a)
        for a in await page.locator("#choices [data-action]").evaluate_all(
            "(els) => els.map((e) => e.dataset.action)"
        )
    }
    overbid = page.locator("#choices .overbid")
    if await overbid.count():
        lo = int(await overbid.get_attribute("data-min") or 0)
        hi = int(await overbid.get_attribute("data-max") or 0)
        actions |= {A.BID_POINTS + p for p in range(lo, hi + 1)}
    return actions


async def tap_in_page(
    page: Page, store: Store, chat_id: int, selector: str, rng: random.Random
) -> int:
    """Tap one of the elements `selector` finds (at random) once the page's controls answer
    (their turn shown, armed); wait until the move is stored. A card of a hand fanned out
    is tapped on the strip of it that shows. Returns the action tapped."""
    before = version(store, chat_id)
    await move_shown(page, before)
    await page.wait_for_selector("#app.live", timeout=WAIT * 1000)
    targets = page.locator(selector)
    count = await targets.count()
    assert count > 0, (selector, await page.content())
    target = targets.nth(rng.randrange(count))
    action = int(await target.get_attribute("data-action") or -1)
    box = await target.bounding_box()
    assert box is not None
    await target.click(position={"x": min(12.0, box["width"] / 2), "y": box["height"] / 2})
    deadline = time.monotonic() + WAIT
    while version(store, chat_id) == before:
        assert time.monotonic() < deadline, "a tap in the Mini App was not stored"
        await asyncio.sleep(0.05)
    return action


async def tap_in_dm(
    fake: FakeTelegram, store: Store, chat_id: int, who: FakeUser, pick: Any
) -> None:
    """`who` taps a button of their hand message (as in every other end-to-end test)."""
    st = state(store, chat_id)
    stamp = len(st.actions)
    while stamp and st.actions[stamp - 1][0] == st.current:
        stamp -= 1

    def ready() -> list[Any] | None:
        msg = hand_message(fake, who)
        buttons = act_buttons(msg)
        # the message of this turn: its card buttons the cards held, its bid buttons the
        # turn's start
        fresh = all(
            action_of(b) in st.hands[st.current]
            if action_of(b) < A.CALL_RANK
            else int((b.callback_data or "").split(":")[3]) == stamp
            for b in buttons
        )
        return buttons if buttons and your_turn(msg) and fresh else None

    buttons = await fake.wait_for(ready, WAIT, message="the DM's buttons")
    button = pick(buttons)
    qid = await fake.press(who, button)
    answer = (await fake.answer_for(qid, WAIT)).text
    assert answer == OK, (answer, button, st.phase, st.current, st.actions[-3:])


async def play_due_hand(
    bot: MiniAppBot,
    store: Store,
    chat_id: int,
    pages: dict[int, Page],
    seat_user: dict[int, FakeUser],
    rng: random.Random,
) -> int:
    """Ann and Bob play a due hand to its end, each tapping a card in their page on their
    turn (the first card also tapped again, as a double tap would), their private chats
    quiet meanwhile. Returns the plays."""
    fake = bot.fake
    tid = int(store.table(chat_id)["table_id"])
    plays = 0
    since = fake.mark()
    while not (st := state(store, chat_id)).is_terminal():
        if st.forced_action() is not None:  # a last card plays itself (issue 49)
            await fake.wait_for(moved_on(store, chat_id, version(store, chat_id)), WAIT)
            continue
        who = seat_user[st.current]
        page = pages[who.id]
        await move_shown(page, version(store, chat_id))
        # exactly the legal cards are tappable, on the turn's page alone
        assert await page.locator("#hand .playable").count() == len(st.legal_actions())
        other = pages[seat_user[1 - st.current].id]
        assert await other.locator("#hand .playable").count() == 0
        if plays == 2:
            await screenshot(page, "due-play")
        card = await tap_in_page(page, store, chat_id, "#hand .playable", rng)
        assert card in st.legal_actions()
        if plays == 0:  # the same tap again (a double tap): refused, no change
            token = await session(bot, who, tid)
            before = store.snapshot(chat_id)
            body = {"hand_index": st.hand_index, "stamp": 0, "action": card}
            status, answer = await api_act(bot, token, tid, body)
            assert status == 200 and not answer["ok"] and answer["text"], answer
            # as the page sends it, with the ply it was made on: "already played",
            # quietly (issue 37 point 10), whatever card it names
            for again in (card, *st.hands[st.current]):
                body = {**body, "action": again, "ply": len(st.actions)}
                status, answer = await api_act(bot, token, tid, body)
                assert status == 200 and answer["moved_on"], answer
                assert not answer["ok"], answer
            assert store.snapshot(chat_id) == before
        plays += 1
        now = version(store, chat_id)
        for p in pages.values():  # stored, then shown on every page
            await move_shown(p, now)
    # issue 39: while a person's page is open and visible, the page shows their turns and
    # their private chat is quiet for the table: no turn message, no edit, no delete; once
    # the match is over, their hand message shows its end (its buttons gone), once
    await bot.idle()
    people = {str(u.id) for u in seat_user.values()}
    chatty = [c.method for c in fake.calls[since:] if str(c.params.get("chat_id")) in people]
    if store.table(chat_id)["status"] != "finished":
        assert chatty == [], chatty
    else:
        assert set(chatty) <= {"editMessageText", "deleteMessages"}, chatty
        assert chatty.count("editMessageText") <= len(people), chatty
    return plays


async def test_due_hand_played_through_the_mini_app_alone(tmp_path: Path) -> None:
    rng = random.Random(16)
    async with asyncio.timeout(300), telegram() as fake:
        ann = fake.user(1601, "Ann <b>&amp; 🐱")
        bob = fake.user(1602, "<img src=x onerror=alert(1)>", language_code="en")
        group = fake.group(-1001600, "Mini App & co")
        with bot_guard(MiniAppBot(fake, tmp_path)) as bot:
            store = await start_bot(bot, [ann, bob])
            await open_table(fake, group, ann, [bob], "due", settings="match=single")
            await start_table(fake, group, ann)
            tid = int(store.table(group.id)["table_id"])
            # the group's table message opens the Mini App: a direct link, routed by table
            link = f"https://t.me/{BOT_NAME}/{SHORT_NAME}?startapp={table_param(tid)}"
            assert link in [b.url for b in table_message(fake, group).buttons]
            assert table_param(tid).startswith(f"t{tid}_") and len(table_param(tid)) > 20
            seat_user = {0: ann, 1: bob}  # join order
            async with chromium() as browser:
                pages = {u.id: (await open_page(browser, bot, u, tid))[1] for u in (ann, bob)}
                for page in pages.values():
                    await move_shown(page, version(store, group.id))
                    calls = await page.evaluate("window.__tg.map((c) => c[0])")
                    assert {"ready", "expand", "disableVerticalSwipes"} <= set(calls), calls
                    assert await fits_the_screen(page)
                # names are text, never markup; each person reads their own language
                ann_page, bob_page = pages[ann.id], pages[bob.id]
                assert await ann_page.locator("#table").inner_text() != ""
                assert "<img src=x onerror=alert(1)>" in await ann_page.inner_text("body")
                assert await ann_page.locator("img").count() == 0
                assert await bob_page.evaluate("document.documentElement.lang") == "en"

                # RULES.md §4.1: a 60-60 hand is void and replayed (about 2 % of random
                # hands): the match goes on, in the page, until its one ledger write
                plays = hands = 0
                while store.table(group.id)["status"] != "finished":
                    if hands:  # the void hand's end is on show: its "next hand", in the page
                        assert state(store, group.id).result().void
                        before = version(store, group.id)
                        await ann_page.click("#next-hand")
                        await ann_page.wait_for_function(
                            "(n) => Number(document.getElementById('table').dataset.move) > n",
                            arg=before,
                            timeout=WAIT * 1000,
                        )
                    plays += await play_due_hand(bot, store, group.id, pages, seat_user, rng)
                    hands += 1
                    final = version(store, group.id)
                    for page in pages.values():
                        await move_shown(page, final)
                        # the last trick on show, then the end of the hand
                        await page.wait_for_selector(
                            "#result", state="visible", timeout=WAIT * 1000
                        )
                        assert (await page.inner_text("#result")).strip()
                # each one's last card plays itself (issue 49): 38 taps a hand
                assert plays == 38 * hands
                # every move was the seat's own person's, made in the Mini App or played
                # for them as their one legal move
                moves = store.moves(tid)
                assert len(moves) == 40 * hands
                assert all(user == seat_user[seat].id for _, _, seat, _, user in moves)
                for page in pages.values():
                    haptics = await page.evaluate("window.__tg.map((c) => c[0])")
                    assert "impact" in haptics and "notification" not in haptics
                await screenshot(ann_page, "due-over")
                check_ledger(bot, group.id, hands=1)
                # issue 51.3: the hand's result in the group opens its replay (a direct
                # link, as the table's), and the replay is that hand, move by move
                k = hands - 1
                replay = f"https://t.me/{BOT_NAME}/{SHORT_NAME}?startapp=h{k}_{table_param(tid)}"
                await fake.wait_for(
                    lambda: any(
                        replay in [b.url for b in m.buttons]
                        for m in fake.messages(group)
                        if m.from_bot
                    ),
                    WAIT,
                    message="the hand's result with its replay link",
                )
                _, again = await open_page(browser, bot, ann, tid, param=f"h{k}_{table_param(tid)}")
                await again.wait_for_selector("#replay[data-step='0']", timeout=WAIT * 1000)
                assert await again.get_attribute("#replay", "data-steps") == str(40)
                # the bot stops at once with the pages' streams open (they end cleanly)
                began = time.monotonic()
                assert await bot.stop(signal.SIGTERM) == 0
                assert time.monotonic() - began < 10
            bot.check_logs()
        assert page_errors() == []


async def test_chiamata_five_browsers_and_dm_buttons_with_a_spectator(tmp_path: Path) -> None:
    rng = random.Random(5)
    async with asyncio.timeout(240), telegram() as fake:
        people = [
            fake.user(1700 + i, name)
            for i, name in enumerate(["Ann", "Bob 🍕", "<Cy & Co>", "Dee_*", "[Eve](x)"], 1)
        ]
        watcher = fake.user(1799, "Walt <script>")
        group = fake.group(-1001700, "Chiamata in the app")
        with bot_guard(MiniAppBot(fake, tmp_path)) as bot:
            store = await start_bot(bot, people)
            await open_table(fake, group, people[0], people[1:], "chiamata", settings="target=11")
            await start_table(fake, group, people[0])
            tid = int(store.table(group.id)["table_id"])
            in_browser = people[:2]
            raw_events: list[dict[str, Any]] = []
            stream = asyncio.create_task(record_stream(bot, watcher, tid, raw_events))
            async with chromium() as browser:
                pages = {
                    u.id: (await open_page(browser, bot, u, tid))[1] for u in [*in_browser, watcher]
                }
                spectator = pages[watcher.id]
                await move_shown(spectator, version(store, group.id))
                assert await spectator.locator("#hand .playable").count() == 0
                shots = 0
                called = False
                while not (st := state(store, group.id)).is_terminal():
                    if st.forced_action() is not None:  # a last card plays itself (issue 49)
                        before = version(store, group.id)
                        await fake.wait_for(moved_on(store, group.id, before), WAIT)
                        continue
                    who = people[st.current]
                    if who in in_browser:
                        page = pages[who.id]
                        if st.phase == "play":
                            if shots == 1:
                                await screenshot(page, "chiamata-play")
                            shots += 1
                            await tap_in_page(page, store, group.id, "#hand .playable", rng)
                            continue
                        await move_shown(page, version(store, group.id))
                        if shots == 0:
                            await screenshot(page, "chiamata-auction")
                            shots += 1
                        # the auction in the page: Ann calls a rank once, then passes; a
                        # caller names the first suit offered
                        await page.wait_for_selector("#app.live", timeout=WAIT * 1000)
                        actions = sorted(await offered(page))
                        assert set(actions) == set(st.legal_actions()), actions
                        if st.phase == "auction":
                            want = (
                                next(a for a in actions if A.CALL_RANK <= a < A.BID_POINTS)
                                if who is people[0] and not called
                                else A.PASS
                            )
                            called = called or want != A.PASS
                        else:
                            want = actions[0]
                        await tap_in_page(
                            page, store, group.id, f'#choices [data-action="{want}"]', rng
                        )
                    else:

                        def pick(buttons: list[Any]) -> Any:
                            cards = [b for b in buttons if action_of(b) < A.CALL_RANK]
                            if cards:
                                return rng.choice(cards)
                            return next((b for b in buttons if b.text == "Passo"), buttons[0])

                        before = version(store, group.id)
                        await tap_in_dm(fake, store, group.id, who, pick)
                        await fake.wait_for(moved_on(store, group.id, before), WAIT)
                final = version(store, group.id)
                for page in pages.values():
                    await move_shown(page, final)
                await screenshot(spectator, "chiamata-spectator-over")
                assert "Walt <script>" not in await spectator.inner_text("#table")
                browser_events = await sse_payloads(spectator)
                st = state(store, group.id)
                # the browsers played their part: Ann called, a browser moved in the play
                movers = {user for _, _, _, _, user in store.moves(tid)}
                assert {p.id for p in people} <= movers
                data = check_ledger(bot, group.id, hands=1)
                assert set(map(int, data["hands"][0]["deltas"])) == {p.id for p in people}
                # RULES.md 2.5, play goes counter-clockwise: from Ann's chair (bottom) the
                # next seat sits on her right, the one before her on her left
                ann_page = pages[people[0].id]
                boxes = [await seat_box(ann_page, s) for s in range(5)]
                assert boxes[1]["x"] > boxes[0]["x"] > boxes[4]["x"], boxes
                # the next hand, asked for in the page
                match_over = "Partita finita" in table_message(fake, group).text
                assert not match_over  # the match to 11 goes on
                await ann_page.click("#next-hand")
                await fake.wait_for(lambda: state(store, group.id).hand_index == 1, WAIT)
                await move_shown(ann_page, version(store, group.id))
                assert await ann_page.locator("#result").is_hidden()
                assert await bot.stop() == 0
            await asyncio.wait_for(stream, WAIT)
            bot.check_logs()
        assert page_errors() == []
    reveal = next(m for m, h, _, a, _ in store.moves(tid) if h == 0 and a == st.called_card)
    for events in (raw_events, browser_events):
        check_spectator_stream(events, st, reveal)


async def record_stream(
    bot: MiniAppBot, user: FakeUser, table_id: int, into: list[dict[str, Any]]
) -> None:
    """The spectator's Server-Sent Events as they come, until the bot stops."""
    token = await session(bot, user, table_id)
    async with (
        httpx.AsyncClient(base_url=bot.url, timeout=None) as client,
        client.stream(
            "GET",
            f"/api/tables/{table_id}/events",
            params={"token": token, "k": table_key(table_id)},
        ) as r,
    ):
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        event: dict[str, str] = {}
        with contextlib.suppress(httpx.RemoteProtocolError, httpx.ReadError):
            async for line in r.aiter_lines():
                if line == "":
                    if event.get("event") == "state":
                        snap = json.loads(event["data"])
                        assert int(event["id"]) == snap["move"]
                        into.append(snap)
                    event = {}
                elif not line.startswith(":"):
                    key, _, value = line.partition(": ")
                    event[key] = value


def check_spectator_stream(events: list[dict[str, Any]], st: Any, reveal: int) -> None:
    """§7.6 and the hidden cards, on what reached the spectator: no hand, no choices, no
    card that was not on the table by then, and no socio before the version at which the
    called card was played."""
    events = [e for e in events if e["hand_index"] == st.hand_index]  # the next one began
    assert events, "no event reached the spectator"
    played = {c for t in st.tricks for _, c in t.plays}
    before = [e for e in events if e["move"] < reveal]
    assert any(e["phase"] == "play" for e in before), "nothing seen before the reveal"
    for e in events:
        assert e["me"] == -1 and e["hand"] == [] and e["choices"] == [] and e["playable"] == []
        assert e["visible_hands"] == []
        shown = {p["card"]["id"] for p in e["trick"]}
        if e["last_trick"]:
            shown |= {p["card"]["id"] for p in e["last_trick"]["plays"]}
        assert shown <= played
        auction = e["auction"]
        if e["move"] < reveal:
            assert auction["socio"] == -1 and not auction["you_are_socio"], e
            assert not any(s["socio"] for s in e["seats"]), e
            text = json.dumps(e, ensure_ascii=False).lower()
            assert "socio" not in text.replace('"socio"', "").replace('"you_are_socio"', "")
        elif st.partner != st.caller:
            assert auction["socio"] == st.partner, e


async def test_forged_or_stale_init_data_gets_nothing(tmp_path: Path) -> None:
    async with asyncio.timeout(90), telegram() as fake:
        ann, bob = fake.user(1801, "Ann"), fake.user(1802, "Bob")
        mallory = fake.user(1803, "Mallory")
        group = fake.group(-1001800, "Safe")
        with bot_guard(MiniAppBot(fake, tmp_path)) as bot:
            store, tid = await due_table(bot, group, ann, bob)
            before = store.snapshot(group.id)
            async with httpx.AsyncClient(base_url=bot.url) as client:
                bad = {
                    "another bot's": signed_init_data(ann, tid, token="1111:other-bot"),
                    "stale": signed_init_data(ann, tid, age=3 * 86400),
                    "an hour old": signed_init_data(ann, tid, age=3700),
                    "altered": signed_init_data(mallory, tid).replace("1803", "1801"),
                    "garbage": "user=%7B%7D&hash=00",
                }
                for why, init_data in bad.items():
                    r = await client.post("/api/session", json={"init_data": init_data})
                    assert r.status_code == 401, (why, r.status_code, r.text)
                for body in ({}, {"init_data": 5}, [1]):
                    r = await client.post("/api/session", json=body)
                    assert r.status_code == 400, (body, r.text)
                # nothing without a token, or with a forged one
                for headers in ({}, {"Authorization": "Bearer abc.def"}):
                    r = await client.get(f"/api/tables/{tid}/state", headers=headers)
                    assert r.status_code == 401
                    r = await client.post(
                        f"/api/tables/{tid}/act",
                        json={"hand_index": 0, "stamp": 0, "action": 1},
                        headers=headers,
                    )
                    assert r.status_code == 401
                r = await client.get(f"/api/tables/{tid}/events", params={"token": "x.y"})
                assert r.status_code == 401
                r = await client.post(
                    "/api/session", json={"init_data": signed_init_data(ann, tid, age=3500)}
                )
                assert r.status_code == 200  # signed within the hour
                # issue 37 point 8: a genuine session, but neither the table's key (the link's)
                # nor a seat: nothing, whether the table exists or not (ids count from 1)
                token = await session(bot, mallory, tid)
                bare = {"Authorization": f"Bearer {token}"}
                for probe in range(1, 21):
                    r = await client.get(f"/api/tables/{probe}/state", headers=bare)
                    assert r.status_code == 403, (probe, r.status_code)
                r = await client.get(f"/api/tables/{tid}/events", params={"token": token})
                assert r.status_code == 403
                body = {"hand_index": 0, "stamp": 0, "action": 1}
                r = await client.post(f"/api/tables/{tid}/act", json=body, headers=bare)
                assert r.status_code == 403
                wrong = {**bare, "X-Table-Key": table_key(tid + 1)}  # another table's key
                assert (
                    await client.get(f"/api/tables/{tid}/state", headers=wrong)
                ).status_code == 403
                # a seat is enough without the key
                seated = {"Authorization": f"Bearer {await session(bot, ann, tid)}"}
                r = await client.get(f"/api/tables/{tid}/state", headers=seated)
                assert r.status_code == 200 and r.json()["me"] == 0
                # the session is renewed with its token, not with a new initData
                r = await client.post("/api/session/renew", headers=seated)
                assert r.status_code == 200 and r.json()["user_id"] == ann.id
                r = await client.post(
                    "/api/session/renew", headers=wrong | {"Authorization": "Bearer x.y"}
                )
                assert r.status_code == 401
                # with the key: the spectator's view, no move
                auth = {**bare, "X-Table-Key": table_key(tid)}
                r = await client.get(f"/api/tables/{tid}/state", headers=auth)
                assert r.status_code == 200 and r.json()["me"] == -1 and r.json()["hand"] == []
                st = state(store, group.id)
                for card in range(40):
                    body = {"hand_index": st.hand_index, "stamp": 0, "action": card}
                    r = await client.post(f"/api/tables/{tid}/act", json=body, headers=auth)
                    assert r.status_code == 200 and not r.json()["ok"]
                # garbage arguments: refused as such
                garbage: list[Any] = [
                    {"hand_index": "0", "stamp": 0, "action": 1},
                    {"action": 1},
                    [],
                ]
                for junk in garbage:
                    r = await client.post(f"/api/tables/{tid}/act", json=junk, headers=auth)
                    assert r.status_code == 400
                seen = {"page": "p1", "visible": True}
                r = await client.post(f"/api/tables/{tid}/visibility", json=seen, headers=auth)
                assert r.status_code == 200 and r.json() == {"ok": False}  # no such page open
                for seq in (-1, True, 1.5, "2", 10**20, [3]):
                    r = await client.post(
                        f"/api/tables/{tid}/visibility", json={**seen, "seq": seq}, headers=auth
                    )
                    assert r.status_code == 400, seq
                for seq in ("-1", "x", "1e3", "٣"):
                    r = await client.get(
                        f"/api/tables/{tid}/events",
                        params={"token": token, "k": table_key(tid), "seq": seq},
                    )
                    assert r.status_code == 400, seq
                r = await client.get("/api/tables/999999/state", headers=auth)
                assert r.status_code == 403
                r = await client.get(
                    "/api/tables/999999/state", headers={**bare, "X-Table-Key": table_key(999999)}
                )
                assert r.status_code == 404
                # sessions are rate limited: a burst, then 429 with a time to wait
                flood = signed_init_data(fake.user(1804, "Flood"), tid)
                codes = [
                    (await client.post("/api/session", json={"init_data": flood})).status_code
                    for _ in range(12)
                ]
                assert codes[:10] == [200] * 10 and codes[10:] == [429, 429], codes
            assert store.snapshot(group.id) == before
            # the page with a forged initData: refused, it shows no table
            async with chromium() as browser:
                forged = signed_init_data(ann, tid, token="1111:other-bot")
                _, page = await open_page(browser, bot, ann, tid, init_data=forged)
                # (a function, not an expression: Playwright evaluates an expression again at
                # each poll, which the page's CSP refuses as eval once it has to poll)
                await page.wait_for_function(
                    "() => document.getElementById('status') !== null"
                    " && document.getElementById('status').textContent.trim().length > 0",
                    timeout=WAIT * 1000,
                )
                await screenshot(page, "refused")
                assert await sse_payloads(page) == []
                assert await page.locator("#hand .playable").count() == 0
                # an outsider's genuine initData, the table's id without its key: refused
                _, page = await open_page(
                    browser,
                    bot,
                    mallory,
                    tid,
                    init_data=signed_init_data(mallory, None),
                    param=f"t{tid}",
                )
                await page.wait_for_selector("#fatal", state="visible", timeout=WAIT * 1000)
                await screenshot(page, "refused-outsider")
                assert await sse_payloads(page) == []
                assert "Mallory" not in await page.inner_text("body")
                assert "Ann" not in await page.inner_text("body")
            assert await bot.stop() == 0
            bot.check_logs()
        assert page_errors() == []


async def test_page_reconnects_to_a_restarted_bot(tmp_path: Path) -> None:
    rng = random.Random(4)
    async with asyncio.timeout(150), telegram() as fake:
        ann, bob = fake.user(1901, "Ann"), fake.user(1902, "Bob")
        group = fake.group(-1001900, "Restart")
        with bot_guard(MiniAppBot(fake, tmp_path)) as bot:
            store, tid = await due_table(bot, group, ann, bob)
            async with chromium() as browser:
                _, page = await open_page(browser, bot, ann, tid)
                await move_shown(page, version(store, group.id))
                assert await bot.stop() == 0  # the page's stream is ended cleanly
                await page.wait_for_selector("#conn", state="visible", timeout=WAIT * 1000)
                # issue 37 point 10: while the bot is away nothing glows playable or answers
                assert await page.locator("#app.offline").count() == 1
                assert await page.locator("#app.live, #hand.armed").count() == 0
                # meanwhile the moves stored before are what the restarted bot shows
                await bot.start()
                for _ in range(6):  # both players move, Ann in the page, Bob in the DM
                    st = state(store, group.id)
                    if st.current == 0:
                        await tap_in_page(page, store, group.id, "#hand .playable", rng)
                    else:
                        before = version(store, group.id)
                        await tap_in_dm(
                            fake, store, group.id, bob, lambda b: rng.choice(card_buttons_of(b))
                        )
                        await fake.wait_for(moved_on(store, group.id, before), WAIT)
                    now = version(store, group.id)
                    await move_shown(page, now)
                    await page.wait_for_selector("#conn", state="hidden", timeout=WAIT * 1000)
                    # the page's hand is Ann's hand as stored
                    st = state(store, group.id)
                    shown = await page.locator("#hand [data-card]").evaluate_all(
                        "(els) => els.map((e) => Number(e.dataset.card))"
                    )
                    assert sorted(shown) == sorted(st.hands[0])
                await screenshot(page, "reconnected")
            assert await bot.stop() == 0
            bot.check_logs()
        assert page_errors() == []


async def seat_box(page: Page, seat: int) -> dict[str, float]:
    """The centre of `seat`'s place on the page's table. The seats are drawn anew with every
    change the page receives; a place read at such a moment gave no box once (a loaded full
    run): it is read again once visible."""
    place = page.locator(f'#seats [data-seat="{seat}"]')
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while (box := await place.bounding_box()) is None and loop.time() < deadline:
        await place.wait_for(state="visible", timeout=WAIT * 1000)
    assert box is not None, f"seat {seat} is not on the page"
    return {"x": box["x"] + box["width"] / 2, "y": box["y"] + box["height"] / 2}


def card_buttons_of(buttons: list[Any]) -> list[Any]:
    return [b for b in buttons if action_of(b) < A.CALL_RANK]


async def test_webhook_mode_serves_updates_and_the_mini_app_on_one_port(tmp_path: Path) -> None:
    """In webhook mode one aiohttp application receives Telegram's updates and serves the
    Mini App (page, API, stream) on PORT; a move made in the page is shown in the DM."""
    rng = random.Random(8)
    async with asyncio.timeout(120), telegram() as fake:
        ann, bob = fake.user(2001, "Ann"), fake.user(2002, "Bob")
        group = fake.group(-1002000, "Webhook & app")
        bot = WebhookBot(
            fake, tmp_path, PUBLIC_URL="https://briscola.example.org", MINIAPP_SHORT_NAME="tavolo"
        )
        with bot_guard(bot):
            fake.deliver_webhook_to(lambda update: [bot.url])
            store, tid = await due_table(bot, group, ann, bob)
            assert fake.count("getUpdates") == 0
            base = f"http://127.0.0.1:{bot.port}"
            async with httpx.AsyncClient(base_url=base) as client:
                moved = await client.get("/app?tgWebAppStartParam=t1", follow_redirects=False)
                assert moved.status_code == 302
                assert moved.headers["location"] == "/app/?tgWebAppStartParam=t1"
                page = await client.get("/app/")
                assert page.status_code == 200 and "telegram-web-app.js" in page.text
                assert "default-src 'self'" in page.headers["content-security-policy"]
                assert (await client.get("/app/static/app.js")).status_code == 200
                r = await client.post(
                    "/api/session", json={"init_data": signed_init_data(ann, tid)}
                )
                token = r.json()["token"]
                auth = {"Authorization": f"Bearer {token}", "X-Table-Key": table_key(tid)}
                played: int | None = None  # Ann's card played through the API
                for _ in range(4):
                    st = state(store, group.id)
                    before = version(store, group.id)
                    if st.current == 0:
                        if played is not None:  # her DM shows it gone by her next turn
                            await fake.wait_for(card_gone(fake, ann, played), WAIT)
                        snap = (await client.get(f"/api/tables/{tid}/state", headers=auth)).json()
                        assert snap["me"] == 0 and snap["move"] == before
                        card = rng.choice(snap["playable"])
                        body = {"hand_index": snap["hand_index"], "stamp": 0, "action": card}
                        r = await client.post(f"/api/tables/{tid}/act", json=body, headers=auth)
                        assert r.json()["ok"] and r.json()["text"] == OK
                        played = card
                    else:
                        await tap_in_dm(
                            fake, store, group.id, bob, lambda b: rng.choice(card_buttons_of(b))
                        )
                    await fake.wait_for(moved_on(store, group.id, before), WAIT)
            assert await bot.stop() == 0
            bot.check_logs()

"""Issue 51.3: the replay of a finished hand in the Mini App, opened by the button on the
hand's result in the group.

- The replay is the hand as played (`bot.table.replay`, `bot.webapp.replay`): dealt again
  from the match's seed and played with the stored moves, every card of the deck once, each
  trick to the seat the rules give it (§2.3), the draws after each trick (§3.4), the hand
  ending as the match recorded it; a log that does not is refused as broken.
- The review made when the hand ended is kept (`hand_reviews`) and its marks sit on the moves
  it judged; a review of another hand marks nothing.
- Only the table's players, or whoever has the table's key, may open it; the hand still being
  played never (409, before anything of it is read); an outsider, a forged key or token, a
  hand that does not exist, garbage in the path are refused, each saying why, with no card.
- The group's result of each hand carries the link (no Telegram call more).
- In Chromium at 360x740: a chiamata hand stepped through forward and back, autoplay, the
  review's marks, no text cut, every control 44 px, text at 4.5:1 in the light and dark
  themes; the outsider and the hand in play refused on the page. Screenshots in
  tests/artifacts/ (`replay-*.png`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import httpx
import pytest
from playwright.async_api import Page

from bench.rig.bot_process import TOKEN, WAIT
from bench.rig.browser import chromium, open_page, page_errors, screenshot, signed_init_data
from bench.rig.page_rig import PageRig
from bench.rig.telegram import FakeUser
from bot.engine import actions as A
from bot.engine.options import Options
from bot.engine.state import HandState
from bot.engine.tricks import take
from bot.players.review import review_hand
from bot.players.review_data import Review
from bot.service import Person
from bot.table.replay import REPLAY_BROKEN, ReplayError, replay_hand
from bot.table.table import Seat, Table
from bot.view.render import hand_log
from bot.webapp.auth import TableKeys
from bot.webapp.replay import replay_view
from tests.support.rig import CHAT, Rig
from tests.test_miniapp_page import CONTRAST, TARGETS, TEXT_CUT, until_a_person_acts
from tests.test_service_evening import play_hand_out
from tests.test_service_timers import open_game

NARROW = (360, 740)
ANN = FakeUser(5401, "Massimiliano Bartolomeo")
BOB = FakeUser(5402, "<Cy & Co> 🍕")
WALT = FakeUser(5409, "Walter Estraneo")  # at no seat


def pick(table: Table) -> int | None:
    """The people's moves: the first to speak when nobody has called calls the Asso, then
    they pass (no redeal, a short auction); the caller names the first suit; cards at
    random."""
    hand = table.hand
    assert hand is not None
    if hand.phase == "auction":
        called = any(a != A.PASS for _, a in hand.bids)
        return A.PASS if called and A.PASS in hand.legal_actions() else hand.legal_actions()[0]
    if hand.phase in ("name_suit", "call_card"):
        return hand.legal_actions()[0]
    return None


async def play_out(rig: PageRig, seed: int = 7) -> HandState:
    """The table's hand played to its end (the computers move by themselves)."""
    rng = random.Random(seed)
    while await until_a_person_acts(rig) >= 0:
        await rig.move(pick(rig.table), rng=rng)
    hand = rig.table.hand
    assert hand is not None and hand.is_terminal()
    return hand


# The match seed of the hands the page is checked on: the computers' moves follow from it
# (`Table.bot_seed`) and the people's from `play_out`'s, so the hand is always the same one,
# chosen with costly moves the review marks, in the auction and in the play
MARKED_SEED = "seed3"


@asynccontextmanager
async def finished(
    tmp_path: Path, variant: str = "chiamata", *, review: bool = True, seed: str | None = None
) -> AsyncIterator[tuple[PageRig, HandState, Review | None]]:
    """A table of `variant` (Ann and Bob among computers) whose first hand is over, and the
    review of it kept as the bot keeps it; dealt from the match seed `seed` (None: at
    random)."""
    crowd: list[FakeUser | None] = (
        [ANN, None, None, BOB, None] if variant == "chiamata" else [ANN, None]
    )
    dealt = mock.patch("bot.service.lobby.secrets.token_hex", lambda _: seed)
    async with contextlib.AsyncExitStack() as stack:
        if seed is not None:
            stack.enter_context(dealt)
        rig = await stack.enter_async_context(PageRig(tmp_path, variant, crowd, level="easy"))
        if seed is not None:
            assert rig.table.seed == seed
        hand = await play_out(rig)
        kept = None
        if review:
            kept = review_hand(hand, seed="test")
            assert rig.db is not None
            await rig.db.replays.save_hand_review(rig.table_id, hand.hand_index, kept.to_json())
        yield rig, hand, kept


async def view_of(rig: PageRig, hand_index: int = 0, lang: str = "it") -> dict[str, Any]:
    assert rig.service is not None
    table = await rig.service.registry.table_view(rig.table_id)
    assert table is not None
    return replay_view(await rig.service.replays.hand(table, hand_index), lang)


def walk(view: dict[str, Any]) -> list[dict[str, Any]]:
    """The page's own reading of the steps (replay.js `stateAt`), done in Python: each hand
    after each step, every card played once and from the hand that held it; the tricks."""
    hands = [list(h) for h in view["hands"]]
    played: list[int] = []
    tricks: list[dict[str, Any]] = []
    trick: list[tuple[int, int]] = []
    for step in view["steps"]:
        if step["card"] is not None:
            assert step["card"] in hands[step["seat"]], step
            hands[step["seat"]].remove(step["card"])
            played.append(step["card"])
            trick.append((step["seat"], step["card"]))
        if step["taken"]:
            tricks.append({"plays": trick, **step["taken"], "draws": step["draws"]})
            trick = []
            for seat, card in step["draws"]:
                hands[seat].append(card)
    assert not trick and all(not h for h in hands)  # every card played, none left
    return [{"played": played, "tricks": tricks}]


# ---------------------------------------------------------------------- the replay's data


async def test_s7_a_chiamata_hand_replays_from_its_moves_every_card_once(tmp_path: Path) -> None:
    """§7.1: the 40 cards dealt 8 each, no talon; the auction first (§7.2), then 8 tricks of
    5 cards, each card once, each from the hand that held it; each trick to its taker by
    §2.3 (the briscola the called card's suit, §7.5), its points summing to 120 (§1.2) and
    to each seat's points as the match recorded them; the end as recorded (§7.12)."""
    async with finished(tmp_path, review=False) as (rig, hand, _):
        view = await view_of(rig)
        record = rig.table.match.records[0]  # type: ignore[union-attr]
    deck = hand.rules.deck
    assert sorted(c["id"] for c in view["deck"]) == list(range(40))
    assert [len(h) for h in view["hands"]] == [8] * 5 and view["talon"] == 0
    assert sorted(c for h in view["hands"] for c in h) == list(range(40))
    steps = view["steps"]
    auction = [s for s in steps if s["trick"] == 0]
    assert steps[: len(auction)] == auction  # the auction, then the play
    assert [s["seat"] for s in auction] == [seat for seat, _ in hand.actions[: len(auction)]]
    call = [s for s in auction if s["called"]]
    assert len(call) == 1 and call[0]["called"]["id"] == hand.called_card
    assert call[0]["briscola"]["suit"] == deck.suit[hand.called_card]
    (walked,) = walk(view)
    assert sorted(walked["played"]) == list(range(40))
    tricks = walked["tricks"]
    assert len(tricks) == 8 and all(len(t["plays"]) == 5 for t in tricks)
    points = [0] * 5
    for k, trick in enumerate(tricks):
        seats, cards = zip(*trick["plays"], strict=True)
        best, pts = take(cards, deck.suit, deck.strength, deck.points, hand.briscola)  # §2.3
        assert (trick["winner"], trick["points"]) == (seats[best], pts), trick
        assert (hand.tricks[k].winner, hand.tricks[k].cards) == (trick["winner"], cards)
        points[trick["winner"]] += pts
        assert trick["draws"] == []  # §7.1: nothing to draw
        if k + 1 < len(tricks):  # §2.4: the taker leads the next trick
            assert tricks[k + 1]["plays"][0][0] == trick["winner"]
    assert sum(points) == 120 and tuple(points) == record.card_points
    assert [r["delta"] for r in view["outcome"]["rows"]] == list(record.deltas)
    assert view["auction"]["caller"] == hand.caller and view["auction"]["target"] == hand.target
    assert view["review"] is None and not any(s["mark"] for s in steps)


async def test_s3_4_a_due_hand_replays_its_draws_and_the_turned_briscola_last(
    tmp_path: Path,
) -> None:
    """§3.2-3.5: three cards each, the turned briscola under the talon; after each trick while
    the talon lasts the taker draws first, then the other; the turned card is the last drawn;
    then the last tricks without drawing. Every card of the deck once."""
    async with finished(tmp_path, "due", review=False) as (rig, hand, _):
        view = await view_of(rig)
    assert [len(h) for h in view["hands"]] == [3, 3]
    assert view["turned"] == hand.turned and view["briscola"]["suit"] == hand.briscola
    assert view["talon"] == 40 - 6
    (walked,) = walk(view)
    assert sorted(walked["played"]) == list(range(40))
    tricks = walked["tricks"]
    assert len(tricks) == 20
    drawn = [d for t in tricks for d in t["draws"]]
    assert len(drawn) == 34 and drawn[-1][1] == hand.turned  # §3.4: the turned card last
    for trick in tricks:
        if trick["draws"]:
            assert [s for s, _ in trick["draws"]] == [trick["winner"], 1 - trick["winner"]]
    assert all(not t["draws"] for t in tricks[-3:])  # §3.5
    talon = [s["talon"] for s in view["steps"] if s["taken"]]
    assert talon[:17] == list(range(32, -1, -2)) and talon[17:] == [0, 0, 0]


async def test_the_reviews_marks_sit_on_the_moves_it_judged(tmp_path: Path) -> None:
    """Issue 51: each decision the review judged carries its mark on its move, and no other
    move does: what it cost and the better move (the costliest one says so), the hand's best
    play, or that no move was better. A review kept of another hand marks nothing."""
    async with finished(tmp_path, seed=MARKED_SEED) as (rig, hand, review):
        assert review is not None
        view = await view_of(rig)
        en = await view_of(rig, lang="en")
        assert rig.db is not None
        other = json.loads(review.to_json()) | {"hand_index": 1}
        await rig.db.replays.save_hand_review(rig.table_id, 0, json.dumps(other))  # the first stays
        assert await view_of(rig) == view
    marks = {k: s["mark"] for k, s in enumerate(view["steps"]) if s["mark"]}
    assert set(marks) == {d.index for d in review.decisions} and marks
    assert view["review"] == {"currency": "score", "judged": review.mode}
    for d in review.decisions:
        mark = marks[d.index]
        if mark["kind"] == "cost":
            assert d.cost > 0 and mark["best"] and mark["best"] in mark["text"]
            costliest = review.costliest is not None and review.costliest.index == d.index
            assert mark["text"].startswith("🔎 Il colpo" if costliest else "❌ Costò")
            assert "punti di partita" in mark["text"]  # §7.12's currency
            if A.is_card(d.best):
                assert mark["best_card"]["id"] == d.best
        elif mark["kind"] == "best":
            assert review.best_move is not None and review.best_move.index == d.index
        else:
            assert mark["best"] is None
    kinds = {(m["kind"], view["steps"][k]["trick"] > 0) for k, m in marks.items()}
    assert {("cost", False), ("cost", True), ("best", True)} <= kinds  # the hand chosen
    assert all(s["mark"]["text"] for s in en["steps"] if s["mark"])
    assert any(s["mark"] and "was better" in s["mark"]["text"] for s in en["steps"])
    # a review of another hand is no review of this one
    assert rig.table.hand is not None
    table = rig.table
    played = replay_hand(table, 0, list(hand.actions), json.dumps(other))
    assert played.review is None
    garbled = replay_hand(table, 0, list(hand.actions), "{not json")
    assert garbled.review is None


async def test_a_log_that_does_not_play_to_the_record_is_refused_as_broken(
    tmp_path: Path,
) -> None:
    """The replay shows the hand as played or nothing: a move missing, or one that is not
    what was played, and the hand is refused rather than shown wrong."""
    async with finished(tmp_path, review=False) as (rig, hand, _):
        table = rig.table
        moves = list(hand.actions)
        assert replay_hand(table, 0, moves).hand == hand
        for bad in (moves[:-1], moves[:-2] + moves[-1:] + moves[-2:-1], [(0, 999), *moves]):
            with pytest.raises(ReplayError) as err:
                replay_hand(table, 0, bad)
            assert err.value.key == REPLAY_BROKEN


async def test_the_review_made_at_a_hands_end_is_kept_for_its_replay(rig: Rig) -> None:
    """The review the bot makes when a hand ends (`Thinker.review`) is kept with the hand
    before its result is announced; the result's message carries the replay's link."""
    ana = Person(11, "Ana")
    made: list[Review] = []

    async def reviewing(hand: HandState, seed: str) -> Review:
        made.append(review_hand(hand, seed=seed))
        return made[-1]

    rig.svc.play.thinker.review = reviewing  # type: ignore[method-assign]
    rig.svc.shown.miniapp_short_name = "tavolo"
    rig.svc.shown.miniapp_param = TableKeys(TOKEN).param
    tid = await open_game(rig, "due", [ana], timer="0", match="best5")
    while True:  # the deal is random: a 60-60 hand is void, not reviewed (§4.1)
        table = await play_hand_out(rig, [ana])
        await rig.svc.idle()
        assert table.match is not None
        hand_index = table.match.records[-1].hand_index
        if not table.match.records[-1].void:
            break
        assert (await rig.svc.play.next_hand(ana, tid, hand_index)).key == "ok_played"
    assert len(made) == 1
    kept = await rig.db.replays.hand_review(tid, hand_index)
    assert kept is not None and Review.from_dict(json.loads(kept)) == Review.from_dict(
        made[0].to_dict()
    )
    logs = [c for chat, c, _ in rig.out.announced if chat == CHAT]
    assert len(logs) == hand_index + 1  # each hand's result, one message as before
    ((button,),) = logs[-1].keyboard
    param = f"h{hand_index}_{TableKeys(TOKEN).param(tid)}"
    assert button.text == "▶️ Rivedi la mano"
    assert button.url == f"https://t.me/test_bot/tavolo?startapp={param}"


def test_s7_4_a_redeal_has_no_replay_button() -> None:
    """§7.4: a hand everybody passed is dealt again; nobody played it: no button."""
    table = Table(1, CHAT, 1, Options.parse("chiamata", {}))
    table.seats = [Seat(i, f"P{i}") for i in range(1, 6)]
    table.start("s")
    hand = table.hand
    assert hand is not None
    while not hand.is_terminal():
        hand.apply(A.PASS)
    table.finish_hand()
    assert table.match is not None and table.match.records[-1].redeal
    assert hand_log(table, "it", replay_link="https://t.me/b/a?startapp=h0_t1").keyboard == []
    assert hand_log(table, "it").keyboard == []


# ---------------------------------------------------------------------- who may open it


async def session(client: httpx.AsyncClient, user: FakeUser) -> dict[str, str]:
    res = await client.post("/api/session", json={"init_data": signed_init_data(user, None)})
    assert res.status_code == 200, res.text
    return {"Authorization": f"Bearer {res.json()['token']}"}


async def test_only_the_tables_players_or_its_key_open_a_replay(tmp_path: Path) -> None:
    """A seated player opens the replay; so does whoever has the table's key (the group's
    link). Anyone else is refused (403, the same whether the table exists or not), and so
    are a forged key or token; a hand that does not exist is 404, the table's hand still
    being played 409 (to its players and to the key alike), garbage in the path 404. Every
    refusal says why in the viewer's language and holds no card."""
    async with finished(tmp_path, review=False) as (rig, hand, _):
        tid = rig.table_id
        key = rig.keys.key(tid)
        path = f"/api/tables/{tid}/hands/0/replay"
        async with httpx.AsyncClient(base_url=rig.url) as client:
            ann, walt = await session(client, ANN), await session(client, WALT)
            en = await session(client, FakeUser(WALT.id, WALT.first_name, language_code="en"))

            async def get(url: str, headers: dict[str, str], k: str | None = None) -> Any:
                extra = {"X-Table-Key": k} if k is not None else {}
                return await client.get(url, headers={**headers, **extra})

            def refused(res: httpx.Response, status: int, text: str) -> None:
                assert res.status_code == status, res.text
                assert res.json()["error"] == text
                assert set(res.json()) == {"title", "error", "reason"}  # no card, no move

            ok = await get(path, ann)
            assert ok.status_code == 200 and len(ok.json()["steps"]) == len(hand.actions)
            assert ok.json()["lang"] == "it"
            assert (await get(path, walt, key)).status_code == 200  # the group's link
            denied = "Solo i giocatori del tavolo possono rivedere questa mano."
            refused(await get(path, walt), 403, denied)
            refused(await get(path, walt, key[:-1] + ("A" if key[-1] != "A" else "B")), 403, denied)
            refused(await get(path, walt, rig.keys.key(tid + 1)), 403, denied)
            refused(await get(f"/api/tables/{tid + 1}/hands/0/replay", walt), 403, denied)
            refused(await get(path, en), 403, "Only the table's players can replay this hand.")
            no_hand = "Questa mano non c'è, o non è stata giocata fino in fondo."
            refused(await get(f"/api/tables/{tid}/hands/1/replay", ann), 404, no_hand)
            refused(await get(f"/api/tables/{tid}/hands/999999/replay", ann), 404, no_hand)
            keyed = TableKeys(TOKEN).key(tid + 1)
            refused(await get(f"/api/tables/{tid + 1}/hands/0/replay", walt, keyed), 404, no_hand)
            for garbage in ("-1", "abc", "1.5", "0x1", "1234567", "%00"):
                res = await get(f"/api/tables/{tid}/hands/{garbage}/replay", ann)
                assert res.status_code == 404 and "steps" not in res.text, garbage
            assert (await client.get(path)).status_code == 401  # no session
            forged = {"Authorization": ann["Authorization"][:-2] + "xx"}
            assert (await get(path, forged, key)).status_code == 401
            # the next hand begins: it is not to be seen while it is played, the last one is
            assert rig.service is not None
            reply = await rig.service.play.next_hand(rig.person(0), tid, 0)
            assert reply.key == "ok_played", reply
            in_play = "Questa mano si sta ancora giocando: la potrai rivedere quando sarà finita."
            for who, k in ((ann, None), (walt, key)):
                refused(await get(f"/api/tables/{tid}/hands/1/replay", who, k), 409, in_play)
            assert (await get(path, walt, key)).status_code == 200
            refused(await get(f"/api/tables/{tid}/hands/1/replay", walt), 403, denied)


# ---------------------------------------------------------------------- the page


def replay_param(rig: PageRig, hand_index: int, key: bool = True) -> str:
    """The start parameter of the group's replay link (`Shown.replay_link`)."""
    table = rig.keys.param(rig.table_id) if key else f"t{rig.table_id}"
    return f"h{hand_index}_{table}"


async def shown_step(page: Page) -> int:
    return int(await page.get_attribute("#replay", "data-step") or -1)


async def autoplays_to_the_end(page: Page, n: int) -> None:
    """Autoplay goes on by itself, each step within `WAIT` of the one before (a starved
    browser may take longer than one `WAIT` for the 50-odd steps of a chiamata hand), and
    stops at the last step, `n`."""
    step = await shown_step(page)
    while not (step == n and await page.get_attribute("#replay", "data-playing") == "0"):
        moved = await page.wait_for_function(
            "([last, n]) => { const r = document.getElementById('replay');"
            " const step = Number(r.dataset.step);"
            " return step > last || (step === n && r.dataset.playing === '0') ? step : null; }",
            arg=[step, n],
            timeout=WAIT * 1000,
        )
        step = int(await moved.json_value())


async def press(page: Page, button: str, want: int) -> None:
    await page.click(f".rp-{button}")
    await page.wait_for_function(
        "(n) => Number(document.getElementById('replay').dataset.step) === n", arg=want
    )


async def on_show(page: Page) -> dict[str, Any]:
    """What the page shows: each seat's hand and the cards it put on the table, who takes,
    the bids, the mark's text, the badges."""
    shown: dict[str, Any] = await page.evaluate(
        """() => {
          const ids = (el, sel) => [...el.querySelectorAll(sel)].map((c) => Number(c.dataset.card));
          const rows = [...document.querySelectorAll('.rp-seat')].map((row) => ({
            seat: Number(row.dataset.seat), hand: ids(row, '.rp-hand .card'),
            table: ids(row, '.rp-play .card'), takes: row.classList.contains('takes'),
            chips: row.querySelector('.rp-chips').textContent,
            badges: [...row.querySelectorAll('.rp-badge')].map((b) => b.getAttribute('aria-label')),
          }));
          const mark = document.querySelector('.rp-mark');
          return { rows, bids: document.querySelectorAll('.rp-bids .bid-chip').length,
                   mark: mark.hidden ? '' : mark.textContent,
                   line: document.querySelector('.rp-line').textContent,
                   result: document.querySelector('.rp-result').textContent,
                   ticks: document.querySelectorAll('.rp-tick').length };
        }"""
    )
    return shown


async def reads_well(page: Page, name: str) -> None:
    """A screenshot; no text cut, every control 44 px tall, text at 4.5:1, nothing wider
    than the screen."""
    await page.evaluate("() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 60)))")
    await screenshot(page, f"replay-{name}-360x740")
    cut = await page.evaluate(TEXT_CUT)
    assert not cut, (name, cut)
    small = [t for t in await page.evaluate(TARGETS) if t["h"] < 43.5]
    assert not small, (name, small)
    low = [x for x in await page.evaluate(CONTRAST) if x["ratio"] < 4.5]
    assert not low, (name, low)
    assert await page.evaluate("document.documentElement.scrollWidth") <= NARROW[0]


async def test_the_replay_page_steps_through_a_chiamata_hand_at_360x740(tmp_path: Path) -> None:
    """Issue 51.3's check, in Chromium at 360x740: the deal with every hand face up, the
    auction bid by bid and the call, each trick card by card with its taker and the running
    points, forward and back, to either end, autoplay; the review's marks on the moves it
    judged and on the slider; the hand's result at the end. In Italian and English, light
    and dark."""
    async with (
        asyncio.timeout(240),
        finished(tmp_path / "c", seed=MARKED_SEED) as (rig, hand, review),
        chromium() as browser,
    ):
        assert review is not None
        view = await view_of(rig)
        steps = view["steps"]
        n = len(steps)
        _, page = await open_page(
            browser, rig, ANN, rig.table_id, viewport=NARROW, param=replay_param(rig, 0)
        )
        await page.wait_for_selector("#replay[data-step='0']", timeout=WAIT * 1000)
        assert await page.is_hidden("#app")
        shown = await on_show(page)
        assert [r["hand"] for r in shown["rows"]] == [
            sorted(h, key=lambda c: [x["id"] for x in view["deck"]].index(c)) for h in view["hands"]
        ]  # every hand face up, as dealt
        assert shown["bids"] == 0 and "tutte scoperte" in shown["line"]
        noteworthy = [s for s in steps if s["mark"] and s["mark"]["kind"] in ("cost", "best")]
        assert shown["ticks"] == len(noteworthy)
        await reads_well(page, "deal-it")
        # the auction, bid by bid, then the call
        auction = [s for s in steps if s["trick"] == 0]
        for k, step in enumerate(auction, 1):
            await press(page, "forward", k)
            shown = await on_show(page)
            assert step["label"] in shown["line"]
            if step["mark"]:
                assert step["mark"]["text"] in shown["mark"]
        assert (
            await page.locator(".rp-info .called-name").inner_text()
            == (steps[len(auction) - 1]["called"]["name"])
        )
        await reads_well(page, "called-it")
        # the first trick, card by card; its taker; then back
        at = len(auction)
        held = [len(h) for h in view["hands"]]
        for k in range(5):
            await press(page, "forward", at + k + 1)
            step = steps[at + k]
            shown = await on_show(page)
            held[step["seat"]] -= 1
            assert [len(r["hand"]) for r in shown["rows"]] == held
            assert step["card"] in shown["rows"][step["seat"]]["table"]
            assert sum(len(r["table"]) for r in shown["rows"]) == k + 1
        taker = steps[at + 4]["taken"]
        assert taker["winner"] == hand.tricks[0].winner
        assert [r["seat"] for r in shown["rows"] if r["takes"]] == [taker["winner"]]
        assert f"prende +{taker['points']}" in shown["rows"][taker["winner"]]["chips"]
        assert f"{taker['points']} punti" in shown["rows"][taker["winner"]]["chips"]
        await reads_well(page, "trick-it")
        await press(page, "back", at + 4)
        shown = await on_show(page)
        assert sum(len(r["table"]) for r in shown["rows"]) == 4 and not any(
            r["takes"] for r in shown["rows"]
        )
        # the marks: a costly bid on its chip, a costly card on the table, each saying what
        # it cost and what was better, the better card drawn beside
        for in_play in (False, True):
            marked = next(
                k + 1
                for k, st in enumerate(steps)
                if st["mark"] and st["mark"]["kind"] == "cost" and (st["trick"] > 0) == in_play
            )
            await page.evaluate("(k) => window.BriscolaReplay.show(k)", marked)
            shown = await on_show(page)
            step = steps[marked - 1]
            mark = step["mark"]
            assert mark["text"] in shown["mark"] and mark["best"] in shown["mark"]
            if in_play:
                assert mark["text"] in shown["rows"][step["seat"]]["badges"]
                if mark["best_card"]:
                    best = await page.get_attribute(".rp-mark .rp-best", "data-card")
                    assert best == str(mark["best_card"]["id"])
                await reads_well(page, "mark-card-it")
            else:
                chip = page.locator(".rp-bids .bid-chip.last .rp-badge")
                assert await chip.get_attribute("aria-label") == mark["text"]
                await reads_well(page, "mark-bid-it")
        # to the end: the result; back to the start
        await press(page, "end", n)
        shown = await on_show(page)
        assert view["outcome"]["caller"] in shown["result"]
        assert all(not r["hand"] for r in shown["rows"])
        await reads_well(page, "end-it")
        await press(page, "start", 0)
        # autoplay from the start to the end, by itself
        await page.evaluate("() => { window.BriscolaReplay.state.speed = 0.02; }")
        await page.click(".rp-toggle")
        assert await page.get_attribute("#replay", "data-playing") == "1"
        await autoplays_to_the_end(page, n)
        # pause stops it where it is
        await page.evaluate("() => { window.BriscolaReplay.state.speed = 1; }")
        await page.click(".rp-toggle")  # from the end: again from the start
        await page.wait_for_function(
            "() => Number(document.getElementById('replay').dataset.step) >= 1",
            timeout=WAIT * 1000,
        )
        await page.click(".rp-toggle")
        stopped = await shown_step(page)
        await asyncio.sleep(1.2)
        assert await shown_step(page) == stopped and stopped < n
        # English, and Telegram's dark theme
        for name, user, theme in (
            ("en", FakeUser(ANN.id, ANN.first_name, language_code="en"), "light"),
            ("dark", ANN, "dark"),
        ):
            _, other = await open_page(
                browser,
                rig,
                user,
                rig.table_id,
                viewport=NARROW,
                param=replay_param(rig, 0),
                theme=theme,
            )
            await other.wait_for_selector("#replay[data-step='0']", timeout=WAIT * 1000)
            want = "Replay" if name == "en" else "Rivedi"
            assert await other.inner_text(".rp-tag") == want
            for what, k in (("trick", at + 5), ("mark", marked), ("end", n)):
                await other.evaluate("(k) => window.BriscolaReplay.show(k)", k)
                await reads_well(other, f"{what}-{name}")
    assert page_errors() == []


async def test_the_page_refuses_an_outsider_and_a_hand_in_play(tmp_path: Path) -> None:
    """On the page: someone at no seat without the key is told that only the table's players
    may replay the hand, and sees no card; the hand still being played is refused to its own
    players with why; the key opens the replay to anyone."""
    async with (
        asyncio.timeout(180),
        finished(tmp_path / "r", review=False) as (rig, _, _),
        chromium() as browser,
    ):
        _, page = await open_page(
            browser, rig, WALT, rig.table_id, viewport=NARROW, param=replay_param(rig, 0, False)
        )
        await page.wait_for_selector("#fatal:not([hidden])", timeout=WAIT * 1000)
        text = await page.inner_text("#fatal")
        assert "Solo i giocatori del tavolo possono rivedere questa mano." in text
        assert await page.locator(".card").count() == 0
        await screenshot(page, "replay-outsider-360x740")
        _, keyed = await open_page(
            browser, rig, WALT, rig.table_id, viewport=NARROW, param=replay_param(rig, 0)
        )
        await keyed.wait_for_selector("#replay[data-step='0']", timeout=WAIT * 1000)
        assert rig.service is not None
        reply = await rig.service.play.next_hand(rig.person(0), rig.table_id, 0)
        assert reply.key == "ok_played"
        _, page = await open_page(
            browser, rig, ANN, rig.table_id, viewport=NARROW, param=replay_param(rig, 1)
        )
        await page.wait_for_selector("#fatal:not([hidden])", timeout=WAIT * 1000)
        assert "si sta ancora giocando" in await page.inner_text("#fatal")
        assert await page.locator(".card").count() == 0
        await screenshot(page, "replay-in-play-360x740")
        cut = await page.evaluate(TEXT_CUT)
        assert not cut, cut
    assert page_errors() == []

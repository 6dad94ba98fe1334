"""Issue 52 point 2: no tap vanishes without a word. A tap made while a completed trick is on
show, or on the viewer's turn before its controls answer (ARM_MS after it is drawn), waits:
the card is marked "in coda" and is played by itself, once, as soon as it can be; a tap
that cannot be played says why ("Non è il tuo turno", in the page's language). The second
tap of a double tap still plays nothing (tests/test_miniapp_page.py keeps that).

In headless Chromium on the bot's own table service (`PageRig`); screenshots of the queued
card go to tests/artifacts/queued-*.png.
"""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path

from playwright.async_api import Page

from bench.rig.bot_process import WAIT
from bench.rig.browser import chromium, move_shown, open_page, page_errors, screenshot
from bench.rig.page_rig import PageRig
from bench.rig.telegram import FakeUser
from bot.table.table import Table
from tests.test_miniapp_page import against_a_computer, my_turn_armed, people, until

PAUSED = "() => document.getElementById('table').dataset.pause"
PENDING = "() => document.querySelector('#hand .card.pending') !== null"  # a move on its way
NOTHING_QUEUED = "() => document.querySelector('#hand .queued, #hand .pending') === null"
DOUBLE_MS = 600  # app.js: a tap this soon after one that acted is a double tap's second


async def tap(page: Page, css: str, nth: int = 0) -> int:
    """A finger on the middle of the strip that shows of the `nth` element `css` finds (a
    fanned hand's card: its left part), at once, whatever the page thinks of it; the card it
    meant. Found and measured in one go: the page may draw the hand again at any moment."""
    spot = await page.evaluate(
        """([css, nth]) => { const all = document.querySelectorAll(css);
             const el = all[nth < 0 ? all.length + nth : nth];
             if (!el) return null;
             const b = el.getBoundingClientRect();
             return { x: b.left + Math.min(20, b.width / 2), y: b.top + b.height / 2,
                      card: Number(el.dataset.card) }; }""",
        [css, nth],
    )
    assert spot is not None, (css, nth)
    await page.mouse.click(spot["x"], spot["y"])
    return int(spot["card"])


def plays_of(table: Table, seat: int) -> list[int]:
    hand = table.hand
    assert hand is not None
    return [a for s, a in hand.actions if s == seat]


async def test_a_tap_while_the_trick_is_shown_plays_once_it_can(tmp_path: Path) -> None:
    """Against a computer answering in 0.1 s: Anna plays a card, the trick is on show for
    1.2 s; 0.7 s after her tap (well past a double tap) she taps her next card once. It is
    marked queued while the trick is shown, then played by itself, once. Three such taps,
    in up to eight tries: a try counts where the page met the second tap as the story
    says (the trick on show, her first card's answer back, the taps `DOUBLE_MS` apart in
    the page's own time, the finger down on the card meant), which a loaded machine may make
    it miss."""
    ann = FakeUser(5301, "Anna")
    async with against_a_computer(tmp_path, ann) as (rig, page):
        queued = 0
        for _ in range(8):
            if queued >= 3:
                break
            await my_turn_armed(page)
            hand_index = rig.table.hand.hand_index if rig.table.hand else -1
            await tap(page, "#hand .playable")
            tapped = time.monotonic()
            # the trick is complete (the computer's answer, or her card closing it), on show
            await page.wait_for_function(f"() => ({PAUSED})() === '1'", timeout=WAIT * 1000)
            await asyncio.sleep(max(0.0, 0.7 - (time.monotonic() - tapped)))
            before = plays_of(rig.table, 0)
            during = await page.evaluate(PAUSED) == "1"  # (a loaded machine may be late)
            sent = await page.evaluate(PENDING)  # her first card's answer not back yet
            card = await tap(page, "#hand .card", -1)
            downs: list[float] = await page.evaluate("window.__downs.slice(-2)")
            apart = downs[1] - downs[0] >= DOUBLE_MS
            # the finger came down on that card (the hand drawn again between its measure
            # and the tap, say with the card she drew, may put another there)
            on_it = await page.evaluate("window.__downCards.at(-1)") == card
            # the page shows that the tap is waiting, while the trick is still on show
            marked = await page.evaluate(
                """(card) => { const el = document.querySelector(
                     `#hand .card.queued[data-card="${card}"] .queued-tag`);
                   return { tag: el ? el.textContent : null,
                            status: document.getElementById('status').textContent,
                            pause: document.getElementById('table').dataset.pause }; }""",
                card,
            )
            if not (during and marked["pause"] == "1" and apart and on_it and not sent):
                # not the story told: whatever the tap did, nothing of it waits any more
                # before the next try (which starts on her next turn, armed)
                await page.wait_for_function(NOTHING_QUEUED, timeout=WAIT * 1000)
                continue
            queued += 1  # tapped and checked while the trick was shown
            assert marked["tag"] == "in coda", marked
            assert marked["status"].startswith("In coda"), marked
            if queued == 1:
                await screenshot(page, "queued-during-trick-390x844")
            # ... and is played without a second tap, once
            n = len(before)
            await until(lambda: len(plays_of(rig.table, 0)) > n, "the queued card")  # noqa: B023
            assert plays_of(rig.table, 0) == [*before, card]
            assert rig.table.hand is not None and rig.table.hand.hand_index == hand_index
            await asyncio.sleep(0.8)
            assert plays_of(rig.table, 0) == [*before, card]  # once
            await move_shown(page, rig.table.move_no)
            assert await page.locator("#hand .queued").count() == 0
            assert await page.locator("#toast.show").count() == 0
        assert queued >= 3, queued
        calls = await page.evaluate("window.__tg.map((c) => c[0])")
        assert "notification" not in calls and "selection" in calls, calls
    assert page_errors() == []


async def bob_takes_a_trick(rig: PageRig, pages: list[Page]) -> None:
    """Moves for both until a trick is complete and Bob (seat 1) took it."""
    rng = random.Random(52)
    hand = rig.table.hand
    assert hand is not None
    while True:
        tricks = len(hand.tricks)
        await rig.move(rng=rng)
        if len(hand.tricks) > tricks and hand.tricks[-1].winner == 1:
            break
    for page in pages:
        await move_shown(page, rig.table.move_no)


async def test_a_tap_that_cannot_play_says_why(tmp_path: Path) -> None:
    """Anna (seat 0) and Bob (seat 1), two people; Anna's page in Italian and in English.
    A tap on her card while Bob is to play says that it is not her turn; a tap during a
    trick Bob took is queued, and when the trick goes and Bob is to lead it is dropped with
    a word, nothing played; a tap as her turn is drawn (before it answers) is played once."""
    ann, bob = people(2, 5310)
    ann_en = FakeUser(ann.id, ann.first_name, language_code="en")
    async with (
        asyncio.timeout(120),
        PageRig(tmp_path, "due", [ann, bob]) as rig,
        chromium() as browser,
    ):
        pages = [
            (await open_page(browser, rig, user, rig.table_id, viewport=(390, 844)))[1]
            for user in (ann, ann_en)
        ]
        words = [
            ("Non è il tuo turno.", "Non giocata: ora non tocca a te.", "in coda"),
            ("It is not your turn.", "Not played: it is not your turn now.", "queued"),
        ]
        hand = rig.table.hand
        assert hand is not None
        # Bob to play, nothing on show: a tap says it is not her turn, plays nothing
        await rig.play_while(lambda t: t.hand is not None and t.hand.current != 1)
        for page, (not_yours, _, _) in zip(pages, words, strict=True):
            await move_shown(page, rig.table.move_no)
            await page.wait_for_function(f"() => ({PAUSED})() === '0'", timeout=WAIT * 1000)
            await asyncio.sleep(0.6)  # armed: the state's controls are on screen
            before = plays_of(rig.table, 0)
            await tap(page, "#hand .card")
            await page.wait_for_selector("#toast.show", timeout=2000)
            assert (await page.inner_text("#toast")).strip() == not_yours
            assert plays_of(rig.table, 0) == before
        await screenshot(pages[0], "queued-not-your-turn-390x844")
        # a trick Bob took, on show: a tap waits, then is dropped with a word
        await bob_takes_a_trick(rig, pages)
        before = plays_of(rig.table, 0)
        waited = []  # the pages whose tap came while the trick was still on show
        for page, (_, _, tag) in zip(pages, words, strict=True):
            await page.evaluate("() => document.getElementById('toast').classList.remove('show')")
            assert await page.evaluate(PAUSED) == "1"
            card = await tap(page, "#hand .card")
            marked = await page.evaluate(
                """(card) => { const el = document.querySelector(
                     `#hand .card.queued[data-card="${card}"] .queued-tag`);
                   return { tag: el ? el.textContent : null,
                            pause: document.getElementById('table').dataset.pause }; }""",
                card,
            )
            if marked["tag"] is None and marked["pause"] == "0":
                continue  # a loaded machine: the display ended before the tap landed
            assert (marked["tag"] or "").strip() == tag, marked
            waited.append(page)
        assert waited, "no tap landed while the trick was on show"
        for page, (_, not_played, _) in zip(pages, words, strict=True):
            if page not in waited:
                continue
            await page.wait_for_function(f"() => ({PAUSED})() === '0'", timeout=WAIT * 1000)
            await page.wait_for_selector("#toast.show", timeout=3000)
            assert (await page.inner_text("#toast")).strip() == not_played
            assert await page.locator("#hand .queued").count() == 0
        await screenshot(pages[1], "queued-dropped-en-390x844")
        assert hand.current == 1 and plays_of(rig.table, 0) == before
        # Bob leads; Anna's turn is drawn and she taps before it answers: played, once
        await rig.move(rng=random.Random(1))
        page = pages[0]
        await move_shown(page, rig.table.move_no)
        card = await tap(page, "#hand .playable")
        early = await page.evaluate(
            "() => !document.getElementById('app').classList.contains('live')"
        )
        await until(lambda: len(plays_of(rig.table, 0)) > len(before), "the early tap's card")
        assert plays_of(rig.table, 0) == [*before, card]
        await asyncio.sleep(1.0)
        assert plays_of(rig.table, 0) == [*before, card]  # once
        assert early, "the tap came after the turn answered: it tested nothing"
    assert page_errors() == []

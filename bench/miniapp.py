"""The Mini App page's numbers (issue 37), in Debian's Chromium against the bot's own table
service and HTTP routes served in this process (`bench.rig.page_rig.PageRig`).

    python -m bench.miniapp [--taps 20] [--double 6] [--json]

Printed: the page's weight (the page and its files as served, raw and gzip-compressed);
the time from navigation to the first table drawn (390x844, device scale 2, a due table);
the tap latency between two people's pages (pointer-down on a card in one page to the
card shown in the other, and in the tapping page itself); and double taps against a
computer answering in 0.1 s (150, 250 and 400 ms between the taps, `--double` tries each):
how many played one card, and in how many the computer had answered, the next turn being
on show, before the second tap (the tries the tap guard is for).
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import re
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx
from playwright.async_api import Browser, Page

from bench.rig.browser import chromium, open_page
from bench.rig.page_rig import PageRig
from bench.rig.telegram import FakeUser

WAIT_MS = 30_000

# when the page first drew a table, and when it drew each version of it (epoch ms)
MOVES = """
(() => {
  window.__moves = {};
  const mark = () => {
    const t = document.getElementById('table');
    const move = t && t.dataset.move;
    if (move && !(move in window.__moves)) {
      window.__moves[move] = performance.timeOrigin + performance.now();
    }
  };
  new MutationObserver(mark).observe(document, {
    subtree: true, attributes: true, childList: true, attributeFilter: ['data-move'] });
})();
"""


async def page_weight(base: str) -> dict[str, int]:
    """The page and the files it names, as served: bytes raw and gzip-compressed."""
    async with httpx.AsyncClient(base_url=base) as client:
        page = await client.get("/app/", headers={"Accept-Encoding": "identity"})
        names = ["/app/" + n for n in re.findall(r'(?:src|href)="(static/[^"]+)"', page.text)]
        raw = len(page.content)
        sent = len(gzip.compress(page.content))
        for name in names:
            plain = await client.get(name, headers={"Accept-Encoding": "identity"})
            raw += len(plain.content)
            zipped = await client.get(name, headers={"Accept-Encoding": "gzip"})
            sent += int(zipped.headers.get("Content-Length") or len(gzip.compress(plain.content)))
    return {"files": len(names) + 1, "raw": raw, "gzip": sent}


async def armed(page: Page) -> None:
    await page.wait_for_function(
        "() => document.querySelector('#hand.armed .playable') !== null"
        " && document.getElementById('table').dataset.pause === '0'",
        timeout=WAIT_MS,
    )


async def first_table(browser: Browser, rig: PageRig, who: FakeUser) -> float:
    """Milliseconds from navigation to the first table drawn."""
    context, page = await open_page(
        browser, rig, who, rig.table_id, viewport=(390, 844), scripts=(MOVES,)
    )
    await page.wait_for_function("() => Object.keys(window.__moves).length > 0", timeout=WAIT_MS)
    ms: float = await page.evaluate(
        "() => Math.min(...Object.values(window.__moves)) - performance.timeOrigin"
    )
    await context.close()
    return ms


async def tap_latency(browser: Browser, rig: PageRig, people: list[FakeUser], taps: int) -> Any:
    """Ann and Bob in their pages, each tapping a card on their turn: pointer-down to the
    card shown in the other page, and in the tapping page."""
    pages = []
    for who in people:
        _, page = await open_page(
            browser, rig, who, rig.table_id, viewport=(390, 844), scripts=(MOVES,)
        )
        pages.append(page)
    other_ms: list[float] = []
    own_ms: list[float] = []
    for _ in range(taps):
        hand = rig.table.hand
        assert hand is not None
        if hand.is_terminal():
            break
        seat = hand.current
        mine, theirs = pages[seat], pages[1 - seat]
        await armed(mine)
        move = rig.table.move_no
        await mine.locator("#hand .playable").first.click()
        down: float = await mine.evaluate(
            "() => performance.timeOrigin + window.__downs[window.__downs.length - 1]"
        )
        for page, out in ((theirs, other_ms), (mine, own_ms)):
            await page.wait_for_function(
                "(n) => Object.keys(window.__moves).some((m) => Number(m) > n)",
                arg=move,
                timeout=WAIT_MS,
            )
            shown: float = await page.evaluate(
                "(n) => Math.min(...Object.entries(window.__moves)"
                ".filter(([m]) => Number(m) > n).map(([, t]) => t))",
                move,
            )
            out.append(shown - down)
    return {"other_page_ms": other_ms, "own_page_ms": own_ms}


async def double_taps(browser: Browser, rig: PageRig, ann: FakeUser, tries: int) -> Any:
    """Double taps on one spot against a computer answering in 0.1 s."""
    _, page = await open_page(browser, rig, ann, rig.table_id, viewport=(390, 844))
    stats: dict[int, dict[str, int]] = {}
    for gap in (150, 250, 400) * tries:
        hand = rig.table.hand
        assert hand is not None
        if hand.is_terminal():
            break
        await armed(page)
        index, plays = hand.hand_index, rig.table.plays_by(0)
        cards = page.locator("#hand .card")
        box = await cards.nth(min(1, await cards.count() - 1)).bounding_box()
        assert box is not None
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        await page.mouse.click(x, y)
        await asyncio.sleep(gap / 1000)
        await page.mouse.click(x, y)
        await asyncio.sleep(1.0)
        await page.wait_for_function(
            "() => document.getElementById('table').dataset.pause === '0'", timeout=WAIT_MS
        )
        now = rig.table.hand
        assert now is not None
        played = rig.table.plays_by(0) - plays if now.hand_index == index else 1
        downs = await page.evaluate("window.__downs.slice(-2)")
        back = await page.evaluate(
            "(s) => (window.__turns || []).some((t) => t > s.a && t < s.b)",
            {"a": downs[0], "b": downs[1]},
        )
        s = stats.setdefault(gap, {"tries": 0, "one_card": 0, "turn_back_before_2nd_tap": 0})
        s["tries"] += 1
        s["one_card"] += played == 1
        s["turn_back_before_2nd_tap"] += bool(back)
    return stats


def summary(values: list[float]) -> str:
    if not values:
        return "none"
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return f"median {statistics.median(values):.0f} ms, p90 {p90:.0f} ms, n={len(values)}"


async def run(taps: int, tries: int) -> dict[str, Any]:
    ann, bob = FakeUser(3991, "Anna"), FakeUser(3992, "Bruno")
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-miniapp-") as tmp:
        async with chromium() as browser:
            async with PageRig(Path(tmp) / "p", "due", [ann, bob]) as rig:
                out["weight"] = await page_weight(rig.url)
                # the first load warms the browser's caches of the process; the rest count
                loads = [await first_table(browser, rig, ann) for _ in range(6)][1:]
                out["first_table_ms"] = loads
                out.update(await tap_latency(browser, rig, [ann, bob], taps))
            async with PageRig(
                Path(tmp) / "c", "due", [ann, None], bot_delay=0.1, options={"match": "best5"}
            ) as rig:
                out["double_tap"] = await double_taps(browser, rig, ann, tries)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--taps", type=int, default=20, help="taps timed between two pages")
    parser.add_argument("--double", type=int, default=6, help="double taps per gap")
    parser.add_argument("--json", action="store_true", help="also print one JSON object")
    args = parser.parse_args()
    out = asyncio.run(run(args.taps, args.double))
    w = out["weight"]
    lines = [
        f"page weight: {w['files']} files, {w['raw'] / 1000:.1f} KB raw,"
        f" {w['gzip'] / 1000:.1f} KB gzip",
        f"first table drawn: {summary(out['first_table_ms'])} after navigation",
        f"tap to the other page: {summary(out['other_page_ms'])}",
        f"tap to the own page: {summary(out['own_page_ms'])}",
    ]
    for gap, s in sorted(out["double_tap"].items()):
        lines.append(
            f"double tap {gap} ms vs a computer: {s['one_card']}/{s['tries']} one card,"
            f" computer's answer shown before the 2nd tap in {s['turn_back_before_2nd_tap']}"
        )
    print("\n".join(lines), file=sys.stderr if args.json else sys.stdout)
    if args.json:
        print(json.dumps(out))


if __name__ == "__main__":
    main()

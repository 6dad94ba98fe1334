"""The load benchmark still plays (slow tier). `bench.bot_load` is how Telegram's budget is
measured (docs/benchmarks.md), and nothing else drives it: after a merge changed what private
messages say, its five people no longer found their hand messages and the bench measured 0
cards without failing. Here a small run of each scenario, as the README's command runs it
(`python -m bench.bot_load`, a subprocess with the real bot), must play cards, answer every
tap and stay within Telegram's limits."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]


def bench_json(module: str, args: list[str], timeout: float) -> dict[str, Any]:
    """Run `python -m <module> <args>` as the README does; the JSON object it printed last."""
    done = subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.parametrize("scenario", ["five-humans", "mixed"])
def test_a_small_bot_load_run_plays_within_the_limits(scenario: str, tmp_path: Path) -> None:
    args = [
        "--quick",
        "--scenario",
        scenario,
        "--tables",
        "4",
        "--duration",
        "20",
        "--workdir",
        str(tmp_path),
        "--json",
    ]
    r = bench_json("bench.bot_load", args, timeout=400)
    assert r["ramp"]["tables_playing"] == 4, r["ramp"]
    if scenario == "five-humans":  # 20 s of five people's auctions: bids, maybe a card
        # the people found their hand messages and moved (bids, the call, cards)
        assert r["chat_calls"]["moves"] > 0, r["chat_calls"]
        assert r["chat_calls"]["per_move"] is not None, r["chat_calls"]
    else:
        assert r["window"]["cards"] > 0, r["window"]
    assert r["limit_violations"]["total"] == 0, r["limit_violations"]
    assert r["taps"]["unanswered"] == 0, r["taps"]
    assert r["bot"]["log_errors"] == 0, r["bot"]


def test_a_small_rush_opens_every_table_at_once_and_times_the_taps(tmp_path: Path) -> None:
    """`--scenario rush` (issue 50 §6): three tables of five open within the first seconds;
    the taps' answer latency comes per 15-s window from the first lobby tap, each table's
    auction is timed from the first /new, and the bot stays within Telegram's limits."""
    args = ["--quick", "--scenario", "rush", "--tables", "3", "--duration", "25"]
    r = bench_json("bench.bot_load", [*args, "--workdir", str(tmp_path), "--json"], timeout=400)
    assert r["config"]["ramp_s"] == 5.0 and r["config"]["retap"] > 0, r["config"]
    assert r["ramp"]["tables_playing"] == 3, r["ramp"]
    windows = r["rush"]["tap_answer_by_window"]["windows"]
    assert windows and windows[0]["n"] > 0, windows  # the lobby's taps, in the first window
    assert sum(w["n"] + w["unanswered"] for w in windows) == r["taps"]["total"], windows
    assert r["rush"]["past_auction"]["tables"] == 3, r["rush"]
    assert r["rush"]["own_429s"] == 0 == r["limit_violations"]["total"], r["rush"]
    assert r["taps"]["unanswered"] == 0, r["taps"]
    assert r["bot"]["log_errors"] == 0, r["bot"]


def test_a_small_pages_run_plays_in_visible_pages_with_no_private_traffic() -> None:
    """`bench.pages`: one table of five playing in visible Mini App pages moves, with no call
    into a private chat (issue 39 §1: a visible page keeps the chat quiet) and no 429."""
    r = bench_json("bench.pages", ["--tables", "1", "--duration", "15", "--json"], timeout=300)
    assert r["moves"] > 0, r
    assert r["chat_calls"]["private_per_move"] == 0.0, r["chat_calls"]
    assert r["own_429s"] == 0 and r["turn_shown_s"]["n"] > 0, r

"""`python -m bot simulate` and its `--jsonl` records, checked by an independent referee."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from bot.cli_simulate import simulate
from bot.engine import VARIANTS, Options
from bot.players import configure
from bot.players.hard import DEFAULT_BUDGET
from tests.referee import verify

COMBOS = [(v, {}) for v in VARIANTS] + [
    ("due", {"retrump": "true"}),
    ("due", {"deck": "french", "southern": "true"}),
    ("quattro", {"signals": "true"}),
    ("sei", {"teams": "threes"}),
    ("sei", {"signals": "true"}),
    ("chiamata", {"overbid": "false"}),
    ("chiamata", {"deck": "french", "southern": "true"}),
    ("chiamata", {"carichi": "true"}),
    ("chiamata", {"auction": "points"}),
    ("chiamata", {"lead": "caller", "cappotto": "all_tricks"}),
    ("chiamata4", {"auction": "points"}),
    ("briskula32", {"players": "3"}),
    ("briskula32", {"players": "4", "teams": "pairs"}),
    ("doppia", {"players": "4", "teams": "pairs"}),
    ("doppia", {"players": "4"}),
]


@pytest.mark.parametrize(("variant", "opts"), COMBOS, ids=lambda x: str(x))
@pytest.mark.parametrize("players", ["random", "simple"])
def test_every_record_replays_under_the_referee(
    variant: str, opts: dict[str, str], players: str
) -> None:
    options = Options.parse(variant, opts)
    buf = io.StringIO()
    summary = simulate(options, 60, 11, [players] * options.rules().n_players, buf)
    lines = buf.getvalue().splitlines()
    assert summary["hands"] == len(lines) == 60
    for line in lines:
        verify(json.loads(line))


@pytest.mark.parametrize(("variant", "opts"), COMBOS, ids=lambda x: str(x))
def test_the_levels_records_replay_under_the_referee(variant: str, opts: dict[str, str]) -> None:
    """hard, normal and easy seated together (hard on a short clock): every record valid."""
    options = Options.parse(variant, opts)
    n = options.rules().n_players
    players = [("hard", "normal", "easy")[s % 3] for s in range(n)]
    configure(budget=0.004)
    try:
        buf = io.StringIO()
        summary = simulate(options, 4, 12, players, buf)
    finally:
        configure(budget=DEFAULT_BUDGET)
    lines = buf.getvalue().splitlines()
    assert summary["hands"] == len(lines) == 4
    for line in lines:
        rec = json.loads(line)
        assert rec["players"] == players
        verify(rec)


def test_referee_catches_a_tampered_record() -> None:
    """The referee is not a rubber stamp: a changed winner, score or card is rejected."""
    options = Options.parse("due")
    buf = io.StringIO()
    simulate(options, 1, 3, ["simple", "simple"], buf)
    rec = json.loads(buf.getvalue())
    verify(rec)
    for tamper in (
        lambda r: r["tricks"][0].__setitem__("winner", 1 - r["tricks"][0]["winner"]),
        lambda r: (
            r["card_points"].reverse()
            if r["card_points"][0] != r["card_points"][1]
            else r["ledger"].reverse()
        ),
        lambda r: r["hands"][0].__setitem__(0, r["talon"][0]),
        lambda r: r.__setitem__("ledger", [0, 0]),
    ):
        bad = json.loads(json.dumps(rec))
        tamper(bad)
        with pytest.raises(AssertionError):
            verify(bad)


def test_same_seed_same_deals_whoever_plays() -> None:
    """Issue 2: the deal of hand k depends only on (seed, k), not on the players."""
    options = Options.parse("due")
    a, b = io.StringIO(), io.StringIO()
    simulate(options, 20, 5, ["random", "simple"], a)
    simulate(options, 20, 5, ["simple", "random"], b)
    for x, y in zip(a.getvalue().splitlines(), b.getvalue().splitlines(), strict=True):
        rx, ry = json.loads(x), json.loads(y)
        assert (rx["hands"], rx["talon"], rx["turned"], rx["dealer"]) == (
            ry["hands"],
            ry["talon"],
            ry["turned"],
            ry["dealer"],
        )


def test_summary_counts() -> None:
    options = Options.parse("chiamata")
    s = simulate(options, 40, 2, ["simple"] * 5)
    assert s["hands"] == 40 and len(s["seats"]) == 5
    assert sum(seat["ledger"] for seat in s["seats"]) == 0  # §10.1 zero-sum
    played = 40 - s["redeals"]
    assert all(0 <= seat["wins"] <= played for seat in s["seats"])


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *args], capture_output=True, text=True, timeout=120
    )


def test_cli_simulate_prints_json_and_writes_jsonl(tmp_path: object) -> None:
    path = f"{tmp_path}/hands.jsonl"
    out = _cli(
        "simulate",
        "--variant",
        "chiamata",
        "--games",
        "25",
        "--seed",
        "9",
        "--players",
        "simple,random,simple,random,simple",
        "--jsonl",
        path,
    )
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["hands"] == 25 and summary["hands_per_second"] > 0
    assert [s["player"] for s in summary["seats"]] == ["simple", "random"] * 2 + ["simple"]
    with open(path, encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh]
    assert len(records) == 25
    for rec in records:
        verify(rec)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--variant", "due", "--option", "signals=true"], "signals"),
        (["--variant", "due", "--option", "nonsense"], "key=value"),
        (["--variant", "due", "--option", "colour=red"], "colour"),
        (["--variant", "due", "--players", "a,b,c"], "players"),
        (["--variant", "due", "--players", "genius"], "unknown player"),
        (["--variant", "chiamata", "--option", "target=-3"], "target"),
        (["--variant", "due", "--games", "-1"], "games"),
        (["--variant", "due", "--players", "hard", "--budget", "0"], "budget"),
        (["--variant", "due", "--budget", "soon"], "budget"),
    ],
)
def test_cli_simulate_rejects_bad_input_clearly(args: list[str], message: str) -> None:
    out = _cli("simulate", *args)
    assert out.returncode == 2
    assert message in out.stderr
    assert "Traceback" not in out.stderr


def test_bot_without_token_explains_and_exits_2(tmp_path: object) -> None:
    import os

    env = {k: v for k, v in os.environ.items() if k != "BOT_TOKEN"}
    out = subprocess.run(
        [sys.executable, "-m", "bot"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=str(tmp_path),
        env={**env, "PYTHONPATH": os.getcwd()},
    )
    assert out.returncode == 2
    assert "BotFather" in out.stderr and ".env" in out.stderr

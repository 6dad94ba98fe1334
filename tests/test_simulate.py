"""`python -m bot simulate` and its `--jsonl` records, checked by an independent referee."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.cli.simulate import simulate
from bot.engine import Options
from bot.players import configure
from bot.players.hard import DEFAULT_BUDGET
from tests.support.cli import REFUSED_BY_BOTH
from tests.support.referee import verify
from tests.support.variants import COMBOS


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
    tampers: list[Callable[[dict[str, Any]], object]] = [
        lambda r: r["tricks"][0].__setitem__("winner", 1 - r["tricks"][0]["winner"]),
        lambda r: (
            r["card_points"].reverse()
            if r["card_points"][0] != r["card_points"][1]
            else r["ledger"].reverse()
        ),
        lambda r: r["hands"][0].__setitem__(0, r["talon"][0]),
        lambda r: r.__setitem__("ledger", [0, 0]),
    ]
    for tamper in tampers:
        bad = json.loads(json.dumps(rec))
        tamper(bad)
        with pytest.raises(AssertionError):
            verify(bad)


@pytest.mark.parametrize(
    ("raw", "written"),
    [
        ({"auction_start": "dealer_left"}, {"auction_start": "dealer_left"}),
        ({"first_must_call": "true"}, {"first_must_call": True}),
        ({"two_caller_raises": "false"}, {"two_caller_raises": False}),
        (
            {"carichi": "true", "carichi_mode": "continues"},
            {"carichi": True, "carichi_mode": "continues"},
        ),
    ],
)
def test_records_carry_the_auction_options(raw: dict[str, str], written: dict[str, object]) -> None:
    """RULES §7.2, §7.3, §7.8: a set option is written in each record's `options` (and the
    summary's), so the referee replays the auction under it; unset options are not written."""
    options = Options.parse("chiamata", raw)
    buf = io.StringIO()
    summary = simulate(options, 30, 4, ["random"] * 5, buf)
    assert summary["options"] == {"variant": "chiamata", **written}
    for line in buf.getvalue().splitlines():
        rec = json.loads(line)
        assert rec["options"] == {"variant": "chiamata", **written}
        verify(rec)


def test_referee_checks_the_auction_options() -> None:
    """The referee reads §7.2-§7.8's options: a record whose auction breaks one is rejected."""
    buf = io.StringIO()
    simulate(Options.parse("chiamata", {"first_must_call": "true"}), 20, 6, ["random"] * 5, buf)
    recs = [json.loads(line) for line in buf.getvalue().splitlines()]
    rec = recs[0]
    verify(rec)
    bad = json.loads(json.dumps(rec))
    bad["options"]["auction_start"] = "dealer_left"  # the first bid is now out of turn
    with pytest.raises(AssertionError, match="out of turn"):
        verify(bad)
    bad = json.loads(json.dumps(rec))
    bad["options"]["first_must_call"] = True
    bad["auction"][0][1] = "pass"  # the first player passed
    with pytest.raises(AssertionError):
        verify(bad)
    buf = io.StringIO()
    opts = {"carichi": "true", "carichi_mode": "continues"}
    simulate(Options.parse("chiamata", opts), 60, 6, ["random"] * 5, buf)
    recs = [json.loads(line) for line in buf.getvalue().splitlines()]
    went_on = next(
        r
        for r in recs
        if "carichi" in [b for _, b in r["auction"]][:-1] and r["briscola"] is not None
    )
    verify(went_on)
    went_on["options"]["carichi_mode"] = "ends"  # under `ends` the auction stopped at carichi
    with pytest.raises(AssertionError):
        verify(went_on)


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


# ------------------------------------------------------- command line: bad input, bad output


def _assert_one_line_error(out: subprocess.CompletedProcess[str], command: str) -> str:
    """Exit status 2 and a single `python -m bot COMMAND: error: ...` line on stderr."""
    assert "Traceback" not in out.stderr
    assert out.returncode == 2, out.stderr
    lines = out.stderr.splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith(f"python -m bot {command}: error: "), lines[0]
    return lines[0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        *REFUSED_BY_BOTH,
        (["--option", "Variant=sei", "--option", "deck=french"], "--variant"),
        (["--variant", "quattro", "--option", "teams=none"], "§5.1"),
        (["--games", "0"], "--games must be between 1 and 1000000, got 0"),
        (["--games", "1000001"], "got 1000001"),
        (["--budget", "nan"], "got nan"),
    ],
)
def test_cli_simulate_refuses_bad_input_in_one_line(args: list[str], message: str) -> None:
    line = _assert_one_line_error(_cli("simulate", *args), "simulate")
    assert message in line


def test_cli_simulate_bounds_accept_their_limits() -> None:
    out = _cli("simulate", "--games", "1", "--budget", "10", "--players", "simple")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["hands"] == 1


def test_cli_budget_bound_is_the_hard_budget_setting() -> None:
    """--budget takes what HARD_BUDGET takes (bot/config.py): more than 0, at most 10 s."""
    from pydantic import ValidationError

    from bot.cli.simulate import MAX_BUDGET, budget_error
    from bot.config import Settings

    assert Settings(hard_budget=MAX_BUDGET).hard_budget == MAX_BUDGET
    assert budget_error(MAX_BUDGET) is None and budget_error(0.2) is None
    for bad in (MAX_BUDGET + 0.01, 0.0):
        assert budget_error(bad) is not None
        with pytest.raises(ValidationError):
            Settings(hard_budget=bad)


def test_variant_is_not_a_table_option() -> None:
    """`variant` among the options (--option, /settings) is an OptionsError, not a TypeError."""
    from bot.engine import OptionsError

    with pytest.raises(OptionsError, match="variant"):
        Options.parse("due", {"variant": "chiamata"})


@pytest.mark.parametrize("target", ["missing-dir/x.jsonl", "a-directory", ""])
def test_cli_simulate_refuses_an_unwritable_jsonl_before_playing(
    tmp_path: object, target: str
) -> None:
    """Checked before the first hand: a million hands by the search player would not end
    within the timeout."""
    (Path(str(tmp_path)) / "a-directory").mkdir()
    path = f"{tmp_path}/{target}" if target else ""
    out = subprocess.run(
        [
            *(sys.executable, "-m", "bot", "simulate"),
            *("--games", "1000000", "--players", "hard", "--jsonl", path),
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    line = _assert_one_line_error(out, "simulate")
    assert "cannot write --jsonl" in line and out.stdout == ""


def test_cli_simulate_refused_arguments_leave_the_jsonl_file_alone(tmp_path: object) -> None:
    path = Path(str(tmp_path)) / "keep.jsonl"
    path.write_text("precious\n", encoding="utf-8")
    out = _cli("simulate", "--games", "0", "--jsonl", str(path))
    _assert_one_line_error(out, "simulate")
    assert path.read_text(encoding="utf-8") == "precious\n"


def test_cli_simulate_jsonl_write_error_is_one_line() -> None:
    """/dev/full opens but every write fails (ENOSPC) while the hands are played."""
    line = _assert_one_line_error(
        _cli("simulate", "--games", "50", "--jsonl", "/dev/full"), "simulate"
    )
    assert "No space left on device" in line


def test_cli_simulate_stdout_write_error_is_one_line() -> None:
    with open("/dev/full", "w") as full:
        out = subprocess.run(
            [sys.executable, "-m", "bot", "simulate", "--games", "2"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    line = _assert_one_line_error(out, "simulate")
    assert "cannot write to standard output" in line


def test_cli_simulate_any_seed_text_is_a_seed() -> None:
    for seed in ("--5", "9" * 5000, "٣"):
        out = _cli("simulate", "--games", "1", f"--seed={seed}", "--players", "simple")
        assert out.returncode == 0, out.stderr[-500:]
        assert json.loads(out.stdout)["seed"] == seed


def _closed_early(args: list[str], read_lines: int) -> tuple[int, list[str], str]:
    """Run `python -m bot ARGS` into a real pipe, read `read_lines` lines (0: none), then close
    the reading end as `head` does. Returns (exit status, lines read, stderr)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    lines = [proc.stdout.readline() for _ in range(read_lines)]
    proc.stdout.close()
    try:
        err = proc.stderr.read()
        code = proc.wait(timeout=120)
    finally:
        proc.kill()
    return code, lines, err


def test_cli_simulate_jsonl_into_a_closed_pipe_ends_quietly() -> None:
    """`simulate --jsonl /dev/stdout | head -1`: records of 2000 hands are far more than a
    pipe holds, so the writer does meet the closed pipe."""
    code, lines, err = _closed_early(
        ["simulate", "--games", "2000", "--players", "random", "--jsonl", "/dev/stdout"], 1
    )
    assert json.loads(lines[0])["hand_index"] == 0
    assert "Traceback" not in err and "BrokenPipe" not in err and "Exception" not in err, err
    assert err == "" and code == 0


def test_cli_simulate_summary_into_a_closed_pipe_ends_quietly() -> None:
    code, lines, err = _closed_early(["simulate", "--games", "3"], 0)
    assert lines == []
    assert "Traceback" not in err and "BrokenPipe" not in err and "Exception" not in err, err
    assert err == "" and code == 0


# ---------------------------------------------------------------- export: bad input, bad output


def _ledger_db(tmp_path: object) -> str:
    import asyncio
    from datetime import UTC, datetime

    from storage import Database

    url = f"sqlite:///{tmp_path}/ledger.db"

    async def fill() -> None:
        async with await Database.open(url) as db:
            await db.ledger.record_ledger(
                -100, "t1:match", 1, "due", {1: 1, 2: -1}, {1: "Anna", 2: "Bo"}, datetime.now(UTC)
            )

    asyncio.run(fill())
    return url


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--chat", "99999999999999999999999"], "--chat wants a Telegram chat id"),
        (["--chat", "9223372036854775808"], "--chat wants a Telegram chat id"),
        (["--chat", "-100", "--epoch", "-1"], "--epoch must be a league epoch"),
        (["--chat", "-100", "--epoch", "99999999999999999999999"], "--epoch"),
    ],
)
def test_cli_export_refuses_out_of_range_numbers(
    tmp_path: object, args: list[str], message: str
) -> None:
    out = _cli("export", "--database", _ledger_db(tmp_path), *args)
    assert message in _assert_one_line_error(out, "export")


def test_cli_export_refuses_a_file_that_is_not_a_database(tmp_path: object) -> None:
    path = Path(str(tmp_path)) / "notes.db"
    path.write_text("not a database at all\n" * 100, encoding="utf-8")
    out = _cli("export", "--chat", "-100", "--database", f"sqlite:///{path}")
    assert "cannot read the database" in _assert_one_line_error(out, "export")


def test_cli_export_stdout_errors(tmp_path: object) -> None:
    url = _ledger_db(tmp_path)
    ok = _cli("export", "--chat", "-100", "--database", url, "--epoch", "0")
    assert ok.returncode == 0 and json.loads(ok.stdout)["chat_id"] == -100
    with open("/dev/full", "w") as full:
        out = subprocess.run(
            [sys.executable, "-m", "bot", "export", "--chat", "-100", "--database", url],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    assert "cannot write to standard output" in _assert_one_line_error(out, "export")
    code, _, err = _closed_early(["export", "--chat", "-100", "--database", url], 0)
    assert err == "" and code == 0

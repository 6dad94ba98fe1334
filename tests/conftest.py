"""The test suite's tiers and what several test files share.

Tiers: a test is `slow` when it starts the bot as a process, a browser or PostgreSQL, or plays
many games for a statistic (`SLOW_FILES`, `SLOW_TESTS`, and every test on the PostgreSQL
backend), and a sweep's configurations past each variant's first (`SWEEPS`);
`python -m pytest -m "not slow"` runs the rest, the quick tier for development. The
whole suite runs in parallel (pytest-xdist, README): the slow tests are collected first,
longest first, so that none of them starts last.

Fixtures: `rig`, a table service on a fresh database (the service tests:
tests/test_service_*.py, test_league_service.py, test_stats_service.py,
test_tournament_service.py); `fake`, the stand-in Bot API server, which must end with no
internal error (tests/test_fake_telegram.py, test_league_fake.py); `any_url`, an empty database
on each backend."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bench.rig.backends import BACKENDS, fresh_url
from bench.rig.telegram import FakeTelegram
from storage import Database
from tests.support.rig import Rig

# Compiled modules are cached (`__pycache__`, git-ignored) even where the environment says
# not to (PYTHONDONTWRITEBYTECODE): pytest rewrites every test module's asserts at each
# collection otherwise (about 10 s of each worker's time), and every bot process the tests
# start compiles the bot anew.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# Files whose every test is slow, longest first (measured; the order only spreads the work).
SLOW_FILES = (
    "test_e2e_kill.py",
    "test_e2e_turn.py",
    "test_e2e_robust.py",
    "test_multiworker.py",
    "test_e2e_timer.py",
    "test_review_e2e.py",
    "test_tournament_e2e.py",
    "test_miniapp_e2e.py",
    "test_miniapp_page.py",
    "test_miniapp_plate.py",
    "test_miniapp_queue.py",
    "test_miniapp_replay.py",
    "test_e2e.py",
    "test_e2e_group.py",
    "test_e2e_evening.py",
    "test_webhook.py",
    "test_stats_e2e.py",
    "test_league_e2e.py",
    "test_bench_smoke.py",
)
# Single tests that play many games (or decisions) for a statistic.
SLOW_TESTS = frozenset(
    {
        "test_both_backends_have_the_same_tables_and_columns",
        "test_hard_stops_once_its_estimates_are_precise_enough",
        "test_normal_outscores_easy_in_chiamata",
        "test_normal_keeps_its_high_briscole_in_chiamata",
        "test_normal_bids_looser_with_four_players",
        "test_normal_auction_stops_at_the_rank_the_strongest_hand_affords",
        "test_normal_two_draws_out_plays_close_to_the_best_card_over_every_world",
        "test_normal_beats_random_in_due",
        "test_hard_defender_loads_no_carico_onto_the_callers_side",
        "test_s7_6_hard_socio_stays_hidden_where_its_judgement_would",
        "test_close_calls_outside_chiamata_stop_at_a_number_of_worlds",
        "test_hard_stops_once_no_card_can_be_chosen_over_its_judgement",
        "test_singles_tournament_of_five_computers_across_a_restart",
        # ... and those that wait out a group's (shortened) minute in real time
        "test_after_a_burst_of_replies_the_table_keeps_changing",
        "test_two_workers_keep_to_one_call_a_second_into_a_private_chat",
        "test_a_worker_waits_for_room_before_taking_the_message_lock",
        "test_workers_space_the_edits_of_one_table_message",
        # ... and one that starts the bot, in a file of quick tests
        "test_polling_bot_serves_metrics_that_agree_with_telegram",
    }
)


# Sweeps over every variant's settings (and languages): the quick tier runs each variant's
# first configuration in each language, the whole suite every configuration.
SWEEPS = frozenset(
    {
        "test_random_hands_keep_every_invariant",
        "test_actions_outside_the_legal_list_are_refused",
        "test_render_random_hands",
        "test_every_record_replays_under_the_referee",
        "test_the_levels_records_replay_under_the_referee",
        "test_every_level_plays_every_variant_legally",
    }
)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` (pyproject's addopts): one worker per core for the quick tier, which
    computes; three per core when the slow tests run, which mostly wait on bots, browsers
    and timers (measured on 2 cores for the whole suite: 4 workers 677 s, the cores idle a
    third of the first three minutes while the long real-time tests held every worker; 6
    workers 555 s, both cores busy from the second minute on)."""
    cores = os.cpu_count() or 1
    quick = "not slow" in (config.option.markexpr or "")
    return cores if quick else 3 * cores


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "slow: starts the bot, a browser or PostgreSQL, or plays many games (tests/conftest.py)",
    )


def is_slow(item: pytest.Item) -> bool:
    if item.path.name in SLOW_FILES or getattr(item, "originalname", item.name) in SLOW_TESTS:
        return True
    callspec = getattr(item, "callspec", None)
    return callspec is not None and "postgresql" in callspec.params.values()


def sweep_rest(items: list[pytest.Item]) -> set[str]:
    """The node ids of the `SWEEPS` past each variant's first configuration in each language
    (in the order they are parametrized): slow."""
    seen: set[tuple[object, ...]] = set()
    rest: set[str] = set()
    for item in items:
        name = getattr(item, "originalname", item.name)
        params = getattr(item, "callspec", None)
        if name not in SWEEPS or params is None:
            continue
        key = (item.path, name, params.params.get("variant"), params.params.get("lang"))
        if key in seen:
            rest.add(item.nodeid)
        seen.add(key)
    return rest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the slow tests, and put them first, the longest files first."""
    rank = {name: i for i, name in enumerate(SLOW_FILES)}
    rest = sweep_rest(items)
    slow = {item.nodeid for item in items if is_slow(item) or item.nodeid in rest}
    for item in items:
        if item.nodeid in slow:
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: (item.nodeid not in slow, rank.get(item.path.name, len(rank))))


def pytest_sessionstart(session: pytest.Session) -> None:
    """`hard`'s compiled exact search (`bot.players.fastsolve`): loaded, or compiled the first
    time after an install (about 5 s) and cached on disk, before any test runs, so that no
    test's timing includes it (the bots' search workers then load it from the cache). With
    pytest-xdist this runs in the main process before the workers start, so the kernels are
    compiled once, not by every worker at the same time; beside it, `precompile`."""
    if os.environ.get(PRECOMPILING):
        return
    compiling = precompile(session.config)
    from bot.players import fastsolve

    fastsolve.warm()
    if compiling is not None:
        compiling.wait(timeout=120)


PRECOMPILING = "BRISCOLA_TESTS_PRECOMPILING"  # set in `precompile`'s own collection


def precompile(config: pytest.Config) -> subprocess.Popen[bytes] | None:
    """On a fresh clone, each pytest-xdist worker compiled every module and rewrote every
    test module's asserts at the same time (about 9 s of a core each: six workers, 25 s of
    the suite's start) and the first bots compiled the bot too: one collection does it
    first, the cached result then serves every worker and bot. Nothing when the cache is
    there (each test module's rewritten form newer than it), or without workers."""
    if hasattr(config, "workerinput") or getattr(config.option, "dist", "no") == "no":
        return None
    here = Path(__file__).parent
    tag = f"{sys.implementation.cache_tag}-pytest-{pytest.__version__}"

    def cached(test: Path) -> bool:
        pyc = here / "__pycache__" / f"{test.stem}.{tag}.pyc"
        return pyc.exists() and pyc.stat().st_mtime >= test.stat().st_mtime

    if all(cached(test) for test in here.glob("test_*.py")):
        return None
    return subprocess.Popen(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", str(here)],
        env={**os.environ, PRECOMPILING: "1"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    """A table service on a fresh database file, closed (service, then database) after."""
    url = f"sqlite:///{tmp_path / 't.db'}"
    db = await Database.open(url)
    r = Rig(db, url)
    yield r
    await r.svc.close()
    await db.close()


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as server:
        yield server
        assert not server.internal_errors, server.internal_errors


@pytest.fixture(params=BACKENDS)
def any_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database on each backend in turn: SQLite, then PostgreSQL (issue 15)."""
    return fresh_url(request.param, tmp_path)

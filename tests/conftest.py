"""Fixtures shared by several test files: `rig`, a table service on a fresh database (the
service tests: tests/test_service_*.py, test_league_service.py, test_stats_service.py,
test_tournament_service.py); `fake`, the stand-in Bot API server, which must end with no
internal error (tests/test_fake_telegram.py, test_league_fake.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from storage import Database
from tests.support.backends import BACKENDS, fresh_url
from tests.support.rig import Rig
from tests.support.telegram import FakeTelegram


def pytest_sessionstart(session: pytest.Session) -> None:
    """`hard`'s compiled exact search (`bot.players.fastsolve`): loaded, or compiled the first
    time after an install (about 10 s) and cached on disk, before any test runs, so that no
    test's timing includes it (the bots' search workers then load it from the cache)."""
    from bot.players import fastsolve

    fastsolve.warm()


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

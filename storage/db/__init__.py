"""The bot's database: every SQL statement of the bot, written once for both backends.

`Database.open(url)` picks the backend from the URL: SQLite (`storage.sqlite`, the embedded
default) or PostgreSQL (`storage.postgres`); `storage.backend` says what a backend provides
and how transactions behave. The SQL here is the common dialect of the two: `?`
placeholders, `ON CONFLICT`, `CAST(... AS BIGINT)` where PostgreSQL would widen a type.
Timestamps are stored as ISO-8601 UTC text and returned as aware datetimes.

`Database` is one class for its callers, written as one class per section, each in its own
module on the shared `Store` (`base`: the backend, opening, transactions):

- `tables`: a table's row and move log, and what several workers agree on through it;
- `messages`: the players' hand messages and what each Telegram message shows;
- `updates`: webhook updates applied once;
- `people`: users and chats;
- `tournaments`: tournaments and their fixtures;
- `ledger`: the zero-sum ledger, its seasons, undos and payments;
- `stats`: the records of play behind stats and ratings;
- `replays`: a finished hand's moves and its review, for the Mini App's replay.
"""

from __future__ import annotations

from storage.backend import BACKGROUND, NORMAL, URGENT, Backend
from storage.db.base import describe_url, driver_errors, utc_iso
from storage.db.ledger import LedgerStore
from storage.db.messages import MessageStore
from storage.db.people import PeopleStore
from storage.db.replays import ReplayStore
from storage.db.stats import StatsStore
from storage.db.tables import _ACTIVE_SQL as _ACTIVE_SQL
from storage.db.tables import TableStore
from storage.db.tables import next_at as next_at
from storage.db.tournaments import TournamentStore
from storage.db.updates import UpdateStore
from storage.sqlite import sqlite_path

# storage.db also gives `next_at` and `_ACTIVE_SQL` (a test reads it), as before the split
__all__ = [
    "BACKGROUND",
    "NORMAL",
    "URGENT",
    "Database",
    "describe_url",
    "driver_errors",
    "sqlite_path",
    "utc_iso",
]


class Database(
    TableStore,
    MessageStore,
    UpdateStore,
    PeopleStore,
    TournamentStore,
    LedgerStore,
    StatsStore,
    ReplayStore,
):
    """Open with `await Database.open(url)`; close with `await db.close()` (or `async with`).
    A caller reaches a section through its part (`db.ledger.balances(chat_id)`); each part
    is, for now, the database itself."""

    def __init__(self, backend: Backend) -> None:
        super().__init__(backend)
        self.tables: TableStore = self
        self.messages: MessageStore = self
        self.updates: UpdateStore = self
        self.people: PeopleStore = self
        self.tournaments: TournamentStore = self
        self.ledger: LedgerStore = self
        self.stats: StatsStore = self
        self.replays: ReplayStore = self

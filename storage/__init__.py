"""Storage: every SQL statement of the bot lives here, on SQLite (aiosqlite, the default) or
PostgreSQL (asyncpg), chosen by the database URL.

Nothing in this package imports telegram or the handlers. Open with
`db = await Database.open(settings.database_url)`; see `storage.db` for the concurrency rules.
"""

from bot.table.status import TableStatus
from storage.db import Database, sqlite_path
from storage.errors import (
    LedgerNotZeroSum,
    SchemaTooNew,
    StaleMove,
    StorageError,
    TableClosed,
    TableExists,
    TableNotFound,
)
from storage.migrations import MIGRATIONS, SCHEMA_VERSION, migrate, schema_version
from storage.models import (
    Balance,
    LedgerHand,
    LedgerRecord,
    Move,
    PrivateMessage,
    TableRow,
    UpdateClaim,
    UserRow,
)

# what the other packages take from `storage`; the rest is imported from its module
__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "Balance",
    "Database",
    "LedgerHand",
    "LedgerNotZeroSum",
    "LedgerRecord",
    "Move",
    "PrivateMessage",
    "SchemaTooNew",
    "StaleMove",
    "StorageError",
    "TableClosed",
    "TableExists",
    "TableNotFound",
    "TableRow",
    "TableStatus",
    "UpdateClaim",
    "UserRow",
    "migrate",
    "schema_version",
    "sqlite_path",
]

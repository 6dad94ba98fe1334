"""Storage: every SQL statement of the bot lives here (SQLite through aiosqlite).

Nothing in this package imports telegram or the handlers. Open with
`db = await Database.open(settings.database_url)`; see `storage.db` for the concurrency rules.
"""

from storage.db import BUSY_TIMEOUT_MS, Database, sqlite_path, utc_iso
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
    ACTIVE_STATUSES,
    TABLE_STATUSES,
    UNSET,
    Balance,
    ChatRow,
    LedgerHand,
    LedgerRecord,
    Move,
    MoveRow,
    PrivateMessage,
    TableRow,
    TableStatus,
    Unset,
    UserRow,
)

__all__ = [
    "ACTIVE_STATUSES",
    "BUSY_TIMEOUT_MS",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "TABLE_STATUSES",
    "UNSET",
    "Balance",
    "ChatRow",
    "Database",
    "LedgerHand",
    "LedgerNotZeroSum",
    "LedgerRecord",
    "Move",
    "MoveRow",
    "PrivateMessage",
    "SchemaTooNew",
    "StaleMove",
    "StorageError",
    "TableClosed",
    "TableExists",
    "TableNotFound",
    "TableRow",
    "TableStatus",
    "Unset",
    "UserRow",
    "migrate",
    "schema_version",
    "sqlite_path",
    "utc_iso",
]

"""A table's status: where it is in its life. The values are what storage keeps in the
`tables.status` column."""

from __future__ import annotations

from enum import StrEnum
from typing import Final


class TableStatus(StrEnum):
    """A table's status: the values are what the `tables.status` column stores."""

    LOBBY = "lobby"
    PLAYING = "playing"
    FINISHED = "finished"
    CANCELLED = "cancelled"


TABLE_STATUSES: Final[tuple[TableStatus, ...]] = tuple(TableStatus)
ACTIVE_STATUSES: Final[tuple[TableStatus, ...]] = (TableStatus.LOBBY, TableStatus.PLAYING)

"""What storage takes and hands back for stats and ratings: the table layer's records of play
(`bot.table.plays`), stored as they are, and the reviews' costs (issue 51)."""

from __future__ import annotations

from bot.table.plays import (
    FAMILIES,
    ROLES,
    Family,
    PlayRecord,
    ReviewCost,
    ReviewSum,
    Role,
    StoredPlay,
)

__all__ = [
    "FAMILIES",
    "ROLES",
    "Family",
    "PlayRecord",
    "ReviewCost",
    "ReviewSum",
    "Role",
    "StoredPlay",
]

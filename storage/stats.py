"""What storage takes and hands back for stats and ratings: the table layer's records of play
(`bot.table.plays`), stored as they are."""

from __future__ import annotations

from bot.table.plays import FAMILIES, Family, PlayRecord, StoredPlay

__all__ = ["FAMILIES", "Family", "PlayRecord", "StoredPlay"]

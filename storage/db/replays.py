"""A finished hand as the Mini App's replay reads it (issue 51.3): its moves from the log, and
the review the bot made of it when it ended (`hand_reviews`), kept so that the replay shows
the review's marks without judging the hand again.
"""

from __future__ import annotations

from storage.backend import BACKGROUND, Backend
from storage.db.base import _now


class ReplayStore:
    """A hand's moves and its review."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    async def hand_moves(self, table_id: int, hand_index: int) -> list[tuple[int, int]]:
        """(seat, action) of each move of the table's hand `hand_index`, in the order made."""
        async with self.backend.read() as conn:
            rows = await conn.all(
                "SELECT seat, action FROM moves WHERE table_id = ? AND hand_index = ?"
                " ORDER BY move_no",
                (table_id, hand_index),
            )
        return [(r["seat"], r["action"]) for r in rows]

    async def save_hand_review(self, table_id: int, hand_index: int, review_json: str) -> None:
        """Keep a finished hand's review (the first one written stays: a hand is reviewed
        once, by the worker that stored its last move)."""
        async with self.backend.write(BACKGROUND) as conn:
            await conn.execute(
                "INSERT INTO hand_reviews (table_id, hand_index, review_json, created_at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (table_id, hand_index) DO NOTHING",
                (table_id, hand_index, review_json, _now()),
            )

    async def hand_review(self, table_id: int, hand_index: int) -> str | None:
        """The review kept for the hand (JSON), or None (not reviewed: the table's setting
        was off, the review was skipped under load or took too long)."""
        async with self.backend.read() as conn:
            row = await conn.one(
                "SELECT review_json FROM hand_reviews WHERE table_id = ? AND hand_index = ?",
                (table_id, hand_index),
            )
        return None if row is None else str(row["review_json"])

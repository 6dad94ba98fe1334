"""A finished hand for the Mini App's replay (issue 51.3): its moves read from the log and its
review as kept when it ended, played again by the table layer (`bot.table.replay`). Whether
the viewer may see the table is the Mini App's to check; whether the hand is over is checked
here before anything of it is read.
"""

from __future__ import annotations

from bot.table.replay import PlayedHand, finished_record, replay_hand
from bot.table.table import Table
from storage import Database


class Replays:
    """Finished hands, played again from the move log."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def hand(self, table: Table, hand_index: int) -> PlayedHand:
        """Hand `hand_index` of `table` (as stored now), or `bot.table.replay.ReplayError`:
        the hand still being played is refused before its moves are read."""
        finished_record(table, hand_index)
        moves = await self.db.replays.hand_moves(table.table_id, hand_index)
        review = await self.db.replays.hand_review(table.table_id, hand_index)
        return replay_hand(table, hand_index, moves, review)

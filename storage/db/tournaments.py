"""Tournaments (RULES §11): at most one registering or running per chat, its fixtures and
results, each change checked against the version it was read at; a chat's newest
tournament, whatever its status (what /torneo shows once the last one is over).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from storage.backend import Backend, Conn, Row
from storage.db.base import _dt, _now, ensure_chat, from_row
from storage.errors import Conflict, StaleMove, TableNotFound
from storage.models import UNSET, Unset
from storage.tournaments import (
    TOURNAMENT_STATUSES,
    FixtureRow,
    NewFixture,
    TournamentMatch,
    TournamentRow,
)


class TournamentStore:
    """Tournaments and their fixtures."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    @staticmethod
    async def _tournament(conn: Conn, row: Row) -> TournamentRow:
        fixtures = await conn.all(
            "SELECT * FROM tournament_matches WHERE tournament_id = ? ORDER BY match_no",
            (row["tournament_id"],),
        )
        return from_row(
            TournamentRow,
            row,
            counts=bool(row["counts"]),
            fixtures=tuple(
                from_row(
                    FixtureRow, f, finished_at=_dt(f["finished_at"]) if f["finished_at"] else None
                )
                for f in fixtures
            ),
        )

    async def create_tournament(
        self,
        chat_id: int,
        organiser_id: int,
        organiser_name: str,
        lang: str | None,
        points_json: str,
        teams_json: str,
        variant: str = "quattro",
    ) -> TournamentRow | None:
        """A new tournament of `variant` (quattro: pairs; a 2-player variant: singles),
        registering (version 0); None if the chat has one registering or running already."""
        now = _now()
        async with self.backend.write() as conn:
            await ensure_chat(conn, chat_id)
            try:
                async with conn.guarded():
                    tournament_id = await conn.insert(
                        "INSERT INTO tournaments (chat_id, organiser_id, organiser_name, status,"
                        " lang, variant, points_json, teams_json, created_at, updated_at)"
                        " VALUES (?, ?, ?, 'registering', ?, ?, ?, ?, ?, ?)",
                        (
                            chat_id,
                            organiser_id,
                            organiser_name,
                            lang,
                            variant,
                            points_json,
                            teams_json,
                            now,
                            now,
                        ),
                        "tournament_id",
                    )
            except Conflict:  # tournaments_one_active_per_chat
                return None
            row = await conn.one(
                "SELECT * FROM tournaments WHERE tournament_id = ?", (tournament_id,)
            )
            assert row is not None
            return await self._tournament(conn, row)

    async def active_tournament(self, chat_id: int) -> TournamentRow | None:
        """The chat's tournament registering or running, if any."""
        async with self.backend.read() as conn:
            row = await conn.one(
                "SELECT * FROM tournaments WHERE chat_id = ?"
                " AND status IN ('registering', 'running')",
                (chat_id,),
            )
            return None if row is None else await self._tournament(conn, row)

    async def last_tournament(self, chat_id: int) -> TournamentRow | None:
        """The chat's newest tournament, whatever its status; None if it never had one."""
        async with self.backend.read() as conn:
            row = await conn.one(
                "SELECT * FROM tournaments WHERE chat_id = ? ORDER BY tournament_id DESC LIMIT 1",
                (chat_id,),
            )
            return None if row is None else await self._tournament(conn, row)

    async def running_tournaments(self) -> list[TournamentRow]:
        """Every running tournament, oldest first (what a restarted bot carries on)."""
        async with self.backend.read() as conn:
            rows = await conn.all(
                "SELECT * FROM tournaments WHERE status = 'running' ORDER BY tournament_id",
            )
            return [await self._tournament(conn, r) for r in rows]

    async def tournament_tables(self, chat_id: int) -> dict[int, TournamentMatch]:
        """The chat's tables that played (or play) a tournament's match, by table id: a
        ledger entry of such a table (`table_id`) is that match's. A tournament is numbered
        among the chat's tournaments that started (had a schedule), oldest first. A match
        cancelled and played again names its new table only."""
        async with self.backend.read() as conn:
            rows = await conn.all(
                """
                SELECT m.table_id, m.tournament_id, m.match_no,
                    (SELECT COUNT(*) FROM tournaments t2
                     WHERE t2.chat_id = t.chat_id AND t2.tournament_id <= t.tournament_id
                     AND EXISTS (SELECT 1 FROM tournament_matches m2
                                 WHERE m2.tournament_id = t2.tournament_id)) AS number
                FROM tournament_matches m
                JOIN tournaments t ON t.tournament_id = m.tournament_id
                WHERE t.chat_id = ? AND m.table_id IS NOT NULL
                """,
                (chat_id,),
            )
        return {
            int(r["table_id"]): TournamentMatch(
                int(r["table_id"]), int(r["tournament_id"]), int(r["number"]), int(r["match_no"])
            )
            for r in rows
        }

    async def update_tournament(
        self,
        tournament_id: int,
        expected_version: int,
        *,
        status: str | None = None,
        teams_json: str | None = None,
        points_json: str | None = None,
        counts: bool | None = None,
        message_id: int | Unset | None = UNSET,
        schedule: Sequence[NewFixture] = (),
        table: tuple[int, int | None, str | None] | None = None,
        result: tuple[int, int, int, int, int] | None = None,
    ) -> int:
        """In one transaction: check the stored version is `expected_version` (else
        StaleMove, nothing written), set the columns given (`counts`: §10.5), write the
        `schedule` (when the tournament starts), a match's table (`table`: match_no, table_id
        or None, seats_json) and a match's result (`result`: match_no, hands_a, hands_b,
        cards_a, cards_b; only once). Returns the new version."""
        if status is not None and status not in TOURNAMENT_STATUSES:
            raise ValueError(f"unknown tournament status {status!r}")
        changes: dict[str, Any] = {}
        if status is not None:
            changes["status"] = status
        if teams_json is not None:
            changes["teams_json"] = teams_json
        if points_json is not None:
            changes["points_json"] = points_json
        if counts is not None:
            changes["counts"] = int(counts)
        if not isinstance(message_id, Unset):
            changes["message_id"] = message_id
        now = _now()
        changes["updated_at"] = now
        changes["version"] = expected_version + 1
        assignments = ", ".join(f"{col} = ?" for col in changes)
        async with self.backend.write() as conn:
            changed = await conn.execute(
                f"UPDATE tournaments SET {assignments} WHERE tournament_id = ? AND version = ?",
                (*changes.values(), tournament_id, expected_version),
            )
            if changed != 1:
                row = await conn.one(
                    "SELECT version FROM tournaments WHERE tournament_id = ?",
                    (tournament_id,),
                )
                if row is None:
                    raise TableNotFound(tournament_id)
                raise StaleMove(tournament_id, expected_version, row["version"])
            for f in schedule:
                await conn.execute(
                    "INSERT INTO tournament_matches (tournament_id, match_no, round, team_a,"
                    " team_b) VALUES (?, ?, ?, ?, ?)",
                    (tournament_id, f.match_no, f.round, f.team_a, f.team_b),
                )
            if table is not None:
                await conn.execute(
                    "UPDATE tournament_matches SET table_id = ?, seats_json = ?"
                    " WHERE tournament_id = ? AND match_no = ? AND hands_a IS NULL",
                    (table[1], table[2], tournament_id, table[0]),
                )
            if result is not None:
                changed = await conn.execute(
                    "UPDATE tournament_matches SET hands_a = ?, hands_b = ?, cards_a = ?,"
                    " cards_b = ?, finished_at = ?"
                    " WHERE tournament_id = ? AND match_no = ? AND hands_a IS NULL",
                    (*result[1:], now, tournament_id, result[0]),
                )
                if changed != 1:  # recorded already: nothing of this write stands
                    raise StaleMove(tournament_id, expected_version, expected_version)
        return expected_version + 1

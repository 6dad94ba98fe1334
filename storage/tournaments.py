"""The rows of a tournament (RULES §11) as `Database` returns them (`storage.db.tournaments`):
plain values, the JSON left for `bot.table.tournament` to read."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Final

TOURNAMENT_STATUSES: Final = ("registering", "running", "finished", "cancelled")


@dataclass(frozen=True, slots=True)
class FixtureRow:
    match_no: int
    round: int
    team_a: int
    team_b: int
    table_id: int | None
    seats_json: str | None
    hands_a: int | None
    hands_b: int | None
    cards_a: int | None
    cards_b: int | None
    finished_at: datetime | None


@dataclass(frozen=True, slots=True)
class TournamentRow:
    tournament_id: int
    chat_id: int
    organiser_id: int
    organiser_name: str
    status: str
    lang: str | None
    points_json: str
    teams_json: str
    message_id: int | None
    version: int
    variant: str  # quattro (pairs) or a 2-player variant (singles)
    fixtures: tuple[FixtureRow, ...]
    counts: bool = False  # §10.5: its matches with a computer at the table write the ledger


@dataclass(frozen=True, slots=True)
class TournamentMatch:
    """A table that played a tournament's match (what /export marks): the tournament, the
    group's how-manieth tournament it is (1 for its first one that started), and the
    match's number in the schedule (0-based)."""

    table_id: int
    tournament_id: int
    number: int
    match_no: int


@dataclass(frozen=True, slots=True)
class NewFixture:
    match_no: int
    round: int
    team_a: int
    team_b: int

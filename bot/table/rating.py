"""Ratings: a multi-team Bayesian rating with `openskill`'s Plackett-Luce model, one
per variant family (`bot.table.plays.FAMILIES`: one against one; two teams; three or more
sides; chiamata), per group and global. Pure: no I/O.

Why openskill rather than a hand-rolled Elo: teams of unequal size (a chiamata hand is the
chiamante and the socio against three, or the chiamante alone against four, §7) and three or
more sides (§5.4, §9) are what Plackett-Luce rates natively, and each rating carries its own
uncertainty (sigma), which is what "provisional" means in words.

What is rated, in the order it finished (then table, then hand, so the same history always gives
the same ratings whatever order it is read in):

- chiamata: every hand played to the end (§10.1: the ledger is hand by hand), the chiamante's
  side against the defenders;
- the other variants: every finished match (§10.2), side against side, the winners first (a
  fixed5 tie, §4.3: the tied sides share first place).

A game with a computer player is not rated (RULES §10.5's spirit: a computer neither rates nor
is rated, and a person's rating does not move for a computer's play). A hand or match whose
ledger entry an admin undid is not rated either (the caller leaves it out of `events`).

Shown: the conservative `ordinal` (mu - 3 sigma, 0 for a newcomer) on a familiar, always
positive scale (`Rating.shown`: 1000 + 40 × ordinal), and "provisional" while a person has fewer
than `PROVISIONAL_GAMES` rated games in that family. The model's name is said only in /help.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

from openskill.models import PlackettLuce

from bot.table.stats import HandView, MatchView

PROVISIONAL_GAMES: Final = 10
"""Under this many rated games (chiamata: hands) in a family, a rating is provisional."""

_MODEL: Final = PlackettLuce()

SHOWN_BASE: Final = 1000
SHOWN_SCALE: Final = 40


@dataclass(frozen=True, slots=True)
class Event:
    """One rated game: the chat it was played in, its family, each team's user ids, and each
    team's rank (0 the winners)."""

    chat_id: int
    family: str
    finished_at: datetime
    table_id: int
    hand_index: int  # -1: a match
    teams: tuple[tuple[int, ...], ...]
    ranks: tuple[int, ...]

    @property
    def order(self) -> tuple[datetime, int, int, int]:
        return (self.finished_at, self.chat_id, self.table_id, self.hand_index)


def _teams(
    users: tuple[int | None, ...], side_of: tuple[int, ...], winners: tuple[int, ...]
) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]] | None:
    sides = sorted(set(side_of))
    teams: list[tuple[int, ...]] = []
    for side in sides:
        members = tuple(u for u, s in zip(users, side_of, strict=True) if s == side)
        if any(u is None for u in members):
            return None
        teams.append(tuple(u for u in members if u is not None))
    if len(teams) < 2 or not winners:
        return None
    ranks = tuple(0 if side in winners else 1 for side in sides)
    if len(set(ranks)) < 2:
        return None
    return tuple(teams), ranks


def events(chat_id: int, hands: Iterable[HandView], matches: Iterable[MatchView]) -> list[Event]:
    """The rated games among a chat's records (see the module's docstring)."""
    out: list[Event] = []
    for h in hands:
        if h.family != "chiamata" or not h.played or h.computers:
            continue
        found = _teams(h.users, h.side_of, h.winning_sides)
        if found is not None:
            out.append(Event(chat_id, h.family, h.finished_at, h.table_id, h.hand_index, *found))
    for m in matches:
        if m.family == "chiamata" or m.computers:
            continue
        found = _teams(m.users, m.side_of, m.winners)
        if found is not None:
            out.append(Event(chat_id, m.family, m.finished_at, m.table_id, -1, *found))
    return out


@dataclass(frozen=True, slots=True)
class Rating:
    """A person's rating in a family: mu, sigma, the conservative `ordinal` shown, and how
    many rated games it rests on."""

    mu: float
    sigma: float
    games: int

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES

    @property
    def shown(self) -> int:
        """The rating as people read it: `SHOWN_BASE` + `SHOWN_SCALE` × ordinal, rounded, never
        below 0 (a newcomer has 1000; one point of ordinal, about a third of a newcomer's
        uncertainty, is 40): a familiar, always-positive number, never mistaken for a debt."""
        return max(0, round(SHOWN_BASE + SHOWN_SCALE * self.ordinal))


NEWCOMER: Final = Rating(_MODEL.mu, _MODEL.sigma, 0)
"""Everyone's rating before their first game (ordinal 0)."""


@dataclass
class Ratings:
    """Every rating of one scope (a group, or every group: global), per family, and each
    person's rating after each of their games (`history`, for the chart)."""

    by_family: dict[str, dict[int, Rating]] = field(default_factory=dict)
    history: dict[tuple[str, int], list[tuple[datetime, float]]] = field(default_factory=dict)

    def get(self, family: str, user_id: int) -> Rating | None:
        return self.by_family.get(family, {}).get(user_id)

    def leaderboard(self, family: str) -> list[tuple[int, Rating]]:
        """Best first: settled ratings before provisional ones, then by ordinal, then by
        more games, then by user id (a stable order)."""
        rows = list(self.by_family.get(family, {}).items())
        rows.sort(key=lambda r: (r[1].provisional, -r[1].ordinal, -r[1].games, r[0]))
        return rows


def rate(history: Iterable[Event]) -> Ratings:
    """The ratings after `history`, played in its own order (`Event.order`), whatever the
    order it is given in: the same history always gives the same ratings."""
    out = Ratings()
    for ev in sorted(history, key=lambda e: (e.order, e.family, e.teams, e.ranks)):
        table = out.by_family.setdefault(ev.family, {})
        teams = [
            [
                _MODEL.rating(mu=table[u].mu, sigma=table[u].sigma)
                if u in table
                else _MODEL.rating()
                for u in team
            ]
            for team in ev.teams
        ]
        rated = _MODEL.rate(teams, ranks=[float(r) for r in ev.ranks])
        for team, new in zip(ev.teams, rated, strict=True):
            for u, r in zip(team, new, strict=True):
                games = table[u].games + 1 if u in table else 1
                table[u] = Rating(float(r.mu), float(r.sigma), games)
                out.history.setdefault((ev.family, u), []).append(
                    (ev.finished_at, table[u].ordinal)
                )
    return out

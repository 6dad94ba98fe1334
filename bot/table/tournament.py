"""A tournament in a group (RULES §11), pure: no I/O, no Telegram.

Teams of two register (a person, or a computer player the organiser adds); every team meets
every other once ("all'italiana", §11.1) in a round-robin schedule built by the circle method
(`round_robin`: deterministic given the teams' order; with an odd count of teams one team
rests each round, each team exactly once). A match is 5 hands of Briscola a quattro, all
played (`fixed5`, §4.3; a 60-60 hand is replayed, §4.4), and earns match points by hands won
(`DEFAULT_POINTS`, §11.2, configurable). The standings sum them (§11.3) with these
tie-breaks, in order: match points, hands won, card points, the match points earned in the
matches among the tied teams (head to head), then registration order (`standings`).

A group has one active table at a time, so the service plays the matches one after another,
in schedule order; a team's members may change between matches (§11.3): a member leaves
their team, and anyone else takes the free place with the team's button (a place still free
when the team's match opens is played by a computer, `normal`). The members who played each
match are kept with it (`Fixture.seats`).

The ledger (§10.5): a match with a computer at the table writes to the group's ledger only if
the organiser chose so before the start (`counts`, off by default, as a table's setting); then
only the people's deltas. A match of people only always does (§10.2).

Every operation either succeeds or raises `TableError` (a message key of `bot.i18n`) and leaves
the tournament unchanged.

Singles (`/torneo due`): in a 2-player variant (`SINGLES_VARIANTS`) every "team" is
one player (`Tournament.team_size` 1): the same registration, schedule, matches of 5 hands,
points and standings, one against one. The texts that say "team" have a "players" version
(`Tournament.key`: the key with `_solo`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.players import DEFAULT_LEVEL
from bot.table.table import BOT_NAMES, TableError

REGISTERING = "registering"
RUNNING = "running"
DONE = "finished"
CANCELLED = "cancelled"

HANDS = 5  # §11.2: a match is five hands, all played
# §11.2: match points by hands won, indexed by the hands a team won (0..5):
# 0-5: 0, 1-4: 2, 2-3: 3, 3-2: 4, 4-1: 5, 5-0: 7.
DEFAULT_POINTS: tuple[int, ...] = (0, 2, 3, 4, 5, 7)
MIN_TEAMS = 2
MAX_TEAMS = 12  # a round robin of 12 teams is 66 matches: plenty for a group
TEAM_SIZE = 2
PAIRS_VARIANT = "quattro"
# the 2-player variants a tournament of single players plays (bot/engine/options.py)
SINGLES_VARIANTS = ("due", "briscolone", "scoperta", "coperta")
TOURNAMENT_VARIANTS = (PAIRS_VARIANT, *SINGLES_VARIANTS)
# the texts that name teams, with a version that names players (`Tournament.key`)
SOLO_KEYS = frozenset(
    {
        "tour_format",
        "tour_teams",
        "tour_team",
        "tour_team_named",
        "tour_reg_hint",
        "btn_tour_new",
        "btn_tour_join",
        "btn_tour_leave",
        "tour_free_hint",
        "tour_winner",
        "tour_started",
        "ok_tour_team",
        "ok_tour_left",
        "ok_tour_bot",
        "err_tour_in_team",
        "err_tour_too_many",
        "err_tour_no_team",
        "err_tour_team_full",
        "err_tour_not_in_team",
        "err_tour_few_teams",
    }
)


def team_size(variant: str) -> int:
    """Two per team in `quattro`, one in the 2-player variants."""
    return TEAM_SIZE if variant == PAIRS_VARIANT else 1


def round_robin(n: int) -> list[list[tuple[int, int]]]:
    """The rounds of a single round robin among teams 0..n-1 (circle method): n - 1 rounds
    when n is even, n when it is odd (a placeholder team makes the count even; whoever meets
    it rests that round). Every pair meets exactly once; each round is a matching; the order
    of the teams alone decides it. Sides alternate: the fixed team is first in even rounds."""
    if n < 2:
        return []
    slots: list[int | None] = list(range(n))
    if n % 2:
        slots.append(None)
    m = len(slots)
    rounds: list[list[tuple[int, int]]] = []
    for r in range(m - 1):
        pairs: list[tuple[int, int]] = []
        for i in range(m // 2):
            a, b = slots[i], slots[m - 1 - i]
            if a is None or b is None:
                continue
            pairs.append((a, b) if (i > 0 or r % 2 == 0) else (b, a))
        rounds.append(pairs)
        slots = [slots[0], slots[-1], *slots[1:-1]]  # every slot but the first turns
    return rounds


def byes(n: int, rounds: Sequence[Sequence[tuple[int, int]]]) -> list[list[int]]:
    """Per round, the teams that do not play (one per round when n is odd, else none)."""
    out = []
    for pairs in rounds:
        playing = {t for p in pairs for t in p}
        out.append([t for t in range(n) if t not in playing])
    return out


def check_points(points: Sequence[int]) -> tuple[int, ...]:
    """A table of match points by hands won (0..5): six whole numbers from 0 to 99, never
    fewer points for more hands won. Raises TableError otherwise."""
    pts = tuple(points)
    if len(pts) != HANDS + 1 or any(not 0 <= p <= 99 for p in pts):
        raise TableError("err_tour_points")
    if any(pts[i] > pts[i + 1] for i in range(HANDS)):
        raise TableError("err_tour_points")
    return pts


def match_points(hands_won: int, points: Sequence[int] = DEFAULT_POINTS) -> int:
    """§11.2: the match points of a team that won `hands_won` of the five hands."""
    if not 0 <= hands_won <= HANDS:
        raise ValueError(f"hands won must be 0..{HANDS}, not {hands_won}")
    return points[hands_won]


@dataclass(frozen=True, slots=True)
class Result:
    """A played match: hands won and card points of each side (a: seats 0 and 2)."""

    hands_a: int
    hands_b: int
    cards_a: int
    cards_b: int


@dataclass(frozen=True, slots=True)
class Standing:
    team: int  # index in registration order
    played: int
    won: int
    lost: int
    points: int  # match points (§11.3)
    hands: int  # hands won
    cards: int  # card points


def standings(
    n: int,
    matches: Sequence[tuple[int, int, Result]],
    points: Sequence[int] = DEFAULT_POINTS,
) -> list[Standing]:
    """The standings of teams 0..n-1 after `matches` (team a, team b, result), best first.
    Tie-breaks in order: match points, hands won, card points, head to head (the match
    points earned in the matches among the teams still tied), registration order."""
    pts, hands, cards, played, won = [0] * n, [0] * n, [0] * n, [0] * n, [0] * n
    for a, b, r in matches:
        for team, h, c, other in (
            (a, r.hands_a, r.cards_a, r.hands_b),
            (b, r.hands_b, r.cards_b, r.hands_a),
        ):
            pts[team] += match_points(h, points)
            hands[team] += h
            cards[team] += c
            played[team] += 1
            won[team] += int(h > other)

    def key(team: int) -> tuple[int, int, int]:
        return (-pts[team], -hands[team], -cards[team])

    order = sorted(range(n), key=key)
    out: list[int] = []
    i = 0
    while i < n:  # groups tied on the first three keys: head to head, then registration
        j = i
        while j < n and key(order[j]) == key(order[i]):
            j += 1
        group = set(order[i:j])
        h2h = dict.fromkeys(group, 0)
        for a, b, r in matches:
            if a in group and b in group:
                h2h[a] += match_points(r.hands_a, points)
                h2h[b] += match_points(r.hands_b, points)
        out.extend(sorted(group, key=lambda t: (-h2h[t], t)))
        i = j
    return [
        Standing(t, played[t], won[t], played[t] - won[t], pts[t], hands[t], cards[t]) for t in out
    ]


@dataclass
class Member:
    """A team's member: a person (user_id), or a computer player (user_id None, its first
    name and level)."""

    user_id: int | None
    name: str
    level: str | None = None
    lang: str | None = None

    @property
    def is_bot(self) -> bool:
        return self.user_id is None

    def to_json(self) -> dict[str, Any]:
        return {"user_id": self.user_id, "name": self.name, "level": self.level, "lang": self.lang}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Member:
        return cls(d["user_id"], d["name"], d.get("level"), d.get("lang"))


@dataclass
class Team:
    members: list[Member] = field(default_factory=list)
    size: int = TEAM_SIZE  # not stored: the tournament's variant decides it

    @property
    def full(self) -> bool:
        return len(self.members) >= self.size

    def to_json(self) -> list[dict[str, Any]]:
        return [m.to_json() for m in self.members]


@dataclass
class Fixture:
    """A scheduled match: its round, its teams (a sits at seats 0 and 2, b at 1 and 3; in
    singles a at 0, b at 1), the table that plays it once opened, the members seated (seat
    order), its result."""

    round: int
    a: int
    b: int
    table_id: int | None = None
    seats: list[Member] | None = None
    result: Result | None = None


@dataclass
class Tournament:
    tournament_id: int
    chat_id: int
    organiser_id: int
    organiser_name: str
    lang: str = "it"
    status: str = REGISTERING
    teams: list[Team] = field(default_factory=list)
    fixtures: list[Fixture] = field(default_factory=list)
    points: tuple[int, ...] = DEFAULT_POINTS
    message_id: int | None = None
    version: int = 0  # the stored version (storage bumps it on every write)
    variant: str = PAIRS_VARIANT  # quattro (pairs) or a 2-player variant (singles)
    counts: bool = False  # §10.5: its matches with a computer at the table write the ledger

    def __post_init__(self) -> None:
        if self.variant not in TOURNAMENT_VARIANTS:
            raise ValueError(f"no tournament of {self.variant!r}")
        for team in self.teams:
            team.size = self.team_size

    @property
    def team_size(self) -> int:
        return team_size(self.variant)

    @property
    def singles(self) -> bool:
        return self.team_size == 1

    def key(self, key: str) -> str:
        """The text `key`, in its "players" version in singles (`SOLO_KEYS`)."""
        return f"{key}_solo" if self.singles and key in SOLO_KEYS else key

    def _error(self, key: str, **kw: object) -> TableError:
        return TableError(self.key(key), **kw)

    # ------------------------------------------------------------------ registration

    def team_of(self, user_id: int) -> int | None:
        for i, team in enumerate(self.teams):
            if any(m.user_id == user_id for m in team.members):
                return i
        return None

    def _require(self, *statuses: str) -> None:
        if self.status not in statuses:
            raise TableError("err_tour_started" if self.status == RUNNING else "err_tour_none")

    def _check_free(self, user_id: int) -> None:
        team = self.team_of(user_id)
        if team is not None:
            raise self._error("err_tour_in_team", n=team + 1)

    def new_team(self, member: Member) -> int:
        """A person starts a new team (registration only). Returns its index."""
        self._require(REGISTERING)
        if member.user_id is not None:
            self._check_free(member.user_id)
        if len(self.teams) >= MAX_TEAMS:
            raise self._error("err_tour_too_many", n=MAX_TEAMS)
        self.teams.append(Team([member], self.team_size))
        return len(self.teams) - 1

    def join_team(self, index: int, member: Member) -> None:
        """A person takes a free place in team `index` (registration, or between matches:
        §11.3)."""
        self._require(REGISTERING, RUNNING)
        if not 0 <= index < len(self.teams):
            raise self._error("err_tour_no_team", n=index + 1)
        if member.user_id is not None:
            self._check_free(member.user_id)
        if self.teams[index].full:
            raise self._error("err_tour_team_full", n=index + 1)
        self.teams[index].members.append(member)

    def computer_name(self) -> str:
        """A first name for a new computer member, not used in the tournament yet."""
        taken = {w.lower() for team in self.teams for m in team.members for w in m.name.split()}
        free = [n for n in BOT_NAMES if n.lower() not in taken]
        if free:
            return free[0]
        k = 2
        while f"{BOT_NAMES[k % len(BOT_NAMES)]} {k}".lower() in {
            m.name.lower() for team in self.teams for m in team.members
        }:
            k += 1
        return f"{BOT_NAMES[k % len(BOT_NAMES)]} {k}"

    def add_computer(self, level: str = DEFAULT_LEVEL, index: int | None = None) -> int:
        """A computer player joins team `index`; without it, the newest team with a free
        place, else a new team. Returns the team's index."""
        member = Member(None, self.computer_name(), level)
        if index is None:
            free = [i for i, team in enumerate(self.teams) if not team.full]
            if free:
                index = free[-1]
            else:
                return self.new_team(member)
        self.join_team(index, member)
        return index

    def leave(self, user_id: int) -> int:
        """A person leaves their team. While registering an empty team goes (the others
        keep their order); once running the place stays free for someone else (§11.3).
        Returns the team's index."""
        self._require(REGISTERING, RUNNING)
        index = self.team_of(user_id)
        if index is None:
            raise self._error("err_tour_not_in_team")
        team = self.teams[index]
        team.members = [m for m in team.members if m.user_id != user_id]
        if self.status == REGISTERING and not team.members:
            del self.teams[index]
        return index

    def set_points(self, points: Sequence[int]) -> None:
        self._require(REGISTERING)
        self.points = check_points(points)

    def set_counts(self, counts: bool) -> None:
        """Whether its matches with a computer at the table write the group's ledger (§10.5:
        chosen before the start)."""
        self._require(REGISTERING)
        self.counts = counts

    @property
    def has_computers(self) -> bool:
        """A computer is a member of a team now (one may still take a free place later)."""
        return any(m.is_bot for team in self.teams for m in team.members)

    # ------------------------------------------------------------------ the play

    def start(self) -> None:
        """Close registration and draw up the schedule (every team complete)."""
        self._require(REGISTERING)
        if len(self.teams) < MIN_TEAMS:
            raise self._error("err_tour_few_teams", n=MIN_TEAMS)
        for i, team in enumerate(self.teams):
            if not team.full:
                raise self._error("err_tour_incomplete", n=i + 1)
        self.fixtures = [
            Fixture(r, a, b)
            for r, pairs in enumerate(round_robin(len(self.teams)))
            for a, b in pairs
        ]
        self.status = RUNNING

    @property
    def rounds(self) -> int:
        return 1 + max((f.round for f in self.fixtures), default=-1)

    def next_fixture(self) -> int | None:
        """The first match without a result (the one playing, or the next to open)."""
        for i, f in enumerate(self.fixtures):
            if f.result is None:
                return i
        return None

    def seats_for(self, index: int) -> list[Member]:
        """The seats of match `index` (§5.1 partners opposite: team a at 0 and 2, team b at 1
        and 3; in singles a at 0, b at 1); a place left free is played by a computer
        (`normal`)."""
        f = self.fixtures[index]
        seats: list[Member | None] = [None] * (2 * self.team_size)
        for side, team in ((0, f.a), (1, f.b)):
            members = list(self.teams[team].members)
            for k in range(self.team_size):
                seats[side + 2 * k] = members[k] if k < len(members) else None
        out: list[Member] = []
        taken = {m.name.lower() for m in seats if m is not None}
        for m in seats:
            if m is None:
                name = next((n for n in BOT_NAMES if n.lower() not in taken), BOT_NAMES[0])
                taken.add(name.lower())
                m = Member(None, name, DEFAULT_LEVEL)
            out.append(m)
        return out

    def record(self, index: int, result: Result) -> None:
        """The result of match `index` (once); the tournament is over after the last."""
        if self.status != RUNNING:
            raise TableError("err_tour_none")
        f = self.fixtures[index]
        if f.result is not None:
            raise TableError("err_tour_recorded")
        if result.hands_a + result.hands_b != HANDS or min(result.hands_a, result.hands_b) < 0:
            raise TableError("err_tour_recorded")
        f.result = result
        if self.next_fixture() is None:
            self.status = DONE

    def cancel(self) -> None:
        self._require(REGISTERING, RUNNING)
        self.status = CANCELLED

    def played(self) -> list[tuple[int, int, Result]]:
        return [(f.a, f.b, f.result) for f in self.fixtures if f.result is not None]

    def standings(self) -> list[Standing]:
        return standings(len(self.teams), self.played(), self.points)

    # ------------------------------------------------------------------ persistence

    def teams_json(self) -> str:
        return json.dumps([team.to_json() for team in self.teams])

    def points_json(self) -> str:
        return json.dumps(list(self.points))

    @staticmethod
    def teams_from_json(text: str, size: int = TEAM_SIZE) -> list[Team]:
        return [Team([Member.from_json(m) for m in team], size) for team in json.loads(text)]

    @staticmethod
    def seats_to_json(seats: list[Member]) -> str:
        return json.dumps([m.to_json() for m in seats])

    @staticmethod
    def seats_from_json(text: str | None) -> list[Member] | None:
        return None if text is None else [Member.from_json(m) for m in json.loads(text)]

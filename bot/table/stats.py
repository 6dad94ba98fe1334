"""Stats from the stored hand and match records: what a table writes when a hand ends,
and what /stats and /h2h compute from it. Pure: no I/O.

What is stored (`hand_data`, `match_data`): a finished hand's record (`bot.table.record`, the
`--jsonl` record: deal, auction, tricks, card points, result) plus each seat's user id (None for
a computer player) and what the group's ledger got per seat; a finished match's result (sides,
winners, hands won, the ledger's deltas). Only tables that write the group's ledger store them
(RULES §10.5: people only, or computer seats with "counts" on), so stats are about what counts.
Hands finished before the records existed (migration 6) count in no stat.

What counts, per person and variant (`player_stats`):

- games: finished matches they sat in; wins: matches their side won (a fixed5 tie for most
  hands won, §4.3, is a win for every tied side, as in the ledger, §10.2);
- hands: hands played to the end (a void hand, §4.1-4.2, or an all-pass redeal, §7.4, is not
  one); hands won; average card points: what their own tricks took, per hand;
- chiamata: how often they bid (at least one bid other than "pass" in an auction, redeals
  included), hands as chiamante and as socio (called by someone else) and how many of those
  their side won; cappotti made (their side won with a cappotto, §7.12) and suffered;
- biggest win: their largest single gain in the ledger (a chiamata hand, another variant's
  match); streak: their current run of wins (positive) or losses (negative), over the last
  results (chiamata: hands, §10.1; other variants: matches, §10.2).

What a hand's review stores (issue 51, `review_costs`), at any table of the group, computer
seats and tables off the ledger too: per seat, the points its decisions gave away (card
points; chiamata: the side's score, §7.12), for the person who made every move of the seat or
for a computer, with the seat's role in chiamata (§7.4-7.7). /stats averages them per reviewed
hand (`given_away`), next to the computers'.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bot.engine import HandState
from bot.engine.options import Rules
from bot.players.review_data import Review
from bot.table.ledger import hand_key, match_key
from bot.table.plays import (
    ROLES,
    Family,
    HandEnd,
    ReviewCost,
    ReviewSum,
    Role,
    StoredPlay,
    rated_family,
)
from bot.table.record import hand_record
from bot.table.table import Table


def family_of(rules: Rules) -> Family:
    """The family a variant as played is stored under (§5, §7, §9): chiamata; two sides (two
    players, two pairs, two threes); three or more sides (three players, three pairs, four
    single players). Rated and shown, two single players are apart (`rated_family`)."""
    if rules.chiamata:
        return "chiamata"
    return "two" if rules.n_sides == 2 else "multi"


# ---------------------------------------------------------------------- what a table stores


def writes_records(table: Table) -> bool:
    """Whether the table's finished hands are recorded for stats: it writes the group's
    ledger (people only, or computer seats with "counts" on, §10.5)."""
    return not table.computer_seats() or table.counts


def hand_data(table: Table) -> dict[str, Any]:
    """The record of the table's finished hand: `bot.table.record.hand_record` plus `users`
    (per seat, None for a computer), `computers` (their seats) and `counted` (per seat, what
    the group's ledger got for this hand: chiamata only, §10.1; zeros otherwise)."""
    state = table.hand
    assert state is not None and state.is_terminal()
    data = hand_record(state, players=[s.name for s in table.seats])
    data["users"] = [s.user_id for s in table.seats]
    data["computers"] = sorted(table.computer_seats())
    chiamata = table.options.rules().chiamata
    deltas = state.result().deltas
    data["counted"] = list(table.counted_deltas(deltas)) if chiamata else [0] * len(deltas)
    return data


def match_data(table: Table) -> dict[str, Any]:
    """The result of the table's finished match: per seat `users`, `names`, `side_of` (in
    chiamata every seat is its own side, §7.13), `counted` (what the ledger got for the
    match: §10.2; chiamata the sum of its hands, §10.1), and `winners` (sides), `hands_won`,
    `side_points`, `scores` (chiamata), `hands` (counted hands)."""
    match = table.match
    assert match is not None and match.over
    rules = match.rules
    n = rules.n_players
    return {
        "users": [s.user_id for s in table.seats],
        "names": [s.name for s in table.seats],
        "computers": sorted(table.computer_seats()),
        "side_of": list(range(n)) if rules.chiamata else list(rules.side_of),
        "winners": list(match.winners),
        "hands_won": list(match.hands_won),
        "side_points": list(match.side_points),
        "scores": list(match.scores),
        "hands": match.counted_hands(),
        "counted": list(table.counted_deltas(match.ledger_deltas())),
    }


def end_of_hand(table: Table, finished_at: datetime) -> HandEnd:
    """The table's hand has ended (`Table.finish_hand`, which it calls: the match records it):
    what the ledger and the stats store of it, computed here once."""
    assert table.hand is not None
    deltas = table.finish_hand()
    names = {s.ledger_id(): s.name for s in table.seats}
    records = writes_records(table) and table.match is not None
    return HandEnd(
        chat_id=table.chat_id,
        table_id=table.table_id,
        hand_index=table.hand.hand_index,
        variant=table.options.variant,
        family=family_of(table.options.rules()),
        chiamata=table.options.rules().chiamata,
        finished_at=finished_at,
        deltas=deltas,
        names={k: names[k] for k in deltas},
        hand=hand_data(table) if records else None,
        match=match_data(table) if records and table.match and table.match.over else None,
    )


# ---------------------------------------------------------------------- what a review stores


def role_of(hand: HandState, seat: int) -> Role | None:
    """`seat`'s role in a finished chiamata hand (RULES §7.4-7.7): the chiamante (also alone,
    §7.7), the socio, or one of the others; None in another variant."""
    if not hand.rules.chiamata:
        return None
    if seat == hand.caller:
        return "caller"
    if seat == hand.partner:
        return "partner"
    return "other"


def review_costs(
    end: HandEnd,
    hand: HandState,
    seats: Sequence[tuple[int | None, str | None]],
    movers: Sequence[tuple[int, int | None]],
    review: Review,
) -> list[ReviewCost]:
    """What each seat of a reviewed hand gave away (issue 51): the sum of its decisions'
    costs, for the one who played the seat. `seats`: (user_id, computer level) per seat as
    the hand ended; `movers`: who made each of the hand's moves, in order (seat, user_id;
    None: a computer, or the timer). A person's seat counts for them only when they made
    every move of it; a computer's seat for computers, with its level; a seat a computer
    played for a person (the timer, or while they were away) counts for nobody. None at all
    when the moves do not match the hand's actions."""
    if [s for s, _ in movers] != [s for s, _ in hand.actions]:
        return []
    out: list[ReviewCost] = []
    for seat, (user_id, level) in enumerate(seats):
        made = {uid for s, uid in movers if s == seat}
        if user_id is not None:
            if made != {user_id}:
                continue
            level = None
        elif level is None or made != {None}:
            continue
        decisions = [d for d in review.decisions if d.seat == seat]
        out.append(
            ReviewCost(
                chat_id=end.chat_id,
                table_id=end.table_id,
                hand_index=end.hand_index,
                seat=seat,
                variant=end.variant,
                ledger_key=(
                    hand_key(end.table_id, end.hand_index)
                    if end.chiamata
                    else match_key(end.table_id)
                ),
                user_id=user_id,
                level=level,
                role=role_of(hand, seat),
                cost=round(sum(d.cost for d in decisions), 4),
                decisions=len(decisions),
                finished_at=end.finished_at,
            )
        )
    return out


# ---------------------------------------------------------------------- what was stored


class _Seated:
    """What a hand's view and a match's share: the people at its seats."""

    __slots__ = ()
    users: tuple[int | None, ...]  # by seat

    def seat_of(self, user_id: int) -> int | None:
        return self.users.index(user_id) if user_id in self.users else None


@dataclass(frozen=True, slots=True)
class HandView(_Seated):
    """A stored hand record, as the stats read it."""

    table_id: int
    hand_index: int
    variant: str
    family: str  # as rated (`bot.table.plays.FAMILIES`)
    finished_at: datetime
    epoch: int  # the group's season (league epoch) when it finished
    users: tuple[int | None, ...]
    names: tuple[str, ...]
    side_of: tuple[int, ...]  # chiamata: 0 chiamante and socio, 1 the others
    winning_sides: tuple[int, ...]
    card_points: tuple[int, ...]
    counted: tuple[int, ...]
    void: bool
    redeal: bool
    cappotto: bool
    caller: int | None
    partner: int | None
    bidders: frozenset[int]  # seats with a bid other than "pass"
    auction: bool  # the hand had an auction (chiamata)
    computers: frozenset[int]

    @property
    def played(self) -> bool:
        """A hand played to the end that counts (not void, not an all-pass redeal)."""
        return not self.void and not self.redeal

    def won(self, seat: int) -> bool:
        return self.side_of[seat] in self.winning_sides

    @property
    def ledger_key(self) -> str:
        """The ledger entry this hand wrote or belongs to (§10.1, §10.2)."""
        if self.family == "chiamata":
            return hand_key(self.table_id, self.hand_index)
        return match_key(self.table_id)

    @classmethod
    def of(cls, play: StoredPlay) -> HandView:
        d = play.data
        result = d["result"]
        auction = d.get("auction") or []
        return cls(
            table_id=play.table_id,
            hand_index=int(play.hand_index or 0),
            variant=play.variant,
            family=rated_family(play.family, result["side_of"]),
            finished_at=play.finished_at,
            epoch=play.epoch,
            users=tuple(d["users"]),
            names=tuple(d.get("players") or [""] * len(d["users"])),
            side_of=tuple(result["side_of"]),
            winning_sides=tuple(result["winning_sides"]),
            card_points=tuple(d["card_points"]),
            counted=tuple(d.get("counted") or [0] * len(d["users"])),
            void=bool(result["void"]),
            redeal=bool(result["redeal"]),
            cappotto=bool(result["cappotto"]),
            caller=d.get("caller"),
            partner=d.get("partner"),
            bidders=frozenset(seat for seat, bid in auction if bid != "pass"),
            auction=bool(auction),
            computers=frozenset(d.get("computers") or ()),
        )


@dataclass(frozen=True, slots=True)
class MatchView(_Seated):
    """A stored match record, as the stats read it."""

    table_id: int
    variant: str
    family: str  # as rated (`bot.table.plays.FAMILIES`)
    finished_at: datetime
    epoch: int
    users: tuple[int | None, ...]
    names: tuple[str, ...]
    side_of: tuple[int, ...]
    winners: tuple[int, ...]
    counted: tuple[int, ...]
    computers: frozenset[int]

    def won(self, seat: int) -> bool:
        return self.side_of[seat] in self.winners

    @property
    def ledger_key(self) -> str:
        return match_key(self.table_id)

    @classmethod
    def of(cls, play: StoredPlay) -> MatchView:
        d = play.data
        return cls(
            table_id=play.table_id,
            variant=play.variant,
            family=rated_family(play.family, d["side_of"]),
            finished_at=play.finished_at,
            epoch=play.epoch,
            users=tuple(d["users"]),
            names=tuple(d["names"]),
            side_of=tuple(d["side_of"]),
            winners=tuple(d["winners"]),
            counted=tuple(d["counted"]),
            computers=frozenset(d.get("computers") or ()),
        )


def views(
    hands: Iterable[StoredPlay], matches: Iterable[StoredPlay], undone: Iterable[str] = ()
) -> tuple[list[HandView], list[MatchView]]:
    """The stored records as views, in the order they finished, without the hands and matches
    whose ledger entry an admin undid (`undone`: their ledger keys; /undo)."""
    gone = set(undone)
    hv = [h for h in map(HandView.of, hands) if h.ledger_key not in gone]
    mv = [m for m in map(MatchView.of, matches) if m.ledger_key not in gone]
    hv.sort(key=lambda h: (h.finished_at, h.table_id, h.hand_index))
    mv.sort(key=lambda m: (m.finished_at, m.table_id))
    return hv, mv


# ---------------------------------------------------------------------- /stats


@dataclass
class VariantStats:
    """One person's numbers in one variant (see the module's docstring)."""

    variant: str
    games: int = 0
    wins: int = 0
    hands: int = 0
    hands_won: int = 0
    card_points: int = 0
    auctions: int = 0
    bids: int = 0
    as_caller: int = 0
    caller_won: int = 0
    as_partner: int = 0
    partner_won: int = 0
    cappotti: int = 0
    cappotti_suffered: int = 0
    biggest_win: int = 0
    streak: int = 0
    results: list[bool] = field(default_factory=list, repr=False)

    @property
    def average_points(self) -> float:
        return self.card_points / self.hands if self.hands else 0.0


def _streak(results: Sequence[bool]) -> int:
    """The current run: +n after n wins in a row, -n after n losses, 0 with no result."""
    if not results:
        return 0
    last = results[-1]
    n = 0
    for r in reversed(results):
        if r != last:
            break
        n += 1
    return n if last else -n


def player_stats(
    user_id: int, hands: Iterable[HandView], matches: Iterable[MatchView]
) -> dict[str, VariantStats]:
    """`user_id`'s stats per variant from the records (in the order they finished)."""
    out: dict[str, VariantStats] = {}

    def of(variant: str) -> VariantStats:
        return out.setdefault(variant, VariantStats(variant))

    for h in hands:
        seat = h.seat_of(user_id)
        if seat is None:
            continue
        s = of(h.variant)
        chiamata = h.family == "chiamata"
        if chiamata and h.auction:
            s.auctions += 1
            s.bids += seat in h.bidders
        if not h.played:
            continue
        won = h.won(seat)
        s.hands += 1
        s.hands_won += won
        s.card_points += h.card_points[seat]
        if h.cappotto:
            if won:
                s.cappotti += 1
            else:
                s.cappotti_suffered += 1
        if chiamata:
            if h.caller == seat:
                s.as_caller += 1
                s.caller_won += won
            elif h.partner == seat:
                s.as_partner += 1
                s.partner_won += won
            s.biggest_win = max(s.biggest_win, h.counted[seat])
            s.results.append(won)
    for m in matches:
        seat = m.seat_of(user_id)
        if seat is None:
            continue
        s = of(m.variant)
        won = m.won(seat)
        s.games += 1
        s.wins += won
        if m.family != "chiamata":
            s.biggest_win = max(s.biggest_win, m.counted[seat])
            s.results.append(won)
    for s in out.values():
        s.streak = _streak(s.results)
    return out


@dataclass
class GivenAway:
    """What the review found someone (or the computers) gave away in one variant (issue 51):
    over `hands` reviewed hands, `cost` in all (card points; chiamata: the side's score,
    §7.12), and per chiamata role (§7.4-7.7) its hands and cost."""

    variant: str
    hands: int = 0
    cost: float = 0.0
    roles: dict[str, tuple[int, float]] = field(default_factory=dict)

    @property
    def average(self) -> float:
        return self.cost / self.hands if self.hands else 0.0

    def role_average(self, role: str) -> float | None:
        """The average as `role`, None with no such hand."""
        hands, cost = self.roles.get(role, (0, 0.0))
        return cost / hands if hands else None


def given_away(sums: Iterable[ReviewSum]) -> dict[str, GivenAway]:
    """Stored review costs (`StatsStore.review_sums`, of any chats) per variant."""
    out: dict[str, GivenAway] = {}
    for s in sums:
        g = out.setdefault(s.variant, GivenAway(s.variant))
        g.hands += s.hands
        g.cost += s.cost
        if s.role in ROLES:
            hands, cost = g.roles.get(s.role, (0, 0.0))
            g.roles[s.role] = (hands + s.hands, cost + s.cost)
    return out


# ---------------------------------------------------------------------- /h2h


@dataclass
class HeadToHead:
    """Two people's results together and against each other, per family. `together` and
    `against` count games (chiamata: hands, §10.1; other variants: matches); `together_won`
    the ones their side won; `a_won`, `b_won` the ones each won against the other (a game
    both lost, with three or more sides, counts for neither)."""

    together: int = 0
    together_won: int = 0
    against: int = 0
    a_won: int = 0
    b_won: int = 0


def head_to_head(
    a: int, b: int, hands: Iterable[HandView], matches: Iterable[MatchView]
) -> dict[str, HeadToHead]:
    """Per family (`storage.stats.FAMILIES`), what `a` and `b` played together and against
    each other: chiamata hands (the chiamante and socio against the others) and the other
    variants' matches."""
    out: dict[str, HeadToHead] = {}
    games: list[tuple[str, tuple[int, ...], tuple[int | None, ...], tuple[int, ...]]] = [
        (h.family, h.side_of, h.users, h.winning_sides)
        for h in hands
        if h.family == "chiamata" and h.played
    ]
    games += [(m.family, m.side_of, m.users, m.winners) for m in matches if m.family != "chiamata"]
    for family, side_of, users, winners in games:
        if a not in users or b not in users:
            continue
        sa, sb = side_of[users.index(a)], side_of[users.index(b)]
        h2h = out.setdefault(family, HeadToHead())
        if sa == sb:
            h2h.together += 1
            h2h.together_won += sa in winners
        else:
            h2h.against += 1
            a_won, b_won = sa in winners, sb in winners
            if a_won and not b_won:
                h2h.a_won += 1
            elif b_won and not a_won:
                h2h.b_won += 1
    return out


def known_names(hands: Iterable[HandView], matches: Iterable[MatchView]) -> dict[int, str]:
    """The last name each person played under in these records."""
    names: dict[int, str] = {}
    pairs = [(h.users, h.names) for h in hands] + [(m.users, m.names) for m in matches]
    for users, seat_names in pairs:
        for uid, name in zip(users, seat_names, strict=False):
            if uid is not None:
                names[uid] = name
    return names

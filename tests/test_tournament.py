"""RULES §11, pure: the round-robin schedule (circle method), match points, standings and
their tie-breaks, registration (bot/table/tournament.py)."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.table.table import TableError
from bot.table.tournament import (
    DEFAULT_POINTS,
    DONE,
    MAX_TEAMS,
    RUNNING,
    SINGLES_VARIANTS,
    Member,
    Result,
    Tournament,
    byes,
    check_points,
    match_points,
    round_robin,
    standings,
)


@given(st.integers(min_value=2, max_value=16))
def test_s11_1_every_pair_meets_exactly_once_in_rounds_that_are_matchings(n: int) -> None:
    rounds = round_robin(n)
    assert len(rounds) == (n - 1 if n % 2 == 0 else n)
    met = [frozenset(p) for r in rounds for p in r]
    assert sorted(map(sorted, met)) == sorted(
        map(sorted, map(frozenset, combinations(range(n), 2)))
    )
    assert len(met) == len(set(met))  # exactly once
    for r in rounds:  # a matching: nobody plays twice in a round
        teams = [t for p in r for t in p]
        assert len(teams) == len(set(teams))
        assert len(r) == n // 2


@given(st.integers(min_value=2, max_value=16))
def test_s11_1_byes_are_spread_fairly(n: int) -> None:
    rounds = round_robin(n)
    rest = byes(n, rounds)
    if n % 2 == 0:
        assert all(r == [] for r in rest)
    else:  # one team rests each round, each team exactly once
        assert all(len(r) == 1 for r in rest)
        assert sorted(t for r in rest for t in r) == list(range(n))


@given(st.integers(min_value=2, max_value=16))
def test_s11_1_the_schedule_is_deterministic_and_sides_alternate(n: int) -> None:
    assert round_robin(n) == round_robin(n)
    firsts = [sum(1 for r in round_robin(n) for a, _ in r if a == t) for t in range(n)]
    assert max(firsts) - min(firsts) <= (n + 1) // 2 + 1  # nobody always sits first


def test_s11_1_small_schedules_by_hand() -> None:
    assert round_robin(1) == []
    assert round_robin(2) == [[(0, 1)]]
    assert round_robin(4) == [[(0, 3), (1, 2)], [(2, 0), (3, 1)], [(0, 1), (2, 3)]]
    assert round_robin(3) == [[(1, 2)], [(2, 0)], [(0, 1)]]
    assert byes(3, round_robin(3)) == [[0], [1], [2]]


def test_s11_2_match_points_by_hands_won() -> None:
    assert [match_points(h) for h in (5, 4, 3, 2, 1, 0)] == [7, 5, 4, 3, 2, 0]
    custom = check_points([0, 1, 1, 2, 3, 3])
    assert match_points(4, custom) == 3
    with pytest.raises(ValueError):
        match_points(6)
    for bad in ([0, 1, 2], [7, 5, 4, 3, 2, 0], [0, 2, 3, 4, 5, 100], [0, -1, 3, 4, 5, 7]):
        with pytest.raises(TableError) as exc:
            check_points(bad)
        assert exc.value.key == "err_tour_points"


def test_s11_3_standings_and_tie_breaks() -> None:
    # 0 beats 1 3-2, 1 beats 2 3-2, 2 beats 0 3-2: all equal on points (7) and hands (5)
    r = Result(3, 2, 70, 50)
    tied = [(0, 1, r), (1, 2, r), (2, 0, r)]
    s = standings(3, tied)
    assert [x.points for x in s] == [7, 7, 7] and [x.hands for x in s] == [5, 5, 5]
    assert [x.team for x in s] == [0, 1, 2]  # cards equal (120 each): registration order
    # card points break the tie
    s = standings(3, [(0, 1, Result(3, 2, 61, 59)), (1, 2, r), (2, 0, r)])
    assert [x.cards for x in s if x.team == 0] == [61 + 50]
    assert s[0].team == 1  # 59 + 70 = 129 cards
    # head to head: 0 and 1 tie on points, hands and cards; 1 beat 0
    m = [
        (0, 1, Result(2, 3, 60, 60)),
        (0, 2, Result(4, 1, 60, 60)),
        (1, 2, Result(3, 2, 60, 60)),
    ]
    s = standings(3, m)
    assert (s[0].team, s[0].points) == (1, 8) and (s[1].team, s[1].points) == (0, 8)
    assert (s[0].won, s[0].lost, s[0].played) == (2, 0, 2)


@given(
    st.integers(min_value=2, max_value=8),
    st.lists(st.tuples(st.integers(0, 5), st.integers(0, 120)), min_size=28, max_size=28),
)
def test_s11_3_standings_sum_match_points(n: int, draws: list[tuple[int, int]]) -> None:
    matches = []
    for k, (a, b) in enumerate(p for r in round_robin(n) for p in r):
        h, c = draws[k]
        matches.append((a, b, Result(h, 5 - h, c, 120 - c)))
    s = standings(n, matches)
    assert sorted(x.team for x in s) == list(range(n))
    total = sum(DEFAULT_POINTS[r.hands_a] + DEFAULT_POINTS[r.hands_b] for _, _, r in matches)
    assert sum(x.points for x in s) == total
    keys = [(x.points, x.hands, x.cards) for x in s]
    assert keys == sorted(keys, reverse=True)


def person(uid: int) -> Member:
    return Member(uid, f"P{uid}")


def test_registration_refusals_change_nothing() -> None:
    tour = Tournament(1, -1, 10, "Org")
    assert tour.new_team(person(1)) == 0
    with pytest.raises(TableError) as exc:
        tour.new_team(person(1))  # a double tap
    assert exc.value.key == "err_tour_in_team" and exc.value.kw == {"n": 1}
    tour.join_team(0, person(2))
    with pytest.raises(TableError) as exc:
        tour.join_team(0, person(3))  # a full team
    assert exc.value.key == "err_tour_team_full"
    with pytest.raises(TableError) as exc:
        tour.join_team(5, person(3))
    assert exc.value.key == "err_tour_no_team"
    with pytest.raises(TableError) as exc:
        tour.start()  # one team
    assert exc.value.key == "err_tour_few_teams"
    assert tour.add_computer() == 1  # a new team
    assert tour.add_computer() == 1  # its partner
    assert [m.name for m in tour.teams[1].members] == ["Ada", "Bruno"]
    tour.new_team(person(3))
    with pytest.raises(TableError) as exc:
        tour.start()
    assert exc.value.key == "err_tour_incomplete" and exc.value.kw == {"n": 3}
    assert tour.leave(3) == 2 and len(tour.teams) == 2  # an empty team goes
    tour.start()
    assert tour.status == RUNNING and len(tour.fixtures) == 1
    with pytest.raises(TableError):
        tour.new_team(person(4))  # registration is over
    # §11.3: between matches a member leaves, someone else takes the place
    tour.leave(2)
    seats = tour.seats_for(0)
    assert [m.user_id for m in seats] == [1, None, None, None]  # the free place: a computer
    tour.join_team(0, person(4))
    assert [m.user_id for m in tour.seats_for(0)] == [1, None, 4, None]
    tour.record(0, Result(5, 0, 90, 30))
    assert tour.status == DONE
    assert [s.points for s in tour.standings()] == [7, 0]


def test_singles_five_players_a_bye_each_round_and_refusals() -> None:
    """Issue 14: a tournament of single players (a 2-player variant): one place per "team",
    the refusals name players (`_solo` texts), the same round robin (five players: a bye
    each round, §11.1), matches one against one, the same standings (§11.3)."""
    assert SINGLES_VARIANTS == ("due", "briscolone", "scoperta", "coperta")
    with pytest.raises(ValueError):
        Tournament(1, -1, 10, "Org", variant="tre")  # not a tournament variant
    tour = Tournament(1, -1, 10, "Org", variant="due")
    assert tour.singles and tour.team_size == 1 and tour.key("tour_teams") == "tour_teams_solo"
    assert tour.key("tour_title") == "tour_title"  # a text that names no team: shared
    assert tour.new_team(person(1)) == 0 and tour.teams[0].full
    with pytest.raises(TableError) as exc:
        tour.new_team(person(1))  # a second "Entra" by the same person
    assert exc.value.key == "err_tour_in_team_solo" and exc.value.kw == {"n": 1}
    with pytest.raises(TableError) as exc:
        tour.join_team(0, person(2))  # a player's place is taken
    assert exc.value.key == "err_tour_team_full_solo"
    with pytest.raises(TableError) as exc:
        tour.start()
    assert exc.value.key == "err_tour_few_teams_solo"
    tour.new_team(person(2))
    tour.new_team(person(3))
    assert tour.add_computer() == 3 and tour.add_computer("hard") == 4  # each a new player
    assert [len(team.members) for team in tour.teams] == [1, 1, 1, 1, 1]
    assert tour.teams[4].members[0].level == "hard"
    assert tour.leave(3) == 2 and len(tour.teams) == 4  # registering: the place goes
    tour.new_team(person(3))
    assert [m.user_id for team in tour.teams for m in team.members] == [1, 2, None, None, 3]
    tour.start()
    assert tour.status == RUNNING and len(tour.fixtures) == 10 and tour.rounds == 5
    for r in range(5):  # two matches a round, one player rests
        playing = [x for f in tour.fixtures if f.round == r for x in (f.a, f.b)]
        assert len(playing) == 4 == len(set(playing))
    assert sorted(tuple(sorted((f.a, f.b))) for f in tour.fixtures) == list(
        combinations(range(5), 2)
    )
    f = tour.fixtures[0]
    seats = tour.seats_for(0)
    assert [m.name for m in seats] == [
        tour.teams[f.a].members[0].name,
        tour.teams[f.b].members[0].name,
    ]
    # §11.3: between matches a player leaves; a computer plays the free place until someone
    # else takes it
    a_person = next(i for i in (f.a, f.b) if tour.teams[i].members[0].user_id is not None)
    tour.leave(tour.teams[a_person].members[0].user_id or 0)
    assert len(tour.teams) == 5 and not tour.teams[a_person].full
    assert all(m.user_id is None for m in tour.seats_for(0)[a_person == f.b :: 2])
    tour.join_team(a_person, person(9))
    assert 9 in [m.user_id for m in tour.seats_for(0)]
    for k in range(10):
        tour.record(k, Result(3, 2, 70, 50))
    assert tour.status == DONE
    table = tour.standings()
    assert sum(s.played for s in table) == 20 and all(s.played == 4 for s in table)
    assert sum(s.points for s in table) == 10 * (DEFAULT_POINTS[3] + DEFAULT_POINTS[2])


def test_singles_a_full_tournament() -> None:
    tour = Tournament(1, -1, 10, "Org", variant="briscolone")
    for k in range(MAX_TEAMS):
        tour.new_team(person(k + 1))
    with pytest.raises(TableError) as exc:
        tour.new_team(person(99))
    assert exc.value.key == "err_tour_too_many_solo" and exc.value.kw == {"n": MAX_TEAMS}
    with pytest.raises(TableError) as exc:
        tour.add_computer()
    assert exc.value.key == "err_tour_too_many_solo"
    assert len(tour.teams) == MAX_TEAMS
    # the stored teams read back with one place each
    again = Tournament(
        1, -1, 10, "Org", teams=Tournament.teams_from_json(tour.teams_json()), variant="briscolone"
    )
    assert all(team.full and team.size == 1 for team in again.teams)

"""bot/table/ledger.py: settling balances with the fewest payments, and the exports (RULES §10)."""

from __future__ import annotations

import csv
import io
import itertools
import random
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.engine import Options, match_deltas
from bot.table.ledger import (
    MAX_EXACT,
    export_csv,
    export_json,
    hand_key,
    match_key,
    min_payments,
    settle,
    without_computers,
)
from bot.table.table import Seat, Table
from storage import Balance, LedgerHand


def apply(balances: Mapping[int, int], payments: Sequence[tuple[int, int, int]]) -> dict[int, int]:
    left = dict(balances)
    for debtor, creditor, amount in payments:
        left[debtor] += amount
        left[creditor] -= amount
    return left


def brute_force_minimum(values: Sequence[int]) -> int:
    """n - (max number of disjoint zero-sum groups), by trying every set partition."""
    nonzero = [v for v in values if v != 0]

    def best(items: tuple[int, ...]) -> int:
        if not items:
            return 0
        first, rest = items[0], items[1:]
        top = 0
        for r in range(len(rest) + 1):
            for combo in itertools.combinations(range(len(rest)), r):
                if first + sum(rest[i] for i in combo) == 0:
                    remaining = tuple(x for i, x in enumerate(rest) if i not in combo)
                    top = max(top, 1 + best(remaining))
        return top

    return len(nonzero) - best(tuple(nonzero))


def zero_sum(values: list[int]) -> dict[int, int]:
    return {100 + i: v for i, v in enumerate([*values, -sum(values)])}


small_ledgers = st.lists(st.integers(-12, 12), min_size=0, max_size=6).map(zero_sum)
any_ledgers = st.lists(st.integers(-500, 500), min_size=0, max_size=14).map(zero_sum)


# ---------------------------------------------------------------------- settle (§10.3)


def check_settles(balances: Mapping[int, int]) -> list[tuple[int, int, int]]:
    payments = settle(balances)
    assert all(v == 0 for v in apply(balances, payments).values())
    assert all(amount > 0 for _, _, amount in payments)
    for debtor, creditor, _ in payments:  # below zero pays above zero, never the reverse
        assert balances[debtor] < 0 < balances[creditor]
    nonzero = sum(1 for v in balances.values() if v)
    assert len(payments) <= max(nonzero - 1, 0)
    return payments


@settings(max_examples=300)
@given(small_ledgers)
def test_settle_is_minimal_for_small_groups(balances: dict[int, int]) -> None:
    """RULES §10.3: those below zero pay those above, with as few payments as possible."""
    payments = check_settles(balances)
    assert len(payments) == brute_force_minimum(list(balances.values()))


@settings(max_examples=150, deadline=None)
@given(any_ledgers)
def test_settle_pays_every_balance_exactly(balances: dict[int, int]) -> None:
    """RULES §10.3: every balance is settled exactly, amounts positive, at most n - 1."""
    check_settles(balances)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.lists(st.integers(-20, 20), min_size=1, max_size=4).map(lambda xs: [*xs, -sum(xs)]),
        min_size=1,
        max_size=30,
    ),
    st.randoms(use_true_random=False),
)
def test_random_ledgers_from_zero_sum_hands(hands: list[list[int]], rnd: random.Random) -> None:
    """RULES §10.1-10.2: every hand sums to zero, so the group's balances sum to zero and
    settle() clears them."""
    balances: dict[int, int] = {}
    for deltas in hands:
        players = rnd.sample(range(12), len(deltas))
        for user, delta in zip(players, deltas, strict=True):
            balances[user] = balances.get(user, 0) + delta
    assert sum(balances.values()) == 0
    check_settles(balances)


def test_settle_examples() -> None:
    assert settle({}) == []
    assert settle({1: 0, 2: 0}) == []
    assert settle({1: 5, 2: -5}) == [(2, 1, 5)]
    # Chiamata: the caller won 2 and the partner 1, the three others lost 1 each.
    assert len(settle({1: 2, 2: 1, 3: -1, 4: -1, 5: -1})) == 3
    # Two independent zero-sum groups: 5 players, 3 payments, not 4.
    bal = {1: 3, 2: -1, 3: -2, 4: 7, 5: -7}
    assert check_settles(bal) == [(5, 4, 7), (3, 1, 2), (2, 1, 1)]
    # Greedy largest-to-largest would take 4 here; the split {6, -4, -2} {5, -5} takes 3.
    bal = {1: 6, 2: 5, 3: -4, 4: -2, 5: -5}
    assert len(check_settles(bal)) == brute_force_minimum(list(bal.values())) == 3


def test_settle_finds_groups_greedy_misses() -> None:
    """No opposite pairs here, and largest-debtor-to-largest-creditor alone would use 5
    payments; the exact search splits {-8, 6, 2} {5, 4, -9} and uses 4."""
    bal = {1: -8, 2: 6, 3: 5, 4: 4, 5: 2, 6: -9}
    greedy = 0
    left = dict(bal)
    while any(left.values()):
        debtor = min(left, key=lambda u: left[u])
        creditor = max(left, key=lambda u: left[u])
        amount = min(-left[debtor], left[creditor])
        left[debtor] += amount
        left[creditor] -= amount
        greedy += 1
    assert greedy == 5
    assert brute_force_minimum(list(bal.values())) == 4
    assert len(check_settles(bal)) == 4


def test_settle_refuses_non_zero_sum() -> None:
    with pytest.raises(ValueError, match="sum to 1"):
        settle({1: 2, 2: -1})


def test_settle_exact_at_the_limit_and_greedy_beyond() -> None:
    rnd = random.Random(5)
    # MAX_EXACT distinct values in 4 zero-sum groups of 4: exact finds n - 4 payments.
    values: list[int] = []
    for g in range(MAX_EXACT // 4):
        a, b, c = rnd.sample(range(1000 * g + 1, 1000 * g + 999), 3)
        values += [a, b, c, -(a + b + c)]
    bal = {i: v for i, v in enumerate(values)}
    assert len(check_settles(bal)) == MAX_EXACT - MAX_EXACT // 4
    # Far beyond the exact limit: still settled exactly, with at most n - 1 payments.
    big = [rnd.randint(-10_000, 10_000) for _ in range(59)]
    check_settles(zero_sum(big))


def test_min_payments_and_keys() -> None:
    assert min_payments({1: 1, 2: -1, 3: 2, 4: -2}) == 2
    assert hand_key(7, 3) == "t7:h3"
    assert match_key(7) == "t7:match"


# ---------------------------------------------------------------------- computers (§10.5)


def test_s10_5_computer_seats_never_pay_or_collect_examples() -> None:
    """RULES §10.5: what a computer would have collected stays with the humans who would have
    paid it, what it would have paid is not collected by the humans who would have received
    it, split in whole points as evenly as possible, the remainder by seat order."""
    # no computer: unchanged
    assert without_computers([2, 1, -1, -1, -1], set()) == [2, 1, -1, -1, -1]
    # chiamata §7.12: the computer is the partner (+1): one defender, first by seat, pays 0
    assert without_computers([2, 1, -1, -1, -1], {1}) == [2, 0, 0, -1, -1]
    # the computer is a defender (-1): the caller (first by seat) receives 1 less
    assert without_computers([-1, 2, -1, 1, -1], {0}) == [0, 1, -1, 1, -1]
    # a computer caller loses (-2): the three human defenders split its 2: 1, 1, 0
    assert without_computers([-2, -1, 1, 1, 1], {0}) == [0, -1, 0, 0, 1]
    # a computer alone wins +4: every human keeps what they would have paid it
    assert without_computers([-1, -1, 4, -1, -1], {2}) == [0, 0, 0, 0, 0]
    # a human alone loses -4 against three humans and a computer: the computer's 1 stays
    assert without_computers([-4, 1, 1, 1, 1], {3}) == [-3, 1, 1, 0, 1]
    # §10.2 two sides, one human against one computer: nothing at all
    assert without_computers([1, -1], {1}) == [0, 0]
    # §10.2 three sides: the human winner collects only from the human loser
    assert without_computers([2, -1, -1], {2}) == [1, -1, 0]
    # §10.2 two tied winners (+1 / +1 / -2), one a computer: the loser pays the human only
    assert without_computers([1, 1, -2], {1}) == [1, 0, -1]
    # four single players, a computer winner and a computer loser: the human loser pays no one
    assert without_computers([3, -1, -1, -1], {0, 3}) == [0, 0, 0, 0]
    # four single players, two tied winners, a computer on each side: the humans' own 1
    assert without_computers([2, 2, -2, -2], {1, 3}) == [1, 0, -1, 0]
    # pairs (§5.1): a computer in each pair
    assert without_computers([1, -1, 1, -1], {2, 3}) == [1, -1, 0, 0]
    with pytest.raises(ValueError, match="sums to 1"):
        without_computers([2, -1], {1})


def _pairwise(deltas: Sequence[int], computers: set[int]) -> list[int]:
    """Single players under §10.2: every loser pays 1 to every winner; drop the payments that
    involve a computer. The oracle for `without_computers` on such entries."""
    out = [0] * len(deltas)
    for p, dp in enumerate(deltas):
        for r, dr in enumerate(deltas):
            if dp < 0 < dr and p not in computers and r not in computers:
                out[p] -= 1
                out[r] += 1
    return out


def _chiamata_deltas(n: int, caller: int, partner: int, won: bool, double: bool) -> list[int]:
    gain = {(5, True): 4, (5, False): 2, (4, True): 3, (4, False): 1}[(n, caller == partner)]
    sign = (1 if won else -1) * (2 if double else 1)
    partner_gain = 0 if caller == partner else 1
    return [
        sign * (gain if s == caller else partner_gain if s == partner else -1) for s in range(n)
    ]


@st.composite
def ledger_entries(draw: st.DrawFn) -> tuple[list[int], set[int]]:
    """A zero-sum entry as the rules make them (§7.12, §10.2) or any zero-sum list, and a set
    of computer seats."""
    kind = draw(st.sampled_from(["chiamata", "match", "any"]))
    if kind == "chiamata":
        n = draw(st.sampled_from([4, 5]))
        deltas = _chiamata_deltas(
            n,
            draw(st.integers(0, n - 1)),
            draw(st.integers(0, n - 1)),
            draw(st.booleans()),
            draw(st.booleans()),
        )
    elif kind == "match":
        side_of = draw(
            st.sampled_from(
                [(0, 1), (0, 1, 2), (0, 1, 0, 1), (0, 1, 2, 3), (0, 1, 2, 0, 1, 2), (0, 1) * 3]
            )
        )
        sides = sorted(set(side_of))
        won = draw(st.sets(st.sampled_from(sides), min_size=1, max_size=len(sides) - 1))
        deltas = list(match_deltas(side_of, won))
    else:
        xs = draw(st.lists(st.integers(-9, 9), min_size=1, max_size=7))
        deltas = [*xs, -sum(xs)]
    computers = draw(st.sets(st.integers(0, len(deltas) - 1)))
    return deltas, computers


@settings(max_examples=400, deadline=None)
@given(ledger_entries())
def test_s10_5_property_zero_sum_and_no_computer_in_the_entry(
    entry: tuple[list[int], set[int]],
) -> None:
    """RULES §10.5, any entry and any computer seats: the entry sums to zero, no computer pays
    or collects, no human changes side or gains from it, and the split is even (differences of
    one at most between those not capped at their own amount, the extra point by seat)."""
    deltas, computers = entry
    out = without_computers(deltas, computers)
    assert sum(out) == 0 and len(out) == len(deltas)
    assert all(out[s] == 0 for s in computers)
    for s, (before, after) in enumerate(zip(deltas, out, strict=True)):
        if s not in computers:
            assert before * after >= 0 and abs(after) <= abs(before), (s, before, after)
    if not computers:
        assert out == deltas
    for sign in (1, -1):
        side = [s for s, d in enumerate(deltas) if s not in computers and d * sign > 0]
        change = {s: abs(deltas[s]) - abs(out[s]) for s in side}
        for a in side:
            for b in side:
                if change[b] > change[a] + (1 if b < a else 0):
                    assert abs(out[a]) == 0, (deltas, computers, out)  # a is at its cap
    if all(d >= 0 for s, d in enumerate(deltas) if s in computers):  # computers only collect
        relief = sum(d for s, d in enumerate(deltas) if s in computers)
        assert (
            sum(d for d in out if d < 0)
            == sum(d for s, d in enumerate(deltas) if d < 0 and s not in computers) + relief
        )


@settings(max_examples=200, deadline=None)
@given(
    st.integers(2, 6).flatmap(
        lambda n: st.tuples(
            st.sets(st.integers(0, n - 1), min_size=1, max_size=n - 1),
            st.sets(st.integers(0, n - 1)),
            st.just(n),
        )
    )
)
def test_s10_5_single_players_match_the_pairwise_payments(
    case: tuple[set[int], set[int], int],
) -> None:
    """RULES §10.5 with §10.2: among single players each losing side pays 1 to each winning
    side; with computers taken out exactly the payments between humans remain."""
    won, computers, n = case
    deltas = list(match_deltas(tuple(range(n)), won))
    assert without_computers(deltas, computers) == _pairwise(deltas, computers)


def _table(levels: list[str | None], counts: bool) -> Table:
    table = Table(5, -100, 10, Options.parse("tre", {"match": "single"}), counts=counts)
    for i, level in enumerate(levels):
        table.seats.append(Seat(None if level else 10 + i, f"p{i}", level))
    return table


def test_s10_5_a_table_with_computers_writes_only_if_counts() -> None:
    """RULES §10.5 and §10.2: a table with computer seats writes nothing unless its creator
    chose "counts"; then the computer's seat is not in the entry and the humans' sum to zero.
    A person who left keeps their seat in the ledger (a computer only plays for them)."""
    people = _table([None, None, None], counts=False)
    assert people.ledger_deltas((2, -1, -1)) == {10: 2, 11: -1, 12: -1}  # §10.2 as ever
    off = _table([None, "normal", None], counts=False)
    assert off.computer_seats() == {1}
    assert off.ledger_deltas((2, -1, -1)) == {}
    on = _table([None, "normal", None], counts=True)
    assert on.ledger_deltas((2, -1, -1)) == {10: 1, 12: -1}
    assert on.ledger_deltas((-1, 2, -1)) == {}  # the computer won: the humans keep theirs
    left = _table([None, None, None], counts=False)
    left.seats[1].level = "normal"  # left mid-match: a computer plays on, the owner counts
    assert left.computer_seats() == set() and left.ledger_deltas((2, -1, -1)) == {
        10: 2,
        11: -1,
        12: -1,
    }


def test_s10_5_counts_is_stored_with_the_table() -> None:
    """RULES §10.5: the "counts" choice survives a restart; older tables load with it off."""
    table = _table([None, "hard", None], counts=True)
    kw = {
        "table_id": 5,
        "chat_id": -100,
        "creator_id": 10,
        "status": "lobby",
        "lang": "it",
        "options_json": table.options_json(),
        "match_json": None,
        "hand_json": None,
        "move_no": 0,
        "table_message_id": None,
    }
    back = Table.restore(seats_json=table.seats_json(), **kw)  # type: ignore[arg-type]
    assert back.counts is True and back.computer_seats() == {1}
    old = '{"seats": [], "timer": 0, "seed": ""}'
    assert Table.restore(seats_json=old, **kw).counts is False  # type: ignore[arg-type]


# ---------------------------------------------------------------------- exports


HANDS = [
    LedgerHand(
        chat_id=-5,
        epoch=0,
        hand_key="t1:h0",
        table_id=1,
        variant="chiamata",
        finished_at=datetime(2024, 5, 1, 22, 30, tzinfo=timezone(timedelta(hours=2))),
        deltas={10: 2, 11: 1, 12: -1, 13: -1, 14: -1},
        names={10: "Anna", 11: "Bo, Jr.", 12: "Ciro", 13: "Dea", 14: 'Eli "E"'},
    ),
    LedgerHand(
        chat_id=-5,
        epoch=0,
        hand_key="t2:match",
        table_id=None,
        variant="due",
        finished_at=datetime(2024, 5, 2, 9, 0, 0, 123456, tzinfo=UTC),
        deltas={10: -1, 12: 1},
        names={10: "Anna", 12: "Ciro"},
    ),
]
BALANCES = [Balance(10, "Anna", 1), Balance(11, "Bo, Jr.", 1), Balance(12, "Ciro", 0)]


def test_export_json_shape() -> None:
    """RULES §10.3: balances and the hands behind them, exactly this shape."""
    assert export_json(-5, BALANCES, HANDS) == {
        "chat_id": -5,
        "balances": [
            {"user_id": 10, "name": "Anna", "balance": 1},
            {"user_id": 11, "name": "Bo, Jr.", "balance": 1},
            {"user_id": 12, "name": "Ciro", "balance": 0},
        ],
        "hands": [
            {
                "finished_at": "2024-05-01T20:30:00+00:00",  # converted to UTC
                "variant": "chiamata",
                "deltas": {"10": 2, "11": 1, "12": -1, "13": -1, "14": -1},
                "hand_key": "t1:h0",
                "table_id": 1,
            },
            {
                "finished_at": "2024-05-02T09:00:00.123456+00:00",
                "variant": "due",
                "deltas": {"10": -1, "12": 1},
                "hand_key": "t2:match",
                "table_id": None,
            },
        ],
    }


def test_export_csv_one_row_per_entry() -> None:
    text = export_csv(HANDS)
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["finished_at", "hand_key", "variant", "user_id", "name", "delta"]
    assert len(rows) == 1 + 5 + 2
    assert rows[2] == ["2024-05-01T20:30:00+00:00", "t1:h0", "chiamata", "11", "Bo, Jr.", "1"]
    assert rows[5] == ["2024-05-01T20:30:00+00:00", "t1:h0", "chiamata", "14", 'Eli "E"', "-1"]
    assert rows[7] == ["2024-05-02T09:00:00.123456+00:00", "t2:match", "due", "12", "Ciro", "1"]
    assert sum(int(r[5]) for r in rows[1:]) == 0
    assert export_csv([]) == "finished_at,hand_key,variant,user_id,name,delta\n"

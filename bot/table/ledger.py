"""The group ledger's pure side (RULES.md §10): who pays whom, and exports. No I/O.

`settle()` answers §10.3's "who buys the beer" with as few payments as possible. With n
players whose balances are nonzero, the minimum is n - k where k is the largest number of
disjoint groups, each summing to zero, that the players can be split into (each group of size
s settles with s - 1 payments, and no payment can serve two groups). Finding k is NP-hard in
general, so:

1. Opposite balances (+x and -x) are paired off first; some optimal split always has such a
   pair as a group of its own, so this loses nothing and shrinks the search.
2. Up to `MAX_EXACT` remaining players: k exactly, with the O(2^n · n) dynamic programme over
   subsets (dp[S] = max over i in S of dp[S - i], plus one if S sums to zero; the zero-sum
   sets met along the best chain are nested and their differences are the groups).
3. Beyond that (a group with more than 16 players still unsettled after step 1), the rest is
   settled greedily as one group, largest debtor paying the largest creditor: at most n - 1
   payments, correct to the cent, but not always the fewest.

Inside every group the payments are made greedily (largest debtor to largest creditor), which
takes at most size - 1 payments because each payment clears at least one of the two.

`export_json()` / `export_csv()` turn storage's balances and ledger hands into files; they
accept any objects with the right attributes (storage.Balance, storage.LedgerHand). Given the
season's audit trail (`audit=`, storage.league.AuditRow) and its entries with their kind
(storage.league.LedgerEntry: a game, an undo, a payment), they show who undid or marked paid
what, and when (`/export` in the group); `export_json` given the groups' clock (`zone=`) says
every time on it, with its offset, and which tables played a tournament's match
(`tournaments=`).
"""

from __future__ import annotations

import csv
import heapq
import io
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Final, Protocol
from zoneinfo import ZoneInfo

MAX_EXACT: Final = 16
"""Largest number of players (after pairing opposites) settled with the exact DP."""

Payment = tuple[int, int, int]
"""(debtor user_id, creditor user_id, amount > 0)."""


def hand_key(table_id: int, hand_index: int) -> str:
    """The ledger key of one chiamata hand (§10.1): written hand by hand."""
    return f"t{table_id}:h{hand_index}"


def match_key(table_id: int) -> str:
    """The ledger key of a finished match of another variant (§10.2)."""
    return f"t{table_id}:match"


# ---------------------------------------------------------------------- computers (§10.5)


def without_computers(deltas: Sequence[int], computers: Collection[int]) -> list[int]:
    """§10.5: a table's ledger entry per seat (zero-sum) with the `computers`' seats taken out:
    a computer neither pays nor collects, and the entry still sums to zero.

    What the computers would have collected stays with the humans who would have paid it: the
    humans below zero pay that much less in all. What the computers would have paid is not
    collected by the humans who would have received it: the humans above zero receive that
    much less in all. Each amount is split among those humans in whole points as evenly as
    possible, the remainder one point each by seat order, nobody relieved of more than their
    own amount (so no human changes side).

    Who would have paid whom: every payer pays every receiver in proportion to their amounts,
    which is §10.2's "each losing side pays 1 to each winning side" exactly, and §7.12's
    defenders paying the caller and the partner 2:1. So when computers sit on both sides, the
    part of a computer's collection that other computers would have paid concerns no human: the
    humans' relief is C * Lh / T and the receivers' cut P * Gh / T (C, P: what the computers
    would collect and pay; Lh, Gh: what the humans would pay and collect; T: the entry's
    total). Their difference is C - P exactly; the relief is rounded to whole points (a half
    down: what the humans won or lost against each other stands) and the cut follows, so the
    entry stays zero-sum."""
    if sum(deltas) != 0:
        raise ValueError(f"the entry sums to {sum(deltas)}, not 0")
    out = [0 if s in computers else d for s, d in enumerate(deltas)]
    total = sum(d for d in deltas if d > 0)
    collected = sum(d for s, d in enumerate(deltas) if s in computers and d > 0)
    paid = -sum(d for s, d in enumerate(deltas) if s in computers and d < 0)
    payers = {s: -d for s, d in enumerate(out) if d < 0}
    receivers = {s: d for s, d in enumerate(out) if d > 0}
    if total == 0 or not (collected or paid):
        return out
    humans_pay = sum(payers.values())
    relief = (2 * collected * humans_pay + total - 1) // (2 * total)  # C * Lh / T, rounded
    cut = relief - (collected - paid)  # P * Gh / T, rounded the same way
    for s, amount in _split_evenly(relief, payers).items():
        out[s] += amount
    for s, amount in _split_evenly(cut, receivers).items():
        out[s] -= amount
    assert sum(out) == 0
    return out


def _split_evenly(total: int, caps: Mapping[int, int]) -> dict[int, int]:
    """`total` whole points over the seats of `caps` (each at most its cap) as evenly as
    possible; a remainder goes one point each to the first seats in seat order."""
    if total > sum(caps.values()):
        raise ValueError("more to split than the caps allow")
    if total <= 0:
        return dict.fromkeys(caps, 0)
    # The highest level everyone may be filled to (capped), then one more point each for the
    # remainder, by seat order, among the seats still below their cap.
    level = 0
    while sum(min(c, level + 1) for c in caps.values()) <= total and level < max(caps.values()):
        level += 1
    share = {s: min(c, level) for s, c in caps.items()}
    left = total - sum(share.values())
    for s in sorted(caps):
        if left == 0:
            break
        if share[s] < caps[s]:
            share[s] += 1
            left -= 1
    return share


# ---------------------------------------------------------------------- settling (§10.3)


def settle(balances: Mapping[int, int]) -> list[Payment]:
    """The fewest payments (debtor, creditor, amount) that bring every balance to zero.
    Zero balances are ignored. Raises ValueError if the balances do not sum to zero.
    Deterministic: sorted by amount descending, then debtor, then creditor."""
    total = sum(balances.values())
    if total != 0:
        raise ValueError(f"balances sum to {total}, not 0: the ledger is not zero-sum")
    groups, rest = _pair_opposites({u: b for u, b in balances.items() if b != 0})
    if len(rest) <= MAX_EXACT:
        groups.extend(_zero_sum_groups(rest))
    else:
        groups.append(rest)
    payments = [p for group in groups for p in _greedy(group)]
    payments.sort(key=lambda p: (-p[2], p[0], p[1]))
    return payments


def min_payments(balances: Mapping[int, int]) -> int:
    """How many payments `settle()` makes."""
    return len(settle(balances))


def _pair_opposites(
    balances: Mapping[int, int],
) -> tuple[list[list[tuple[int, int]]], list[tuple[int, int]]]:
    """Split off pairs (+x, -x) as their own groups; returns (groups, the others)."""
    creditors: dict[int, list[int]] = defaultdict(list)
    debtors: dict[int, list[int]] = defaultdict(list)
    for uid in sorted(balances):
        b = balances[uid]
        (creditors[b] if b > 0 else debtors[-b]).append(uid)
    groups: list[list[tuple[int, int]]] = []
    rest: list[tuple[int, int]] = []
    for amount in sorted(set(creditors) | set(debtors)):
        cs, ds = creditors.get(amount, []), debtors.get(amount, [])
        pairs = min(len(cs), len(ds))
        groups.extend([(c, amount), (d, -amount)] for c, d in zip(cs, ds, strict=False))
        rest.extend((c, amount) for c in cs[pairs:])
        rest.extend((d, -amount) for d in ds[pairs:])
    rest.sort()
    return groups, rest


def _zero_sum_groups(members: Sequence[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """Split zero-sum `members` into the largest number of zero-sum groups (exact DP)."""
    n = len(members)
    if n == 0:
        return []
    values = [b for _, b in members]
    size = 1 << n
    sums = [0] * size
    for mask in range(1, size):
        low = mask & -mask
        sums[mask] = sums[mask ^ low] + values[low.bit_length() - 1]
    dp = [0] * size
    for mask in range(1, size):
        best = 0
        m = mask
        while m:
            low = m & -m
            v = dp[mask ^ low]
            if v > best:
                best = v
            m ^= low
        dp[mask] = best + (sums[mask] == 0)
    # Walk the best chain down from the full set; the zero-sum sets on it bound the groups.
    groups: list[list[tuple[int, int]]] = []
    mask = boundary = size - 1
    while mask:
        bonus = sums[mask] == 0
        m = mask
        while m:
            low = m & -m
            if dp[mask ^ low] + bonus == dp[mask]:
                mask ^= low
                break
            m ^= low
        if sums[mask] == 0:
            part = boundary ^ mask
            groups.append([members[i] for i in range(n) if part >> i & 1])
            boundary = mask
    return groups


def _greedy(members: Iterable[tuple[int, int]]) -> list[Payment]:
    """Largest debtor pays largest creditor until all are even (ties: smaller user_id)."""
    debtors = [(b, uid) for uid, b in members if b < 0]  # most negative first
    creditors = [(-b, uid) for uid, b in members if b > 0]
    heapq.heapify(debtors)
    heapq.heapify(creditors)
    payments: list[Payment] = []
    while debtors and creditors:
        debt, debtor = heapq.heappop(debtors)
        credit, creditor = heapq.heappop(creditors)
        amount = min(-debt, -credit)
        payments.append((debtor, creditor, amount))
        if -debt > amount:
            heapq.heappush(debtors, (debt + amount, debtor))
        if -credit > amount:
            heapq.heappush(creditors, (credit + amount, creditor))
    if debtors or creditors:
        raise ValueError("group does not sum to zero")
    return payments


# ---------------------------------------------------------------------- exports


class BalanceLike(Protocol):
    @property
    def user_id(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def balance(self) -> int: ...


class HandLike(Protocol):
    @property
    def hand_key(self) -> str: ...
    @property
    def table_id(self) -> int | None: ...
    @property
    def variant(self) -> str: ...
    @property
    def finished_at(self) -> datetime: ...
    @property
    def deltas(self) -> Mapping[int, int]: ...
    @property
    def names(self) -> Mapping[int, str]: ...


class AuditLike(Protocol):
    @property
    def epoch(self) -> int: ...
    @property
    def action(self) -> str: ...
    @property
    def hand_key(self) -> str | None: ...
    @property
    def target_key(self) -> str | None: ...
    @property
    def actor_id(self) -> int: ...
    @property
    def actor_name(self) -> str: ...
    @property
    def at(self) -> datetime: ...


class TournamentLike(Protocol):
    @property
    def tournament_id(self) -> int: ...
    @property
    def number(self) -> int: ...
    @property
    def match_no(self) -> int: ...


def _kind(hand: HandLike) -> str:
    """An entry's kind (game, undo, payment); a plain ledger hand is a game."""
    return str(getattr(hand, "kind", "game"))


def _undone_by(hand: HandLike) -> str | None:
    undone = getattr(hand, "undone_by", None)
    return None if undone is None else str(undone)


def _audit_json(row: AuditLike, zone: ZoneInfo | None) -> dict[str, Any]:
    return {
        "action": row.action,
        "at": iso_at(row.at, zone),
        "by": {"user_id": row.actor_id, "name": row.actor_name},
        "hand_key": row.hand_key,
        "target_key": row.target_key,
        "season": row.epoch + 1,
    }


def iso_utc(when: datetime) -> str:
    """ISO-8601 in UTC (a naive datetime is taken to be UTC already)."""
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC).isoformat()


def iso_at(when: datetime, zone: ZoneInfo | None) -> str:
    """ISO-8601 on the clock `zone` with its offset ("2026-11-20T22:00:00+01:00"), or in UTC
    (`iso_utc`)."""
    if zone is None:
        return iso_utc(when)
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(zone).isoformat()


def export_json(
    chat_id: int,
    balances: Iterable[BalanceLike],
    hands: Iterable[HandLike],
    *,
    season: int | None = None,
    audit: Iterable[AuditLike] | None = None,
    zone: ZoneInfo | None = None,
    tournaments: Mapping[int, TournamentLike] | None = None,
) -> dict[str, Any]:
    """`{"chat_id", "balances": [{"user_id", "name", "balance"}], "hands": [{"finished_at",
    "variant", "deltas": {"<user_id>": delta}, "hand_key", "table_id"}]}`, in the given order.
    Entries that carry their kind (storage.league.LedgerEntry) add `"kind"` (game, undo,
    payment), `"undone_by"` (the key of the entry that undid it, or null) and `"undoes"` (an
    undo: the key of the entry it undid; else null); `season` adds `"season"` (1-based),
    `audit` the audit trail as `"audit": [{"action", "at", "by": {"user_id", "name"},
    "hand_key", "target_key", "season"}]`. Times are ISO-8601 in UTC; with `zone` (the
    groups' clock) on that clock with its offset, and `"timezone"` names it. `tournaments`
    (by table id, `TournamentStore.tournament_tables`) adds to every entry `"tournament"`: null, or
    the match's `{"tournament_id", "number"` (the group's how-manieth), `"match"}` (1-based)."""
    rows: list[dict[str, Any]] = []
    for h in hands:
        row: dict[str, Any] = {
            "finished_at": iso_at(h.finished_at, zone),
            "variant": h.variant,
            "deltas": {str(uid): delta for uid, delta in h.deltas.items()},
            "hand_key": h.hand_key,
            "table_id": h.table_id,
        }
        if hasattr(h, "kind"):
            row["kind"] = _kind(h)
            row["undone_by"] = _undone_by(h)
            row["undoes"] = h.hand_key.removeprefix("undo:") if row["kind"] == "undo" else None
        if tournaments is not None:
            match = tournaments.get(h.table_id) if h.table_id is not None else None
            row["tournament"] = (
                None
                if match is None
                else {
                    "tournament_id": match.tournament_id,
                    "number": match.number,
                    "match": match.match_no + 1,
                }
            )
        rows.append(row)
    out: dict[str, Any] = {"chat_id": chat_id}
    if season is not None:
        out["season"] = season
    if zone is not None:
        out["timezone"] = zone.key
    out["balances"] = [
        {"user_id": b.user_id, "name": b.name, "balance": b.balance} for b in balances
    ]
    out["hands"] = rows
    if audit is not None:
        out["audit"] = [_audit_json(a, zone) for a in audit]
    return out


CSV_HEADER: Final = ("finished_at", "hand_key", "variant", "user_id", "name", "delta")


AUDIT_COLUMNS: Final = ("kind", "by_id", "by", "at", "ref")


def export_csv(hands: Iterable[HandLike], audit: Iterable[AuditLike] | None = None) -> str:
    """One row per ledger entry (after a header row): finished_at, hand_key, variant,
    user_id, name (as recorded with that hand), delta. Lines end with "\\n".

    With the season's `audit` trail, each row also has `AUDIT_COLUMNS`: the entry's kind
    (game, undo, payment), who wrote it and when (an undo: the admin who undid; a payment:
    who marked it paid; a game: empty) and `ref` (an undo: the key of the entry it undid; an
    entry that was undone: the key of its undo). A new season's row follows, with kind
    "season", no entry columns, and `ref` the season's number."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    trail = list(audit) if audit is not None else None
    writer.writerow(CSV_HEADER + (AUDIT_COLUMNS if trail is not None else ()))
    by_key = {a.hand_key: a for a in trail or () if a.hand_key is not None}
    for h in hands:
        when = iso_utc(h.finished_at)
        extra: tuple[object, ...] = ()
        if trail is not None:
            row = by_key.get(h.hand_key)
            ref = row.target_key if row is not None and row.target_key else _undone_by(h)
            extra = (
                _kind(h),
                row.actor_id if row is not None else "",
                row.actor_name if row is not None else "",
                iso_utc(row.at) if row is not None else "",
                ref or "",
            )
        for uid, delta in h.deltas.items():
            writer.writerow((when, h.hand_key, h.variant, uid, h.names.get(uid, ""), delta, *extra))
    for a in trail or ():
        if a.hand_key is None:
            when = iso_utc(a.at)
            writer.writerow(
                ("", "", "", "", "", "", a.action, a.actor_id, a.actor_name, when, a.epoch + 1)
            )
    return out.getvalue()

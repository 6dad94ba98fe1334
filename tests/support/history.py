"""A small league history written straight to the database (hands and matches of five people
in two chats, over two seasons), for the stats tests (tests/test_stats.py,
tests/test_stats_service.py)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from storage.stats import StoredPlay

CHAT = -100900
T0 = datetime(2026, 11, 1, 20, 0, tzinfo=UTC)
A, B, C, D, E = 1, 2, 3, 4, 5
NAMES = {A: "Ana", B: "Bea", C: "Ciro", D: "Dario", E: "Eva"}
FIVE = [A, B, C, D, E]
PASS = "pass"


def hand(
    table_id: int,
    index: int,
    users: Sequence[int | None],
    *,
    side_of: list[int],
    winning: list[int],
    points: list[int],
    minute: int,
    variant: str = "chiamata",
    epoch: int = 0,
    counted: list[int] | None = None,
    caller: int | None = None,
    partner: int | None = None,
    auction: list[list[Any]] | None = None,
    void: bool = False,
    redeal: bool = False,
    cappotto: bool = False,
) -> StoredPlay:
    data = {
        "players": [NAMES.get(u or 0, "🤖") for u in users],
        "users": list(users),
        "computers": [i for i, u in enumerate(users) if u is None],
        "card_points": points,
        "counted": counted or [0] * len(users),
        "caller": caller,
        "partner": partner,
        "auction": auction or [],
        "result": {
            "side_of": side_of,
            "winning_sides": winning,
            "void": void,
            "redeal": redeal,
            "cappotto": cappotto,
        },
    }
    family = "chiamata" if variant == "chiamata" else "two"
    when = T0 + timedelta(minutes=minute)
    return StoredPlay(CHAT, epoch, table_id, index, variant, family, when, data)


def match(
    table_id: int,
    users: Sequence[int | None],
    *,
    winners: list[int],
    counted: list[int],
    minute: int,
    variant: str = "due",
    epoch: int = 0,
    side_of: list[int] | None = None,
) -> StoredPlay:
    data = {
        "users": list(users),
        "names": [NAMES.get(u or 0, "🤖") for u in users],
        "computers": [i for i, u in enumerate(users) if u is None],
        "side_of": side_of or list(range(len(users))),
        "winners": winners,
        "counted": counted,
    }
    family = "chiamata" if variant == "chiamata" else "two"
    when = T0 + timedelta(minutes=minute)
    return StoredPlay(CHAT, epoch, table_id, None, variant, family, when, data)


HANDS = [
    # chiamata, table 10: Ana calls and Bea is the socio; they win (§7.12: +2 +1 -1 -1 -1)
    hand(10, 0, FIVE, side_of=[0, 0, 1, 1, 1], winning=[0], points=[40, 30, 20, 20, 10],
         counted=[2, 1, -1, -1, -1], caller=0, partner=1, minute=1,
         auction=[[0, 3], [1, PASS], [2, PASS], [3, PASS], [4, PASS]]),
    # everyone passes: a redeal (§7.4), no hand played
    hand(10, 1, FIVE, side_of=[1, 1, 1, 1, 1], winning=[], points=[0] * 5, minute=2,
         auction=[[i, PASS] for i in range(5)], void=True, redeal=True),
    # Ciro calls Ana; the defenders win with a cappotto (doubled: -2 +2 -4 +2 +2)
    hand(10, 2, FIVE, side_of=[0, 1, 0, 1, 1], winning=[1], points=[0, 40, 0, 40, 40],
         counted=[-2, 2, -4, 2, 2], caller=2, partner=0, cappotto=True, minute=3,
         auction=[[0, 4], [1, PASS], [2, 5], [3, PASS], [4, PASS], [0, PASS]]),
    # next season: Ana calls herself and wins alone (+4 -1 -1 -1 -1)
    hand(10, 3, FIVE, side_of=[0, 1, 1, 1, 1], winning=[0], points=[70, 10, 10, 20, 10],
         counted=[4, -1, -1, -1, -1], caller=0, partner=0, minute=40, epoch=1,
         auction=[[0, 2], [1, PASS], [2, PASS], [3, PASS], [4, PASS]]),
    # due, table 20: Ana beats Bea in two hands
    hand(20, 0, [A, B], side_of=[0, 1], winning=[0], points=[70, 50], variant="due", minute=5),
    hand(20, 1, [A, B], side_of=[0, 1], winning=[0], points=[80, 40], variant="due", minute=6),
    # due, table 21: Bea (seat 0) beats Ana; a 60-60 hand in between is void (§4.1)
    hand(21, 0, [B, A], side_of=[0, 1], winning=[0], points=[65, 55], variant="due", minute=7),
    hand(21, 1, [B, A], side_of=[0, 1], winning=[], points=[60, 60], variant="due", minute=8,
         void=True),
    hand(21, 2, [B, A], side_of=[0, 1], winning=[0], points=[90, 30], variant="due", minute=9),
]  # fmt: skip


MATCHES = [
    match(20, [A, B], winners=[0], counted=[1, -1], minute=6),
    match(21, [B, A], winners=[0], counted=[1, -1], minute=9),
    match(10, FIVE, winners=[0], counted=[4, 2, -3, 0, -3], minute=40, variant="chiamata",
          epoch=1),
]  # fmt: skip

"""An independent referee: replays a `simulate --jsonl` hand record and checks it against
RULES.md, sharing no code with the engine (its own card tables, trick rule, draws, scoring).

`verify(record)` raises AssertionError with the first discrepancy.
"""

from __future__ import annotations

from typing import Any

# §1.1-1.2 (Italian numbering 1..10) and §9.1 (32 cards).
_POWER40 = {1: 10, 3: 9, 10: 8, 9: 7, 8: 6, 7: 5, 6: 4, 5: 3, 4: 2, 2: 1}
_POINTS40 = {1: 11, 3: 10, 10: 4, 9: 3, 8: 2}
_POWER40_SOUTH = {**_POWER40, 8: 7, 9: 6}
_POINTS40_SOUTH = {**_POINTS40, 8: 3, 9: 2}
_RANKS32 = "ATKQJ987"
_POINTS32 = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2}

_SEATS = {
    "due": (2, 3),
    "scoperta": (2, 3),
    "coperta": (2, 3),
    "briscolone": (2, 5),
    "tre": (3, 3),
    "quattro": (4, 3),
    "sei": (6, 3),
    "chiamata": (5, 8),
    "chiamata4": (4, 10),
}


class Card:
    def __init__(self, text: str, deck32: bool, southern: bool) -> None:
        self.text = text
        self.suit = text[-1]
        rank = text[:-1]
        assert self.suit in "DCSB", text
        if deck32:
            assert rank in _RANKS32, text
            self.power = 8 - _RANKS32.index(rank)
            self.points = _POINTS32.get(rank, 0)
            self.number = rank
        else:
            n = int(rank)
            assert 1 <= n <= 10, text
            self.power = (_POWER40_SOUTH if southern else _POWER40)[n]
            self.points = (_POINTS40_SOUTH if southern else _POINTS40).get(n, 0)
            self.number = str(n)


def _full_deck(deck32: bool) -> set[str]:
    if deck32:
        return {r + s for r in _RANKS32 for s in "DCSB"}
    return {f"{n}{s}" for n in range(1, 11) for s in "DCSB"}


def verify(rec: dict[str, Any]) -> None:
    v = rec["variant"]
    opts = rec["options"]
    deck32 = v == "briskula32"
    southern = bool(opts.get("southern"))
    cards: dict[str, Card] = {}

    def C(t: str) -> Card:
        if t not in cards:
            cards[t] = Card(t, deck32, southern)
        return cards[t]

    hands = [list(h) for h in rec["hands"]]
    n = len(hands)
    if v in _SEATS:
        assert (n, len(hands[0])) == _SEATS[v], "seats and hand size (§3.2, §7.1, §8.1)"
    elif v == "briskula32":
        assert 2 <= n <= 4 and len(hands[0]) == 3
    elif v == "doppia":
        assert n in (2, 4) and len(hands[0]) == 4
    assert all(len(h) == len(hands[0]) for h in hands)
    dealt = [c for h in hands for c in h] + rec["talon"] + rec["removed"]
    if rec["turned"] is not None:
        dealt.append(rec["turned"])
    assert len(dealt) == len(set(dealt)), "a card appears twice"
    assert set(dealt) == _full_deck(deck32), "the deal is not the whole deck"
    removed = rec["removed"]
    if v == "tre":
        assert len(removed) == 1 and C(removed[0]).number == "2", "§1.4 one Two removed"
    elif v == "sei":
        assert sorted(C(c).number for c in removed) == ["2"] * 4, "§1.4 all Twos removed"
    else:
        assert removed == []
    dealer = rec["dealer"]
    chiamata = v in ("chiamata", "chiamata4")
    result = rec["result"]

    # --- briscola and the auction
    target = 61
    caller = partner = None
    if chiamata:
        assert rec["turned"] is None and rec["talon"] == [], "§7.1 everything dealt"
        caller, partner, target, briscola = _check_auction(rec, hands, n, dealer)
        if result["redeal"]:
            assert rec["tricks"] == [] and rec["ledger"] == [0] * n
            return
    elif v == "briscolone":
        assert rec["turned"] is None
        briscola = None
    else:
        turned = rec["turned"]
        assert turned is not None
        if opts.get("retrump"):
            assert C(turned).points < 10, "§3.6 an Ace or Three is never left turned"
        briscola = C(turned).suit
    assert rec["briscola"] == briscola

    # --- the play
    teams = _sides(rec, n, caller, partner)
    talon = list(rec["talon"]) + ([rec["turned"]] if rec["turned"] is not None else [])
    plays_each = 2 if v == "doppia" else 1
    leader = (dealer + 1) % n  # §3.3
    if chiamata and opts.get("lead") == "caller":
        leader = caller  # §7.10
    participants = list(range(n))
    taken = [0] * n
    tricks_won = [0] * n
    for i, t in enumerate(rec["tricks"]):
        assert t["leader"] == leader, f"trick {i}: leader"
        order = [s for s in ((leader + j) % n for j in range(n)) if s in participants]
        order = order * plays_each
        assert [p[0] for p in t["plays"]] == order, f"trick {i}: playing order"
        led = C(t["plays"][0][1]).suit
        best_seat, best = None, None
        for seat, text in t["plays"]:
            card = C(text)
            assert text in hands[seat], f"trick {i}: seat {seat} does not hold {text}"
            if v == "briscolone" and card.suit != led:  # §8.2
                assert all(C(c).suit != led for c in hands[seat]), f"trick {i}: revoke"
            hands[seat].remove(text)
            if best is None:
                best_seat, best = seat, card
            elif card.suit == best.suit:
                if card.power > best.power:
                    best_seat, best = seat, card
            elif briscola is not None and card.suit == briscola:
                best_seat, best = seat, card
        assert best_seat is not None
        assert t["winner"] == best_seat, f"trick {i}: winner (§2.3)"
        pts = sum(C(c).points for _, c in t["plays"])
        assert t["points"] == pts, f"trick {i}: points"
        taken[best_seat] += pts
        tricks_won[best_seat] += 1
        # §3.4 / §9.1 / §9.2: draws, winner first, the turned card last.
        participants = list(range(n))
        if talon:
            drew: list[int] = []
            for _ in range(plays_each):
                for s in ((best_seat + j) % n for j in range(n)):
                    if talon:
                        hands[s].append(talon.pop(0))
                        if s not in drew:
                            drew.append(s)
            if len(drew) < n:
                participants = drew
        leader = best_seat
    assert not talon and all(h == [] for h in hands), "cards left over"
    assert rec["card_points"] == taken, "card points per seat"
    total = 120
    assert sum(taken) == total, "§1.2 120 points in a deal"

    # --- the result
    side_of = teams
    n_sides = max(side_of) + 1
    side_points = [0] * n_sides
    for s in range(n):
        side_points[side_of[s]] += taken[s]
    assert result["side_points"] == side_points
    if chiamata:
        _check_chiamata_score(rec, n, caller, partner, target, side_points, tricks_won, side_of)
        return
    top = max(side_points)
    if side_points.count(top) > 1:  # §4.1, §4.2
        assert result["void"] and rec["ledger"] == [0] * n
        return
    win = side_points.index(top)
    assert result["winning_sides"] == [win] and not result["void"]
    winners = [s for s in range(n) if side_of[s] == win]
    share = (n - len(winners)) // len(winners)
    expected = [share if s in winners else -1 for s in range(n)]
    assert rec["ledger"] == expected, "§10.2 deltas"


def _sides(rec: dict[str, Any], n: int, caller: int | None, partner: int | None) -> list[int]:
    v = rec["variant"]
    opts = rec["options"]
    if caller is not None:
        return [0 if s in (caller, partner) else 1 for s in range(n)]
    if v == "quattro" or (v in ("briskula32", "doppia") and opts.get("teams") == "pairs"):
        return [s % 2 for s in range(n)]  # §5.1
    if v == "sei":
        if opts.get("teams") == "threes":
            return [s % 2 for s in range(n)]  # §5.4 alternate seats
        return [s % 3 for s in range(n)]  # §5.4 partners i and i+3
    return list(range(n))


def _check_auction(
    rec: dict[str, Any], hands: list[list[str]], n: int, dealer: int
) -> tuple[int | None, int | None, int, str | None]:
    opts = rec["options"]
    by_points = opts.get("auction") == "points"
    overbid = opts.get("overbid", True)
    order = [1, 3, 10, 9, 8, 7, 6, 5, 4, 2]  # §7.2 descending rank
    if opts.get("southern"):
        order = [1, 3, 10, 8, 9, 7, 6, 5, 4, 2]  # §1.3: the Jack above the Queen
    passed: set[int] = set()
    # §7.2 auction_start: right of the dealer is the next seat (§2.5), left the one before.
    turn = (dealer - 1) % n if opts.get("auction_start") == "dealer_left" else (dealer + 1) % n
    last_rank: int | None = None
    last_points = 0
    last_bidder: int | None = None
    two_caller: int | None = None
    ended = False
    carichi = False  # carichi is the standing bid
    for i, (seat, bid) in enumerate(rec["auction"]):
        assert not ended, "a bid after the auction ended"
        assert seat == turn, f"bid out of turn: seat {seat}, expected {turn}"
        assert seat not in passed, "§7.2 a pass is final"
        if i == 0 and opts.get("first_must_call"):
            assert bid != "pass", "§7.2 first_must_call: the first player may not pass"
        if bid == "pass":
            passed.add(seat)
        elif bid == "carichi":
            assert opts.get("carichi") and not by_points and last_rank != 2, "§7.8"
            assert not carichi, "§7.8 continues: carichi is not called over carichi"
            carichi, last_bidder = True, seat
            ended = opts.get("carichi_mode", "ends") == "ends"
        elif by_points:
            assert isinstance(bid, int) and 61 <= bid <= 120 and bid > last_points, "§7.9"
            last_points, last_bidder = bid, seat
        elif last_rank == 2:
            assert overbid and isinstance(bid, int) and 62 <= bid <= 120 and bid > last_points
            if opts.get("two_caller_raises") is False:
                assert seat != two_caller, "§7.3 two_caller_raises=false: the Two's caller"
            last_points, last_bidder = bid, seat
        else:
            assert isinstance(bid, int) and 1 <= bid <= 10
            if last_rank is not None:  # §7.8 continues: lower than the last rank named
                assert order.index(bid) > order.index(last_rank), "§7.2 strictly lower"
            last_rank, last_bidder, carichi = bid, seat, False
            if bid == 2:
                two_caller = seat
                ended = not overbid
        if not ended:
            active = [s for s in range(n) if s not in passed]
            if not active or (len(active) == 1 and active[0] == last_bidder):
                ended = True
            else:
                turn = (turn + 1) % n
                while turn in passed:
                    turn = (turn + 1) % n
    assert ended, "the auction did not end"
    if last_bidder is None:  # §7.4 all passed
        assert rec["result"]["redeal"] and rec["caller"] is None
        return None, None, 61, None
    assert rec["caller"] == last_bidder, "§7.4 the last caller is the chiamante"
    if carichi:
        assert rec["called_card"] is None and rec["briscola"] is None
        assert rec["partner"] == last_bidder
        return last_bidder, last_bidder, 61, None
    called = rec["called_card"]
    if not by_points:
        assert called[:-1] == str(last_rank), "§7.5 called card is the last rank called"
    holder = next(s for s in range(n) if called in hands[s])
    assert rec["partner"] == holder, "§7.6 the socio holds the called card"
    target = last_points or 61
    assert rec["target"] == target, "§7.4 target"
    return last_bidder, holder, target, called[-1]


def _check_chiamata_score(
    rec: dict[str, Any],
    n: int,
    caller: int | None,
    partner: int | None,
    target: int,
    side_points: list[int],
    tricks_won: list[int],
    side_of: list[int],
) -> None:
    assert caller is not None and partner is not None
    won = side_points[0] >= target  # §7.11
    losing = 1 if won else 0
    if rec["options"].get("cappotto") == "all_tricks":
        cappotto = sum(tricks_won[s] for s in range(n) if side_of[s] == losing) == 0
    else:
        cappotto = side_points[losing] == 0
    alone = caller == partner
    if n == 5:
        gains = (4, 0) if alone else (2, 1)
    else:
        gains = (3, 0) if alone else (1, 1)
    sign = (1 if won else -1) * (2 if cappotto else 1)
    expected = [
        sign * (gains[0] if s == caller else gains[1] if s == partner else -1) for s in range(n)
    ]
    assert sum(expected) == 0
    assert rec["ledger"] == expected, "§7.12 scores"
    assert rec["result"]["cappotto"] == cappotto

"""What the learned parts see: rows of small integers made in plain Python (`*_row`), turned
into the networks' inputs in numpy (`*_inputs`, many rows at once). The training scripts
(`train/`) and the players use exactly these functions.

Suits are canonical: the briscola is suit 0 and the other three keep their order as 1..3
(a card's id becomes `canon[suit] * 10 + number - 1`), so a network learns one briscola.
Seats are relative to the seat the row is about (0 itself, then in playing order, §2.5).

Chiamata only, five or four players (§7), the standard deck (§1.1), a briscola named
(`applies`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.engine import actions as A
from bot.engine.cards import DECK40
from bot.engine.options import Rules
from bot.engine.tricks import take
from bot.players.suspicion import suspicion_events

if TYPE_CHECKING:
    import numpy as np

# bump when a row's layout or an input changes: weights carry the version they were trained on
VERSION = 1

# --- chiamata positions (the value network): every card placed, the seat to move at 0 -----

IN_TRICK = 5  # codes 5..8: on the table, at that place in the trick
GONE = 9  # in a finished trick
LOC_CODES = 10
ROLE_NONE = 3  # a fifth seat that a four-player table lacks
SCALARS = 10  # after 40 locations and 5 roles: see `value_row`
VALUE_ROW = 40 + 5 + SCALARS
VALUE_INPUTS = 40 * LOC_CODES + 5 * 3 + 8 + 5 + 1


def applies(rules: Rules, briscola: int) -> bool:
    """Whether the learned parts know this table: chiamata with four or five players, the
    standard deck and order (§1.1), one card per seat a trick, a briscola (not carichi)."""
    return (
        rules.chiamata
        and rules.n_players in (4, 5)
        and rules.deck is DECK40
        and rules.plays_per_trick == 1
        and briscola >= 0
    )


def canon_map(briscola: int) -> tuple[int, ...]:
    """Per card id, its canonical id (the briscola suit first, the others in order)."""
    order = [briscola] + [s for s in range(4) if s != briscola]
    rank = {s: i for i, s in enumerate(order)}
    return tuple(rank[c // 10] * 10 + c % 10 for c in range(40))


_CANON = {b: canon_map(b) for b in range(4)}


def value_row(
    hands: list[list[int]],
    trick: list[int],
    n: int,
    me: int,
    caller: int,
    partner: int,
    revealed: bool,
    taken: list[int],
    target: int,
    tricks_done: int,
    briscola: int,
) -> list[int]:
    """A chiamata position for the value network, from the seat to move (`me`): where each
    card is (a hand by relative seat, the table by place, gone), each relative seat's role
    (caller, socio, defender; the caller alone is the caller), then: five players, the socio
    revealed, the caller alone, the caller's side's card points so far, the defenders', the
    target, tricks done, cards on the table, the place of the card taking the trick (4: none)
    and the points on the table."""
    canon = _CANON[briscola]
    loc = [GONE] * 40
    for s in range(n):
        r = (s - me) % n
        for c in hands[s]:
            loc[canon[c]] = r
    for i, c in enumerate(trick):
        loc[canon[c]] = IN_TRICK + i
    roles = [ROLE_NONE] * 5
    for r in range(n):
        s = (me + r) % n
        roles[r] = 0 if s == caller else (1 if s == partner else 2)
    ours = taken[caller] + (taken[partner] if partner != caller else 0)
    if trick:
        w, pts = take(trick, DECK40.suit, DECK40.strength, DECK40.points, briscola)
    else:
        w, pts = 4, 0
    return [
        *loc,
        *roles,
        int(n == 5),
        int(revealed),
        int(partner == caller),
        ours,
        sum(taken) - ours,
        target,
        tricks_done,
        len(trick),
        w,
        pts,
    ]


def state_value_row(state: object) -> list[int]:
    """`value_row` of a determinized `HandState` in the play phase."""
    from bot.engine.state import HandState

    assert isinstance(state, HandState)
    return value_row(
        state.hands,
        state.trick,
        state.rules.n_players,
        state.current,
        state.caller,
        state.partner,
        state.reveal_trick >= 0,
        state.taken,
        state.target,
        len(state.tricks),
        state.briscola,
    )


def value_inputs(rows: np.ndarray) -> np.ndarray:
    """The value network's inputs (float32, `VALUE_INPUTS` wide) of `value_row` rows."""
    import numpy as np

    rows = np.asarray(rows, dtype=np.int64)
    m = rows.shape[0]
    out = np.zeros((m, VALUE_INPUTS), dtype=np.float32)
    idx = np.arange(m)[:, None]
    out[idx, np.arange(40)[None, :] * LOC_CODES + rows[:, :40]] = 1.0
    roles = rows[:, 40:45]
    base = 40 * LOC_CODES
    has = roles < 3
    cols = base + np.arange(5)[None, :] * 3 + np.minimum(roles, 2)
    out[idx, cols] = has.astype(np.float32)
    s = rows[:, 45:]
    base += 15
    out[:, base + 0] = s[:, 0]
    out[:, base + 1] = s[:, 1]
    out[:, base + 2] = s[:, 2]
    out[:, base + 3] = s[:, 3] / 120.0
    out[:, base + 4] = s[:, 4] / 120.0
    out[:, base + 5] = (s[:, 5] - 61) / 59.0
    out[:, base + 6] = s[:, 6] / 10.0
    out[:, base + 7] = s[:, 7] / 4.0
    base += 8
    out[np.arange(m), base + s[:, 8]] = 1.0
    out[:, base + 5] = s[:, 9] / 30.0
    return out


# --- chiamata calls (the bidding network): the caller's hand and the card it calls ------

# the caller's side's card points the bidding network gives the chance of reaching
BID_THRESHOLDS = (41, 51, 61, 64, 67, 70, 73, 76, 80, 85, 90, 100, 110)
BID_ROW = 10 + 3
BID_INPUTS = 40 + 10 + 1 + 1 + 5 + 6


def bid_row(hand: list[int] | tuple[int, ...], called: int, seat: int, n: int) -> list[int]:
    """A call for the bidding network: the caller's cards (canonical with the called card's
    suit as the briscola, padded with -1 to ten), the called card (canonical), the caller's
    place after the first leader (§7.10) and the number of players."""
    canon = _CANON[called // 10]
    cards = sorted(canon[c] for c in hand)
    return [*cards, *([-1] * (10 - len(cards))), canon[called], seat, n]


def bid_inputs(rows: np.ndarray) -> np.ndarray:
    """The bidding network's inputs (float32, `BID_INPUTS` wide) of `bid_row` rows: the
    cards held, the called rank, alone (the called card held), five players, the place,
    and counts: briscole held, their points, plain Assi, plain Tre, figure, points held."""
    import numpy as np

    rows = np.asarray(rows, dtype=np.int64)
    m = rows.shape[0]
    out = np.zeros((m, BID_INPUTS), dtype=np.float32)
    hand = rows[:, :10]
    held = hand >= 0
    onehot = np.zeros((m, 41), dtype=np.float32)
    onehot[np.arange(m)[:, None], np.where(held, hand, 40)] = 1.0
    out[:, :40] = onehot[:, :40]
    called = rows[:, 10]
    out[np.arange(m), 40 + called % 10] = 1.0
    out[:, 50] = onehot[np.arange(m), called]
    out[:, 51] = rows[:, 12] == 5
    out[np.arange(m), 52 + rows[:, 11]] = 1.0
    pts = np.array((*DECK40.points, 0), dtype=np.float32)[np.where(held, hand, 40)]
    trump = held & (hand < 10)
    out[:, 57] = trump.sum(1) / 5.0
    out[:, 58] = (pts * trump).sum(1) / 30.0
    plain = held & (hand >= 10)
    out[:, 59] = (plain & (pts == 11)).sum(1) / 2.0
    out[:, 60] = (plain & (pts == 10)).sum(1) / 2.0
    out[:, 61] = (plain & (pts > 0) & (pts < 10)).sum(1) / 3.0
    out[:, 62] = pts.sum(1) / 40.0
    return out


# --- who holds what (the inference network): a seat's observation, seats relative to it -----

UNSEEN, MINE, PLAYED = 0, 1, 2  # card codes; PLAYED + r: played by relative seat r
EVENTS = (
    "loads_caller",
    "points_caller",
    "liscio_caller_trump",
    "takes_caller",
    "trumps_caller",
    "carico_other",
    "trumps_other",
    "leads_briscola",
)
INFER_ROW = 40 + 8 + 5 * 2 + 5 * len(EVENTS) + 5
INFER_INPUTS = 40 * 7 + 40 + 5 + 6 + 3 + 3 + 5 * 11 + 5 + 5 * len(EVENTS) + 5


def infer_row(obs: object) -> list[int]:
    """A chiamata observation in the play phase for the inference network: each card unseen,
    in the seat's hand, or played by a relative seat; the called card, the caller's relative
    seat, the socio's if this seat knows it (5: not), the socio revealed, five players,
    tricks done, this seat's role (caller, socio, defender); per relative seat the
    strongest rank it called (its place in the auction's order, 10: none) and its highest
    points bid (§7.2-7.3); per relative seat the counts of the public plays of
    `knowledge.SUSPICION`; per relative seat the cards in hand."""
    from bot.engine.observation import Observation

    assert isinstance(obs, Observation)
    n = obs.rules.n_players
    me = obs.seat
    canon = _CANON[obs.briscola]
    code = [UNSEEN] * 40
    for c in obs.hand:
        code[canon[c]] = MINE
    for t in obs.tricks:
        for s, c in t.plays:
            code[canon[c]] = PLAYED + (s - me) % n
    for s, c in obs.trick:
        code[canon[c]] = PLAYED + (s - me) % n
    caller = obs.caller
    partner = obs.partner
    role = 0 if me == caller else (1 if me == partner else 2)
    ranks = obs.rules.deck.auction_ranks()
    rank = [10] * 5
    points = [0] * 5
    for s, a in obs.bids:
        r = (s - me) % n
        if A.CALL_RANK <= a < A.BID_POINTS:
            rank[r] = min(rank[r], ranks.index(a - A.CALL_RANK))
        elif A.BID_POINTS <= a < A.PASS:
            points[r] = max(points[r], a - A.BID_POINTS)
    events = [0] * (5 * len(EVENTS))
    for s, e in suspicion_events(obs):
        events[((s - me) % n) * len(EVENTS) + EVENTS.index(e)] += 1
    sizes = [0] * 5
    for s in range(n):
        sizes[(s - me) % n] = obs.hand_sizes[s]
    return [
        *code,
        canon[obs.called_card],
        (caller - me) % n,
        5 if partner < 0 else (partner - me) % n,
        int(obs.partner_revealed),
        int(n == 5),
        len(obs.tricks),
        role,
        0,
        *rank,
        *points,
        *events,
        *sizes,
    ]


def infer_inputs(rows: np.ndarray) -> np.ndarray:
    """The inference network's inputs (float32, `INFER_INPUTS` wide) of `infer_row` rows."""
    import numpy as np

    rows = np.asarray(rows, dtype=np.int64)
    m = rows.shape[0]
    out = np.zeros((m, INFER_INPUTS), dtype=np.float32)
    idx = np.arange(m)
    out[idx[:, None], np.arange(40)[None, :] * 7 + rows[:, :40]] = 1.0
    base = 280
    out[idx, base + rows[:, 40]] = 1.0
    base += 40
    out[idx, base + rows[:, 41]] = 1.0
    base += 5
    out[idx, base + rows[:, 42]] = 1.0
    base += 6
    out[:, base] = rows[:, 43]
    out[:, base + 1] = rows[:, 44]
    out[:, base + 2] = rows[:, 45] / 8.0
    base += 3
    out[idx, base + rows[:, 46]] = 1.0
    base += 3
    at = 48
    for r in range(5):
        out[idx, base + r * 11 + rows[:, at + r]] = 1.0
    base += 55
    at += 5
    out[:, base : base + 5] = np.where(
        rows[:, at : at + 5] > 0, (rows[:, at : at + 5] - 60) / 60.0, 0
    )
    base += 5
    at += 5
    k = 5 * len(EVENTS)
    out[:, base : base + k] = rows[:, at : at + k] / 2.0
    base += k
    at += k
    out[:, base : base + 5] = rows[:, at : at + 5] / 10.0
    return out


# --- chiamata cards (the card network): a seat's observation, the card it may play --------

CARD_ROW = INFER_ROW + 5 + 1 + 4
CARD_INPUTS = INFER_INPUTS + 5 + 1 + 4 * 41
NO_CARD = 40  # an empty place on the table


def card_row(obs: object) -> list[int]:
    """A chiamata observation in the play phase for the card network: `infer_row`, then the
    card points each relative seat has taken (public: the tricks are), the target and the
    cards on the table in playing order (canonical, `NO_CARD` for a place still empty)."""
    from bot.engine.observation import Observation

    assert isinstance(obs, Observation)
    n = obs.rules.n_players
    me = obs.seat
    canon = _CANON[obs.briscola]
    taken = [0] * 5
    for t in obs.tricks:
        taken[(t.winner - me) % n] += t.points
    table = [canon[c] for _, c in obs.trick]
    return [*infer_row(obs), *taken, obs.target, *table, *([NO_CARD] * (4 - len(table)))]


def card_inputs(rows: np.ndarray) -> np.ndarray:
    """The card network's inputs (float32, `CARD_INPUTS` wide) of `card_row` rows."""
    import numpy as np

    rows = np.asarray(rows, dtype=np.int64)
    m = rows.shape[0]
    out = np.zeros((m, CARD_INPUTS), dtype=np.float32)
    out[:, :INFER_INPUTS] = infer_inputs(rows[:, :INFER_ROW])
    base, at = INFER_INPUTS, INFER_ROW
    out[:, base : base + 5] = rows[:, at : at + 5] / 60.0
    out[:, base + 5] = (rows[:, at + 5] - 61) / 59.0
    base += 6
    at += 6
    idx = np.arange(m)
    for i in range(4):
        out[idx, base + i * 41 + rows[:, at + i]] = 1.0
    return out


# --- briscola a due (the due network): a seat's observation, the card it may play ----------

DUE_CODES = 7  # unseen, mine, played by me, by the other, on the table, turned, known theirs
DUE_ROW = 40 + 4
DUE_INPUTS = 40 * DUE_CODES + 4


def due_applies(rules: Rules) -> bool:
    """Briscola a due as the due network learned it (§3, the standard deck, §1.1)."""
    return (
        rules.variant == "due"
        and rules.n_players == 2
        and rules.deck is DECK40
        and not rules.blind
        and not rules.follow_suit
        and rules.plays_per_trick == 1
    )


def due_row(obs: object) -> list[int]:
    """A due observation for the due network, from the seat to play: each card unseen, in
    its hand, played by it or by the other seat, led by the other seat now, the turned card
    still under the talon (§3.2), or the turned card in the other's hand (§3.4); then both
    seats' card points so far (public: the tricks are), the cards left to draw and whether
    this seat leads."""
    from bot.engine.observation import Observation

    assert isinstance(obs, Observation)
    me = obs.seat
    canon = _CANON[obs.briscola]
    code = [0] * 40
    pts = [0, 0]
    for t in obs.tricks:
        for s, c in t.plays:
            code[canon[c]] = 2 if s == me else 3
        pts[0 if t.winner == me else 1] += t.points
    for _, c in obs.trick:
        code[canon[c]] = 4
    if obs.turned >= 0 and code[canon[obs.turned]] == 0:
        if obs.turned_to < 0:
            code[canon[obs.turned]] = 5
        elif obs.turned_to != me:
            code[canon[obs.turned]] = 6
    for c in obs.hand:
        code[canon[c]] = 1
    return [*code, pts[0], pts[1], obs.talon_left, int(not obs.trick)]


def due_inputs(rows: np.ndarray) -> np.ndarray:
    """The due network's inputs (float32, `DUE_INPUTS` wide) of `due_row` rows."""
    import numpy as np

    rows = np.asarray(rows, dtype=np.int64)
    m = rows.shape[0]
    out = np.zeros((m, DUE_INPUTS), dtype=np.float32)
    out[np.arange(m)[:, None], np.arange(40)[None, :] * DUE_CODES + rows[:, :40]] = 1.0
    base = 40 * DUE_CODES
    out[:, base] = rows[:, 40] / 120.0
    out[:, base + 1] = rows[:, 41] / 120.0
    out[:, base + 2] = rows[:, 42] / 34.0
    out[:, base + 3] = rows[:, 43]
    return out

"""The compiled kernels of `fastsolve` (numba): exact alpha-beta over bit-mask hands.

Imported by `fastsolve.FastSolver` on first use, not with the players: importing numba and
loading (or, the first time after an install, compiling: about 10 s) these kernels is left
to the processes that search (`thinker`'s workers warm them up when they start).

Few arguments per call (each array is several words to the compiled code): the deck's
tables in one array (`deck`: suit, strength, points, next weaker card of the suit), the keys
in one (`zob`: per seat and card, and per leader in its last row), the transposition table
in one (`tt`: key, and generation, lower and upper bound packed in one word), and the
control words (`ctl`: nodes, node limit, generation).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import numpy as np
from numba import njit

from bot.players.bounds import narrow, probe

INF = 10_000
SUIT, STRENGTH, POINTS, LOWER = range(4)
LEADER = 8  # the row of `zob` keyed by the trick's leader
NODES, LIMIT, GEN = range(3)
BIAS = 1 << 14  # bounds are stored as bound + BIAS, 15 bits each

# Explicit signatures, compiled eagerly: numba's disk cache of a recursive function compiled
# lazily crashes when it is loaded again (numba issue #6061, #6713: a call site's argument
# types differing from the compiled ones); with every type fixed, the cache loads cleanly.
_A = "int64[::1]"
_M = "int64[:, ::1]"
_I = "int64"
_SIG_BEATS = f"boolean({_I}, {_I}, {_M}, {_I})"
_SIG_ORDER = f"{_I}({', '.join([_I] * 5)}, boolean, {_M}, {_I}, boolean, {_A}, {_A})"
_TABLES = f"{_M}, {_I}, boolean, {_I}, {_M}, {_M}, {_A}, int64[:, :, ::1]"
_SIG_SEARCH = f"{_I}({_A}, {', '.join([_I] * 12)}, {_TABLES}, {_I})"
_SIG_ROOT = f"void({_A}, {_I}, {_I}, {_A}, {_I}, {_A}, {_TABLES}, {_A})"
I64 = int | np.int64  # the kernels' scalars (typed by their signatures)

# the bounds of the table, as the Python solver keeps them (numba compiles the same functions)
_probe = cast(
    "Callable[[I64, I64, I64, I64], tuple[bool, I64, I64, I64]]",
    njit(f"Tuple((boolean, {_I}, {_I}, {_I}))({', '.join([_I] * 4)})", cache=True)(probe),
)
_narrow = cast(
    "Callable[[I64, I64, I64, I64, I64], tuple[I64, I64]]",
    njit(f"UniTuple({_I}, 2)({', '.join([_I] * 5)})", cache=True)(narrow),
)


@njit(_SIG_BEATS, cache=True)
def _beats(card: I64, wc: I64, deck: np.ndarray, b: I64) -> bool:
    """§2.3, one card at a time (as `search._beats`)."""
    if deck[SUIT, card] == deck[SUIT, wc]:
        return bool(deck[STRENGTH, card] > deck[STRENGTH, wc])
    return bool(deck[SUIT, card] == b)


@njit(_SIG_ORDER, cache=True)
def _order_moves(
    hand: I64,
    alive: I64,
    tlen: I64,
    led: I64,
    wc: I64,
    friend_taking: bool,
    deck: np.ndarray,
    b: I64,
    follow: bool,
    out: np.ndarray,
    keys: np.ndarray,
) -> I64:
    """The cards this seat may play into `out`, likely best first (for the cut-offs);
    `keys` is scratch space. Of cards that play alike (same suit and points, and no card
    still in play, `alive`, between them in strength) only the weakest."""
    suit = deck[SUIT]
    strength = deck[STRENGTH]
    points = deck[POINTS]
    lower = deck[LOWER]
    cands = hand
    if follow and tlen > 0:
        same = np.int64(0)
        for c in range(40):
            if (hand >> c) & 1 and suit[c] == led:
                same |= np.int64(1) << c
        if same != 0:
            cands = same
    n = 0
    rest = cands
    c = 0
    while rest != 0:
        if not (rest >> c) & 1:
            c += 1
            continue
        rest ^= np.int64(1) << c
        x = lower[c]
        while x >= 0 and not (alive >> x) & 1:
            x = lower[x]  # skip the cards gone
        if x >= 0 and (cands >> x) & 1 and points[x] == points[c]:
            c += 1
            continue  # plays as `x`, which is searched
        if tlen == 0:
            k = (suit[c] == b) * 100 + points[c] * 5 + strength[c]  # cheap leads first
        elif friend_taking:
            # load the friend's trick with points, keep the briscole
            k = (suit[c] == b) * 100 - points[c] * 5 + strength[c]
        elif _beats(c, wc, deck, b):
            k = -200 + (suit[c] == b) * 20 + strength[c]  # take it, cheaply
        else:
            k = points[c] * 5 + strength[c]  # else throw little
        i = n  # insertion sort by key
        while i > 0 and keys[i - 1] > k:
            keys[i] = keys[i - 1]
            out[i] = out[i - 1]
            i -= 1
        keys[i] = k
        out[i] = c
        n += 1
        c += 1
    return n


@njit(_SIG_SEARCH, cache=True)
def _search(
    hands: np.ndarray,
    n: I64,
    leader: I64,
    tlen: I64,
    wpos: I64,
    wc: I64,
    led: I64,
    pts: I64,
    tmask: I64,
    only: I64,
    key: I64,
    alpha: I64,
    beta: I64,
    deck: np.ndarray,
    b: I64,
    follow: bool,
    mine: I64,
    zob: np.ndarray,
    tt: np.ndarray,
    ctl: np.ndarray,
    buf: np.ndarray,
    depth: I64,
) -> I64:
    """Points the side of the seats in `mine` (a bit per seat) wins from here on (the trick
    under way included: `tlen` cards in it, `tmask`, taken so far by position `wpos` with
    `wc`, worth `pts`). With `only` (a card mask, not 0) the seat to move plays one of those
    cards here (`root`), and the node is not kept in the table."""
    zero = np.int64(0)  # typed, not literal, at the recursive calls (see the signatures)
    none = np.int64(-1)
    ctl[NODES] += 1
    if ctl[NODES] > ctl[LIMIT]:
        return 0  # over the limit: the caller sees it and gives up
    gen = ctl[GEN]
    slot = -1
    a0 = alpha
    b0 = beta
    k = key
    if tlen == 0 and only == 0:
        k = key ^ zob[LEADER, leader]
        slot = int(k & (tt.shape[0] - 1))  # a power of two
        info = tt[slot, 1]
        if tt[slot, 0] == k and (info >> 32) == gen:
            lo: I64 = ((info >> 15) & 0x7FFF) - BIAS
            hi: I64 = (info & 0x7FFF) - BIAS
            known, value, alpha, beta = _probe(lo, hi, alpha, beta)
            if known:
                return value
            a0 = alpha
            b0 = beta
    seat = (leader + tlen) % n
    my = (mine >> seat) & 1
    friend_taking = bool(tlen > 0 and ((mine >> ((leader + wpos) % n)) & 1) == my)
    alive = tmask
    for s in range(n):
        alive |= hands[s]
    moves = buf[depth, 0]
    hand = hands[seat] if only == 0 else hands[seat] & only
    nm = _order_moves(
        hand, alive, tlen, led, wc, friend_taking, deck, b, follow, moves, buf[depth, 1]
    )
    best: I64 = -INF if my else INF
    nw: I64
    for j in range(nm):
        c = moves[j]
        bit = np.int64(1) << c
        hands[seat] ^= bit
        k2 = key ^ zob[seat, c]
        if tlen == 0:
            nw, nwc, nled = zero, c, deck[SUIT, c]
        elif _beats(c, wc, deck, b):
            nw, nwc, nled = tlen, c, led
        else:
            nw, nwc, nled = wpos, wc, led
        npts = pts + deck[POINTS, c]
        if tlen + 1 < n:
            v = _search(
                hands, n, leader, tlen + 1, nw, nwc, nled, npts, tmask | bit, zero, k2, alpha, beta,
                deck, b, follow, mine, zob, tt, ctl, buf, depth + 1,
            )  # fmt: skip
        else:
            winner = (leader + nw) % n
            gain = npts if (mine >> winner) & 1 else 0
            if hands[winner] == 0:
                v = gain
            else:
                v = gain + _search(
                    hands, n, winner, zero, zero, none, none, zero, zero, zero, k2,
                    alpha - gain, beta - gain, deck, b, follow, mine, zob, tt, ctl, buf,
                    depth + 1,
                )  # fmt: skip
        hands[seat] ^= bit
        if my:
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        else:
            if v < best:
                best = v
                if v < beta:
                    beta = v
                    if alpha >= beta:
                        break
    if slot >= 0 and ctl[NODES] <= ctl[LIMIT]:
        top: I64 = INF
        bottom: I64 = -INF
        info = tt[slot, 1]
        if tt[slot, 0] == k and (info >> 32) == gen:
            bottom = ((info >> 15) & 0x7FFF) - BIAS
            top = (info & 0x7FFF) - BIAS
        bottom, top = _narrow(best, a0, b0, bottom, top)
        tt[slot, 0] = k
        tt[slot, 1] = (gen << 32) | ((bottom + BIAS) << 15) | (top + BIAS)
    return best


@njit(_SIG_ROOT, cache=True)
def root(
    hands: np.ndarray,
    n: I64,
    leader: I64,
    trick: np.ndarray,
    tlen: I64,
    cards: np.ndarray,
    deck: np.ndarray,
    b: I64,
    follow: bool,
    mine: I64,
    zob: np.ndarray,
    tt: np.ndarray,
    ctl: np.ndarray,
    buf: np.ndarray,
    out: np.ndarray,
) -> None:
    """Exact value of each of `cards` played by the seat to move (into `out`): the search of
    this node with only that card to play (`_search`'s `only`)."""
    key = np.int64(0)
    for s in range(n):
        for c in range(40):
            if (hands[s] >> c) & 1:
                key ^= zob[s, c]
    wpos: I64 = 0
    wc: I64 = -1
    led: I64 = -1
    pts: I64 = 0
    tmask = np.int64(0)
    for i in range(tlen):
        c = trick[i]
        tmask |= np.int64(1) << c
        if i == 0:
            wc, led = c, deck[SUIT, c]
        elif _beats(c, wc, deck, b):
            wpos, wc = i, c
        pts += deck[POINTS, c]
    inf = np.int64(INF)
    for j in range(cards.shape[0]):
        only = np.int64(1) << cards[j]  # this node, with this one card to play
        out[j] = _search(
            hands, n, leader, tlen, wpos, wc, led, pts, tmask, only, key, -inf, inf,
            deck, b, follow, mine, zob, tt, ctl, buf, 0,
        )  # fmt: skip

"""Exact alpha-beta on a determinized hand, compiled (numba): the same minimax as
`search.Solver` (card points still to be won by one side, every card known), for hands where
the talon is gone (chiamata, where every card is dealt, from the first trick; elsewhere once
it has run out), one card per seat per trick, seats in turn from the trick's leader.

Hands are bit masks of card ids (40 cards); positions at the start of a trick are kept in a
transposition table (Zobrist keys, alpha-beta bounds) reused from one solve to the next.
The kernels (`_solve_kernels`) are compiled by numba, cached on disk, and imported by the
first `FastSolver` made (`warm()` makes one ahead of time), so that the players import
without numba.
`search.Solver` stays the reference (tests/test_fastsolve.py compares the two) and handles
what this does not: the talon's draws, a short talon (§9.1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.engine.state import PLAY, HandState

if TYPE_CHECKING:
    import numpy as np

TT_BITS = 17  # transposition table: 2**17 positions (2 MB)
TT_SIZE = 1 << TT_BITS


class SolveLimit(Exception):
    """The search needed more nodes than allowed."""


class FastSolver:
    """Reusable tables for `root_values` (one per process, or per player)."""

    def __init__(self, seed: int = 20261127) -> None:
        import numpy as np  # here, not with the players (the bot's process never needs it)

        from bot.players import _solve_kernels as kernels

        self._root = kernels.root
        rs = np.random.default_rng(seed)
        self.zob = rs.integers(1, 2**62, size=(kernels.LEADER + 1, 40), dtype=np.int64)
        self.tt = np.zeros((TT_SIZE, 2), dtype=np.int64)
        self.ctl = np.zeros(3, dtype=np.int64)  # nodes, node limit, generation
        self.buf = np.zeros((41, 2, 40), dtype=np.int64)  # per depth: moves, their keys
        self.nodes = 0
        self._decks: dict[int, np.ndarray] = {}

    @staticmethod
    def applicable(state: HandState) -> bool:
        """One card per seat per trick, in seat order, the talon gone, at most eight seats."""
        rules = state.rules
        if rules.plays_per_trick != 1 or rules.blind or state.phase != PLAY:
            return False
        if state.talon_left():
            return False
        order = state.trick_order
        n = rules.n_players
        return (
            n <= 8
            and len(order) == n
            and rules.deck.size <= 40
            and all(order[i] == (order[0] + i) % n for i in range(n))
            and len({len(h) + (s in order[: len(state.trick)]) for s, h in enumerate(state.hands)})
            == 1
        )

    def _deck(self, state: HandState) -> np.ndarray:
        """The deck's suit, strength and points per card, and the next weaker card of the
        same suit (-1 for none), padded to 40 cards (`_solve_kernels`' rows)."""
        deck = state.rules.deck
        got = self._decks.get(id(deck))
        if got is None:
            import numpy as np

            size = deck.size
            pad = [0] * (40 - size)
            lower = [-1] * 40
            for c in range(size):
                weaker = [
                    x
                    for x in range(size)
                    if deck.suit[x] == deck.suit[c] and deck.strength[x] < deck.strength[c]
                ]
                if weaker:
                    lower[c] = max(weaker, key=lambda x: deck.strength[x])
            got = np.array(
                [
                    list(deck.suit) + [-1] * (40 - size),
                    list(deck.strength) + pad,
                    list(deck.points) + pad,
                    lower,
                ],
                dtype=np.int64,
            )
            self._decks[id(deck)] = got
        return got

    def root_values(
        self, state: HandState, mine: tuple[bool, ...], cards: list[int], max_nodes: int
    ) -> list[float]:
        """Exact card points `mine`'s side wins from now on after each of `cards` (the seat
        to move's); `SolveLimit` beyond `max_nodes` nodes."""
        import numpy as np

        n = state.rules.n_players
        hands = np.zeros(n, dtype=np.int64)
        for s, h in enumerate(state.hands):
            m = 0
            for c in h:
                m |= 1 << c
            hands[s] = m
        ctl = self.ctl
        ctl[0] = 0
        ctl[1] = max_nodes
        ctl[2] += 1  # a new generation: the table's entries of earlier solves are stale
        if ctl[2] >= 2**31:
            ctl[2] = 1
            self.tt[:] = 0
        out = np.zeros(len(cards), dtype=np.int64)
        self._root(
            hands,
            n,
            state.trick_order[0],
            np.array([*state.trick, 0], dtype=np.int64),
            len(state.trick),
            np.array(cards, dtype=np.int64),
            self._deck(state),
            state.briscola,
            state.rules.follow_suit,
            sum(1 << s for s, m in enumerate(mine) if m),
            self.zob,
            self.tt,
            ctl,
            self.buf,
            out,
        )
        self.nodes = int(ctl[0])
        if self.nodes > max_nodes:
            raise SolveLimit
        return [float(v) for v in out]


_SHARED: FastSolver | None = None


def fast_solver() -> FastSolver:
    """This process's solver (its tables are reused from one solve to the next)."""
    global _SHARED
    if _SHARED is None:
        _SHARED = FastSolver()
    return _SHARED


def warm() -> None:
    """Load (or compile) the kernels now, ahead of the first search that needs them."""
    fast_solver()

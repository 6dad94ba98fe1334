"""The bounds the exact solvers keep on a position's value, written once: for the Python
`search.Solver` (on floats) and the compiled `_solve_kernels` (on int64, where numba compiles
these very functions). Plain Python, no numba: the players import it.

A position searched in the window (alpha, beta) and found worth `best` is worth exactly that
if `best` lies inside the window, at most that if at or below alpha, at least that if at or
above beta. The solvers' tables keep those bounds (`narrow`), and a later search of the
position starts from them (`probe`).
"""

from __future__ import annotations

from typing import TypeVar

V = TypeVar("V", int, float)


def probe(lo: V, hi: V, alpha: V, beta: V) -> tuple[bool, V, V, V]:
    """A position known to be worth `lo` to `hi`, to be searched in (alpha, beta): (True, its
    value, ...) when the bounds tell all the search would (they meet, or the window lies
    beyond them), else (False, _, the window narrowed to the bounds)."""
    if lo == hi or lo >= beta:
        return True, lo, alpha, beta
    if hi <= alpha:
        return True, hi, alpha, beta
    return False, lo, max(alpha, lo), min(beta, hi)


def narrow(best: V, alpha: V, beta: V, lo: V, hi: V) -> tuple[V, V]:
    """The bounds (`lo`, `hi`) on a position's value once a search of it in (alpha, beta)
    found `best`."""
    if best <= alpha:
        return lo, min(hi, best)
    if best >= beta:
        return max(lo, best), hi
    return best, best

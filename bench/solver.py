"""The exact solvers of `hard`'s search, on chiamata worlds: time and nodes per world.

    python -m bench.solver [--positions N] [--seed S]

For N positions of five `normal` players' hands at 10, 15, 20 and 25 cards still in play
(some in the middle of a trick), every card of the seat to move is valued exactly, as one
world of `hard`'s search is: by the compiled `FastSolver` (numba) and, up to 15 cards, by the
Python `Solver` it replaced there (their values are checked equal). Prints the median and
p90 milliseconds per world and the nodes searched. The first solve loads (or compiles) the
kernels; that time is printed apart.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Iterator

from bot.engine import PLAY, HandState, Options
from bot.players import make_player
from bot.players.fastsolve import FastSolver
from bot.players.search import Solver, sides_of

PYTHON_UP_TO = 15  # the Python solver takes seconds a world beyond this


def positions(variant: str, seed: int, count: int, left: int) -> Iterator[HandState]:
    """Per deal, the first position of a hand of `normal` players (every seat) with at most
    `left` cards in play, some fewer (mid-trick as often as not), and the talon gone."""
    options = Options.parse(variant)
    n = options.rules().n_players
    rng = random.Random(seed)
    for k in range(count):
        state = HandState.deal(options, seed, k, k % n)
        bots = [make_player("normal", f"bs{seed}:{k}:{s}") for s in range(n)]
        stop = left - rng.randrange(n)
        while not state.is_terminal():
            if (
                state.phase == PLAY
                and not state.talon_left()
                and sum(len(h) for h in state.hands) <= stop
            ):
                yield state
                break
            seat = state.current
            state.apply(bots[seat].act(state.observation(seat)), seat)


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    solver = FastSolver()
    first = next(positions("chiamata", args.seed, 1, 10))
    sides = sides_of(first)
    solver.root_values(
        first, tuple(s == sides[first.current] for s in sides), first.legal_actions(), 10**9
    )
    print(f"kernels loaded in {time.perf_counter() - start:.2f} s")
    for left in (10, 15, 20, 25):
        fast: list[float] = []
        slow: list[float] = []
        nodes: list[float] = []
        for state in positions("chiamata", args.seed, args.positions, left):
            sides = sides_of(state)
            mine = tuple(s == sides[state.current] for s in sides)
            moves = state.legal_actions()
            t = time.perf_counter()
            values = solver.root_values(state, mine, moves, 10**9)
            fast.append((time.perf_counter() - t) * 1000)
            nodes.append(solver.nodes)
            if left <= PYTHON_UP_TO:
                t = time.perf_counter()
                expected = Solver(state, mine).root_values(moves)
                slow.append((time.perf_counter() - t) * 1000)
                if values != expected:
                    raise SystemExit(f"the solvers disagree: {values} != {expected}")
        line = (
            f"{left:>2} cards  {len(fast)} worlds  FastSolver p50 {statistics.median(fast):7.2f} "
            f"ms  p90 {_pct(fast, 0.9):7.2f} ms  nodes p50 {statistics.median(nodes):>9,.0f}"
            f"  p90 {_pct(nodes, 0.9):>9,.0f}"
        )
        if slow:
            line += (
                f"  |  Solver p50 {statistics.median(slow):7.2f} ms  p90 {_pct(slow, 0.9):7.2f} ms"
            )
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

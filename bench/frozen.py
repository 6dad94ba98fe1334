"""Computer players exactly as they were at a commit, for the strength bench's baselines.

A level's modules (`bot/players/...`) are read from git at that commit and imported under a
private package name, their imports of one another pointing into it: the baseline plays the
very code of that day, however the level changes afterwards, with no copy of it kept in the
tree. The engine they play on is today's (its rules are the specification's and the tests
pin them), as are the modules not listed (the compiled solver, `fastsolve`); and their time
budgets run on the bench's clock (`bot.players.common.clock`, `bench.strength --clock`),
like today's players'. Needs the repository's history (`git show`), as a clone has.
"""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path
from typing import Any

from bot.players.common import clock

REPO = Path(__file__).resolve().parents[1]

# the modules the `normal` and `hard` players are made of, in import order
MODULES = (
    "common",
    "knowledge",
    "heuristics",
    "bidding",
    "search",
    "normal",
    "hard_bidding",
    "hard",
)


def load(commit: str, modules: tuple[str, ...] = MODULES) -> types.ModuleType:
    """`bot.players` as it was at `commit` (those of its modules), as a fresh package."""
    package = f"_frozen_players_{commit[:12]}"
    loaded = sys.modules.get(package)
    if loaded is not None:
        return loaded
    root = types.ModuleType(package)
    root.__path__ = []
    sys.modules[package] = root
    for name in modules:
        source = subprocess.run(
            ["git", "show", f"{commit}:bot/players/{name}.py"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for other in modules:
            source = source.replace(
                f"from bot.players import {other}\n", f"from {package} import {other}\n"
            )
            source = source.replace(f"bot.players.{other} ", f"{package}.{other} ")
        # its budgets on the bench's clock (`bench.strength --clock`), as today's players'
        source = source.replace("time.perf_counter()", "_bench_clock()")
        module = types.ModuleType(f"{package}.{name}")
        module.__file__ = f"<{commit[:12]}:bot/players/{name}.py>"
        module.__dict__["_bench_clock"] = clock
        sys.modules[module.__name__] = module
        exec(compile(source, module.__file__, "exec"), module.__dict__)
        setattr(root, name, module)
    return root


def normal_at(commit: str, rng: Any) -> Any:
    """The `normal` player of `commit`."""
    return load(commit).normal.NormalPlayer(rng)


def hard_at(commit: str, rng: Any, budget: float, iterations: int | None) -> Any:
    """The `hard` player of `commit`, with its thinking time per move."""
    return load(commit).hard.HardPlayer(rng, budget=budget, iterations=iterations)

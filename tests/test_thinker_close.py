"""Issue 50.2: the thinker's worker processes never hold the bot's exit."""

from __future__ import annotations

import time

from bot.players.thinker import Thinker


def test_close_ends_workers_still_warming_up() -> None:
    """A SIGTERM soon after a start: the workers are still importing the players and
    compiling the exact search (`_init_worker`, seconds on a busy machine); Python's exit
    would join them. `close` ends them instead, at once."""
    thinker = Thinker(workers=1)
    thinker.start()  # spawns the worker, which starts warming up
    pool = thinker._pool
    assert pool is not None
    processes = list(getattr(pool, "_processes", {}).values())
    assert processes and all(p.is_alive() for p in processes)
    t0 = time.monotonic()
    thinker.close()
    for p in processes:  # importing and compiling alone takes longer than this
        p.join(timeout=max(0.0, t0 + 0.5 - time.monotonic()))
    assert not any(p.is_alive() for p in processes), "a worker outlived close() by 0.5 s"
    assert thinker._pool is None
    thinker.close()  # twice: nothing left to do

"""Where computer players think, so that no search ever runs on the bot's event loop.

`hard` searches for up to its time budget per move (pure Python: a thread would hold the GIL
and slow every table), so its decisions go to a pool of worker processes. The other levels
decide in about a tenth of a millisecond at the median, a few at most (`normal`'s sampled
endgame in due; bench.strength), about what sending the job to another process costs, so
they run inline; the due network they use is read on a thread soon after the thinker starts
(numpy and the weights, some 0.2 s), not on the event loop at the first move. A job carries only
the seat's observation, so a worker sees exactly what the seat may see.

If a worker process dies the pool is rebuilt once; should that fail too, the decision runs
on a thread, which is slower for the other tables but never stops a game.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
import time
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from bot import players
from bot.engine import Observation
from bot.engine.state import HandState
from bot.players import fastsolve
from bot.players.hard import DEFAULT_BUDGET
from bot.players.learned import nets
from bot.players.review import review_hand
from bot.players.review_data import Review

log = logging.getLogger(__name__)

# Seconds after the thinker starts that the due network is read (numpy's import and the
# weights, some 0.2 s of CPU): after the bot's own start, long before a due table is set and
# dealt; a move before then reads it itself.
WARM_AFTER = 3.0
# Logged once every worker process has started (`Thinker.start`).
WORKERS_READY = "computer players' worker processes"
# Levels whose decisions are cheap enough to take on the event loop.
INLINE_LEVELS = frozenset({"random", "simple", "easy", "normal"})


@dataclass(frozen=True, slots=True)
class Job:
    level: str
    seed: str
    observation: Observation


def decide(job: Job) -> int:
    """One decision (in a worker process, or inline)."""
    return players.make_player(job.level, job.seed).act(job.observation)


def review_job(hand: HandState, seed: str) -> Review:
    """The review of a finished hand (issue 51; in a worker process, or on a thread)."""
    return review_hand(hand, seed=seed)


def _init_worker(budget: float, parent: int) -> None:
    players.configure(budget=budget)
    # A worker outlives a parent killed with SIGKILL (it holds the pool's pipes open itself,
    # and so keeps multiprocessing's resource tracker alive too): it leaves when the parent
    # is gone.
    threading.Thread(target=_leave_with, args=(parent,), daemon=True, name="parent").start()
    # `hard`'s exact search (numba): loaded from its disk cache (about 1 s), compiled the
    # first time after an install (about 10 s), here rather than in the middle of a move
    fastsolve.warm()
    nets.get("due")  # `hard` plays its card in due


def _leave_with(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def default_workers() -> int:
    """One worker per core beyond the one the event loop uses, at least one."""
    return max(1, (os.cpu_count() or 2) - 1)


class Thinker:
    def __init__(self, *, workers: int | None = None, budget: float = DEFAULT_BUDGET) -> None:
        self.workers = default_workers() if workers is None else workers
        self.budget = budget
        self._pool: Executor | None = None
        self._rebuilt = False
        self._reviewing = 0  # hands under review now (`review`)

    def _make_pool(self) -> Executor | None:
        if self.workers <= 0:
            return None
        return ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_init_worker,
            initargs=(self.budget, os.getpid()),
        )

    def start(self) -> None:
        """Start the workers now (a first `hard` move then does not wait for them), and read
        the due network a little later (`WARM_AFTER`), on a thread."""
        warm = threading.Timer(WARM_AFTER, nets.get, args=("due",))
        warm.daemon = True
        warm.name = "due-net"
        warm.start()
        if self._pool is None:
            self._pool = self._make_pool()
        if isinstance(self._pool, ProcessPoolExecutor):
            # spawn the processes and import the players there before the first real job; a
            # `hard` move waits for them until then (on a loaded machine, seconds): say when
            started, waiting = time.monotonic(), [self.workers]

            def warmed(future: Future[int]) -> None:  # on the pool's thread
                if future.cancelled() or future.exception() is not None:  # shut down first
                    return
                waiting[0] -= 1
                if waiting[0] == 0:
                    log.info("%s ready in %.1f s", WORKERS_READY, time.monotonic() - started)

            for _ in range(self.workers):
                self._pool.submit(os.getpid).add_done_callback(warmed)

    async def choose(self, job: Job) -> int:
        if job.level in INLINE_LEVELS:
            return decide(job)
        loop = asyncio.get_running_loop()
        if self._pool is None:
            self._pool = self._make_pool()
        if self._pool is None:
            return await asyncio.to_thread(decide, job)
        try:
            return await loop.run_in_executor(self._pool, decide, job)
        except BrokenProcessPool:
            log.error("a computer player's worker process died; rebuilding the pool")
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
            if not self._rebuilt:
                self._rebuilt = True
                self._pool = self._make_pool()
                if self._pool is not None:
                    try:
                        return await loop.run_in_executor(self._pool, decide, job)
                    except BrokenProcessPool:
                        self._pool.shutdown(wait=False, cancel_futures=True)
                        self._pool = None
            self.workers = 0  # from now on: threads
            return await asyncio.to_thread(decide, job)

    async def review(self, hand: HandState, seed: str) -> Review | None:
        """The review of a finished hand, off the event loop (about 0.3-1 s of a core for
        chiamata, `bench.review`); None when as many hands are under review as there are
        workers (under load it is skipped, never queued behind the computers' moves), or
        without worker processes (`workers` 0: on a thread it would hold the GIL, and so
        every table's taps, for up to a second), or when it fails."""
        if self.workers <= 0 or self._reviewing >= self.workers:
            return None
        self._reviewing += 1
        try:
            if self._pool is None:
                self._pool = self._make_pool()
            if self._pool is None:
                return None
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._pool, review_job, hand, seed)
        except Exception:
            log.exception("reviewing a hand failed")
            return None
        finally:
            self._reviewing -= 1

    def close(self) -> None:
        """No more jobs. Worker processes still busy (a review, a move nobody waits for any
        more, the exact search's first compilation at start) are ended, not waited for:
        Python's exit would join them, and a SIGTERM soon after a start waited for the
        compilation (issue 50.2: the bot exits in seconds)."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        processes = dict(getattr(pool, "_processes", None) or {})  # ProcessPoolExecutor's
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes.values():
            if process.is_alive():
                process.terminate()


__all__ = [
    "INLINE_LEVELS",
    "WORKERS_READY",
    "Job",
    "Thinker",
    "decide",
    "default_workers",
    "review_job",
]

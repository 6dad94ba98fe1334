"""The bot's processes as /proc shows them: memory, CPU, children (and the ones a SIGKILL
leaves behind, ended by pid), and the bench's own CPU."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

CLK_TCK = os.sysconf("SC_CLK_TCK")


def rss_kb(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def _stat_fields(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # the command name is in parentheses and may hold spaces: split after the last ")"
    return text[text.rindex(")") + 2 :].split()


def cpu_seconds(pid: int) -> float | None:
    """utime + stime of one process (its own, not its children's)."""
    fields = _stat_fields(pid)
    if fields is None:
        return None
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # fields 14 and 15 of stat


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat_fields(int(entry.name))
            if fields is not None and int(fields[1]) == pid:
                found.append(int(entry.name))
    return sorted(found)


def proc_label(pid: int) -> str:
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return "gone"
    if "resource_tracker" in cmd:
        return "resource_tracker"
    if "spawn_main" in cmd or "forkserver" in cmd:
        return "worker"
    return cmd[:60]


class Reaper:
    """The bot's child processes seen so far (pid -> start time), so that those a SIGKILL
    leaves behind (its process-pool worker and multiprocessing's resource tracker are not
    told that their parent died) can be found and ended, by pid, and nothing else."""

    def __init__(self) -> None:
        self.known: dict[int, str] = {}

    @staticmethod
    def started(pid: int) -> str | None:
        fields = _stat_fields(pid)
        return fields[19] if fields is not None else None  # field 22: start time

    def note(self, pid: int) -> None:
        started = self.started(pid)
        if started is not None:
            self.known[pid] = started

    def alive(self) -> list[int]:
        return [pid for pid, started in self.known.items() if self.started(pid) == started]

    def reap(self, pids: list[int] | None = None) -> list[int]:
        """SIGKILL the given known children (default: all still running); forget them."""
        killed = []
        for pid in self.alive() if pids is None else pids:
            if pid in self.known and self.started(pid) == self.known[pid]:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
            self.known.pop(pid, None)
        return killed


REAPER = Reaper()


@dataclass
class ProcSample:
    at: float
    bot_rss_kb: int
    bot_cpu: float
    children: dict[int, tuple[str, int, float]]  # pid -> (label, rss kB, cpu s)
    bench_cpu: float

    @property
    def children_rss_kb(self) -> int:
        return sum(rss for _, rss, _ in self.children.values())

    @property
    def children_cpu(self) -> float:
        return sum(cpu for _, _, cpu in self.children.values())


def sample(*pids: int) -> ProcSample:
    """The bot's processes (one, or every worker) and their children, summed."""
    kids: dict[int, tuple[str, int, float]] = {}
    for pid in pids:
        for child in children_of(pid):
            REAPER.note(child)
            rss, cpu = rss_kb(child), cpu_seconds(child)
            if rss is not None and cpu is not None:
                kids[child] = (proc_label(child), rss, cpu)
    return ProcSample(
        at=time.monotonic(),
        bot_rss_kb=sum(rss_kb(pid) or 0 for pid in pids),
        bot_cpu=sum(cpu_seconds(pid) or 0.0 for pid in pids),
        children=kids,
        bench_cpu=time.process_time(),
    )


def tree_cpu(pid: int | None) -> float | None:
    """CPU of a server and all its children, those it already waited for included (the
    PostgreSQL postmaster and its backends): utime + stime + cutime + cstime of each."""
    if pid is None:
        return None
    total = 0.0
    for each in (pid, *children_of(pid)):
        fields = _stat_fields(each)
        if fields is not None:
            total += sum(int(f) for f in fields[11:15]) / CLK_TCK  # fields 14-17 of stat
        elif each == pid:
            return None
    return total


def children_cpu_delta(a: ProcSample, b: ProcSample) -> float:
    """CPU the children used between two samples (a child born meanwhile counts from 0)."""
    total = 0.0
    for pid, (_, _, cpu) in b.children.items():
        before = a.children.get(pid)
        total += cpu - (before[2] if before else 0.0)
    return total

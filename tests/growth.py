"""Complexity guards that other processes cannot fail: how the cost of some work grows with
its input, measured as the CPU time of the calling thread (``time.thread_time``), not the wall
clock. Time the thread spends waiting for a core on a busy machine is not counted, so a
linear algorithm measures about 4x for 4x the input whatever else runs beside the tests, while
a quadratic one still measures about 16x and fails the bound."""

from __future__ import annotations

import time
from collections.abc import Callable

MIN_CPU_S = 0.05  # a timing shorter than this is repeated: coarse thread clocks (Windows: 15.6 ms)


def cpu_seconds(work: Callable[[], object]) -> float:
    """CPU seconds the calling thread spends in one ``work()``: repeated until the runs add up
    to :data:`MIN_CPU_S` at least, so a short piece of work is not lost in the clock's grain."""
    runs, spent = 0, 0.0
    while spent < MIN_CPU_S:
        started = time.thread_time()
        work()
        spent += time.thread_time() - started
        runs += 1
    return spent / runs


def best_cpu_seconds(
    small: Callable[[], object], large: Callable[[], object], bound: float, floor: float = 0.0, rounds: int = 5
) -> tuple[float, float]:
    """The least CPU time of ``small()`` and of ``large()`` seen, taken in turn (a disturbance,
    such as a cache flushed by another process, falls on both alike). Stops as soon as
    ``large`` took under ``max(bound * small, floor)``, else after ``rounds`` rounds: more
    rounds only lower the minima, so a linear algorithm gets every chance to show it while
    a quadratic one never gets under the bound (its least time is the work itself)."""
    best = [float("inf"), float("inf")]
    for _ in range(rounds):
        for k, work in enumerate((small, large)):
            best[k] = min(best[k], cpu_seconds(work))
        if best[1] < max(bound * best[0], floor):
            break
    return best[0], best[1]

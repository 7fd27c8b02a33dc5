"""Timing helpers shared by the benchmarks: interleaved repeats, best-of timing, and
the min / median / max of a figure over repetitions."""

from __future__ import annotations

import contextlib
import gc
import queue
import statistics
import threading
import time
from collections.abc import Callable, Iterator, Sequence

__all__ = [
    "best_per_call",
    "collector_paused",
    "ratio",
    "ratios",
    "spread",
    "with_bare_handoff",
]


def best_per_call(function: Callable[[], object], calls: int, repeats: int = 7) -> float:
    """The best (lowest) mean seconds per call over ``repeats`` runs of ``calls`` calls."""
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        for _ in range(calls):
            function()
        best = min(best, (time.perf_counter() - started) / calls)
    return best


def ratio(
    candidate: Callable[[], object], baseline: Callable[[], object], calls: int, rounds: int = 5
) -> tuple[float, float, float]:
    """(candidate/baseline, candidate s/call, baseline s/call), measured interleaved so
    that machine noise hits both sides alike; each side keeps its best round."""
    cand, base = float("inf"), float("inf")
    for _ in range(rounds):
        base = min(base, best_per_call(baseline, calls, repeats=3))
        cand = min(cand, best_per_call(candidate, calls, repeats=3))
    return cand / base, cand, base


def ratios(
    candidate: Callable[[], object],
    baseline: Callable[[], object],
    calls: int,
    repetitions: int = 7,
) -> list[float]:
    """``repetitions`` independent candidate/baseline ratios, each from an interleaved
    :func:`ratio` measurement, so a figure can be given as min / median / max."""
    return [ratio(candidate, baseline, calls, rounds=3)[0] for _ in range(repetitions)]


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector collected, then paused for the block (as ``timeit``
    times): a full collection lands in whichever side of a comparison happens to cross
    the threshold, and a few milliseconds there swing a ratio of microsecond figures
    by half or more."""
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def spread(values: Sequence[float]) -> tuple[float, float, float]:
    """(min, median, max) of ``values``."""
    return min(values), statistics.median(values), max(values)


def with_bare_handoff(fire: Callable[[], object]) -> tuple[Callable[[], None], Callable[[], None]]:
    """``fire`` run by a waiting thread: the caller hands it over and waits for the
    answer through two queues (the least a bounded firing must add), and a stopper."""
    requests: queue.SimpleQueue[bool] = queue.SimpleQueue()
    answers: queue.SimpleQueue[object] = queue.SimpleQueue()

    def serve() -> None:
        while requests.get():
            answers.put(fire())

    threading.Thread(target=serve, daemon=True).start()

    def handed_off() -> None:
        requests.put(True)
        answers.get()

    return handed_off, lambda: requests.put(False)

"""Timing helpers shared by the benchmarks: interleaved repeats, best-of timing, and
the min / median / max of a figure over repetitions."""

from __future__ import annotations

import contextlib
import gc
import os
import statistics
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from hermes_hooks._workers import BoundedRunner

__all__ = [
    "HandOff",
    "best_per_call",
    "collector_paused",
    "one_cpu",
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


class HandOff(NamedTuple):
    """A bare hand-off floor (see :func:`with_bare_handoff`)."""

    #: One call of the floor: the firing handed to the worker and waited for.
    floor: Callable[[], None]
    #: Fails loudly if a bounded firing borrowed another worker since.
    check: Callable[[], None]
    #: The worker thread both sides hand their work to.
    thread: threading.Thread


def with_bare_handoff(fire: Callable[[], object], pool: BoundedRunner) -> HandOff:
    """``fire`` handed to the very worker thread a bounded firing on ``pool`` borrows,
    through that worker's own two queues and nothing else (the least a bounded firing
    must add to an unbounded one), and a check to run after the figures.

    The floor runs on the candidate's own thread because on a small virtual machine a
    hand-off costs what the scheduler makes of the pair of threads: a waiting thread
    left on the caller's core answers in a few microseconds, one on the other core in
    tens (waking an idle virtual CPU), and a thread keeps its place for seconds.  A
    floor on a thread of its own measured that placement, not the design: the same
    firing came out 1.2 times its floor on one run and 8 times on the next.  Borrowing
    a worker and giving it straight back puts it on top of the pool's idle list, so
    every firing afterwards borrows the same one; the caller runs one side at a time,
    so the two never share it at once.  The check fails loudly if a firing borrowed
    another worker all the same (the figures would then compare two threads again).
    """
    worker = pool.lend(None)
    pool.give_back(worker)
    job = (fire, (), None, None)  # no keywords, and the outcome goes to the outbox
    inbox, outbox = worker.inbox, worker.outbox

    def handed_off() -> None:
        inbox.put(job)
        outbox.get()

    def check() -> None:
        lent = pool.lend(None)
        pool.give_back(lent)
        if lent is not worker:
            raise AssertionError("a bounded firing borrowed a worker the floor did not use")

    return HandOff(handed_off, check, worker)


@contextlib.contextmanager
def one_cpu(*threads: threading.Thread) -> Iterator[bool]:
    """The calling thread and ``threads`` pinned to one CPU for the block (True), so
    that every hand-off between them is a switch on one core, the cheapest there is;
    False, and nothing pinned, where threads cannot be pinned (not Linux)."""
    pin = getattr(os, "sched_setaffinity", None)
    if pin is None:
        yield False
        return
    ids = [0, *(thread.native_id or 0 for thread in threads)]  # 0: the calling thread
    before = [os.sched_getaffinity(i) for i in ids]
    cpu = {min(before[0])}
    try:
        for i in ids:
            pin(i, cpu)
        yield True
    finally:
        for i, mask in zip(ids, before, strict=True):
            pin(i, mask)

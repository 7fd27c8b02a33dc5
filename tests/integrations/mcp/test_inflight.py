"""The proxy's book of requests in flight, on its own: what a cancellation does at each
phase of a call, and which answers are the client's to have."""

from __future__ import annotations

import asyncio

import pytest

from hermes_hooks.integrations.mcp.inflight import DROPPED_LIMIT, Cancelled, InFlight


def test_a_cancellation_in_the_hooks_stops_there_and_one_at_the_upstream_goes_on() -> None:
    async def run() -> None:
        book = InFlight()
        book.call_started(7)
        assert book.cancel(7) is True  # in its hooks: the upstream never saw it
        assert book.cancelled_in_hooks(7) is True
        book.call_ended(7)
        assert book.cancelled_in_hooks(7) is False

        book.call_started(8)
        book.sent_on(8)
        waiter = book.wait(8)
        assert book.cancel(8) is False  # at the upstream: tell it to stop
        with pytest.raises(Cancelled):
            await waiter
        assert book.answered(8, "late") is True  # dropped, not the client's
        assert book.answered(8, "again") is False  # only once: then it is the client's

    asyncio.run(run())


def test_an_answered_call_cancelled_afterwards_leaves_no_answer_to_drop() -> None:
    async def run() -> None:
        book = InFlight()
        book.call_started(9)
        book.sent_on(9)
        waiter = book.wait(9)
        assert book.answered(9, "result") is True
        assert book.cancel(9) is False
        assert await waiter == "result"
        assert book.answered(9, "another") is False

    asyncio.run(run())


def test_ids_nobody_cancels_and_reused_ids_are_never_dropped() -> None:
    book = InFlight()
    assert book.cancel(["not", "an", "id"]) is False
    assert book.cancel(5) is False  # never seen: the notification goes on as it is
    book.give_up(6)
    book.reused(6)  # the client's new request 6: its answer is its own
    assert book.answered(6, "fresh") is False


def test_the_ids_to_drop_are_bounded_oldest_first() -> None:
    book = InFlight()
    for ident in range(DROPPED_LIMIT + 1):
        book.give_up(ident)
    assert book.answered(0, "too late to remember") is False
    assert book.answered(1, "late") is True
    assert book.answered(DROPPED_LIMIT, "late") is True

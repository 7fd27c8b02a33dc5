"""Kanban observers: the board's task and worker lifecycle (common kanban fields)."""

from __future__ import annotations

from typing import Any

from hermes_hooks._contract import Kind
from hermes_hooks.hookspecs._marker import hookspec


@hookspec(kind=Kind.OBSERVER)
def kanban_task_claimed(
    task_id: str,
    profile_name: str,
    board: str,
    assignee: str | None,
    run_id: str | None,
    telemetry_schema_version: str,
) -> None:
    """Observer: the return value is ignored.

    Fires after the claim commits, in the dispatcher process, just before the worker is
    created.
    """


@hookspec(kind=Kind.OBSERVER)
def kanban_task_completed(
    task_id: str,
    profile_name: str,
    board: str,
    assignee: str | None,
    run_id: str | None,
    summary: str | None,
    telemetry_schema_version: str,
) -> None:
    """Observer: the return value is ignored.

    Fires after completion and cleanup, usually in the worker process.
    """


@hookspec(kind=Kind.OBSERVER)
def kanban_task_blocked(
    task_id: str,
    profile_name: str,
    board: str,
    assignee: str | None,
    run_id: str | None,
    reason: str | None,
    telemetry_schema_version: str,
) -> None:
    """Observer: the return value is ignored.

    Fires after a transition to blocked; the dependency-wait path may fire it inside its
    write transaction.
    """


@hookspec(kind=Kind.OBSERVER)
def on_kanban_worker_spawned(
    task_id: str,
    profile_name: str,
    board: str,
    assignee: str | None,
    run_id: str | None,
    worker_pid: int | None,
    workspace_path: str | None,
    telemetry_schema_version: str,
) -> None:
    """Observer: the return value is ignored.

    Fires after the worker PID (``None`` for remote workers) was persisted, inside
    the dispatch lock: keep it fast.
    """


@hookspec(kind=Kind.OBSERVER)
def on_kanban_worker_exited(
    task_id: str,
    profile_name: str,
    board: str,
    assignee: str | None,
    run_id: str | None,
    worker_pid: int | None,
    exit_kind: str,
    exit_code: int | None,
    outcome: str,
    retry_status: str,
    telemetry_schema_version: str,
) -> None:
    """Observer: the return value is ignored.

    Fires after a crashed worker's task was recovered and committed.  ``exit_kind`` is
    ``clean_exit``, ``rate_limited``, ``nonzero_exit``, ``signaled`` or ``unknown``;
    ``outcome`` and ``retry_status`` pass through verbatim.
    """


@hookspec(kind=Kind.OBSERVER)
def on_kanban_worker_stale_claim(
    task_id: str,
    profile_name: str,
    board: str,
    assignee: str | None,
    run_id: str | None,
    worker_pid: int | None,
    heartbeat_stale: bool,
    retry_status: str,
    telemetry_schema_version: str,
) -> None:
    """Observer: the return value is ignored.

    Fires after a claim whose TTL expired is reclaimed.
    """


@hookspec(kind=Kind.OBSERVER)
def on_kanban_task_updated(
    task_id: str,
    profile_name: str,
    board: str,
    assignee: str | None,
    run_id: str | None,
    changed_fields: list[str],
    telemetry_schema_version: str,
) -> None:
    """Observer: the return value is ignored.

    Fires after a committed write outside the claim/complete/block cycle;
    ``changed_fields`` names fields, never values.
    """


@hookspec(kind=Kind.OBSERVER)
def on_kanban_dispatch_tick(
    board: str,
    profile_name: str,
    dry_run: bool,
    outcome: str,
    result: Any,
    telemetry_schema_version: str,
) -> None:
    """Observer: the return value is ignored.

    Fires once per dispatcher tick, after the dispatch lock is released (idle and lock-
    contended ticks too).  ``outcome`` is ``ok``, ``skipped_locked`` or ``idle``;
    ``result`` is the ``DispatchResult`` object, serialised field by field for shell
    hooks and webhooks.
    """

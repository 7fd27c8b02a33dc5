"""The kanban observers and ``on_skill_lifecycle``: each fired through its facade method
to a real directory plugin, which receives the payload and the envelope marker; return
values are ignored and a raising callback fails open without stopping the next one."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.hooks import Hooks
from tests.helpers import write_plugin

COMMON = {"task_id": "t-7", "profile_name": "default", "board": "ops", "assignee": "ana"}

#: One complete payload per hook, written out so each hook has a test of its own.
PAYLOADS: dict[str, dict[str, Any]] = {
    "kanban_task_claimed": {**COMMON, "run_id": "run-1"},
    "kanban_task_completed": {**COMMON, "run_id": "run-1", "summary": "shipped"},
    "kanban_task_blocked": {**COMMON, "run_id": None, "reason": "waiting on t-6"},
    "on_kanban_worker_spawned": {
        **COMMON,
        "run_id": "run-1",
        "worker_pid": None,  # a remote worker has no local PID
        "workspace_path": "/srv/ws/t-7",
    },
    "on_kanban_worker_exited": {
        **COMMON,
        "run_id": "run-1",
        "worker_pid": 4242,
        "exit_kind": "signaled",
        "exit_code": 137,
        "outcome": "task_requeued",
        "retry_status": "retrying",
    },
    "on_kanban_worker_stale_claim": {
        **COMMON,
        "run_id": "run-1",
        "worker_pid": 4242,
        "heartbeat_stale": True,
        "retry_status": "requeued",
    },
    "on_kanban_task_updated": {
        **COMMON,
        "run_id": None,
        "changed_fields": ["priority", "labels"],
    },
    "on_kanban_dispatch_tick": {},  # filled from the catalogue below
    "on_skill_lifecycle": {
        "action": "patched",
        "skill_name": "deploy-checklist",
        "provenance": "agent_created",
        "task_id": "t-7",
        "session_id": "sess-1",
        "use_count": 3,
        "reused": True,
        "reuse_after_patch": None,
    },
}

_PLUGIN = """
import json
from pathlib import Path

OUT = Path({out!r})


def record(**kwargs):
    with OUT.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(kwargs, sort_keys=True) + "\\n")
    return {{"action": "block", "message": "observers cannot block"}}


def explode(**kwargs):
    raise RuntimeError("observer bug")


def register(ctx):
    ctx.register_hook({hook!r}, explode)
    ctx.register_hook({hook!r}, record)
"""


def _payload(hook: str) -> dict[str, Any]:
    from hermes_hooks.synthetic import synthetic_payload

    return PAYLOADS[hook] or synthetic_payload(hook)


@pytest.mark.parametrize("hook", list(PAYLOADS))
def test_observer_reaches_a_plugin_and_fails_open(
    hook: str, home: Path, tmp_path: Path, load: Callable[..., Hooks], caplog: Any
) -> None:
    out = tmp_path / f"{hook}.jsonl"
    write_plugin(home / "plugins", "watcher", _PLUGIN.format(out=str(out), hook=hook))
    hooks = load()
    payload = _payload(hook)
    assert set(payload) == {f.name for f in hooks.dispatcher.contract(hook).fields}

    assert getattr(hooks, hook)(**payload) is None  # observers: the block is ignored
    (line,) = out.read_text(encoding="utf-8").splitlines()
    assert json.loads(line) == {**payload, "telemetry_schema_version": "hermes.observer.v1"}
    assert [r.getMessage() for r in caplog.records if "observer bug" in r.getMessage()] == [
        f"{hook} plugin callback explode raised RuntimeError: observer bug"
    ]


@pytest.mark.parametrize("hook", list(PAYLOADS))
def test_the_async_twin_fires_the_same_callbacks(
    hook: str, home: Path, tmp_path: Path, load: Callable[..., Hooks]
) -> None:
    out = tmp_path / f"{hook}.jsonl"
    write_plugin(home / "plugins", "watcher", _PLUGIN.format(out=str(out), hook=hook))
    hooks = load()
    payload = {**_payload(hook), "host_note": "added by the host"}
    assert asyncio.run(getattr(hooks, "a" + hook)(**payload)) is None
    (line,) = out.read_text(encoding="utf-8").splitlines()
    assert json.loads(line)["host_note"] == "added by the host"

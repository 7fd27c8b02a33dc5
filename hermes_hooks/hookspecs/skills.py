"""Skill lifecycle hooks."""

from __future__ import annotations

from hermes_hooks._contract import Kind
from hermes_hooks.hookspecs._marker import hookspec


@hookspec(kind=Kind.OBSERVER)
def on_skill_lifecycle(
    action: str,
    skill_name: str,
    provenance: str,
    task_id: str,
    session_id: str,
    use_count: int | None,
    reused: bool | None,
    reuse_after_patch: bool | None,
    telemetry_schema_version: str,
) -> None:
    """Observer: the return value is ignored.

    Fires after a skill-usage record write was persisted.  ``action`` is one of
    ``created``, ``installed``, ``loaded``, ``patched``, ``edited``, ``archived``,
    ``stale``, ``restored``; ``provenance`` one of ``installed``, ``agent_created``,
    ``external``, ``local``, ``unknown``; unknown facts are ``None``.
    """

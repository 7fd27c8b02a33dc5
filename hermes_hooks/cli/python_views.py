"""Python callbacks as the ``test`` command fires and shows them.

Each callback of the event runs alone through the dispatcher, as a firing runs it
(isolated, bounded, its answer read by the hook's selection), so what ``test`` shows
is what the agent would make of the answer: a gate's answer the dispatcher ignores is
shown as the callback error it is, with the fix.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hermes_hooks._select import Ignored

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks
    from hermes_hooks.types import DecisionRecord

__all__ = ["PythonRun", "fire_python", "run_json", "run_lines"]

#: Verdicts of a run that did not return (it raised, timed out or was skipped).
_FAILED = frozenset({"error", "timeout", "skipped"})


@dataclass(frozen=True)
class PythonRun:
    """One Python callback fired by ``test``: what it returned and the record of it."""

    callback: str
    owner: str
    returned: Any
    verdict: str
    reason: str | None
    #: What to return instead, when the answer was ignored.
    fix: str | None

    @property
    def returned_something(self) -> bool:
        """False when the callback did not return (it raised, timed out, was skipped)."""
        return self.verdict not in _FAILED or self.fix is not None


def fire_python(hooks: Hooks, event: str, payload: dict[str, Any]) -> list[PythonRun]:
    """Fire each Python callback of ``event`` alone on its own copy of ``payload``,
    in firing order."""
    runs: list[PythonRun] = []
    records: list[DecisionRecord] = []
    unsubscribe = hooks.subscribe(records.append)
    try:
        for callback in hooks.manager.callbacks(event):
            if callback.source != "python":
                continue
            records.clear()
            value = hooks.dispatcher.fire_one(event, callback, dict(payload))
            mine = [r for r in records if r.hook == event and r.callback == callback.name]
            verdict, reason = (mine[-1].verdict, mine[-1].reason) if mine else ("none", None)
            fix = reason.fix if isinstance(reason, Ignored) else None
            runs.append(PythonRun(callback.name, callback.owner, value, verdict, reason, fix))
    finally:
        unsubscribe()
    return runs


def _shown(value: Any) -> str:
    """A returned value as JSON when it is JSON, else its repr."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def run_lines(run: PythonRun, indent: str = "      ") -> list[str]:
    """Text lines for one run: the callback, what it returned, the verdict, the fix."""
    lines = [f"  → python {run.callback}"]
    if run.returned_something:
        lines.append(f"{indent}returned: {_shown(run.returned)}")
    verdict = f"{indent}verdict: {run.verdict}"
    if run.fix is not None:
        verdict += f" — {run.reason}, so the guarded action goes ahead"
    elif run.reason:
        verdict += f" — {run.reason}"
    lines.append(verdict)
    if run.fix is not None:
        lines.append(f"{indent}fix: {run.fix}")
    return lines


def run_json(run: PythonRun) -> dict[str, Any]:
    """A JSON view of one run."""
    return {
        "callback": run.callback,
        "owner": run.owner,
        "returned": run.returned if run.returned_something else None,
        "verdict": run.verdict,
        "reason": None if run.reason is None else str(run.reason),
        "fix": run.fix,
    }

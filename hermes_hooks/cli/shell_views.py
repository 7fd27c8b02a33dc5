"""Shell hooks as the ``test`` and ``approve`` commands show them: how one firing is shown.

The ``list`` section and the ``doctor`` findings are the shell source's own
(:meth:`ShellSource.section <hermes_hooks.shell.source.ShellSource.section>`,
:meth:`~hermes_hooks.shell.source.ShellSource.check`).
"""

from __future__ import annotations

import json
from typing import Any

from hermes_hooks.shell.output import Outcome
from hermes_hooks.shell.report import (
    NO_MTIME_NOTE,
    approve_hint,
    describe_entry,
    drift_lines,
    program_problem,
    short_text,
)

__all__ = [
    "NO_MTIME_NOTE",
    "approve_hint",
    "describe_entry",
    "drift_lines",
    "outcome_json",
    "outcome_lines",
    "program_problem",
]


# -- a firing, shown -------------------------------------------------------------------


def outcome_json(outcome: Outcome) -> dict[str, Any]:
    """A JSON view of one firing: process result, the problem, the parsed directive."""
    result = outcome.result
    return {
        "exit_code": result.returncode if result.signal is None else None,
        "signal": result.signal,
        "timed_out": result.timed_out,
        "error": result.error,
        "elapsed": round(result.elapsed, 4),
        "stdout": result.stdout.decode("utf-8", errors="replace"),
        "stderr": result.stderr.decode("utf-8", errors="replace"),
        "stdout_truncated": result.stdout_truncated,
        "stderr_truncated": result.stderr_truncated,
        "problem": outcome.problem,
        "parsed": outcome.directive,
    }


def outcome_lines(outcome: Outcome, indent: str = "      ") -> list[str]:
    """Text lines for one firing, ending with the ``parsed`` wire shape."""
    result = outcome.result
    lines: list[str] = []
    if result.error is not None:
        lines.append(f"✗ could not start: {result.error}")
    elif result.timed_out:
        lines.append(f"✗ timed out after {result.elapsed:.3f}s (process group killed)")
    elif result.signal is not None:
        lines.append(f"killed by signal {result.signal} after {result.elapsed:.3f}s")
    else:
        lines.append(f"exit {result.returncode} in {result.elapsed:.3f}s")
    for name, data, cut in (
        ("stdout", result.stdout, result.stdout_truncated),
        ("stderr", result.stderr, result.stderr_truncated),
    ):
        text = data.decode("utf-8", errors="replace").strip()
        if text:
            lines.append(f"{name}: {short_text(text, 400)}{' [truncated]' if cut else ''}")
    if outcome.problem and result.error is None and not result.timed_out:
        lines.append(f"⚠ {outcome.problem}")
    if outcome.directive is not None:
        lines.append(f"parsed: {json.dumps(outcome.directive, ensure_ascii=False)}")
    else:
        lines.append("parsed: none — the hook contributes nothing to the dispatcher")
    return [indent + line for line in lines]

"""Claude Code dialect overhead: a ``dialect: claude-code`` firing vs a bare
``subprocess.run`` and vs the same script in the Hermes dialect.

One ``/bin/sh`` script (reads stdin, prints ``{}``), three ways, interleaved in one
process so machine noise hits all alike, the order rotating each iteration:

* bare: ``subprocess.run([script], input=stdin, capture_output=True)`` with the very
  bytes the claude-code entry sends;
* claude: ``hooks.pre_tool_call(**payload)`` with the script as an approved
  ``PreToolUse`` entry (matcher ``Bash`` through the tool table, Claude's stdin,
  ``CLAUDE_PROJECT_DIR`` in a copied environment, Claude's output rules);
* hermes: the same script as an approved ``pre_tool_call`` entry (matcher
  ``terminal``).

Figures: claude / bare (design.md: at most ~1.10) and claude / hermes (the dialect's
own cost), ratios of medians.

    python -m bench.bench_claude [iterations]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["run"]

ITERATIONS = 200
_SCRIPT = "#!/bin/sh\ncat >/dev/null\nprintf '{}\\n'\n"
_PAYLOAD = {
    "tool_name": "terminal",
    "args": {"command": "ls -la"},
    "task_id": "task-1",
    "session_id": "sess-1",
    "tool_call_id": "call-1",
    "turn_id": "turn-1",
    "api_request_id": "req-1",
    "middleware_trace": [],
}


def _hooks(home: Path, key: str, matcher: str, script: Path):  # type: ignore[no-untyped-def]
    import yaml

    import hermes_hooks
    from hermes_hooks.shell.consent import Allowlist

    home.mkdir()
    config = {"hooks": {key: [{"matcher": matcher, "command": str(script)}]}}
    (home / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    Allowlist(home).approve("pre_tool_call", str(script))
    return hermes_hooks.load(home, entry_points=False)


def run(iterations: int = ITERATIONS) -> list[tuple[str, float]]:
    """(label, ratio of median firing times)."""
    from hermes_hooks.claude import dialect as claude_code
    from hermes_hooks.claude.tables import spec_of
    from hermes_hooks.envelope import dumps

    os.environ.pop("HERMES_SAFE_MODE", None)
    with tempfile.TemporaryDirectory(prefix="bench-claude-") as tmp:
        root = Path(tmp)
        script = root / "hook.sh"
        script.write_text(_SCRIPT, encoding="utf-8")
        script.chmod(0o755)
        claude = _hooks(root / "claude", "PreToolUse", "Bash", script)
        hermes = _hooks(root / "hermes", "pre_tool_call", "terminal", script)
        try:
            [entry] = claude.sources["shell"].parsed.entries
            spec = spec_of(entry)
            stdin = dumps(claude_code.input_document(spec, _PAYLOAD, os.getcwd()))
            times: dict[str, list[float]] = {"bare": [], "claude": [], "hermes": []}

            def bare() -> None:
                subprocess.run([str(script)], input=stdin, capture_output=True, check=False)

            sides: dict[str, Callable[[], object]] = {
                "bare": bare,
                "claude": lambda: claude.pre_tool_call(**_PAYLOAD),
                "hermes": lambda: hermes.pre_tool_call(**_PAYLOAD),
            }
            for function in sides.values():  # warm up (page cache, imports)
                for _ in range(3):
                    function()
            names = list(sides)
            for index in range(iterations):
                for name in names[index % 3 :] + names[: index % 3]:
                    started = time.perf_counter()
                    sides[name]()
                    times[name].append(time.perf_counter() - started)
        finally:
            claude.close()
            hermes.close()
    medians = {name: statistics.median(values) for name, values in times.items()}
    print(
        "# medians over {} interleaved runs: {}".format(
            iterations, ", ".join(f"{k} {v * 1e3:.2f} ms" for k, v in medians.items())
        ),
        file=sys.stderr,
    )
    return [
        ("claude-code shell hook / bare subprocess.run", medians["claude"] / medians["bare"]),
        ("claude-code shell hook / hermes shell hook", medians["claude"] / medians["hermes"]),
    ]


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else ITERATIONS
    for label, ratio in run(count):
        print(f"{label}: {ratio:.3f}")

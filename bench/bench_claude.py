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
  ``terminal``);
* bash: the claude-code entry with ``shell: bash`` (bash starts the script, as in
  Claude Code).

Figures: claude / bare (design.md: at most ~1.10), claude / hermes (the dialect's
own cost) and bash / claude (the cost of the shell), ratios of medians.

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


def _hooks(home: Path, key: str, matcher: str, script: Path, **extra: str):  # type: ignore[no-untyped-def]
    import yaml

    import hermes_hooks
    from hermes_hooks.shell.consent import Allowlist

    home.mkdir()
    config = {"hooks": {key: [{"matcher": matcher, "command": str(script), **extra}]}}
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
        bash = _hooks(root / "bash", "PreToolUse", "Bash", script, shell="bash")
        try:
            [entry] = claude.sources["shell"].parsed.entries
            spec = spec_of(entry)
            stdin = dumps(claude_code.input_document(spec, _PAYLOAD, os.getcwd()))
            times: dict[str, list[float]] = {"bare": [], "claude": [], "hermes": [], "bash": []}

            def bare() -> None:
                subprocess.run([str(script)], input=stdin, capture_output=True, check=False)

            sides: dict[str, Callable[[], object]] = {
                "bare": bare,
                "claude": lambda: claude.pre_tool_call(**_PAYLOAD),
                "hermes": lambda: hermes.pre_tool_call(**_PAYLOAD),
                "bash": lambda: bash.pre_tool_call(**_PAYLOAD),
            }
            for function in sides.values():  # warm up (page cache, imports)
                for _ in range(3):
                    function()
            names = list(sides)
            for index in range(iterations):
                turn = index % len(names)
                for name in names[turn:] + names[:turn]:
                    started = time.perf_counter()
                    sides[name]()
                    times[name].append(time.perf_counter() - started)
        finally:
            claude.close()
            hermes.close()
            bash.close()
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
        ("claude-code shell: bash / claude-code shell hook", medians["bash"] / medians["claude"]),
    ]


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else ITERATIONS
    for label, ratio in run(count):
        print(f"{label}: {ratio:.3f}")

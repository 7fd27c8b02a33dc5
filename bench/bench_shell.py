"""Shell-hook adapter overhead: a firing through hermes-hooks vs a bare ``subprocess.run``.

For each script (a ``/bin/sh`` script and a Python script, both reading stdin and
printing ``{}``), in one process and interleaved so machine noise hits both sides
alike:

* bare: ``subprocess.run([script], input=payload, capture_output=True)`` with the very
  bytes the adapter would send;
* adapter: ``hooks.pre_tool_call(**payload)`` on a Hooks whose only callback is the
  same script as an approved shell hook (matcher, consent stat, envelope, own process
  group, bounded capture, output parsing, aggregation).

Each iteration runs both, alternating which goes first.

The figure is the ratio of the medians, adapter / bare (design.md: at most ~1.10).

    python -m bench.bench_shell [iterations]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["run"]

ITERATIONS = 200
_SCRIPTS = {
    "sh": "#!/bin/sh\ncat >/dev/null\nprintf '{}\\n'\n",
    "python": (f"#!{sys.executable}\nimport sys\nsys.stdin.read()\nsys.stdout.write('{{}}\\n')\n"),
}
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


def _hooks_for(home: Path, script: Path):  # type: ignore[no-untyped-def]
    import yaml

    import hermes_hooks
    from hermes_hooks.adapters.shell.consent import Allowlist

    (home / "config.yaml").write_text(
        yaml.safe_dump(
            {"hooks": {"pre_tool_call": [{"matcher": "terminal", "command": str(script)}]}}
        ),
        encoding="utf-8",
    )
    Allowlist(home).approve("pre_tool_call", str(script))
    return hermes_hooks.load(home, entry_points=False)


def _measure(kind: str, body: str, iterations: int) -> float:
    from hermes_hooks.envelope import build_envelope, dumps

    with tempfile.TemporaryDirectory(prefix="bench-shell-") as tmp:
        home = Path(tmp)
        script = home / f"hook-{kind}"
        script.write_text(body, encoding="utf-8")
        script.chmod(0o755)
        hooks = _hooks_for(home, script)
        try:
            payload = dumps(build_envelope("pre_tool_call", _PAYLOAD))
            bare: list[float] = []
            adapter: list[float] = []
            for _ in range(3):  # warm up both paths (page cache, imports)
                subprocess.run([str(script)], input=payload, capture_output=True, check=False)
                hooks.pre_tool_call(**_PAYLOAD)

            def run_bare() -> None:
                started = time.perf_counter()
                subprocess.run([str(script)], input=payload, capture_output=True, check=False)
                bare.append(time.perf_counter() - started)

            def run_adapter() -> None:
                started = time.perf_counter()
                decision = hooks.pre_tool_call(**_PAYLOAD)
                adapter.append(time.perf_counter() - started)
                assert decision.action == "allow", decision

            for index in range(iterations):
                # Alternate which side goes first, so neither always follows the other.
                first, second = (run_bare, run_adapter) if index % 2 else (run_adapter, run_bare)
                first()
                second()
        finally:
            hooks.close()
    ratio = statistics.median(adapter) / statistics.median(bare)
    print(
        f"# {kind}: bare median {statistics.median(bare) * 1e3:.2f} ms, adapter median "
        f"{statistics.median(adapter) * 1e3:.2f} ms over {iterations} interleaved runs",
        file=sys.stderr,
    )
    return ratio


def run(iterations: int = ITERATIONS) -> list[tuple[str, float]]:
    """(label, adapter/bare ratio of median firing time) for each script kind."""
    os.environ.pop("HERMES_SAFE_MODE", None)
    labels = {"sh": "/bin/sh script", "python": "Python script"}
    return [
        (
            f"shell hook, {labels[kind]}: adapter / bare subprocess.run",
            _measure(kind, body, iterations),
        )
        for kind, body in _SCRIPTS.items()
    ]


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else ITERATIONS
    for label, ratio in run(count):
        print(f"{label}: {ratio:.3f}")

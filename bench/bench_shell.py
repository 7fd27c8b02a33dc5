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

Then a persistent hook (``persistent: true``): the same Python guard script, served
by the contrib helper, fired as a persistent hook, as a per-firing hook, and (the same
decision) as an in-process Python callback, interleaved; each repetition gives the
ratios of the medians.

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
from typing import Any

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
    from hermes_hooks.shell.consent import Allowlist

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


_GUARD = """
from hermes_persistent import serve

def decide(event):
    if "rm -rf /" in (event.get("tool_input") or {}).get("command", ""):
        return {"action": "block", "message": "no"}
    return None

serve(decide)
"""


def _in_process_guard(tool_name: str, args: dict[str, Any], **kwargs: Any) -> Any:
    """The same decision as the persistent guard, as a Python plugin callback."""
    if "rm -rf /" in args.get("command", ""):
        return {"action": "block", "message": "no"}
    return None


def _persistent(repetitions: int, spawned: int, kept: int) -> tuple[list[float], list[float]]:
    """(persistent / per-firing spawn, persistent / in-process callback) per repetition:
    the same Python guard script (the contrib helper serves both ways), medians of
    interleaved firings."""
    import shutil

    import yaml

    import hermes_hooks
    from hermes_hooks.shell.consent import Allowlist

    helper = (
        Path(__file__).resolve().parents[1] / "contrib" / "shell-hooks" / "hermes_persistent.py"
    )
    versus_spawn: list[float] = []
    versus_python: list[float] = []
    with tempfile.TemporaryDirectory(prefix="bench-persistent-") as tmp:
        home = Path(tmp)
        shutil.copy(helper, home / helper.name)
        script = home / "guard.py"
        script.write_text(f"#!{sys.executable}\n{_GUARD}", encoding="utf-8")
        script.chmod(0o755)
        made = {}
        for name, persistent in (("persistent", True), ("spawn", False)):
            folder = home / name
            folder.mkdir()
            entry = {"matcher": "terminal", "command": str(script), "persistent": persistent}
            (folder / "config.yaml").write_text(
                yaml.safe_dump({"hooks": {"pre_tool_call": [entry]}}), encoding="utf-8"
            )
            Allowlist(folder).approve("pre_tool_call", str(script))
            made[name] = hermes_hooks.load(folder, entry_points=False)
        python = hermes_hooks.load(home / "persistent", entry_points=False)
        python.unload()
        python.manager.register_callback("pre_tool_call", _in_process_guard, owner="guard")
        hooks = {**made, "python": python}
        try:
            for each in hooks.values():  # warm up: start the persistent process
                for _ in range(3):
                    each.pre_tool_call(**_PAYLOAD)
            for _ in range(repetitions):
                times: dict[str, list[float]] = {name: [] for name in hooks}
                for index in range(max(spawned, kept)):
                    for name, each in hooks.items():
                        if name == "spawn" and index >= spawned:
                            continue
                        started = time.perf_counter()
                        decision = each.pre_tool_call(**_PAYLOAD)
                        times[name].append(time.perf_counter() - started)
                        assert decision.action == "allow", (name, decision)
                medians = {name: statistics.median(values) for name, values in times.items()}
                versus_spawn.append(medians["persistent"] / medians["spawn"])
                versus_python.append(medians["persistent"] / medians["python"])
                print(
                    f"  persistent {medians['persistent'] * 1e6:.0f} us, spawned "
                    f"{medians['spawn'] * 1e3:.1f} ms, in-process {medians['python'] * 1e6:.1f} us",
                    file=sys.stderr,
                )
        finally:
            for each in hooks.values():
                each.close()
    return versus_spawn, versus_python


def run(iterations: int = ITERATIONS) -> list[tuple[str, float | list[float]]]:
    """(label, adapter/bare ratio of median firing time) for each script kind, then the
    persistent hook's figures."""
    os.environ.pop("HERMES_SAFE_MODE", None)
    labels = {"sh": "/bin/sh script", "python": "Python script"}
    results: list[tuple[str, float | list[float]]] = [
        (
            f"shell hook, {labels[kind]}: adapter / bare subprocess.run",
            _measure(kind, body, iterations),
        )
        for kind, body in _SCRIPTS.items()
    ]
    versus_spawn, versus_python = _persistent(repetitions=5, spawned=20, kept=400)
    results.append(
        ("persistent Python hook firing / spawning it per firing (target 0.02)", versus_spawn)
    )
    results.append(
        ("persistent Python hook firing / in-process Python callback (target 20)", versus_python)
    )
    return results


if __name__ == "__main__":
    from bench.__main__ import format_figure

    count = int(sys.argv[1]) if len(sys.argv) > 1 else ITERATIONS
    for label, figure in run(count):
        print(format_figure(label, figure))

"""Run one plugin under both systems and list where they differ.

A difference is named by a path into the workers' reports (``load.state``,
``registrations.tools``, ``firings.pre_tool_call#terminal-rm-rf-root.decision``,
``side_effects``); ``docs/compatibility.md`` lists the accepted ones in a table whose
rows are ``| plugin | difference | reason |`` (``*`` for any plugin, ``*`` wildcards in
the difference).
"""

from __future__ import annotations

import contextlib
import fnmatch
import json
import os
import re
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("worker.py")
COMPATIBILITY = ROOT / "docs" / "compatibility.md"
TIMEOUT = 180


@dataclass(frozen=True)
class Allowed:
    """One row of the table in ``docs/compatibility.md``."""

    plugin: str
    difference: str
    reason: str

    def covers(self, plugin: str, path: str) -> bool:
        """Whether this row accepts difference ``path`` of ``plugin``."""
        return (self.plugin in ("*", plugin)) and fnmatch.fnmatchcase(path, self.difference)

    @property
    def varies(self) -> bool:
        """A row whose reason opens with "Varies between runs": the plugin itself races a
        thread or process of its own, so the difference may or may not occur in a given
        run (such a row is never stale)."""
        return self.reason.lower().startswith("varies between runs")


def allowed_differences(path: Path = COMPATIBILITY) -> list[Allowed]:
    """The rows of the accepted-differences table (the one headed ``| plugin |``)."""
    rows: list[Allowed] = []
    in_table = False
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| plugin |"):
            in_table = True
            continue
        if not in_table or not line.startswith("|"):
            in_table = in_table and line.startswith("|")
            continue
        if set(cells[0]) <= {"-", ":"}:
            continue
        rows.append(Allowed(cells[0].strip("`"), cells[1].strip("`"), cells[2]))
    return rows


@dataclass
class Comparison:
    """Both reports of one plugin and the differences between them."""

    plugin: str
    hermes: dict[str, Any]
    hooks: dict[str, Any]
    differences: list[str] = field(default_factory=list)


def _run(system: str, plugin: str, home: Path, env: dict[str, str]) -> dict[str, Any]:
    out = home.parent / f"{system}.json"
    try:
        proc = subprocess.run(
            [sys.executable, str(WORKER), system, plugin, str(home), str(out)],
            env=env,
            cwd=home,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        _settle_and_reap(home)
        return {"load": {"state": "timeout", "error": f"no answer in {TIMEOUT}s"}}
    if proc.returncode != 0 or not out.exists():
        _settle_and_reap(home)
        last = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
        return {"load": {"state": "crashed", "error": last}}
    report: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    _settle_and_reap(home)
    report["side_effects"] = _side_effects(home)
    return report


def _survivors(home: Path) -> list[int]:
    """Processes the worker left running (daemons a plugin spawned): every process
    whose environment names this worker's own home."""
    marker = f"HERMES_HOME={home}".encode()
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if marker in environ and int(entry.name) != os.getpid():
            found.append(int(entry.name))
    return found


def _settle_and_reap(home: Path) -> None:
    """Let a daemon the plugin spawned finish writing to the home (until its files stop
    changing for a while, within a bound), then end it, so no run leaves one behind and
    both systems are compared on the same settled files."""
    pids = _survivors(home)
    if not pids:
        return
    listing = _side_effects(home)
    deadline = time.monotonic() + 10.0
    stable_since = time.monotonic()
    while time.monotonic() < deadline and time.monotonic() - stable_since < 2.0:
        time.sleep(0.25)
        current = _side_effects(home)
        if current != listing:
            listing, stable_since = current, time.monotonic()
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in _survivors(home):
            with contextlib.suppress(OSError):  # it ended meanwhile
                os.kill(pid, sig)
        end = time.monotonic() + 2.0
        while _survivors(home) and time.monotonic() < end:
            time.sleep(0.1)


#: Files hermes-agent itself writes into every home it starts in (not the plugin's).
HOST_FILES = {"config.yaml", "SOUL.md", "logs/agent.log", "logs/errors.log"}
#: SQLite's journal files: whether they are still there at exit depends on when the
#: plugin's connection is garbage-collected, not on what the plugin did.
SQLITE_TRANSIENT = ("-wal", "-shm", "-journal")


def _side_effects(home: Path) -> dict[str, Any]:
    """Files the plugin left in its home: names (numbers and hex ids masked), and the
    contents of the fixtures' ``*.ref.json`` answers."""
    names: set[str] = set()
    contents: dict[str, Any] = {}
    for path in sorted(home.rglob("*")):
        rel = path.relative_to(home).as_posix()
        if rel in HOST_FILES or "__pycache__" in rel or not path.is_file():
            continue
        if rel.endswith(SQLITE_TRANSIENT):  # exist only while a connection is open
            continue
            continue
        names.add(re.sub(r"[0-9a-f]{8,}|\d+", "#", rel))
        if rel.endswith(".ref.json"):
            contents[rel] = json.loads(path.read_text(encoding="utf-8"))
    return {"files": sorted(names), "answers": contents}


def _home(base: Path, plugin: str) -> Path:
    home = base / "home"
    home.mkdir(parents=True)
    (home / "config.yaml").write_text(
        f"plugins:\n  enabled: [{json.dumps(plugin)}]\n", encoding="utf-8"
    )
    return home


#: Filled by test_conformance, read by the conftest's closing figures.
COMPARED: list[Comparison] = []


def compare(plugin: str, workdir: Path) -> Comparison:
    """Load ``plugin`` under hermes-agent and under hermes-hooks (two processes, run
    side by side, each with its own home) and list the differences."""
    bundled = workdir / "no-bundled-plugins"
    bundled.mkdir(parents=True, exist_ok=True)
    jobs = {}
    with ThreadPoolExecutor(max_workers=2) as pool:
        for system in ("hermes", "hooks"):
            home = _home(workdir / system, plugin)
            env = {
                **os.environ,
                "HERMES_HOME": str(home),
                "HOME": str(home),
                "HERMES_BUNDLED_PLUGINS": str(bundled),
                "PYTHONDONTWRITEBYTECODE": "1",
            }
            jobs[system] = pool.submit(_run, system, plugin, home, env)
    result = Comparison(plugin, jobs["hermes"].result(), jobs["hooks"].result())
    result.differences = differences(result.hermes, result.hooks)
    return result


def _normal_error(report: dict[str, Any]) -> str | None:
    """A load error without our type prefix and location suffix."""
    error = report.get("load", {}).get("error")
    if not isinstance(error, str):
        return error
    error = re.sub(r" \(raised at [^)]*\)$", "", error)
    return re.sub(r"^[A-Za-z_.]+(Error|Exception|Exit|Panic): ", "", error)


def differences(hermes: dict[str, Any], hooks: dict[str, Any]) -> list[str]:
    """Paths at which the two reports differ."""
    out: list[str] = []
    if hermes["load"]["state"] != hooks["load"]["state"]:
        out.append("load.state")
    elif hermes["load"]["state"] == "failed" and _normal_error(hermes) != _normal_error(hooks):
        out.append("load.error")
    if {hermes["load"]["state"], hooks["load"]["state"]} - {"loaded", "failed"}:
        return out  # a side that crashed or hung left nothing else to compare
    for section in ("registrations", "firings", "side_effects"):
        left, right = hermes.get(section, {}), hooks.get(section, {})
        for key in sorted(set(left) | set(right)):
            a, b = left.get(key), right.get(key)
            if section == "firings" and isinstance(a, dict) and isinstance(b, dict):
                out += [
                    f"firings.{key}.{k}" for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)
                ]
            elif a != b:
                out.append(f"{section}.{key}")
    return out

"""Start-up cost, each as a ratio against a baseline started in the same run.

Every figure times whole fresh interpreters (``subprocess.run``), interleaved: each
round starts every command once, in a rotating order, so machine noise hits them all
alike.  A repetition is the ratio of the medians over its rounds; the figure is given
as min / median / max over repetitions.

* ``hermes-hooks --help`` / ``python3 -c pass`` (target 3), as the parser prints it off
  a terminal, and as a second figure on a 120-column terminal;
* ``import hermes_hooks`` / ``import pluggy`` (target 1.2);
* ``hermes_hooks.load()`` on an empty home / ``import pluggy`` (target 2.5), with entry
  points scanned as the agent does: pluggy is what ``load()`` needs and the package
  import does not, so this baseline does not move when the import gets lighter; the
  same load against ``import hermes_hooks``, and without the entry-point scan;
* ``load()`` / ``load(entry_points=False)``: what looking for installed plugins adds
  to an empty home's load where no distribution declares one (the bench env; where
  one does, its plugins load too, and the run says so on stderr).

The interpreters run in an empty directory with bytecode writing allowed, so what is
timed is what a user's second run costs, not compilation.

    python -m bench startup [rounds]
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

ROUNDS = 15
REPETITIONS = 5

_COMMANDS = {
    "pass": "pass",
    "pluggy": "import pluggy",
    "import": "import hermes_hooks",
    "help": (
        "import sys\nfrom hermes_hooks.cli import main\nsys.argv[0] = 'hermes-hooks'\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass"
    ),
    "help-wide": (
        "import os, sys\nos.environ['COLUMNS'] = '120'\nfrom hermes_hooks.cli import main\n"
        "sys.argv[0] = 'hermes-hooks'\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass"
    ),
    "load": "import sys, hermes_hooks\nhermes_hooks.load(sys.argv[1])",
    "load-no-ep": "import sys, hermes_hooks\nhermes_hooks.load(sys.argv[1], entry_points=False)",
}


def _time(code: str, home: Path, cwd: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", code, str(home)],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
    )
    return time.perf_counter() - started


def _repetition(home: Path, cwd: Path, env: dict[str, str], rounds: int) -> dict[str, float]:
    """Median seconds per command over ``rounds`` interleaved rounds."""
    times: dict[str, list[float]] = {name: [] for name in _COMMANDS}
    names = list(_COMMANDS)
    for index in range(rounds):
        shift = index % len(names)
        for name in names[shift:] + names[:shift]:
            times[name].append(_time(_COMMANDS[name], home, cwd, env))
    return {name: statistics.median(values) for name, values in times.items()}


def run(rounds: int = ROUNDS, repetitions: int = REPETITIONS) -> list[tuple[str, list[float]]]:
    """The start-up ratios, each over ``repetitions`` repetitions."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.pop("HERMES_HOME", None)
    env.pop("COLUMNS", None)  # off a terminal argparse assumes 80 columns; so do we
    # The package as this process imports it (installed, or this checkout).
    import hermes_hooks
    from hermes_hooks.plugins.entry_points import may_declare
    from hermes_hooks.plugins.source import ENTRY_POINT_GROUPS

    if may_declare(ENTRY_POINT_GROUPS):
        print(
            "  note: an installed distribution may declare a plugin; `load()` loads it",
            file=sys.stderr,
        )
    root = str(Path(hermes_hooks.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    figures: dict[str, list[float]] = {
        "help/pass": [],
        "help-wide/pass": [],
        "import/pluggy": [],
        "load/import": [],
        "load/pluggy": [],
        "load-no-ep/import": [],
        "load/load-no-ep": [],
    }
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        cwd = Path(tmp) / "cwd"
        home = Path(tmp) / "home"
        cwd.mkdir()
        home.mkdir()
        env["HOME"] = str(Path(tmp))  # no user config or allowlist leaks in
        for code in _COMMANDS.values():  # warm the page cache and write bytecode
            _time(code, home, cwd, env)
        for _ in range(repetitions):
            medians = _repetition(home, cwd, env, rounds)
            figures["help/pass"].append(medians["help"] / medians["pass"])
            figures["help-wide/pass"].append(medians["help-wide"] / medians["pass"])
            figures["import/pluggy"].append(medians["import"] / medians["pluggy"])
            figures["load/import"].append(medians["load"] / medians["import"])
            figures["load/pluggy"].append(medians["load"] / medians["pluggy"])
            figures["load-no-ep/import"].append(medians["load-no-ep"] / medians["import"])
            figures["load/load-no-ep"].append(medians["load"] / medians["load-no-ep"])
            print(
                "  " + ", ".join(f"{name} {value * 1e3:.1f} ms" for name, value in medians.items()),
                file=sys.stderr,
            )
    return [
        ("`hermes-hooks --help` / `python3 -c pass` (target 3)", figures["help/pass"]),
        (
            "`hermes-hooks --help` on a 120-column terminal / `python3 -c pass`",
            figures["help-wide/pass"],
        ),
        ("`import hermes_hooks` / `import pluggy` (target 1.2)", figures["import/pluggy"]),
        (
            # load() needs pluggy, which the package import does not load: a baseline
            # that does not move when the import gets lighter
            "`load()` on an empty home / `import pluggy` (target 2.5)",
            figures["load/pluggy"],
        ),
        ("`load()` on an empty home / `import hermes_hooks`", figures["load/import"]),
        (
            "`load(entry_points=False)` on an empty home / `import hermes_hooks`",
            figures["load-no-ep/import"],
        ),
        (
            "`load()` on an empty home / `load(entry_points=False)` (the entry-point look)",
            figures["load/load-no-ep"],
        ),
    ]


if __name__ == "__main__":
    from bench.__main__ import format_figure

    count = int(sys.argv[1]) if len(sys.argv) > 1 else ROUNDS
    for label, values in run(count):
        print(format_figure(label, values))

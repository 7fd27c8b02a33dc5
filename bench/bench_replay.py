"""``hermes-hooks replay`` at scale, as ratios against smaller runs in the same process.

Three figures:

* per-line cost at 1,000× the long example recording against 10× (1.0 = linear);
* peak memory (``tracemalloc``) of the 1,000× replay against the 10× one (1.0 = flat),
  with the home below and with an empty home (the host alone), counted from the end of
  the first entry: loading the home peaks higher than the replay ever does, the same at
  any length, and would hide growth;
* wall time of ``replay --jobs 2`` against ``--jobs 1`` on 8 recordings of 100× the
  long recording each (below 1.0 = the second process helps; bounded by free cores).

The home is the example home's Python plugins (tool-counter, verify-before-done), its
outbound target (captured, as replay does by default), and one ``**kwargs`` plugin on
``pre_api_request`` and ``post_llm_call`` so the history payloads are built and copied
for a callback at every model call.  The example's shell hooks are left out: they
spawn a process per firing, which would measure process start-up rather than the
replay (the shell benchmark covers that).  Repetitions of the recording get their own
tool-call ids and follow each other in one file, one session continuing into the next
up to the recording's own ``/new``.

Run: ``python3 -m bench replay`` (about a minute).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from hermes_hooks.host.job import ReplayOptions, replay_file
from hermes_hooks.host.recording import scan_recording

REPO = Path(__file__).resolve().parents[1]
LONG = REPO / "examples" / "recordings" / "long-session.jsonl"

WATCHER = """
def watch(**kwargs):
    return None


def register(ctx):
    ctx.register_hook("pre_api_request", watch)
    ctx.register_hook("post_llm_call", watch)
"""


def _home(root: Path) -> Path:
    home = root / "home"
    (home / "plugins").mkdir(parents=True)
    for name in ("tool-counter", "verify-before-done"):
        shutil.copytree(REPO / "examples" / "home" / "plugins" / name, home / "plugins" / name)
    watcher = home / "plugins" / "watcher"
    watcher.mkdir()
    (watcher / "plugin.yaml").write_text("name: watcher\nversion: 1.0.0\n", encoding="utf-8")
    (watcher / "__init__.py").write_text(WATCHER, encoding="utf-8")
    (home / "config.yaml").write_text(
        "hooks:\n  outbound:\n    - name: ci-notify\n"
        "      url: https://ci.example.com/hermes-events\n      secret: bench\n"
        "      events: [on_session_end, subagent_stop]\n",
        encoding="utf-8",
    )
    return home


def _repeated(root: Path, times: int, name: str | None = None) -> tuple[Path, int]:
    """The long recording's body ``times`` times after its header; (path, lines)."""
    header, *body = LONG.read_text(encoding="utf-8").splitlines()
    path = root / (name or f"long-x{times}.jsonl")
    count = 1
    with path.open("w", encoding="utf-8") as out:
        out.write(header + "\n")
        for rep in range(times):
            for text in body:
                line = json.loads(text)
                for call in line.get("tool_calls", []) if line["type"] == "assistant" else []:
                    call["id"] = f"r{rep}-{call['id']}"
                if "tool_call_id" in line:
                    line["tool_call_id"] = f"r{rep}-{line['tool_call_id']}"
                out.write(json.dumps(line, ensure_ascii=False) + "\n")
                count += 1
    return path, count


def _replay(path: Path, options: ReplayOptions) -> float:
    header, _ = scan_recording(path)
    started = time.perf_counter()
    replay_file(str(path), header, options, write=lambda text: None)
    return time.perf_counter() - started


def _peak(path: Path, options: ReplayOptions) -> int:
    """Peak traced memory of the replay once its first entry is done.

    Loading the home (plugins, config validation) peaks at several times what the
    replay itself holds, the same at any length; counted in, it would hide growth of
    that size, so the peak is restarted after the first entry.
    """
    header, _ = scan_recording(path)

    def loaded(done: int) -> None:
        if done == 1:
            tracemalloc.reset_peak()

    tracemalloc.start()
    try:
        replay_file(str(path), header, options, write=lambda text: None, progress=loaded)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _cli(home: Path, files: list[Path], jobs: int) -> float:
    command = [sys.executable, "-m", "hermes_hooks", "--no-entry-points", "--home", str(home)]
    command += ["replay", "--jobs", str(jobs), *map(str, files)]
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, timeout=600)
    return time.perf_counter() - started


def run() -> list[tuple[str, float]]:
    """Per-line cost and peak memory at 1,000× vs 10×; ``--jobs 2`` vs ``--jobs 1``."""
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        home = _home(root)
        options = ReplayOptions(home=str(home), entry_points=False)
        small, small_lines = _repeated(root, 10)
        large, large_lines = _repeated(root, 1000)
        _replay(small, options)  # warm imports and caches
        small_s = min(_replay(small, options) for _ in range(5))
        large_s = min(_replay(large, options) for _ in range(2))
        per_line = (large_s / large_lines) / (small_s / small_lines)
        memory = _peak(large, options) / _peak(small, options)
        bare = root / "bare-home"
        bare.mkdir()
        bare_options = ReplayOptions(home=str(bare), entry_points=False)
        _replay(small, bare_options)
        host_memory = _peak(large, bare_options) / _peak(small, bare_options)
        eight = [_repeated(root, 100, f"rec-{i}.jsonl")[0] for i in range(8)]
        one = min(_cli(home, eight, 1) for _ in range(2))
        two = min(_cli(home, eight, 2) for _ in range(2))
    small_us, large_us = small_s * 1e6 / small_lines, large_s * 1e6 / large_lines
    return [
        (
            f"replay per-line cost, 1000x ({large_us:.0f} us/line, {large_lines} lines) / "
            f"10x ({small_us:.0f} us/line)",
            per_line,
        ),
        ("replay peak memory, 1000x / 10x", memory),
        ("replay peak memory, 1000x / 10x, a home without hooks (the host alone)", host_memory),
        (f"replay of 8 recordings, --jobs 2 / --jobs 1 ({one:.2f} s)", two / one),
    ]

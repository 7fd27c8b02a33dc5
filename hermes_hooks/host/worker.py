"""A replay worker process (``replay --jobs N``): ``python -m hermes_hooks.host.worker``
reads one job as JSON on stdin, replays it, and writes the result as JSON on stdout.

Plain child processes rather than a multiprocessing pool: each worker is a fresh
interpreter that inherits no threads or locks from its caller, and nothing (no fork
server, no resource tracker) outlives the replay.  Whatever the hooks print goes to the
worker's stderr, which is the caller's.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from dataclasses import asdict
from typing import Any

from hermes_hooks.host.job import Hit, ReplayOptions, ReplayResult, replay_file
from hermes_hooks.host.timeline import Summary

__all__ = ["USAGE", "run_in_worker"]

#: The worker's exit code for bad input (the CLI's usage exit code).
USAGE = 2


def _job(path: str, options: ReplayOptions) -> bytes:
    level = logging.getLogger().getEffectiveLevel()
    return json.dumps({"path": path, "options": asdict(options), "log_level": level}).encode()


def _result(data: dict[str, Any]) -> ReplayResult:
    return ReplayResult(
        path=data["path"],
        summary=Summary(**data["summary"]),
        hits=[Hit(**hit) for hit in data["hits"]],
        output=data["output"],
        seconds=data["seconds"],
    )


def run_in_worker(path: str, options: ReplayOptions) -> ReplayResult:
    """Replay the validated recording at ``path`` in a new worker process."""
    from hermes_hooks.errors import ConfigError, HermesHooksError

    done = subprocess.run(
        [sys.executable, "-m", "hermes_hooks.host.worker"],
        input=_job(path, options),
        stdout=subprocess.PIPE,
        check=False,
    )
    if done.returncode == USAGE:
        raise ConfigError(f"{path}: not replayed (the reason is above)")
    if done.returncode != 0:
        raise HermesHooksError(
            f"{path}: the replay worker failed (exit {done.returncode}; its errors are above)"
        )
    return _result(json.loads(done.stdout))


def main() -> int:
    """The worker: one job in, one result out."""
    from hermes_hooks.errors import ConfigError, RecordingError, UnknownHookError
    from hermes_hooks.host.recording import scan_recording

    job = json.loads(sys.stdin.buffer.read())
    logging.basicConfig(  # as the command line configures it, at the caller's level
        level=job.get("log_level", logging.WARNING),
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    report = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # the hooks' output goes to stderr; stdout carries the result only
    sys.stdout = sys.stderr
    options = job["options"]
    options["fail_on"] = tuple(options["fail_on"])
    try:
        header, _ = scan_recording(job["path"])
        result = replay_file(job["path"], header, ReplayOptions(**options))
    except (ConfigError, RecordingError, UnknownHookError) as exc:
        print(f"hermes-hooks: {exc}", file=sys.stderr)
        return USAGE  # the message is the caller's to relay, as in one process
    data = asdict(result)
    report.write(json.dumps(data, ensure_ascii=False))
    report.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""A replay worker process (``replay --jobs N``): ``python -m hermes_hooks.host.worker``
reads one job as JSON on stdin, replays it, and writes the outcome as JSON on stdout:
``{"result": ...}``, or ``{"usage_error": message}`` when the home or the recording
cannot be used.

Plain child processes rather than a multiprocessing pool: each worker is a fresh
interpreter that inherits no threads or locks from its caller, and nothing (no fork
server, no resource tracker) outlives the replay.  Whatever the hooks print goes to the
worker's stderr, which is the caller's.

A worker that ends without writing its outcome (a hook called ``os._exit``, the process
was killed, the interpreter crashed) does not take the other recordings down: its
recording gets a result marked *crashed* with the reason, and the run goes on.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from hermes_hooks._log import get_logger
from hermes_hooks.errors import ConfigError, RecordingError, UnknownHookError
from hermes_hooks.host.job import Hit, ReplayOptions, ReplayResult, crashed_result, replay_file
from hermes_hooks.host.timeline import Summary

if TYPE_CHECKING:
    from hermes_hooks.host.recording import Header

logger = get_logger("hermes_hooks.host")

__all__ = ["run_in_worker"]


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


def _death(returncode: int) -> str:
    """How a worker that wrote no outcome ended, in words."""
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"the replay worker was killed by {name}"
    return f"the replay worker exited with code {returncode} before reporting a result"


def run_in_worker(path: str, header: Header, options: ReplayOptions) -> ReplayResult:
    """Replay the validated recording at ``path`` in a new worker process.

    A worker that dies gives a crashed result (see :func:`crashed_result`) instead of an
    exception, so the recordings replayed beside it keep their results.
    """

    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "hermes_hooks.host.worker"],
        input=_job(path, options),
        stdout=subprocess.PIPE,
        check=False,
    )
    outcome: Any = None
    try:
        outcome = json.loads(done.stdout) if done.stdout.strip() else None
    except ValueError:
        outcome = None
    if isinstance(outcome, dict) and isinstance(outcome.get("usage_error"), str):
        raise ConfigError(outcome["usage_error"])
    if done.returncode == 0 and isinstance(outcome, dict) and "result" in outcome:
        return _result(outcome["result"])
    reason = _death(done.returncode)
    if done.returncode == 0:
        reason = "the replay worker exited without reporting a result"
    logger.error("%s: not replayed: %s (a hook may have ended the process)", path, reason)
    return crashed_result(path, header, options, reason, time.perf_counter() - started)


def main() -> int:
    """The worker: one job in, one result out."""
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
        # The caller reports it as it would in one process (exit 2, one line).
        outcome: dict[str, Any] = {"usage_error": str(exc)}
    else:
        outcome = {"result": asdict(result)}
    report.write(json.dumps(outcome, ensure_ascii=False))
    report.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

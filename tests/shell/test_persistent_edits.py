"""A persistent hook's script edited on disk: the next firing restarts the process on
the new code, consent is checked again as it restarts, and the change detection costs
one ``stat`` per firing (the script is hashed only when a process starts)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.hooks import Hooks
from hermes_hooks.shell import consent, pin_check
from hermes_hooks.shell.hook import ShellHook
from tests.helpers import tool_payload
from tests.shell.helpers import approve, errors_of, py, warnings_of, write_config, write_script
from tests.shell.test_run import wait_gone

# Answers every request with a block whose message is the letter in ANSWER.
SERVER = """
import json, sys
ANSWER = "A"
for raw in sys.stdin:
    sys.stdout.write(json.dumps({"id": json.loads(raw)["id"], "action": "block",
                                 "message": ANSWER}) + "\\n")
    sys.stdout.flush()
"""


def fire(hooks: Hooks) -> Any:
    return hooks.pre_tool_call(**tool_payload(args={"command": "ls"}))


def the_hook(hooks: Hooks) -> ShellHook:
    hook = hooks.sources["shell"].records()[0].hook  # type: ignore[attr-defined]
    assert isinstance(hook, ShellHook) and hook.process is not None
    return hook


def rewrite_in_place(script: Path, old: str, new: str) -> None:
    """Replace ``old`` by ``new`` (same length) in the file itself, and put its mtime
    back: the inode, size and mtime stay; only the ctime (and the content) differ."""
    assert len(old) == len(new)
    before = os.stat(script)
    text = script.read_text().replace(old, new)
    # ctime ticks with the kernel's clock: write again until it has moved (a bound,
    # never a pass/fail on time), so the test checks the detection, not the clock.
    for _ in range(200):
        with script.open("r+") as handle:  # in place: same inode, no truncation
            handle.write(text)
        os.utime(script, ns=(before.st_atime_ns, before.st_mtime_ns))
        if os.stat(script).st_ctime_ns != before.st_ctime_ns:
            break
        os.sched_yield()
    after = os.stat(script)
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (
        before.st_ino,
        before.st_size,
        before.st_mtime_ns,
    )
    assert after.st_ctime_ns != before.st_ctime_ns
    assert script.read_text() == text


@pytest.fixture
def server(home: Path, load: Callable[..., Hooks]) -> Iterator[tuple[Hooks, Path]]:
    """(hooks, script): the SERVER script as an approved persistent fail-closed gate."""
    script = write_script(home / "agent-hooks" / "server.py", py(SERVER))
    write_config(
        home,
        {"pre_tool_call": [{"command": str(script), "persistent": True, "fail_closed": True}]},
    )
    approve(home, "pre_tool_call", str(script))
    yield load(), script


def test_an_edit_that_keeps_size_and_mtime_restarts_on_the_new_code(
    server: tuple[Hooks, Path], caplog: pytest.LogCaptureFixture
) -> None:
    hooks, script = server
    assert fire(hooks).message == "A"
    hook = the_hook(hooks)
    old = hook.process.pid  # type: ignore[union-attr]
    assert fire(hooks).message == "A"  # the same process, no restart
    assert hook.process.starts == 1  # type: ignore[union-attr]
    rewrite_in_place(script, 'ANSWER = "A"', 'ANSWER = "B"')
    assert fire(hooks).message == "B"
    assert hook.process.starts == 2  # type: ignore[union-attr]
    assert old is not None and wait_gone(old)
    # Consent was checked again as it restarted: the approval still stands and pins
    # this file, and edits are trusted, so it runs; its edit is said once, loudly.
    approved = f"hermes-hooks approve pre_tool_call {script}"
    assert warnings_of(caplog) == [
        f"{hook.source}: persistent shell hook hooks.pre_tool_call[0] ({script}) starts on "
        f"{script}, edited since it was approved (its sha256 is no longer the approved "
        "one); edits are trusted, so the new code runs. review that file; if it is the "
        f"one you mean, approve it: {approved}"
    ]
    assert fire(hooks).message == "B"
    assert hook.process.starts == 2  # type: ignore[union-attr]


def test_an_edit_after_the_approval_was_revoked_never_runs_old_or_new_code(
    server: tuple[Hooks, Path], home: Path
) -> None:
    hooks, script = server
    assert fire(hooks).message == "A"
    old = the_hook(hooks).process.pid  # type: ignore[union-attr]
    consent.Allowlist(home).revoke(str(script))
    rewrite_in_place(script, 'ANSWER = "A"', 'ANSWER = "B"')
    verdict = fire(hooks)
    assert (verdict.action, verdict.message) == (
        "block",
        f"hook {script} failed closed: not run: not allowlisted; review it, then: "
        f"hermes-hooks approve pre_tool_call {script}",
    )
    # The process that ran the old code is ended, not kept for later.
    assert old is not None and wait_gone(old)
    assert the_hook(hooks).process.pid is None  # type: ignore[union-attr]


def test_a_pinned_command_that_now_leads_elsewhere_is_refused_and_its_process_ended(
    home: Path,
    load: Callable[..., Hooks],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # A bare name found on PATH: the approval pins the file it led to.
    first, second = tmp_path / "bin-a", tmp_path / "bin-b"
    write_script(first / "gate-server", py(SERVER))
    write_script(second / "gate-server", py(SERVER.replace('"A"', '"B"')))
    monkeypatch.setenv("PATH", f"{first}{os.pathsep}{os.environ['PATH']}")
    entry = {"command": "gate-server", "persistent": True, "fail_closed": True}
    write_config(home, {"pre_tool_call": [entry]})
    approve(home, "pre_tool_call", "gate-server")
    hooks = load()
    assert fire(hooks).message == "A"
    old = the_hook(hooks).process.pid  # type: ignore[union-attr]
    monkeypatch.setenv("PATH", f"{second}{os.pathsep}{os.environ['PATH']}")
    verdict = fire(hooks)
    assert verdict.action == "block"
    assert verdict.message.startswith(
        f"hook gate-server failed closed: not run: it resolved to {first / 'gate-server'} "
        f"when approved and resolves to {second / 'gate-server'} now (PATH changed)"
    )
    assert [m for m in errors_of(caplog) if "refused" in m] != []
    assert old is not None and wait_gone(old)


def test_change_detection_costs_one_stat_per_firing_and_one_hash_per_start(
    server: tuple[Hooks, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    hooks, script = server
    stats: list[str] = []
    hashes: list[Path] = []
    real_stat, real_file_state = os.stat, consent.file_state

    def counting_stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if isinstance(path, (str, os.PathLike)) and os.fspath(path) == str(script):
            stats.append(os.fspath(path))
        return real_stat(path, *args, **kwargs)

    def counting_file_state(path: Path) -> tuple[str | None, str | None]:
        hashes.append(path)
        return real_file_state(path)

    monkeypatch.setattr(os, "stat", counting_stat)
    monkeypatch.setattr(consent, "file_state", counting_file_state)
    monkeypatch.setattr(pin_check, "file_state", counting_file_state)
    for _ in range(5):
        assert fire(hooks).message == "A"
    assert (len(stats), hashes) == (5, [script])  # hashed once: when it started
    rewrite_in_place(script, 'ANSWER = "A"', 'ANSWER = "B"')
    stats.clear()
    for _ in range(3):
        assert fire(hooks).message == "B"
    assert (len(stats), hashes) == (3, [script, script])  # and once more at the restart


def test_a_script_named_relative_to_the_home_is_watched_from_any_directory(
    home: Path,
    load: Callable[..., Hooks],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    script = write_script(home / "agent-hooks" / "server.py", py(SERVER))
    entry = {"command": "agent-hooks/server.py", "persistent": True}
    write_config(home, {"pre_tool_call": [entry]})
    approve(home, "pre_tool_call", "agent-hooks/server.py")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the agent runs in another directory
    hooks = load()
    assert fire(hooks).message == "A"
    rewrite_in_place(script, 'ANSWER = "A"', 'ANSWER = "B"')
    assert fire(hooks).message == "B"

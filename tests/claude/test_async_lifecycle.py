"""Nothing an ``async`` Claude Code hook runs outlives its timeout, ``close()`` or its
host: the hook and a grandchild it started are gone after each (SH-12, D-15).

"Gone" is what ``os.kill(pid, 0)`` says, polled within a generous bound (never a
pass/fail on time).  A killed grandchild is reparented to init, which reaps it when it
gets round to it: until then it is a zombie, which runs nothing, so a zombie counts as
gone too.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from hermes_hooks.hooks import Hooks
from hermes_hooks.shell.background import BACKGROUND
from tests.claude.helpers import configure, payload
from tests.shell.helpers import REPO, sh, warnings_of, write_script

PATIENCE = 30.0  # only stops a hung test


def gone(pid: int) -> bool:
    """True once ``pid`` runs nothing: no such process, or a zombie waiting for init."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return True
    return state == "Z"


def eventually(check: Callable[[], bool], limit: float = PATIENCE) -> bool:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return check()


def read_pid(path: Path) -> int:
    """The pid a hook wrote to ``path`` (waited for: the hook runs in the background)."""
    assert eventually(lambda: path.is_file() and path.read_text().strip() != "")
    return int(path.read_text().split()[0])


@pytest.fixture
def leftovers() -> Iterator[list[int]]:
    """Pids the test made on purpose: killed afterwards, whatever the outcome."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@pytest.fixture
def sleeper(tmp_path: Path) -> Callable[[], tuple[str, Path]]:
    """``sleeper()``: (command, folder) of a hook that writes its pid to ``pid``, starts
    a grandchild (``sleep 300 &``) whose pid goes to ``grandchild``, and sleeps."""

    def make() -> tuple[str, Path]:
        folder = tmp_path / "pids"
        folder.mkdir(exist_ok=True)
        script = write_script(
            tmp_path / "sleeper.sh",
            sh(
                f"echo $$ > {folder}/pid.tmp && mv {folder}/pid.tmp {folder}/pid\n"
                f"sleep 300 &\n"
                f"echo $! > {folder}/grandchild.tmp && mv {folder}/grandchild.tmp "
                f"{folder}/grandchild\n"
                "sleep 300"
            ),
        )
        return str(script), folder

    return make


def async_entry(command: str, timeout: int) -> dict[str, object]:
    return {"command": command, "matcher": "Write", "async": True, "timeout": timeout}


def write_call() -> dict[str, object]:
    return payload("post_tool_call", "write_file", args={"path": "a.txt", "content": "x"})


def test_an_async_hook_and_its_grandchild_are_killed_at_its_timeout(
    home: Path,
    load: Callable[..., Hooks],
    sleeper: Callable[[], tuple[str, Path]],
    leftovers: list[int],
    caplog: pytest.LogCaptureFixture,
) -> None:
    command, pids = sleeper()
    configure(home, {"PostToolUse": [async_entry(command, 1)]})
    hooks = load()
    assert hooks.post_tool_call(**write_call()) is None  # returns at once
    hook, grandchild = read_pid(pids / "pid"), read_pid(pids / "grandchild")
    leftovers.extend([hook, grandchild])
    assert eventually(lambda: gone(hook) and gone(grandchild))
    assert BACKGROUND.wait(PATIENCE)
    assert f"async shell hook hooks.PostToolUse[0] ({command}): timed out after 1s" in (
        warnings_of(caplog)
    )


def test_close_kills_an_async_hook_still_within_its_timeout(
    home: Path,
    load: Callable[..., Hooks],
    sleeper: Callable[[], tuple[str, Path]],
    leftovers: list[int],
    caplog: pytest.LogCaptureFixture,
) -> None:
    command, pids = sleeper()
    configure(home, {"PostToolUse": [async_entry(command, 300)]})
    hooks = load()
    hooks.post_tool_call(**write_call())
    hook, grandchild = read_pid(pids / "pid"), read_pid(pids / "grandchild")
    leftovers.extend([hook, grandchild])
    assert not gone(hook) and not gone(grandchild)
    caplog.clear()
    hooks.close(0.5)  # waits that long for the run, then kills its group
    assert eventually(lambda: gone(hook) and gone(grandchild))
    assert BACKGROUND.wait(PATIENCE)
    # Said once by close(); the killed run itself delivers and warns nothing more.
    assert [m for m in warnings_of(caplog) if "async shell hook" in m] == [
        f"async shell hook hooks.PostToolUse[0] ({command}) was still running at close; "
        "its process group is killed"
    ]
    assert hooks.pre_llm_call(**payload("pre_llm_call")) is None


def test_close_of_one_load_leaves_the_runs_of_another_alone(
    tmp_path: Path,
    home: Path,
    load: Callable[..., Hooks],
    sleeper: Callable[[], tuple[str, Path]],
    leftovers: list[int],
) -> None:
    command, pids = sleeper()
    configure(home, {"PostToolUse": [async_entry(command, 300)]})
    running = load()
    other_home = tmp_path / "other-home"
    other_home.mkdir()
    other = Hooks.empty(other_home)
    running.post_tool_call(**write_call())
    hook = read_pid(pids / "pid")
    leftovers.append(hook)
    other.close(0.0)
    assert not gone(hook)
    running.close(0.0)
    assert eventually(lambda: gone(hook))


HOST = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    import hermes_hooks
    from hermes_hooks.synthetic import synthetic_payload

    home, pids, close = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3] == "close"
    hooks = hermes_hooks.load(home, entry_points=False)
    call = synthetic_payload("post_tool_call", tool_name="write_file")
    call["args"] = {"path": "a.txt", "content": "x"}
    hooks.post_tool_call(**call)
    deadline = time.monotonic() + 30
    while not (pids / "grandchild").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    if close:
        hooks.close(0.2)
    print("fired", flush=True)
    """
)


@pytest.mark.parametrize("ending", ["close", "exit without close"])
def test_a_host_that_exits_leaves_no_process_of_the_hook(
    home: Path,
    sleeper: Callable[[], tuple[str, Path]],
    leftovers: list[int],
    ending: str,
) -> None:
    command, pids = sleeper()
    configure(home, {"PostToolUse": [async_entry(command, 300)]})
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    host = subprocess.run(
        [sys.executable, "-c", HOST, str(home), str(pids), ending.split()[0]],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    hook, grandchild = read_pid(pids / "pid"), read_pid(pids / "grandchild")
    leftovers.extend([hook, grandchild])
    assert (host.returncode, host.stdout) == (0, "fired\n"), host.stderr
    assert eventually(lambda: gone(hook) and gone(grandchild))


def test_a_run_stopped_by_close_starts_nothing_more(
    home: Path, load: Callable[..., Hooks], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # A call of two URLs is two Claude inputs, so the hook runs once per URL: a run
    # ended by close() during the first must not go on to the second.
    starts = tmp_path / "starts"
    script = write_script(tmp_path / "slow.sh", sh(f"echo run >> {starts}\nexec sleep 300"))
    entry = {"command": str(script), "matcher": "WebFetch", "async": True}
    configure(home, {"PostToolUse": [entry]})
    hooks = load()
    urls = ["https://a.example/", "https://b.example/"]
    hooks.post_tool_call(**payload("post_tool_call", "web_extract", args={"urls": urls}))
    assert eventually(starts.is_file)
    hooks.close(0.0)
    assert BACKGROUND.wait(PATIENCE)
    assert starts.read_text() == "run\n"
    assert not [m for m in warnings_of(caplog) if "killed by signal" in m or "cannot start" in m]

"""The runner: large payloads without deadlock, bounded capture, process-group kills."""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest

from hermes_hooks.shell import run as shell_run
from hermes_hooks.shell.run import STREAM_CAP, run_command
from tests.shell.helpers import py, sh, write_script

MIB = 1024 * 1024


def process_gone(pid: int) -> bool:
    """True when ``pid`` no longer runs (gone, or a zombie waiting for its reaper)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


def wait_gone(pid: int, patience: float = 5.0) -> bool:
    """Wait (bounded) for the kernel to finish a SIGKILL; True once ``pid`` is gone."""
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        if process_gone(pid):
            return True
        time.sleep(0.01)
    return process_gone(pid)


def read_pid(path: Path) -> int:
    return int(path.read_text().split()[0])


@pytest.fixture
def leftovers() -> Iterator[list[int]]:
    """Pids a test started on purpose; killed afterwards whatever happened."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def test_several_megabytes_in_and_out_do_not_deadlock(tmp_path: Path) -> None:
    # The hook writes 3 MiB to each stream before reading a byte of its 4 MiB stdin:
    # a writer that waited for stdin to drain first would deadlock here.
    script = write_script(
        tmp_path / "chatty.py",
        py(
            "import sys, hashlib\n"
            "sys.stdout.buffer.write(b'o' * (3 << 20)); sys.stdout.flush()\n"
            "sys.stderr.buffer.write(b'e' * (3 << 20)); sys.stderr.flush()\n"
            "data = sys.stdin.buffer.read()\n"
            "sys.stderr.write(hashlib.sha256(data).hexdigest())"
        ),
    )
    payload = os.urandom(4 * MIB)
    result = run_command((str(script),), payload, 60)
    assert result.returncode == 0
    assert not result.timed_out
    assert result.stdout == b"o" * STREAM_CAP
    assert result.stdout_truncated and result.stderr_truncated
    assert len(result.stderr) == STREAM_CAP


def test_every_byte_of_a_large_payload_reaches_the_hook(tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "digest.py",
        py("import sys, hashlib\nprint(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())"),
    )
    payload = os.urandom(5 * MIB + 17)
    result = run_command((str(script),), payload, 60)
    assert result.stdout.decode().strip() == hashlib.sha256(payload).hexdigest()
    assert not result.stdout_truncated


def test_a_hook_that_answers_without_reading_stdin_is_fine(tmp_path: Path, exit_watch: str) -> None:
    script = write_script(tmp_path / "quick.sh", sh("echo '{}'"))
    result = run_command((str(script),), b"x" * (3 * MIB), 60)
    assert (result.returncode, result.stdout, result.error) == (0, b"{}\n", None)


def test_an_endless_printer_is_capped_and_stopped_at_its_timeout(tmp_path: Path) -> None:
    script = write_script(tmp_path / "yes.sh", sh("exec yes hermes"))
    result = run_command((str(script),), b"", 0.5)
    assert result.timed_out
    assert result.stdout_truncated
    assert len(result.stdout) == STREAM_CAP
    assert result.stdout.startswith(b"hermes\nhermes\n")


def test_timeout_kills_the_whole_process_group_and_reaps_the_child(
    tmp_path: Path, leftovers: list[int], exit_watch: str
) -> None:
    pids = tmp_path / "pids"
    script = write_script(
        tmp_path / "hang.sh",
        sh(
            f"sleep 300 &\necho $! > {pids}.grandchild\necho $$ > {pids}.child\n"
            "echo partial\nsleep 300"
        ),
    )
    result = run_command((str(script),), b"{}", 1.0)
    grandchild, child = read_pid(Path(f"{pids}.grandchild")), read_pid(Path(f"{pids}.child"))
    leftovers.extend([grandchild, child])
    assert result.timed_out
    assert result.returncode == -signal.SIGKILL
    assert result.stdout == b"partial\n"  # drained after the kill
    assert wait_gone(grandchild)
    # The direct child was reaped by us: no zombie of ours is left behind.
    assert not Path(f"/proc/{child}").exists()
    with pytest.raises(ChildProcessError):
        os.waitpid(child, os.WNOHANG)


def test_timeout_kills_a_grandchild_that_detached_its_output(
    tmp_path: Path, leftovers: list[int]
) -> None:
    pid_file = tmp_path / "grandchild"
    script = write_script(
        tmp_path / "hang.sh",
        sh(f"sleep 300 >/dev/null 2>&1 </dev/null &\necho $! > {pid_file}\nsleep 300"),
    )
    result = run_command((str(script),), b"", 1.0)
    grandchild = read_pid(pid_file)
    leftovers.append(grandchild)
    assert result.timed_out
    assert wait_gone(grandchild)


@pytest.fixture(params=["pidfd", "polling"])
def exit_watch(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test with the pidfd exit watch (Linux) and with the portable polling one."""
    if request.param == "polling":
        monkeypatch.setattr(shell_run, "_pidfd_open", None)
    else:
        assert shell_run._pidfd_open is not None
    return str(request.param)


def test_a_hook_that_exits_while_a_background_helper_holds_its_pipes_returns(
    tmp_path: Path, leftovers: list[int], exit_watch: str
) -> None:
    # The helper keeps stdout open for 300 s; the firing must end once the hook itself
    # exited (after a short drain), not at the 60 s deadline, and must not kill it.
    pid_file = tmp_path / "helper"
    script = write_script(
        tmp_path / "bg.sh",
        sh(f"sleep 300 &\necho $! > {pid_file}\necho '{{}}'\nexit 0"),
    )
    result = run_command((str(script),), b"", 60)
    helper = read_pid(pid_file)
    leftovers.append(helper)
    assert not result.timed_out
    assert (result.returncode, result.stdout) == (0, b"{}\n")
    assert not process_gone(helper)


def test_a_hook_that_closes_its_outputs_but_keeps_running_times_out(
    tmp_path: Path, leftovers: list[int], exit_watch: str
) -> None:
    pid_file = tmp_path / "child"
    script = write_script(
        tmp_path / "closer.sh", sh(f"echo $$ > {pid_file}\nexec >&- 2>&-\nsleep 300")
    )
    result = run_command((str(script),), b"", 1.0)
    child = read_pid(pid_file)
    leftovers.append(child)
    assert result.timed_out
    assert not Path(f"/proc/{child}").exists()


@pytest.mark.parametrize(
    ("setup", "expected"),
    [
        ("missing", "command not found"),
        ("not-executable", "command not executable"),
        ("directory", "command not executable"),
        ("bad-interpreter", "bad interpreter in {path} (check its #! line)"),
    ],
)
def test_spawn_errors_are_reported_not_raised(tmp_path: Path, setup: str, expected: str) -> None:
    path = tmp_path / "hook"
    if setup == "not-executable":
        write_script(path, sh("exit 0"), mode=0o644)
    elif setup == "directory":
        path.mkdir()
    elif setup == "bad-interpreter":
        write_script(path, "#!/nonexistent/interpreter\n")
    result = run_command((str(path),), b"{}", 5)
    assert result.error == expected.format(path=path)
    assert result.returncode is None


def test_a_signal_death_is_reported_as_the_signal(tmp_path: Path) -> None:
    script = write_script(tmp_path / "suicide.sh", sh("kill -TERM $$"))
    result = run_command((str(script),), b"", 5)
    assert result.returncode == -signal.SIGTERM
    assert result.signal == signal.SIGTERM


def test_output_bytes_are_kept_as_they_are(tmp_path: Path) -> None:
    script = write_script(tmp_path / "latin1.sh", sh(r"printf '\377\376{}'; printf '\351' >&2"))
    result = run_command((str(script),), b"", 5)
    assert result.stdout == b"\xff\xfe{}"
    assert result.stderr == b"\xe9"


def test_ctrl_c_during_a_firing_kills_the_group_and_propagates(
    tmp_path: Path, leftovers: list[int]
) -> None:
    pid_file = tmp_path / "child"
    script = write_script(tmp_path / "hang.sh", sh(f"echo $$ > {pid_file}\nsleep 300"))

    def interrupt(signum: int, frame: FrameType | None) -> None:
        if not (pid_file.exists() and pid_file.read_text().strip()):  # not started yet
            signal.setitimer(signal.ITIMER_REAL, 0.05)
            return
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.2)
    try:
        with pytest.raises(KeyboardInterrupt):
            run_command((str(script),), b"", 60)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    child = read_pid(pid_file)
    leftovers.append(child)
    assert not Path(f"/proc/{child}").exists()

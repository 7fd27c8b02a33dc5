"""Durable targets: the SQLite outbox, its schedule, dead letters, restarts and the
``hermes-hooks outbox`` command."""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import sqlite3
import stat
import subprocess
import sys
import textwrap
import time
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from pathlib import Path

import pytest

from hermes_hooks.cli import main
from hermes_hooks.webhooks import verify
from hermes_hooks.webhooks.delivery import parse_retry_after
from hermes_hooks.webhooks.outbox import OUTBOX_FILE, Outbox, Row
from tests.outbound.endpoint import Reply, wait_until
from tests.outbound.helpers import OutboundEnv

ROOT = Path(__file__).resolve().parents[2]


def rows(home: Path) -> list[Row]:
    outbox = Outbox(home / OUTBOX_FILE)
    try:
        return outbox.rows()
    finally:
        outbox.close()


def durable(url: str, name: str = "ci", **extra: str) -> str:
    """A config with one durable target; ``extra`` adds keys to the entry."""
    lines = [
        "hooks:",
        "  outbound:",
        f"    - name: {name}",
        f"      url: {url}",
        "      events: [on_session_end]",
        "      durable: true",
    ]
    lines += [f"      {key}: {value}" for key, value in extra.items()]
    return "\n".join(lines) + "\n"


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def test_the_event_is_stored_before_the_first_attempt(env: OutboundEnv, home: Path) -> None:
    endpoint = env.endpoint(Reply(200, hold=True))
    hooks = env.load(durable(endpoint.url, timeout="30"))
    hooks.on_session_end(session_id="s1")
    (request,) = endpoint.wait_requests(1)
    (row,) = rows(home)
    assert (row.state, row.attempts, row.target, row.event) == (
        "pending",
        0,
        "ci",
        "on_session_end",
    )
    assert row.delivery_id == request.header("X-Hermes-Delivery")
    assert row.body == request.body
    endpoint.release()
    hooks.close(5.0)
    assert rows(home) == []  # delivered rows are forgotten


def test_the_outbox_file_is_private_and_in_wal_mode(env: OutboundEnv, home: Path) -> None:
    endpoint = env.endpoint()
    env.load(durable(endpoint.url))
    path = home / OUTBOX_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()


def test_events_are_dead_lettered_after_the_last_attempt(
    env: OutboundEnv, home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    endpoint = env.endpoint(Reply(500))
    hooks = env.load(durable(endpoint.url, retry_schedule="[0.01, 0.01]"))
    hooks.on_session_end(session_id="s1")
    wait_until(lambda: any("kept as dead letters" in m for m in warnings(caplog)))
    (row,) = rows(home)
    assert (row.state, row.attempts, row.last_error) == ("dead", 3, "HTTP 500")
    assert len(endpoint.requests) == 3
    assert {r.header("X-Hermes-Delivery") for r in endpoint.requests} == {row.delivery_id}
    assert any("delivery failed after 3 attempt(s) (HTTP 500)" in m for m in warnings(caplog))
    assert any("kept as dead letters" in m for m in warnings(caplog))


def test_a_4xx_is_dead_at_once(env: OutboundEnv, home: Path) -> None:
    endpoint = env.endpoint(Reply(410))
    hooks = env.load(durable(endpoint.url, retry_schedule="[0.01, 0.01]"))
    hooks.on_session_end(session_id="s1")
    wait_until(lambda: [r.state for r in rows(home)] == ["dead"])
    assert rows(home)[0].attempts == 1
    assert len(endpoint.requests) == 1


def test_retry_after_seconds_postpone_the_next_attempt(env: OutboundEnv, home: Path) -> None:
    endpoint = env.endpoint(Reply(503, {"Retry-After": "120"}))
    hooks = env.load(durable(endpoint.url, retry_schedule="[0.01]"))
    hooks.on_session_end(session_id="s1")
    wait_until(lambda: rows(home) and rows(home)[0].attempts == 1)
    (row,) = rows(home)
    assert row.state == "pending" and row.last_attempt is not None
    assert row.next_attempt - row.last_attempt == pytest.approx(120.0, abs=0.01)


def test_429_is_retried_for_durable_targets_honouring_an_http_date(
    env: OutboundEnv, home: Path
) -> None:
    later = datetime.now(timezone.utc) + timedelta(seconds=600)
    endpoint = env.endpoint(Reply(429, {"Retry-After": format_datetime(later, usegmt=True)}))
    hooks = env.load(durable(endpoint.url, retry_schedule="[0.01]"))
    hooks.on_session_end(session_id="s1")
    wait_until(lambda: rows(home) and rows(home)[0].attempts == 1)
    (row,) = rows(home)
    assert row.state == "pending" and row.last_error == "HTTP 429"
    assert row.next_attempt == pytest.approx(later.timestamp(), abs=2.0)


def test_retry_after_is_capped_at_one_hour(env: OutboundEnv, home: Path) -> None:
    endpoint = env.endpoint(Reply(503, {"Retry-After": "999999"}))
    hooks = env.load(durable(endpoint.url, retry_schedule="[0.01]"))
    hooks.on_session_end(session_id="s1")
    wait_until(lambda: rows(home) and rows(home)[0].attempts == 1)
    (row,) = rows(home)
    assert row.last_attempt is not None
    assert row.next_attempt - row.last_attempt == pytest.approx(3600.0, abs=0.01)


def test_retries_are_jittered_by_at_most_20_percent(env: OutboundEnv, home: Path) -> None:
    endpoint = env.endpoint(Reply(500))
    hooks = env.load(durable(endpoint.url, retry_schedule="[100]"))
    for n in range(5):
        hooks.on_session_end(session_id=f"s{n}")
    wait_until(lambda: len(rows(home)) == 5 and all(r.attempts == 1 for r in rows(home)))
    waits = [r.next_attempt - (r.last_attempt or 0) for r in rows(home)]
    assert all(80.0 <= w <= 120.0 for w in waits)
    assert len({round(w, 6) for w in waits}) > 1  # not one fixed factor


@pytest.mark.parametrize(
    ("value", "expected"),
    [("120", 120.0), ("  7 ", 7.0), ("Wed, 21 Oct 2015 07:28:00 GMT", 60.0), ("soon", None)],
)
def test_parse_retry_after(value: str, expected: float | None) -> None:
    now = datetime(2015, 10, 21, 7, 27, tzinfo=timezone.utc).timestamp()
    assert parse_retry_after(value, now) == expected


def test_durable_standard_headers_are_signed_again_at_each_attempt(
    env: OutboundEnv, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    monkeypatch.setenv("CI_SECRET", secret)
    endpoint = env.endpoint(Reply(500), Reply(200))
    hooks = env.load(
        durable(endpoint.url, retry_schedule="[0.01]", signature="standard", secret_env="CI_SECRET")
    )
    hooks.on_session_end(session_id="s1")
    first, second = endpoint.wait_requests(2)
    hooks.close(5.0)
    assert first.body == second.body
    assert first.header("X-Hermes-Signature-256") == second.header("X-Hermes-Signature-256")
    for request in (first, second):
        headers = dict(request.headers)
        assert (
            verify(request.body, headers, secret, scheme="standard").delivery_id
            == (json.loads(request.body)["delivery_id"])
        )
        assert verify(request.body, headers, secret, scheme="github").scheme == "github"
    assert int(second.header("webhook-timestamp") or 0) >= int(
        first.header("webhook-timestamp") or 0
    )
    assert rows(home) == []


# -- the outbox on its own ---------------------------------------------------------------


def add(outbox: Outbox, n: int, target: str = "ci") -> int:
    return outbox.add(
        target=target,
        url="http://127.0.0.1:9/x",
        event="on_session_end",
        delivery_id=f"{n:032x}",
        timestamp="2026-01-01T00:00:00Z",
        body=b"{}",
        now=1000.0 + n,
    )


def test_two_processes_never_claim_the_same_row(tmp_path: Path) -> None:
    first, second = Outbox(tmp_path / OUTBOX_FILE), Outbox(tmp_path / OUTBOX_FILE)
    try:
        add(first, 1)
        add(first, 2)
        a = first.claim_next("ci", now=2000.0, lease=60.0)
        b = second.claim_next("ci", now=2000.0, lease=60.0)
        assert a is not None and b is not None and (a.id, b.id) == (1, 2)
        assert second.claim_next("ci", now=2000.0, lease=60.0) is None
        assert first.claim_next("ci", now=2061.0, lease=60.0) is not None  # lease expired
    finally:
        first.close()
        second.close()


def test_claims_of_dead_processes_are_released(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / OUTBOX_FILE)
    try:
        add(outbox, 1)
        assert outbox.claim_next("ci", now=2000.0, lease=3600.0) is not None
        gone = subprocess.run(
            [sys.executable, "-c", "import os; print(os.getpid())"],
            capture_output=True,
            text=True,
            check=True,
        )
        with sqlite3.connect(tmp_path / OUTBOX_FILE) as db:
            db.execute(
                "UPDATE outbox SET claimed_by = ?",
                (f"{socket.gethostname()}:{gone.stdout.strip()}",),
            )
        db.close()
        assert outbox.claim_next("ci", now=2001.0, lease=60.0) is None
        assert outbox.release_stale_claims() == 1
        assert outbox.claim_next("ci", now=2001.0, lease=60.0) is not None
    finally:
        outbox.close()


def test_reschedule_applies_the_current_schedule(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / OUTBOX_FILE)
    try:
        row_id = add(outbox, 1)
        add(outbox, 2)
        outbox.retry_later(
            row_id,
            attempts=1,
            now=5000.0,
            next_attempt=8600.0,
            not_before=0.0,
            jitter=1.1,
            error="HTTP 500",
        )
        outbox.reschedule("ci", lambda attempts: {1: 10.0}[attempts])
        fresh, untried = outbox.rows()
        assert fresh.next_attempt == pytest.approx(5011.0)  # 5000 + 10 * 1.1
        assert untried.next_attempt == untried.created  # never tried: due at once
    finally:
        outbox.close()


# -- a crash, then a restart -------------------------------------------------------------


def test_events_survive_sigkill_and_a_restart_delivers_them_all(
    env: OutboundEnv, home: Path
) -> None:
    blackhole = socket.socket()
    blackhole.bind(("127.0.0.1", 0))
    blackhole.listen(16)  # accepts connections in the kernel, never answers
    try:
        env.write(
            durable(
                f"http://127.0.0.1:{blackhole.getsockname()[1]}/hook",
                timeout="60",
                retry_schedule="[3600]",
            )
        )
        script = textwrap.dedent(
            f"""
            import time, hermes_hooks
            hooks = hermes_hooks.load({str(home)!r}, entry_points=False)
            for n in range(5):
                hooks.on_session_end(session_id=f"s{{n}}")
            print("fired", flush=True)
            time.sleep(120)
            """
        )
        with subprocess.Popen(
            [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=str(ROOT)
        ) as child:
            try:
                assert child.stdout is not None
                assert child.stdout.readline().strip() == "fired"
                # The child's worker is stuck sending the first event: it holds a claim.
                wait_until(lambda: any(r.claimed_by for r in rows(home)))
                os.kill(child.pid, signal.SIGKILL)
                assert child.wait(timeout=10) == -signal.SIGKILL
            finally:
                if child.poll() is None:
                    child.kill()
    finally:
        blackhole.close()

    stored = rows(home)
    assert len(stored) == 5 and all(r.state == "pending" for r in stored)
    assert [r.attempts for r in stored] == [0] * 5
    endpoint = env.endpoint()
    hooks = env.load(durable(endpoint.url, retry_schedule="[0.05, 0.1]"))
    received = endpoint.wait_requests(5)
    hooks.close(5.0)
    assert sorted(r.header("X-Hermes-Delivery") or "" for r in received) == sorted(
        r.delivery_id for r in stored
    )
    assert sorted(r.body for r in received) == sorted(r.body for r in stored)
    assert sorted(json.loads(r.body)["session_id"] for r in received) == [f"s{n}" for n in range(5)]
    assert rows(home) == []


# -- hermes-hooks outbox -----------------------------------------------------------------


def make_dead(home: Path, count: int, target: str = "ci") -> list[int]:
    outbox = Outbox(home / OUTBOX_FILE)
    try:
        ids = []
        for n in range(count):
            row_id = outbox.add(
                target=target,
                url="https://old.example/hook",
                event="subagent_stop",
                delivery_id=f"{n + 1:032x}",
                timestamp="2026-01-01T00:00:00Z",
                body=json.dumps({"delivery_id": f"{n + 1:032x}", "n": n}).encode(),
                now=time.time(),
            )
            outbox.dead(row_id, attempts=7, now=time.time(), error="HTTP 502")
            ids.append(row_id)
        return ids
    finally:
        outbox.close()


def test_outbox_list_and_show(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--home", str(home), "outbox"]) == 0
    assert capsys.readouterr().out == f"Outbox of {home}: 0 pending, 0 dead\n"
    (row_id,) = make_dead(home, 1)
    assert main(["--home", str(home), "outbox", "--json"]) == 0
    (event,) = json.loads(capsys.readouterr().out)["events"]
    assert (event["id"], event["state"], event["attempts"], event["last_error"]) == (
        row_id,
        "dead",
        7,
        "HTTP 502",
    )
    assert main(["--home", str(home), "outbox", "show", str(row_id)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{row_id}  dead    ci  subagent_stop  {1:032x}  attempts 7  dead")
    assert json.loads(out[1]) == {"delivery_id": f"{1:032x}", "n": 0}


def test_outbox_redeliver_sends_dead_events_to_the_current_url(
    env: OutboundEnv, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    endpoint = env.endpoint()
    env.write(durable(endpoint.url))
    ids = make_dead(home, 2)
    assert main(["--home", str(home), "outbox", "redeliver", "--dead"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "2 of 2 event(s) delivered"
    assert f"  {ids[0]:>5}  ci  delivered" in out
    assert [r.header("X-Hermes-Delivery") for r in endpoint.requests] == [
        f"{1:032x}",
        f"{2:032x}",
    ]
    assert endpoint.requests[0].header("X-Hermes-Event") == "subagent_stop"
    assert rows(home) == []


def test_outbox_redeliver_reports_failures_and_keeps_the_event(
    env: OutboundEnv, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    endpoint = env.endpoint(Reply(500))
    env.write(durable(endpoint.url))
    (row_id,) = make_dead(home, 1)
    make_dead(home, 0)
    assert main(["--home", str(home), "outbox", "redeliver", str(row_id)]) == 1
    out = capsys.readouterr().out
    assert f"  {row_id:>5}  ci  pending: HTTP 500" in out
    (row,) = rows(home)
    assert (row.state, row.attempts) == ("pending", 1)  # back on the schedule


def test_outbox_redeliver_without_a_durable_target(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (row_id,) = make_dead(home, 1, target="renamed")
    assert main(["--home", str(home), "outbox", "redeliver", "--dead"]) == 1
    assert (
        f"  {row_id:>5}  renamed  not configured: no durable target with this name in "
        "hooks.outbound"
    ) in capsys.readouterr().out


def test_outbox_purge_and_usage_errors(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make_dead(home, 3)
    assert main(["--home", str(home), "outbox", "purge"]) == 2
    assert "name event ids, or pass --dead" in capsys.readouterr().err
    assert main(["--home", str(home), "outbox", "purge", "--dead"]) == 0
    assert capsys.readouterr().out == "3 event(s) purged\n"
    assert main(["--home", str(home), "outbox", "purge", "--dead"]) == 1
    assert rows(home) == []


def test_a_full_durable_outbox_drops_new_events(
    env: OutboundEnv, home: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from hermes_hooks.webhooks import delivery

    monkeypatch.setattr(delivery, "DURABLE_CAPACITY", 2)
    endpoint = env.endpoint(Reply(200, hold=True))
    hooks = env.load(durable(endpoint.url, timeout="30"))
    for n in range(3):
        hooks.on_session_end(session_id=f"s{n}")
    assert len(rows(home)) == 2
    assert warnings(caplog)[-1] == (
        "outbound webhook queue full (2 pending) — dropping on_session_end event for ci"
    )


def test_an_unusable_outbox_falls_back_to_best_effort(
    env: OutboundEnv, home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (home / OUTBOX_FILE).mkdir()  # something that is not a database is in the way
    endpoint = env.endpoint()
    hooks = env.load(durable(endpoint.url))
    hooks.on_session_end(session_id="s1")
    (request,) = endpoint.wait_requests(1)
    assert json.loads(request.body)["session_id"] == "s1"
    source = env.source(hooks)
    assert source.records()[0].durable is False
    assert any(
        m.startswith("outbound webhooks: cannot open the outbox in ") for m in warnings(caplog)
    )


def test_a_locked_outbox_never_holds_the_agents_thread(
    env: OutboundEnv, home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    endpoint = env.endpoint()
    hooks = env.load(durable(endpoint.url, timeout="30"))
    locker = sqlite3.connect(str(home / OUTBOX_FILE), isolation_level=None)
    locker.execute("BEGIN EXCLUSIVE")  # another process writing, for as long as it likes
    try:
        for n in range(3):
            hooks.on_session_end(session_id=f"s{n}")
        # The agent's thread neither waited for the lock nor gave up on durability
        # (before, each firing sat out SQLite's busy timeout, then delivered without
        # the outbox with this warning).
        assert not [m for m in warnings(caplog) if "cannot write the outbox" in m]
    finally:
        locker.execute("ROLLBACK")
        locker.close()
    requests = endpoint.wait_requests(3)
    assert sorted(json.loads(r.body)["session_id"] for r in requests) == ["s0", "s1", "s2"]
    hooks.close(5.0)
    assert rows(home) == []  # stored by the worker once the lock went, then delivered

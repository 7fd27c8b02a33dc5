"""Credentials in a target url (``user:pass@``, ``?token=``) are never printed: not by
``list``, ``doctor``, ``outbox`` (``--json`` included) or ``repr(Target)``; and
``outbox`` on a file that is not an outbox is a clear error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hermes_hooks.cli import main
from hermes_hooks.webhooks.outbox import OUTBOX_FILE
from tests.outbound.endpoint import closed_port, wait_until
from tests.outbound.helpers import OutboundEnv
from tests.outbound.test_outbox import rows

SECRETS = ("s3cret-pw", "tok-123456", "sig-abcdef")


def secret_url(port: int) -> str:
    return f"http://hook-user:s3cret-pw@127.0.0.1:{port}/hook?token=tok-123456&sig=sig-abcdef&x=1"


def shown_url(port: int) -> str:
    return f"http://***@127.0.0.1:{port}/hook?token=***&sig=***&x=1"


def run(capsys: Any, home: Path, *argv: str) -> tuple[int, str, str]:
    code = main(["--home", str(home), "--no-entry-points", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_clean(text: str) -> None:
    assert not [s for s in SECRETS if s in text], text


def test_list_doctor_and_repr_hide_url_credentials(
    env: OutboundEnv, home: Path, capsys: Any
) -> None:
    port = closed_port()
    config = f"""
        hooks:
          outbound:
            - url: {secret_url(port)}
              events: [on_session_end]
            - url: ftp://ftp-user:s3cret-pw@127.0.0.1/x?token=tok-123456
              events: [on_session_end]
        """
    hooks = env.load(config)
    (target,) = env.source(hooks).targets
    assert_clean(repr(target))
    assert f"url='{shown_url(port)}'" in repr(target)
    for argv in (["list"], ["list", "--json"], ["doctor"], ["doctor", "--json"]):
        _, out, err = run(capsys, home, *argv)
        assert_clean(out + err)
    _, out, _ = run(capsys, home, "list")
    assert f"  ✓ {shown_url(port)} → {shown_url(port)}" in out.splitlines()
    lines = out.splitlines()
    skipped = lines.index("  ✗ hooks.outbound[1] ftp://***@127.0.0.1/x?token=***: skipped")
    assert lines[skipped + 1] == (
        f"      ✗ {home / 'config.yaml'}:6:7: hooks.outbound[1]: url "
        "'ftp://***@127.0.0.1/x?token=***' must be an https:// (or http://) address with a "
        "host; skipped"
    )
    _, out, _ = run(capsys, home, "list", "--json")
    assert json.loads(out)["outbound"][0]["url"] == shown_url(port)


def test_outbox_hides_url_credentials(env: OutboundEnv, home: Path, capsys: Any) -> None:
    port = closed_port()
    hooks = env.load(
        f"""
        hooks:
          outbound:
            - url: {secret_url(port)}
              events: [on_session_end]
              durable: true
              retry_schedule: [3600]
        """
    )
    hooks.on_session_end(session_id="s1")
    wait_until(lambda: [r for r in rows(home) if r.attempts == 1])
    hooks.close(3.0)
    (row,) = rows(home)
    assert "s3cret-pw" in row.url  # stored as configured: it is what we send to
    for argv in (["outbox"], ["outbox", "--json"], ["outbox", "show", str(row.id)]):
        code, out, err = run(capsys, home, *argv)
        assert code == 0
        assert_clean(out + err)
    _, out, _ = run(capsys, home, "outbox", "--json")
    (event,) = json.loads(out)["events"]
    assert (event["target"], event["url"]) == (shown_url(port), shown_url(port))
    _, out, _ = run(capsys, home, "outbox", "show", str(row.id), "--json")
    assert json.loads(out)["url"] == shown_url(port)


def test_outbox_on_a_corrupt_file_is_a_clear_error(home: Path, capsys: Any) -> None:
    (home / OUTBOX_FILE).write_bytes(b"this is not an SQLite database, whatever it was" * 10)
    for argv in (["outbox"], ["outbox", "--json"], ["outbox", "purge", "--dead"]):
        code, out, err = run(capsys, home, *argv)
        assert (code, out) == (1, "")
        assert err == (
            f"hermes-hooks outbox: cannot read {home / OUTBOX_FILE} (file is not a "
            "database). Fix: if it is damaged, move it aside (its events are then lost) or "
            "restore it from a backup\n"
        )


def test_log_lines_show_only_scheme_and_host_of_a_target_url(env: OutboundEnv, caplog: Any) -> None:
    # Receivers such as chat webhooks take their credential in the path; an unnamed
    # target is logged by its url, and the HTTP client's errors repeat it.
    port = closed_port()
    url = f"http://127.0.0.1:{port}/services/T0B0/zz-path-secret-99?sig=sig-abcdef"
    caplog.set_level("DEBUG", logger="hermes_hooks")
    hooks = env.load(
        f"""
        hooks:
          outbound:
            - url: {url}
              events: [on_session_end]
        """
    )
    hooks.on_session_end(session_id="s1")
    hooks.close(3.0)
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("hermes_hooks")]
    logged = "\n".join(lines)
    assert "zz-path-secret-99" not in logged and "sig-abcdef" not in logged
    # the http:// warning at load, and the failed delivery, both name the target
    masked = f"http://127.0.0.1:{port}[REDACTED]"
    assert sum(masked in line for line in lines) >= 2, logged


def test_a_host_that_also_spells_part_of_the_scheme_masks_only_what_follows_it(
    env: OutboundEnv,
) -> None:
    # The host "s" is also a letter of "https": the mask starts after the host, not there.
    from hermes_hooks._log import redact

    env.load(
        """
        hooks:
          outbound:
            - url: https://s/zz-short-host-secret
              events: [on_session_end]
        """
    )
    assert redact("failed: https://s/zz-short-host-secret") == "failed: https://s[REDACTED]"

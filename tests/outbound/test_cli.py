"""``hermes-hooks list`` / ``doctor`` for outbound targets, and ``hermes-hooks listen``."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx
import pytest

from hermes_hooks.cli import main
from hermes_hooks.cli.listen_cmd import _text
from hermes_hooks.webhooks.outbox import OUTBOX_FILE, Outbox
from hermes_hooks.webhooks.wire import build_headers
from tests.outbound.helpers import OutboundEnv

ROOT = Path(__file__).resolve().parents[2]

EX37 = """
hooks:
  outbound:
    - name: ci-notify
      url: https://ci.example.com/hermes-events
      events: [on_session_end, subagent_stop]
      secret_env: HERMES_OUTBOUND_WEBHOOK_SECRET
      timeout: 10
    - name: tool-monitor
      url: https://metrics.example.com/hooks/hermes
      events: [post_tool_call]
      matcher: "terminal|delegate_task"
    - url: ftp://nowhere.example/
      events: [on_session_end]
"""


def test_list_shows_every_target(
    env: OutboundEnv,
    home: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HERMES_OUTBOUND_WEBHOOK_SECRET", "shh")
    env.write(EX37)
    assert main(["--home", str(home), "list"]) == 0
    out = capsys.readouterr().out
    section = out[out.index("Outbound webhooks") : out.index("Gateway hooks")].splitlines()
    assert section == [
        "Outbound webhooks (3):",
        "  ✓ ci-notify → https://ci.example.com/hermes-events",
        "      events: on_session_end, subagent_stop",
        "      timeout: 10 s · signed (secret_env HERMES_OUTBOUND_WEBHOOK_SECRET) · best effort",
        "  ✓ tool-monitor → https://metrics.example.com/hooks/hermes",
        "      events: post_tool_call  matcher: terminal|delegate_task",
        "      timeout: 10 s · UNSIGNED · best effort",
        "  ✗ hooks.outbound[2] ftp://nowhere.example/: skipped",
        f"      ✗ {home / 'config.yaml'}:13:7: hooks.outbound[2]: url 'ftp://nowhere.example/' "
        "must be an https:// (or http://) address with a host; skipped",
    ]


def test_list_json(env: OutboundEnv, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    env.write(EX37)
    assert main(["--home", str(home), "list", "--json"]) == 0
    ci, monitor, skipped = json.loads(capsys.readouterr().out)["outbound"]
    assert (ci["label"], ci["signed"], ci["secret"], ci["durable"]) == (
        "ci-notify",
        False,
        "secret_env HERMES_OUTBOUND_WEBHOOK_SECRET (not set)",
        False,
    )
    assert (monitor["matcher"], monitor["timeout"], monitor["events"]) == (
        "terminal|delegate_task",
        10,
        ["post_tool_call"],
    )
    assert (skipped["state"], skipped["index"]) == ("skipped", 2)


def test_doctor_checks_scheme_secret_and_outbox(
    env: OutboundEnv, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env.write(
        """
        hooks:
          outbound:
            - name: plain
              url: http://10.9.9.9/hook
              events: [on_session_end]
              secret: inline
            - name: ci
              url: https://ci.example/hook
              events: [subagent_stop]
              secret_env: HERMES_TEST_NOT_SET
              durable: true
            - url: https://x.example/
              events: []
        """
    )
    outbox = Outbox(home / OUTBOX_FILE)
    for n, target in enumerate(("ci", "ci", "gone")):
        row_id = outbox.add(
            target=target,
            url="u",
            event="subagent_stop",
            delivery_id=f"{n:032x}",
            timestamp="t",
            body=b"{}",
            now=time.time(),
        )
        outbox.dead(row_id, attempts=7, now=time.time(), error="HTTP 500")
    outbox.close()
    assert main(["--home", str(home), "doctor", "--json"]) == 1
    config = str(home / "config.yaml")
    findings = [
        (f["level"], f["subject"], f["message"])
        for f in json.loads(capsys.readouterr().out)["findings"]
        if f["subject"].startswith(("outbound", "outbox", config))
    ]
    # What is wrong in the file is said at its place in it, as for the hooks: block.
    assert findings == [
        (
            "warn",
            f"{config}:5:7",
            "hooks.outbound[0]: url http://10.9.9.9/hook uses http:// — payloads (tool inputs "
            "included) travel unencrypted; prefer https://",
        ),
        (
            "info",
            "outbound plain",
            "signed with an inline secret; prefer secret_env so config.yaml holds no credentials",
        ),
        (
            "warn",
            f"{config}:11:7",
            "hooks.outbound[1]: secret_env HERMES_TEST_NOT_SET is not set — deliveries will be "
            "UNSIGNED",
        ),
        (
            "error",
            f"{config}:14:7",
            "hooks.outbound[2]: has no usable events left in 'events'; skipped",
        ),
        (
            "warn",
            "outbox ci",
            "2 dead event(s) (undeliverable after the last attempt); `hermes-hooks outbox` "
            "shows them, `hermes-hooks outbox redeliver --dead` resends them",
        ),
        (
            "warn",
            "outbox gone",
            "1 stored event(s) for a target that is no longer a durable target in "
            "hooks.outbound; restore its name or purge them with `hermes-hooks outbox purge`",
        ),
    ]


def test_doctor_ok_for_a_signed_https_target(
    env: OutboundEnv,
    home: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOOK_SECRET", "shh")
    env.write(
        """
        hooks:
          outbound:
            - name: ci
              url: https://ci.example/hook
              events: [subagent_stop]
              secret_env: HOOK_SECRET
        """
    )
    main(["--home", str(home), "doctor"])  # the installed test plugins include a broken one
    assert (
        "✓ outbound ci: signed (secret_env HOOK_SECRET), subagent_stop" in capsys.readouterr().out
    )


# -- listen ------------------------------------------------------------------------------


def test_listen_verifies_and_prints_each_delivery(
    env: OutboundEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "listen-secret"
    monkeypatch.setenv("LISTEN_SECRET", secret)
    with subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hermes_hooks",
            "listen",
            "--port",
            "0",
            "--count",
            "4",
            "--secret-env",
            "LISTEN_SECRET",
            "--json",
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=str(ROOT),
    ) as child:
        try:
            assert child.stdout is not None
            first = child.stdout.readline()
            assert first.startswith("listening on http://127.0.0.1:")
            assert first.rstrip().endswith("/ (verifying with $LISTEN_SECRET)")
            url = first.split()[2]

            hooks = env.load(
                f"""
                hooks:
                  outbound:
                    - url: {url}
                      events: [on_session_end]
                      secret_env: LISTEN_SECRET
                """
            )
            hooks.on_session_end(session_id="from-hermes")
            hooks.close(5.0)

            stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            body = json.dumps(
                {"hook_event_name": "subagent_stop", "delivery_id": "ab" * 16, "timestamp": stamp}
            ).encode()
            headers = build_headers("subagent_stop", "ab" * 16, body, secret=secret)
            statuses = [httpx.post(url, content=body, headers=headers).status_code]
            statuses.append(httpx.post(url, content=body, headers=headers).status_code)
            headers["X-Hermes-Signature-256"] = "sha256=" + "0" * 64
            statuses.append(httpx.post(url, content=body, headers=headers).status_code)
            assert statuses == [204, 204, 401]
            assert child.wait(timeout=20) == 0
            records = [json.loads(line) for line in child.stdout.read().splitlines()]
        finally:
            if child.poll() is None:
                child.kill()
    ours, fresh, replay, forged = records
    assert (ours["event"], ours["verified"], ours["scheme"], ours["duplicate"]) == (
        "on_session_end",
        True,
        "github",
        False,
    )
    assert ours["body"]["session_id"] == "from-hermes"
    assert (fresh["duplicate"], replay["duplicate"]) == (False, True)
    assert forged == {
        "event": "subagent_stop",
        "delivery_id": "ab" * 16,
        "verified": False,
        "error": "X-Hermes-Signature-256 does not match the body",
    }


def test_listen_refuses_an_unset_secret_variable(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["listen", "--port", "0", "--secret-env", "HERMES_TEST_NOT_SET"]) == 2
    assert capsys.readouterr().err == (
        "hermes-hooks listen: environment variable HERMES_TEST_NOT_SET is not set\n"
    )


def test_listen_text_output() -> None:
    text = _text(
        {
            "event": "on_session_end",
            "delivery_id": "d1",
            "verified": True,
            "scheme": "github",
            "duplicate": True,
            "body": {"a": 1},
        }
    )
    assert text == textwrap.dedent(
        """\
        ✓ on_session_end  d1  signature ok (github), DUPLICATE delivery id (a retry): \
acknowledge, do not process again
        {
          "a": 1
        }"""
    )
    assert _text({"event": "x", "delivery_id": "d", "body": "raw"}) == (
        "• x  d  signature not checked (no --secret-env)\nraw"
    )


def test_an_unknown_outbound_event_is_placed_and_named_briefly(
    env: OutboundEnv, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env.write(
        """
        hooks:
          outbound:
            - name: ci
              url: https://ci.example/hook
              secret: s
              events: [on_sesion_end, zzzz, subagent_stop]
            - name: none-left
              url: https://x.example/
              events: [zzzz]
        """
    )
    config = home / "config.yaml"
    assert main(["--home", str(home), "doctor"]) == 1
    out, err = capsys.readouterr()
    lines = [line for line in out.splitlines() if "hooks.outbound" in line]
    # The hooks: block's shape: place, entry, then a did-you-mean or where the names are.
    assert lines == [
        f"⚠ {config}:7:7: hooks.outbound[0]: unknown hook event 'on_sesion_end' in "
        "hooks.outbound — did you mean 'on_session_end'?",
        f"⚠ {config}:7:7: hooks.outbound[0]: unknown hook event 'zzzz' in hooks.outbound — "
        "no hook has a similar name; dropped. `hermes-hooks hooks` lists the 37 events",
        f"✗ {config}:10:7: hooks.outbound[1]: has no usable events left in 'events'; skipped",
        f"⚠ {config}:10:7: hooks.outbound[1]: unknown hook event 'zzzz' in hooks.outbound — "
        "no hook has a similar name; dropped. `hermes-hooks hooks` lists the 37 events",
    ]
    assert "on_session_end, on_stream_delta" not in out + err  # never the whole list
    assert err == ""  # each said once: the load's log lines are held back
    assert main(["--home", str(home), "list"]) == 0
    out = capsys.readouterr().out
    section = out[out.index("Outbound webhooks") : out.index("Gateway hooks")].splitlines()
    assert section == [
        "Outbound webhooks (2):",
        "  ✓ ci → https://ci.example/hook",
        "      events: subagent_stop",
        "      timeout: 10 s · signed (inline secret) · best effort",
        f"      ⚠ {config}:7:7: hooks.outbound[0]: unknown hook event 'on_sesion_end' in "
        "hooks.outbound — did you mean 'on_session_end'?",
        f"      ⚠ {config}:7:7: hooks.outbound[0]: unknown hook event 'zzzz' in "
        "hooks.outbound — no hook has a similar name; dropped. `hermes-hooks hooks` lists "
        "the 37 events",
        "  ✗ hooks.outbound[1] none-left: skipped",
        f"      ✗ {config}:10:7: hooks.outbound[1]: has no usable events left in 'events'; skipped",
        f"      ⚠ {config}:10:7: hooks.outbound[1]: unknown hook event 'zzzz' in "
        "hooks.outbound — no hook has a similar name; dropped. `hermes-hooks hooks` lists "
        "the 37 events",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "hooks:\n  outbound: {url: x}\n",
            [
                "{config}:2:3: hooks.outbound must be a list of targets (- url: ..., events: "
                "[...]); no outbound webhook loaded"
            ],
        ),
        (
            "hooks: [a]\n",
            [
                "{config}:1:1: 'hooks' must be a mapping of event names to lists of entries, got "
                "list; no shell hook loaded. Fix: write each event as a key ('pre_tool_call:') "
                "with its entries as a list under it",
                "{config}:1:1: 'hooks' must be a mapping; outbound webhooks not loaded",
            ],
        ),
    ],
)
def test_a_block_of_the_wrong_shape_is_named_at_its_line(
    env: OutboundEnv,
    home: Path,
    caplog: pytest.LogCaptureFixture,
    text: str,
    expected: list[str],
) -> None:
    env.load(text)
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    config = home / "config.yaml"
    assert [m for m in said if "must be a" in m] == [e.format(config=config) for e in expected]

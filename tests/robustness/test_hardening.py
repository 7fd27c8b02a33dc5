"""Hardening: no secret in our own log lines, private files are 0600, ``doctor`` flags
hook code others can write (strict modes, as ssh), and shell hooks get their payload
on stdin only.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

import hermes_hooks
from hermes_hooks import _log, testing
from hermes_hooks._log import REDACTED, REDACTED_LOGGERS, redact
from hermes_hooks.cli import main
from hermes_hooks.shell.consent import ALLOWLIST_NAME, Allowlist
from hermes_hooks.webhooks.outbox import OUTBOX_FILE, Outbox
from tests.gateway.helpers import write_hook
from tests.helpers import tool_payload, write_plugin
from tests.outbound.endpoint import closed_port, wait_until
from tests.shell.helpers import approve, py, sh, write_script

PACKAGE = Path(hermes_hooks.__file__).parent

# Planted values: each must never reach a log line, whatever echoes it.
TOKEN = "sk-ant-api03-" + "Q7" * 20  # token-shaped, in the payload
KEYED = "plainvalue-7f3a9c41"  # under a secret-named key in the payload
ENV_SECRET = "env-secret-8c1d2e55"  # in a secret-named environment variable
INLINE_WEBHOOK = "inline-webhook-secret-5b7e"  # hooks.outbound[].secret
ENV_WEBHOOK = "env-webhook-secret-2a9f"  # behind secret_env, in a plainly named variable
URL_PASSWORD = "url-password-77aa"  # https://user:<password>@host
BEARER = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJyb2JvdCJ9.c2lnbmF0dXJlLXZhbHVl"
PLANTED = (TOKEN, KEYED, ENV_SECRET, INLINE_WEBHOOK, ENV_WEBHOOK, URL_PASSWORD, BEARER)


def secret_args() -> dict[str, Any]:
    return {
        "env": {"OPENAI_API_KEY": KEYED, "ANTHROPIC_KEY_FILE": "/dev/null"},
        "note": f"use {TOKEN}",
        "command": f"curl -H 'Authorization: Bearer {BEARER}' https://api.example.invalid",
    }


@pytest.fixture
def everything_logged(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    caplog.set_level(logging.DEBUG)
    for name in REDACTED_LOGGERS:
        caplog.set_level(logging.DEBUG, logger=name)
    yield caplog


def _leaks(text: str) -> list[str]:
    return [value for value in PLANTED if value in text]


def test_planted_secrets_never_reach_a_log_line(
    home: Path, monkeypatch: pytest.MonkeyPatch, everything_logged: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("HERMES_TEST_API_KEY", ENV_SECRET)
    monkeypatch.setenv("HOOK_SIGNING", ENV_WEBHOOK)
    # A Python plugin that echoes its payload in exceptions, on three hook kinds.
    write_plugin(
        home / "plugins",
        "echo",
        "import os\n"
        "def register(ctx):\n"
        "    def gate(**kw):\n"
        "        raise ValueError(f'cannot judge {kw!r}')\n"
        "    def observer(**kw):\n"
        "        env = os.environ\n"
        "        raise RuntimeError(env['HERMES_TEST_API_KEY'] + ' ' + env['HOOK_SIGNING'])\n"
        "    def stream(**kw):\n"
        "        raise KeyError(repr(kw))\n"
        "    ctx.register_hook('pre_tool_call', gate)\n"
        "    ctx.register_hook('post_tool_call', observer)\n"
        "    ctx.register_hook('on_stream_delta', stream)\n",
    )
    # A plugin whose load fails with a message holding the inline webhook secret.
    write_plugin(
        home / "plugins",
        "broken",
        f"raise ImportError('config secret: {INLINE_WEBHOOK}')\n",
    )
    # A shell hook that prints its stdin (the envelope) to stderr and fails.
    echo = write_script(home / "agent-hooks" / "echo.sh", sh("cat >&2\nexit 1"))
    approve(home, "pre_tool_call", str(echo))
    # A gateway hook that raises with its whole context (logged with a traceback too).
    write_hook(
        home / "hooks",
        "leaky",
        ("agent:*",),
        "def handle(event_type, context):\n    raise ValueError(f'context was {context}')\n",
    )
    dead = f"http://robot:{URL_PASSWORD}@127.0.0.1:{closed_port()}/hook"
    config = {
        "plugins": {"hook_callback_timeout": 5},
        "hooks": {
            "pre_tool_call": [{"command": str(echo)}],
            "outbound": [
                {
                    "name": "inline",
                    "url": dead,
                    "events": ["post_tool_call"],
                    "secret": INLINE_WEBHOOK,
                },
                {
                    "name": "env",
                    "url": dead,
                    "events": ["post_tool_call"],
                    "secret_env": "HOOK_SIGNING",
                },
            ],
        },
    }
    (home / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    hooks = hermes_hooks.load(home, surface="gateway", entry_points=False)
    try:
        decision = hooks.pre_tool_call(**tool_payload(args=secret_args()))
        testing.fire(hooks, "post_tool_call", args=secret_args())
        testing.fire(hooks, "on_stream_delta", delta=TOKEN)

        async def gateway() -> None:
            await hooks.gateway.emit("agent:start", {"message": TOKEN, "api_key": KEYED})
            await hooks.gateway.drain(10)

        asyncio.run(gateway())
        wait_until(lambda: "raised KeyError" in everything_logged.text)  # the stream lane
        wait_until(lambda: "delivery failed" in everything_logged.text)  # both webhook lanes
    finally:
        hooks.close(0.5)
    # A YAML error whose excerpt shows the line holding an inline secret.
    (home / "config.yaml").write_text(
        f'hooks:\n  outbound:\n    - url: https://x.invalid/\n      secret: "{INLINE_WEBHOOK}\n',
        encoding="utf-8",
    )
    hermes_hooks.load(home, entry_points=False).close()

    text = everything_logged.text
    assert _leaks(text) == []
    # ...and each source really did log its line, redacted:
    for expected in (
        "raised ValueError: cannot judge",  # the gate's exception, echoing the payload
        "raised RuntimeError: [REDACTED] [REDACTED]",  # env secrets, unshaped
        "stream observer echo raised KeyError",
        "failed to load and is skipped: ImportError: config secret: [REDACTED]",
        "shell hook hooks.pre_tool_call[0]",  # with the stderr excerpt
        "[hooks] Error in leaky",
        f"http://{REDACTED}@127.0.0.1",  # the whole user:password part
        "not valid YAML",
    ):
        assert expected in text, expected
    assert "Traceback (most recent call last)" in text  # the handler's DEBUG traceback
    # The decision itself keeps D-14's text: it is an answer to the host, not a log line.
    assert decision.action == "block" and KEYED in (decision.message or "")


def test_the_rule_masks_each_secret_form_and_leaves_ordinary_text() -> None:
    _log.remember_secret("remembered-secret-value")
    cases = {
        "{'OPENAI_API_KEY': 'abc123def456'}": f"{{'OPENAI_API_KEY': '{REDACTED}'}}",
        '"password": "two words here"': f'"password": "{REDACTED}"',
        "api_key=abc123def456&x=1": f"api_key={REDACTED}&x=1",
        f"Authorization: Bearer {BEARER}": f"Authorization: {REDACTED}",
        f"key {TOKEN} end": f"key {REDACTED} end",
        "ghp_" + "a" * 36: REDACTED,
        "AKIAABCDEFGHIJKLMNOP": REDACTED,
        "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw": REDACTED,
        "https://user:pa55word@host/x": f"https://{REDACTED}@host/x",
        "it is remembered-secret-value here": f"it is {REDACTED} here",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----": REDACTED,
        # ordinary text is untouched, D-76's byte-exact warning included
        "max_tokens: 4096": "max_tokens: 4096",
        "outbound webhook x: secret_env HERMES_X is not set — deliveries will be UNSIGNED": (
            "outbound webhook x: secret_env HERMES_X is not set — deliveries will be UNSIGNED"
        ),
        "tool terminal: exit code 2": "tool terminal: exit code 2",
    }
    for text, expected in cases.items():
        assert redact(text) == expected, text
    assert redact(redact(f"token={TOKEN}")) == f"token={REDACTED}"  # idempotent


def test_every_logger_of_the_package_redacts() -> None:
    # The rule is attached per logger: a new logger name must join REDACTED_LOGGERS.
    names = set()
    for path in PACKAGE.rglob("*.py"):
        names |= set(re.findall(r'getLogger\("([^"]+)"\)', path.read_text(encoding="utf-8")))
    assert names <= set(REDACTED_LOGGERS), names - set(REDACTED_LOGGERS)
    for name in REDACTED_LOGGERS:
        assert any(isinstance(f, _log.RedactingFilter) for f in logging.getLogger(name).filters)


def test_a_target_repr_never_shows_its_secret() -> None:
    from hermes_hooks.webhooks.targets import parse_outbound

    targets, _ = parse_outbound(
        {
            "hooks": {
                "outbound": [
                    {
                        "url": "https://x.invalid/",
                        "events": ["on_session_end"],
                        "secret": INLINE_WEBHOOK,
                    }
                ]
            }
        }
    )
    assert targets[0].github_secret == INLINE_WEBHOOK
    assert INLINE_WEBHOOK not in repr(targets[0])


# -- file modes ------------------------------------------------------------------------------


@pytest.fixture
def open_umask() -> Iterator[None]:
    """The most permissive umask: files must still come out private."""
    previous = os.umask(0)
    yield
    os.umask(previous)


def mode_of(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_the_allowlist_is_0600_whatever_the_umask_and_its_lock_is_not_left(
    home: Path, open_umask: None
) -> None:
    (home / ALLOWLIST_NAME).write_text('{"approvals": []}', encoding="utf-8")
    os.chmod(home / ALLOWLIST_NAME, 0o666)  # a hand-made, world-writable file
    Allowlist(home).approve("post_tool_call", "/hooks/x.sh")
    assert mode_of(home / ALLOWLIST_NAME) == 0o600
    assert not (home / (ALLOWLIST_NAME + ".lock")).exists()
    Allowlist(home).revoke("/hooks/x.sh")
    assert mode_of(home / ALLOWLIST_NAME) == 0o600


def test_the_outbox_and_its_journal_files_are_0600_whatever_the_umask(
    home: Path, open_umask: None
) -> None:
    (home / OUTBOX_FILE).touch(0o666)
    outbox = Outbox.for_home(home)
    try:
        outbox.add(
            target="t", url="https://x.invalid/", event="on_session_end", delivery_id="d" * 32,
            timestamp="2026-07-22T14:00:00Z", body=b"{}", now=0.0,
        )  # fmt: skip
        files = sorted(p for p in home.iterdir() if p.name.startswith(OUTBOX_FILE))
        modes = {p.name: mode_of(p) for p in files}
    finally:
        outbox.close()
    assert set(modes) >= {OUTBOX_FILE, OUTBOX_FILE + "-wal", OUTBOX_FILE + "-shm"}
    assert set(modes.values()) == {0o600}, modes


# -- doctor: strict modes --------------------------------------------------------------------


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    """022, so the files and directories tests create start out private to write."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def _doctor(home: Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, str]]:
    capsys.readouterr()
    main(["--home", str(home), "--no-entry-points", "doctor", "--json"])
    return [
        f for f in json.loads(capsys.readouterr().out)["findings"] if "writable" in f["message"]
    ]


def test_doctor_warns_about_hook_code_others_can_write(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = write_script(home / "agent-hooks" / "gate.sh", sh("cat >/dev/null"), mode=0o775)
    approve(home, "post_tool_call", str(script))
    (home / "config.yaml").write_text(
        yaml.safe_dump({"hooks": {"post_tool_call": [{"command": str(script)}]}}), encoding="utf-8"
    )
    plugin = write_plugin(home / "plugins", "loose", "def register(ctx):\n    pass\n")
    os.chmod(plugin, 0o777)
    hook = write_hook(home / "hooks", "open", ("agent:start",), "def handle(e, c):\n    pass\n")
    handler = hook / "handler.py"
    os.chmod(handler, 0o646)
    os.chmod(home / "hooks", 0o770)
    found = {(f["level"], f["subject"], f["message"]) for f in _doctor(home, capsys)}
    fix = "they can change code Hermes runs as you. Fix: chmod go-w"
    assert found == {
        (
            "warn",
            f"shell hooks.post_tool_call[0] {script}",
            f"file {script} is writable by group (mode 0775): {fix} {script}",
        ),
        (
            "warn",
            "plugin loose",
            f"directory {plugin} is writable by group and others (mode 0777): {fix} {plugin}",
        ),
        (
            "warn",
            "gateway hook open",
            f"file {handler} is writable by others (mode 0646): {fix} {handler}",
        ),
        (
            "warn",
            f"gateway hooks {home / 'hooks'}",
            f"directory {home / 'hooks'} is writable by group (mode 0770): {fix} {home / 'hooks'}",
        ),
    }


def test_doctor_is_quiet_about_private_code_and_sticky_directories(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shared = tmp_path / "shared-tmp"
    shared.mkdir()
    os.chmod(shared, 0o1777)  # like /tmp: others cannot replace what they do not own
    script = write_script(shared / "gate.sh", sh("cat >/dev/null"), mode=0o755)
    approve(home, "post_tool_call", str(script))
    (home / "config.yaml").write_text(
        yaml.safe_dump({"hooks": {"post_tool_call": [{"command": str(script)}]}}), encoding="utf-8"
    )
    write_plugin(home / "plugins", "tidy", "def register(ctx):\n    pass\n")
    write_hook(home / "hooks", "tidy", ("agent:start",), "def handle(e, c):\n    pass\n")
    assert _doctor(home, capsys) == []


# -- shell hooks: the payload travels on stdin only ------------------------------------------

DUMP = """
import json, os, sys
data = sys.stdin.read()
with open(sys.argv[1], "w") as out:
    json.dump({"argv": sys.argv, "env": dict(os.environ), "stdin": data,
               "cmdline": open("/proc/self/cmdline", "rb").read().decode(),
               "environ": open("/proc/self/environ", "rb").read().decode(errors="replace")}, out)
"""


def test_shell_hooks_get_the_payload_on_stdin_never_in_argv_or_the_environment(
    home: Path, tmp_path: Path
) -> None:
    dump = tmp_path / "seen.json"
    script = write_script(home / "agent-hooks" / "dump.py", py(DUMP))
    command = f"{script} {dump}"
    approve(home, "pre_tool_call", command)
    (home / "config.yaml").write_text(
        yaml.safe_dump({"hooks": {"pre_tool_call": [{"command": command}]}}), encoding="utf-8"
    )
    marker = "payload-marker-3c9e"
    hooks = hermes_hooks.load(home, entry_points=False)
    try:
        hooks.pre_tool_call(**tool_payload(args={"command": marker, "token": TOKEN}))
    finally:
        hooks.close()
    seen = json.loads(dump.read_text(encoding="utf-8"))
    assert json.loads(seen["stdin"])["tool_input"] == {"command": marker, "token": TOKEN}
    assert seen["argv"] == [str(script), str(dump)]
    for where in ("cmdline", "environ"):
        assert marker not in seen[where] and TOKEN not in seen[where]
    assert all(marker not in v and TOKEN not in v for v in seen["env"].values())
    # the hook inherits the agent's environment; Hermes adds no variable of its own
    assert not [k for k in seen["env"] if k not in os.environ and k.startswith("HERMES")]

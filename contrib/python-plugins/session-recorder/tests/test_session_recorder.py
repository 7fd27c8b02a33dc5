"""session-recorder: off by default; what it records replays to the same session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hermes_session_recorder import ENV_VAR, recorder_directory

import hermes_hooks
from hermes_hooks.host import ReferenceHost, load_recording

REPO = Path(__file__).resolve().parents[4]
RECORDINGS = REPO / "examples" / "recordings"
STREAM_HOOKS = {"on_stream_start", "on_stream_delta", "on_stream_end"}

# Nudges once per editing turn, as the live agent was nudged when long-session was made.
VERIFY_PLUGIN = (
    "def verify(attempt, **kw):\n"
    "    return None if attempt else {'action': 'continue', 'message': 'run the tests'}\n\n"
    "def register(ctx):\n"
    "    ctx.register_hook('pre_verify', verify)\n"
)


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("HERMES_HOME", "HERMES_SAFE_MODE", "HERMES_AUDIT_LOG", ENV_VAR):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "user-home"))


def make_home(root: Path, config: str = "") -> Path:
    home = root / "home"
    plugin = home / "plugins" / "verify"
    plugin.mkdir(parents=True)
    (plugin / "plugin.yaml").write_text("name: verify\n", encoding="utf-8")
    (plugin / "__init__.py").write_text(VERIFY_PLUGIN, encoding="utf-8")
    (home / "config.yaml").write_text(config, encoding="utf-8")
    return home


def replay(home: Path, path: Path) -> tuple[list[str], list[tuple[str, Any]]]:
    """Replay ``path``; return the fired hooks (streaming aside) and what the model and
    the user saw: every tool result and every delivered response."""
    hooks = hermes_hooks.load(home)
    seen: list[tuple[str, Any]] = []
    hooks.manager.register_callback(
        "post_tool_call",
        lambda tool_call_id, result, status, **kw: seen.append((tool_call_id, (result, status))),
        owner="zz-watch",
    )
    hooks.manager.register_callback(
        "post_llm_call",
        lambda assistant_response, **kw: seen.append(("response", assistant_response)),
        owner="zz-watch",
    )
    host = ReferenceHost(hooks)
    host.replay(load_recording(path))
    host.finish(0.5)
    return [h for h in host.fired if h not in STREAM_HOOKS], seen


def test_it_is_off_unless_enabled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert recorder_directory(tmp_path) is None
    hooks = hermes_hooks.load(tmp_path)
    record = next(r for r in hooks.sources["python"].records() if r.key == "session-recorder")
    hooks.close()
    assert (record.state, record.hooks) == ("loaded", [])
    (tmp_path / "config.yaml").write_text("session_recorder:\n  enabled: true\n", encoding="utf-8")
    assert recorder_directory(tmp_path) == tmp_path / "recordings"
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "rec"))
    assert recorder_directory(tmp_path) == tmp_path / "rec"


@pytest.mark.parametrize("name", ["long-session", "quickstart", "dangerous-commands"])
def test_a_recorded_replay_replays_the_same(tmp_path: Path, name: str) -> None:
    home = make_home(tmp_path, "session_recorder:\n  enabled: true\n  dir: out\n")
    original = RECORDINGS / f"{name}.jsonl"
    fired, seen = replay(home, original)
    session_id = load_recording(original).header.session_id
    recorded = home / "out" / f"{session_id}.jsonl"
    assert recorded.exists()
    again, seen_again = replay(make_home(tmp_path / "again"), recorded)
    assert again == fired
    assert seen_again == seen


def test_what_it_writes(tmp_path: Path) -> None:
    home = make_home(tmp_path, "session_recorder:\n  enabled: true\n")
    replay(home, RECORDINGS / "long-session.jsonl")
    lines = [
        json.loads(t)
        for t in (home / "recordings" / "long-1.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    header = lines[0]
    assert {
        k: header[k] for k in ("type", "version", "session_id", "platform", "model", "provider")
    } == {
        "type": "header",
        "version": 1,
        "session_id": "long-1",
        "platform": "cli",
        "model": "anthropic/claude-sonnet-4.6",
        "provider": "openrouter",
    }
    assert header["base_url"] == "https://openrouter.ai/api/v1"
    assert {"type": "user", "text": "/new"} in lines
    assert {"type": "interrupt", "issuer": "user"} in lines
    assert {
        "type": "assistant",
        "error": {
            "message": "Rate limit exceeded: retry after 2s",
            "status_code": 429,
            "retryable": True,
        },
    } in lines
    subagents = [line for line in lines if line["type"] == "subagent"]
    assert [
        (s["goal"], s["child_session_id"], s["status"], s["duration_ms"]) for s in subagents
    ] == [
        (
            "Research how EU shops compute VAT (OSS, destination principle)",
            "long-1-child-1",
            "completed",
            20500,
        ),
        ("Audit shop/pricing.py for VAT handling", "long-1-child-2", "completed", 9100),
    ]
    terminal = next(
        line
        for line in lines
        if line.get("tool_call_id") == "ls-1" and line["type"] == "tool_result"
    )
    assert terminal == {
        "type": "tool_result",
        "tool_call_id": "ls-1",
        "output": "README.md\npyproject.toml\nshop/\ntests/\n",
        "returncode": 0,
        "duration_ms": 9,
    }

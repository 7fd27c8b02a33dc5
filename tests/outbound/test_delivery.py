"""Outbound delivery against real HTTP endpoints on 127.0.0.1 (OUT-07..OUT-17,
D-78..D-82).  Nothing here asserts on elapsed time: "did not wait" is shown with
requests that are still held by the endpoint when the agent's call has returned."""

from __future__ import annotations

import calendar
import hashlib
import hmac
import json
import logging
import re
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from hermes_hooks._callback import Group
from hermes_hooks.webhooks import verify
from hermes_hooks.webhooks.delivery import DurableLane, Lane
from tests.helpers import tool_payload
from tests.outbound.endpoint import Reply, closed_port, wait_until
from tests.outbound.helpers import OutboundEnv

SECRET = "s3cr3t-for-tests"
SESSION_END = {
    "session_id": "sess-9",
    "task_id": "task-9",
    "turn_id": "turn-9",
    "completed": True,
    "failed": False,
    "interrupted": False,
    "turn_exit_reason": "final_response",
    "model": "test-model",
    "platform": "cli",
}


def ex38_verify(body: bytes, header: str, secret: str) -> bool:
    """The receiver code of EX-38, verbatim in behaviour."""
    expected = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, header)


def messages(caplog: pytest.LogCaptureFixture, level: int = logging.WARNING) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "hermes_hooks.outbound" and r.levelno >= level
    ]


def lane_of(env: OutboundEnv, hooks: object, index: int = 0) -> Lane | DurableLane:
    return env.source(hooks).lanes[index]  # type: ignore[arg-type]


# -- the wire format -------------------------------------------------------------------


def test_2xx_body_and_headers_match_the_wire_format(env: OutboundEnv) -> None:
    endpoint = env.endpoint(Reply(200))
    hooks = env.load(
        f"""
        hooks:
          outbound:
            - name: ci-notify
              url: {endpoint.url}
              events: [on_session_end]
              secret: {SECRET}
        """
    )
    hooks.on_session_end(**SESSION_END)
    (request,) = endpoint.wait_requests(1)
    hooks.close()

    assert request.method == "POST"
    assert request.path == "/hook"
    body = json.loads(request.body)
    assert list(body) == [
        "hook_event_name",
        "profile",
        "tool_name",
        "tool_input",
        "session_id",
        "cwd",
        "extra",
        "delivery_id",
        "timestamp",
    ]
    assert body["hook_event_name"] == "on_session_end"
    assert body["profile"] == "default"
    assert body["tool_name"] is None and body["tool_input"] is None
    assert body["session_id"] == "sess-9"
    assert body["extra"]["completed"] is True
    assert body["extra"]["telemetry_schema_version"] == "hermes.observer.v1"  # inside extra (D-17)
    assert "telemetry_schema_version" not in body
    assert re.fullmatch(r"[0-9a-f]{32}", body["delivery_id"])
    assert uuid.UUID(hex=body["delivery_id"]).version == 4
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", body["timestamp"])

    assert request.header("Content-Type") == "application/json"
    assert request.header("User-Agent") == "Hermes-Agent-Outbound-Webhook"
    assert request.header("X-Hermes-Event") == "on_session_end"
    assert request.header("X-Hermes-Delivery") == body["delivery_id"]
    signature = request.header("X-Hermes-Signature-256")
    assert signature is not None and signature.startswith("sha256=")
    assert ex38_verify(request.body, signature, SECRET)  # receivers verify (EX-38)
    assert request.header("webhook-signature") is None  # standard headers are opt-in
    stats = lane_of(env, hooks).stats
    assert (stats.attempts, stats.delivered, stats.failed) == (1, 1, 0)


def test_tool_events_lift_tool_name_and_args(env: OutboundEnv) -> None:
    endpoint = env.endpoint()
    hooks = env.load(
        f"""
        hooks:
          outbound:
            - url: {endpoint.url}
              events: [pre_tool_call]
        """
    )
    decision = hooks.pre_tool_call(**tool_payload(args={"command": "rm -rf /"}))
    (request,) = endpoint.wait_requests(1)
    assert decision.blocked is False  # OUT-12: notification only
    body = json.loads(request.body)
    assert body["tool_name"] == "terminal"
    assert body["tool_input"] == {"command": "rm -rf /"}
    assert body["extra"]["tool_call_id"] == "call-1"
    assert "tool_name" not in body["extra"] and "args" not in body["extra"]


def test_standard_webhooks_headers_sign_with_every_secret(
    env: OutboundEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    current = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    previous = "whsec_" + "QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB"
    monkeypatch.setenv("HOOK_SECRETS", f"{current} {previous}")
    endpoint = env.endpoint()
    hooks = env.load(
        f"""
        hooks:
          outbound:
            - url: {endpoint.url}
              events: [on_session_end]
              secret_env: HOOK_SECRETS
              signature: standard
        """
    )
    hooks.on_session_end(**SESSION_END)
    (request,) = endpoint.wait_requests(1)
    body = json.loads(request.body)
    headers = dict(request.headers)
    assert headers["webhook-id"] == body["delivery_id"]
    stamp = int(headers["webhook-timestamp"])
    # The first attempt's webhook-timestamp is the body's timestamp (D-78).
    assert stamp == calendar.timegm(time.strptime(body["timestamp"], "%Y-%m-%dT%H:%M:%SZ"))
    signatures = headers["webhook-signature"].split(" ")
    assert len(signatures) == 2 and all(s.startswith("v1,") for s in signatures)
    for secret in (current, previous):  # either secret alone verifies (rotation)
        verified = verify(request.body, headers, secret, scheme="standard")
        assert verified.delivery_id == body["delivery_id"]
    # The GitHub-style header is signed with the first (current) secret.
    assert ex38_verify(request.body, headers["X-Hermes-Signature-256"], current)


# -- status handling (D-80) ------------------------------------------------------------


def test_400_is_attempted_once(env: OutboundEnv, caplog: pytest.LogCaptureFixture) -> None:
    endpoint = env.endpoint(Reply(400))
    hooks = env.load(
        f"""
        hooks:
          outbound:
            - name: strict
              url: {endpoint.url}
              events: [on_session_end]
              retry_schedule: [0.01]
        """
    )
    hooks.on_session_end(**SESSION_END)
    wait_until(lambda: any("rejected with HTTP 400" in m for m in messages(caplog)))
    hooks.close()
    assert len(endpoint.requests) == 1
    (message,) = [m for m in messages(caplog) if "rejected" in m]
    assert message.endswith("rejected with HTTP 400; not retried")
    assert message.startswith("outbound webhook strict: on_session_end event ")


def test_500_is_retried_once_with_identical_bytes(
    env: OutboundEnv, caplog: pytest.LogCaptureFixture
) -> None:
    endpoint = env.endpoint(Reply(500))
    hooks = env.load(
        f"""
        hooks:
          outbound:
            - name: flaky
              url: {endpoint.url}
              events: [on_session_end]
              secret: {SECRET}
              retry_schedule: [0.01]
        """
    )
    hooks.on_session_end(**SESSION_END)
    wait_until(lambda: any("delivery failed after" in m for m in messages(caplog)))
    hooks.close()
    first, second = endpoint.requests
    assert first.body == second.body  # same delivery_id, timestamp and signature
    assert first.headers == second.headers
    (message,) = [m for m in messages(caplog) if "delivery failed" in m]
    assert "delivery failed after 2 attempt(s) (HTTP 500)" in message
    assert list(lane_of(env, hooks).stats.statuses) == [500, 500]


def test_500_then_200_is_delivered_on_the_retry(env: OutboundEnv) -> None:
    endpoint = env.endpoint(Reply(503), Reply(200))
    hooks = env.load(
        f"""
        hooks:
          outbound:
            - url: {endpoint.url}
              events: [on_session_end]
              retry_schedule: [0.01]
        """
    )
    hooks.on_session_end(**SESSION_END)
    endpoint.wait_requests(2)
    hooks.close()
    stats = lane_of(env, hooks).stats
    assert (list(stats.statuses), stats.delivered, stats.failed) == ([503, 200], 1, 0)


def test_302_is_one_post_and_the_location_is_never_requested(
    env: OutboundEnv, caplog: pytest.LogCaptureFixture
) -> None:
    elsewhere = env.endpoint()
    endpoint = env.endpoint(Reply(302, {"Location": elsewhere.url}))
    hooks = env.load(
        f"""
        hooks:
          outbound:
            - name: moved
              url: {endpoint.url}
              events: [on_session_end]
              retry_schedule: [0.01]
        """
    )
    hooks.on_session_end(**SESSION_END)
    wait_until(lambda: any("redirect" in m for m in messages(caplog)))
    hooks.close()
    assert len(endpoint.requests) == 1
    assert elsewhere.requests == []
    (message,) = [m for m in messages(caplog) if "redirect" in m]
    assert f"answered HTTP 302, a redirect to {elsewhere.url}" in message
    assert "redirects are never followed" in message


def test_connection_refused_is_retried_once_then_dropped(
    env: OutboundEnv, caplog: pytest.LogCaptureFixture
) -> None:
    hooks = env.load(
        f"""
        hooks:
          outbound:
            - name: nobody-home
              url: http://127.0.0.1:{closed_port()}/hook
              events: [on_session_end]
              retry_schedule: [0.01]
        """
    )
    hooks.on_session_end(**SESSION_END)
    wait_until(lambda: any("delivery failed after" in m for m in messages(caplog)))
    hooks.close()
    (message,) = [m for m in messages(caplog) if "delivery failed" in m]
    assert "delivery failed after 2 attempt(s) (ConnectError" in message
    stats = lane_of(env, hooks).stats
    assert (stats.attempts, stats.delivered, stats.failed) == (2, 0, 1)


def test_a_slow_endpoint_hits_the_timeout_and_the_retry_succeeds(env: OutboundEnv) -> None:
    endpoint = env.endpoint(Reply(200, hold=True), Reply(200))
    hooks = env.load(
        f"""
        hooks:
          outbound:
            - url: {endpoint.url}
              events: [on_session_end]
              timeout: 1
              retry_schedule: [0.01]
        """
    )
    hooks.on_session_end(**SESSION_END)
    first, second = endpoint.wait_requests(2)
    # The first request is still held by the endpoint: the client gave up on it.
    assert not endpoint.released
    assert first.body == second.body
    assert first.client_port != second.client_port  # the timed-out connection was dropped
    wait_until(lambda: lane_of(env, hooks).stats.delivered == 1)
    assert list(lane_of(env, hooks).stats.statuses) == [200]


# -- isolation from the agent and between targets (OUT-11, D-79) -----------------------


def test_the_callers_call_returns_while_the_endpoint_holds(env: OutboundEnv) -> None:
    endpoint = env.endpoint(Reply(200, hold=True))
    hooks = env.load(
        f"""
        hooks:
          outbound:
            - url: {endpoint.url}
              events: [on_session_end]
              timeout: 60
        """
    )
    hooks.on_session_end(**SESSION_END)
    endpoint.wait_requests(1)  # the first delivery is now stuck in the endpoint
    results = hooks.invoke("on_session_end", **SESSION_END)
    assert results == []  # returned, with the endpoint still holding the first request
    assert not endpoint.released
    assert len(endpoint.requests) == 1


def test_a_dead_target_does_not_delay_a_healthy_one(env: OutboundEnv) -> None:
    dead = env.endpoint(Reply(200, hold=True))
    healthy = env.endpoint()
    hooks = env.load(
        f"""
        hooks:
          outbound:
            - name: dead
              url: {dead.url}
              events: [on_session_end]
              timeout: 60
            - name: healthy
              url: {healthy.url}
              events: [on_session_end]
        """
    )
    for _ in range(3):
        hooks.on_session_end(**SESSION_END)
    dead.wait_requests(1)
    received = healthy.wait_requests(3)
    assert not dead.released  # the dead target is still stuck on its first event
    assert len(dead.requests) == 1
    assert [json.loads(r.body)["hook_event_name"] for r in received] == ["on_session_end"] * 3


def test_queue_full_drops_new_events_with_the_exact_warning(
    env: OutboundEnv, caplog: pytest.LogCaptureFixture
) -> None:
    endpoint = env.endpoint(Reply(200, hold=True))
    hooks = env.load(
        f"""
        hooks:
          outbound:
            - name: jammed
              url: {endpoint.url}
              events: [on_session_end]
              timeout: 60
        """
    )
    hooks.on_session_end(**SESSION_END)
    endpoint.wait_requests(1)  # the worker holds event 1; the queue is empty
    for _ in range(256):
        hooks.on_session_end(**SESSION_END)
    assert "queue full" not in " ".join(messages(caplog))
    hooks.on_session_end(**SESSION_END)
    assert messages(caplog)[-1] == (
        "outbound webhook queue full (256 pending) — dropping on_session_end event for jammed"
    )
    lane = lane_of(env, hooks)
    assert lane.stats.dropped == 1
    endpoint.release()
    hooks.close(5.0)
    assert lane.stats.delivered == 257


def test_close_flushes_queued_events(env: OutboundEnv) -> None:
    endpoint = env.endpoint()
    hooks = env.load(
        f"""
        hooks:
          outbound:
            - url: {endpoint.url}
              events: [on_session_end]
        """
    )
    for _ in range(20):
        hooks.on_session_end(**SESSION_END)
    hooks.close(5.0)
    assert len(endpoint.requests) == 20
    ids = [json.loads(r.body)["delivery_id"] for r in endpoint.requests]
    assert len(set(ids)) == 20
    # One keep-alive connection carried them all.
    assert len({r.client_port for r in endpoint.requests}) == 1


def test_close_gives_up_at_its_deadline(env: OutboundEnv, caplog: pytest.LogCaptureFixture) -> None:
    endpoint = env.endpoint(Reply(200, hold=True))
    hooks = env.load(
        f"""
        hooks:
          outbound:
            - name: stuck
              url: {endpoint.url}
              events: [on_session_end]
              timeout: 60
        """
    )
    for _ in range(3):
        hooks.on_session_end(**SESSION_END)
    endpoint.wait_requests(1)
    hooks.close(0.2)
    assert not endpoint.released
    assert "outbound webhook stuck: 3 event(s) not delivered before the flush deadline" in messages(
        caplog
    )


def test_events_fired_without_close_are_flushed_at_exit(env: OutboundEnv, home: Path) -> None:
    endpoint = env.endpoint(Reply(200, hold=True), Reply(200))
    env.write(
        f"""
        hooks:
          outbound:
            - url: {endpoint.url}
              events: [on_session_end]
              timeout: 30
        """
    )
    script = textwrap.dedent(
        f"""
        import hermes_hooks
        hooks = hermes_hooks.load({str(home)!r}, entry_points=False)
        hooks.on_session_end(session_id="first")
        hooks.on_session_end(session_id="second")
        print("fired", flush=True)
        # no hooks.close(): the atexit flush must deliver "second"
        """
    )
    with subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        text=True,
        cwd=str(Path(__file__).resolve().parents[2]),
    ) as child:
        try:
            assert child.stdout is not None
            assert child.stdout.readline().strip() == "fired"
            endpoint.wait_requests(1)
            endpoint.release()  # the child is exiting, its lane still holds "second"
            assert child.wait(timeout=20) == 0
        finally:
            if child.poll() is None:
                child.kill()
    sessions = [json.loads(r.body)["session_id"] for r in endpoint.requests]
    assert sessions == ["first", "second"]


# -- filtering, signing state, safe mode, order ------------------------------------------


def test_matcher_filters_tool_events_only(env: OutboundEnv) -> None:
    endpoint = env.endpoint()
    hooks = env.load(
        f"""
        hooks:
          outbound:
            - name: tool-monitor
              url: {endpoint.url}
              events: [post_tool_call, on_session_end]
              matcher: "terminal|delegate_task"
        """
    )
    for tool in ("terminal", "read_file", "terminal_x", "delegate_task"):
        hooks.post_tool_call(**tool_payload(tool_name=tool, result="ok"))
    hooks.on_session_end(**SESSION_END)
    hooks.close()
    seen = [
        (json.loads(r.body)["hook_event_name"], json.loads(r.body)["tool_name"])
        for r in endpoint.requests
    ]
    assert seen == [
        ("post_tool_call", "terminal"),
        ("post_tool_call", "delegate_task"),
        ("on_session_end", None),
    ]


def test_unset_secret_env_delivers_unsigned_without_falling_back(
    env: OutboundEnv, caplog: pytest.LogCaptureFixture
) -> None:
    endpoint = env.endpoint()
    hooks = env.load(
        f"""
        hooks:
          outbound:
            - name: ci-notify
              url: {endpoint.url}
              events: [on_session_end]
              secret_env: HERMES_TEST_UNSET_SECRET
              secret: inline-is-not-used
        """
    )
    hooks.on_session_end(**SESSION_END)
    (request,) = endpoint.wait_requests(1)
    assert request.header("X-Hermes-Signature-256") is None
    assert (
        f"{env.home / 'config.yaml'}:7:7: hooks.outbound[0]: secret_env HERMES_TEST_UNSET_SECRET "
        "is not set — deliveries will be UNSIGNED"
    ) in messages(caplog)
    lines = env.source(hooks).section().lines
    assert "UNSIGNED (secret_env HERMES_TEST_UNSET_SECRET (not set))" in "\n".join(lines)


def test_safe_mode_sends_nothing(env: OutboundEnv, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HERMES_SAFE_MODE", "1")
    endpoint = env.endpoint()
    hooks = env.load(
        f"""
        hooks:
          outbound:
            - url: {endpoint.url}
              events: [on_session_end, post_tool_call]
        """
    )
    hooks.on_session_end(**SESSION_END)
    hooks.post_tool_call(**tool_payload(result="x"))
    hooks.close()
    assert "outbound" not in hooks.sources
    assert hooks.manager.callbacks("on_session_end") == ()
    assert endpoint.requests == []


def test_webhooks_run_after_python_callbacks_in_list_order(env: OutboundEnv) -> None:
    first, second = env.endpoint(), env.endpoint()
    hooks = env.load(
        f"""
        hooks:
          outbound:
            - name: b-first
              url: {first.url}
              events: [on_session_end]
            - name: a-second
              url: {second.url}
              events: [on_session_end]
        """
    )
    hooks.manager.register_callback("on_session_end", lambda **kw: None, owner="zz-plugin")
    callbacks = hooks.manager.callbacks("on_session_end")
    assert [(c.group, c.source, c.owner) for c in callbacks] == [
        (Group.PYTHON, "python", "zz-plugin"),
        (Group.WEBHOOK, "webhook", "outbound:b-first"),
        (Group.WEBHOOK, "webhook", "outbound:a-second"),
    ]
    assert [c.name for c in callbacks[1:]] == [
        "outbound:b-first:on_session_end",
        "outbound:a-second:on_session_end",
    ]


def test_identical_targets_register_once_but_shared_urls_both_deliver(
    env: OutboundEnv, caplog: pytest.LogCaptureFixture
) -> None:
    endpoint = env.endpoint()
    hooks = env.load(
        f"""
        hooks:
          outbound:
            - name: same
              url: {endpoint.url}
              events: [on_session_end]
            - name: same
              url: {endpoint.url}
              events: [on_session_end]
            - name: other
              url: {endpoint.url}
              events: [on_session_end]
        """
    )
    assert [c.name for c in hooks.manager.callbacks("on_session_end")] == [
        "outbound:same:on_session_end",
        "outbound:other:on_session_end",
    ]
    assert (
        "outbound webhook same: the same target (url, name, matcher and secret) is "
        "configured twice for on_session_end; the duplicate is ignored"
    ) in messages(caplog)
    hooks.on_session_end(**SESSION_END)
    hooks.close()
    assert len(endpoint.requests) == 2
    assert len({json.loads(r.body)["delivery_id"] for r in endpoint.requests}) == 2


def test_loading_twice_is_idempotent_and_unload_removes_everything(env: OutboundEnv) -> None:
    from hermes_hooks.webhooks import source as outbound

    endpoint = env.endpoint()
    hooks = env.load(
        f"""
        hooks:
          outbound:
            - url: {endpoint.url}
              events: [on_session_end, subagent_stop]
        """
    )
    again = outbound.load(hooks.context)
    assert len(hooks.manager.callbacks("on_session_end")) == 1
    assert again.records()[0].events == []  # everything was already registered
    hooks.unload()
    assert hooks.manager.callbacks("on_session_end") == ()
    assert hooks.manager.callbacks("subagent_stop") == ()
    again.close(1.0)


def test_api_error_classification_is_deliverable_and_does_not_classify(
    env: OutboundEnv,
) -> None:
    endpoint = env.endpoint()
    hooks = env.load(
        f"""
        hooks:
          outbound:
            - url: {endpoint.url}
              events: [transform_api_error_classification]
        """
    )
    answer = hooks.transform_api_error_classification(
        provider="p", model="m", status_code=500, error_message="boom"
    )
    (request,) = endpoint.wait_requests(1)
    assert answer is None  # D-39: the webhook returns nothing
    assert json.loads(request.body)["extra"]["status_code"] == 500


def test_targets_load_on_the_gateway_surface_too(env: OutboundEnv) -> None:
    endpoint = env.endpoint()
    hooks = env.load(
        f"""
        hooks:
          outbound:
            - url: {endpoint.url}
              events: [gateway_platform_event]
        """,
        surface="gateway",
    )
    hooks.gateway_platform_event(event_type="reaction", platform="telegram", payload={"e": 1})
    (request,) = endpoint.wait_requests(1)
    body = json.loads(request.body)
    assert body["extra"]["event_type"] == "reaction"
    assert "telemetry_schema_version" not in body["extra"]  # D-17: event-local payload

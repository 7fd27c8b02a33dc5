"""``hooks.outbound`` parsing: every rule and warning of OUT-02..OUT-06 and D-75..D-77."""

from __future__ import annotations

import logging
from typing import Any

import pytest
import yaml

from hermes_hooks.hookspecs import VALID_HOOKS
from hermes_hooks.webhooks.targets import (
    DEFAULT_DURABLE_SCHEDULE,
    Skipped,
    Target,
    parse_outbound,
)

SOURCE = "/home/u/.hermes/config.yaml"
#: How a problem of the first entry starts (a config built in code has no line numbers).
AT = f"{SOURCE}: hooks.outbound[0]: "


def parse(text: str, environ: dict[str, str] | None = None) -> tuple[list[Target], list[Skipped]]:
    return parse_outbound(yaml.safe_load(text), SOURCE, environ or {})


def one(text: str, environ: dict[str, str] | None = None) -> Target:
    targets, skipped = parse(text, environ)
    assert skipped == []
    (target,) = targets
    return target


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def entry(**keys: Any) -> str:
    base: dict[str, Any] = {"url": "https://hooks.example/in", "events": ["on_session_end"]}
    base.update(keys)
    return yaml.safe_dump({"hooks": {"outbound": [base]}})


def test_the_ex37_configuration(caplog: pytest.LogCaptureFixture) -> None:
    targets, skipped = parse(
        """
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
        """,
        {"HERMES_OUTBOUND_WEBHOOK_SECRET": "shh"},
    )
    assert skipped == [] and warnings(caplog) == []
    ci, monitor = targets
    assert (ci.label, ci.events, ci.timeout, ci.signed) == (
        "ci-notify",
        ("on_session_end", "subagent_stop"),
        10,
        True,
    )
    assert ci.github_secret == "shh" and ci.secret_source == "env:HERMES_OUTBOUND_WEBHOOK_SECRET"
    assert (monitor.label, monitor.signed, monitor.secret_source) == ("tool-monitor", False, "none")
    assert monitor.matcher is not None and monitor.matcher.pattern == "terminal|delegate_task"
    assert (ci.durable, ci.signature, ci.schedule, ci.max_attempts) == (False, "github", (1.0,), 2)


# -- url ---------------------------------------------------------------------------------


def test_http_urls_warn_that_payloads_travel_unencrypted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    target = one(entry(name="plain", url="http://10.0.0.5/hook"))
    assert target.url == "http://10.0.0.5/hook"
    assert warnings(caplog) == [
        f"{AT}url http://10.0.0.5/hook uses http:// — payloads "
        "(tool inputs included) travel unencrypted; prefer https://"
    ]


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("ftp://files.example/x", "url 'ftp://files.example/x' must be an https:// (or "),
        ("https:///no-host", "url 'https:///no-host' must be an https:// (or "),
        (None, "has no 'url'. Fix: add url: https://<host>/<path>"),
        (42, "has no 'url'. Fix: add url: https://<host>/<path>"),
    ],
)
def test_unusable_urls_skip_the_entry(
    url: Any, reason: str, caplog: pytest.LogCaptureFixture
) -> None:
    targets, skipped = parse(entry(name="bad", url=url))
    assert targets == []
    assert skipped[0].label == "bad" and skipped[0].reason.startswith(reason)
    assert warnings(caplog)[-1].startswith(f"{AT}{reason}")
    assert warnings(caplog)[-1].endswith("; skipped")


# -- events ------------------------------------------------------------------------------


def test_unknown_events_and_on_stream_delta_are_dropped(caplog: pytest.LogCaptureFixture) -> None:
    target = one(
        entry(
            name="t",
            events=[
                "on_sesion_end",
                "on_stream_delta",
                "post_tool_call",
                "transform_api_error_classification",
                "post_tool_call",
            ],
        )
    )
    assert target.events == ("post_tool_call", "transform_api_error_classification")
    assert warnings(caplog) == [
        f"{AT}unknown hook event 'on_sesion_end' in hooks.outbound — "
        "did you mean 'on_session_end'?",
        f"{AT}on_stream_delta is not available to outbound webhooks: one POST "
        "per streamed token would flood the target's queue; dropped",
    ]


def test_an_unknown_event_without_a_close_match_points_at_the_list(
    caplog: pytest.LogCaptureFixture,
) -> None:
    one(entry(name="t", events=["zzzz", "on_session_end"]))
    # As the hooks: block says it: where the names are, never all 37 of them.
    assert warnings(caplog) == [
        f"{AT}unknown hook event 'zzzz' in hooks.outbound — no hook "
        f"has a similar name; dropped. `hermes-hooks hooks` lists the {len(VALID_HOOKS)} events"
    ]


@pytest.mark.parametrize(
    ("events", "reason"),
    [
        ("on_session_end", "'events' must be a list of event names"),
        (None, "'events' must be a list of event names"),
        ([], "has no usable events left in 'events'"),
        (["on_stream_delta"], "has no usable events left in 'events'"),
    ],
)
def test_events_that_leave_nothing_skip_the_entry(events: Any, reason: str) -> None:
    targets, skipped = parse(entry(events=events))
    assert targets == []
    assert skipped[0].reason.startswith(reason)


# -- timeout (D-75) ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected", "warning"),
    [
        (None, 10, None),
        (30, 30, None),
        (30.0, 30, None),
        (
            9999,
            60,
            f"{AT}timeout 9999 is outside 1–60 seconds; clamped to 60",
        ),
        (0, 1, f"{AT}timeout 0 is outside 1–60 seconds; clamped to 1"),
        (-5, 1, f"{AT}timeout -5 is outside 1–60 seconds; clamped to 1"),
        (
            "abc",
            10,
            f"{AT}timeout 'abc' is not an integer number of seconds; using 10",
        ),
        (
            "30",
            10,
            f"{AT}timeout '30' is not an integer number of seconds; using 10",
        ),
        (
            2.5,
            10,
            f"{AT}timeout 2.5 is not an integer number of seconds; using 10",
        ),
        (
            True,
            10,
            f"{AT}timeout True is not an integer number of seconds; using 10",
        ),
    ],
)
def test_timeout(
    value: Any, expected: int, warning: str | None, caplog: pytest.LogCaptureFixture
) -> None:
    keys: dict[str, Any] = {"name": "t"}
    if value is not None:
        keys["timeout"] = value
    assert one(entry(**keys)).timeout == expected
    assert warnings(caplog) == ([warning] if warning else [])


# -- secrets (D-76, OUT-06) --------------------------------------------------------------


def test_secret_env_wins_over_secret() -> None:
    target = one(entry(secret_env="HOOK_SECRET", secret="inline"), {"HOOK_SECRET": "from-env"})
    assert (target.github_secret, target.secret_env) == ("from-env", "HOOK_SECRET")


def test_unset_secret_env_is_unsigned_with_no_fallback(caplog: pytest.LogCaptureFixture) -> None:
    target = one(entry(name="ci", secret_env="HOOK_SECRET", secret="inline"), {"HOOK_SECRET": " "})
    assert target.signed is False and target.github_secret is None
    assert target.secret_source == "env:HOOK_SECRET"
    assert warnings(caplog) == [
        f"{AT}secret_env HOOK_SECRET is not set — deliveries will be UNSIGNED"
    ]


def test_blank_secret_env_uses_the_inline_secret() -> None:
    target = one(entry(secret_env="  ", secret="inline"))
    assert target.github_secret == "inline"
    assert target.secret_source.startswith("inline:")
    assert "inline" not in target.secret_source[len("inline:") :]  # only a digest


def test_no_secret_is_unsigned_without_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    target = one(entry())
    assert (target.signed, target.secret_source) == (False, "none")
    assert warnings(caplog) == []


def test_a_non_string_secret_skips_the_entry() -> None:
    targets, skipped = parse(entry(secret=12345))
    assert targets == [] and skipped[0].reason.startswith("'secret' must be a string")


# -- matcher (D-77, D-66) ----------------------------------------------------------------


def test_matcher_matches_the_whole_tool_name() -> None:
    target = one(entry(events=["post_tool_call", "on_session_end"], matcher=" terminal|patch "))
    matcher = target.matcher
    assert matcher is not None and matcher.pattern == "terminal|patch"
    assert [matcher.matches(t) for t in ("terminal", "patch", "terminal_x", None)] == [
        True,
        True,
        False,
        False,
    ]
    assert target.matcher_for("post_tool_call") is matcher
    assert target.matcher_for("on_session_end") is None  # other events fire unfiltered


def test_a_matcher_without_tool_events_is_dropped(caplog: pytest.LogCaptureFixture) -> None:
    target = one(entry(name="m", events=["on_session_end"], matcher="terminal"))
    assert target.matcher is None
    assert warnings(caplog) == [
        f"{AT}the matcher field is only honored for pre_tool_call / "
        "post_tool_call, and this target subscribes to neither; the matcher is dropped and "
        "every subscribed event is delivered."
    ]


def test_an_invalid_regex_matches_literally(caplog: pytest.LogCaptureFixture) -> None:
    target = one(entry(name="m", events=["pre_tool_call"], matcher="read_file("))
    assert target.matcher is not None and target.matcher.regex is None
    assert target.matcher.matches("read_file(") and not target.matcher.matches("read_file")
    (message,) = warnings(caplog)
    assert message.startswith(f"{AT}matcher 'read_file(' is not a valid regular")
    assert message.endswith("; matching the tool name literally")


def test_blank_matcher_means_none_and_non_string_skips() -> None:
    assert one(entry(events=["pre_tool_call"], matcher="  ")).matcher is None
    targets, skipped = parse(entry(events=["pre_tool_call"], matcher=["x"]))
    assert targets == [] and skipped[0].reason.startswith("'matcher' must be a string")


# -- signature, durable, schedule, other keys --------------------------------------------


def test_standard_signature_takes_several_whsec_secrets() -> None:
    target = one(
        entry(signature="standard", secret="whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw whsec_AAAA")
    )
    assert target.secrets == ("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_AAAA")
    assert len(target.standard_keys) == 2 and target.standard_keys[1] == b"\x00\x00\x00"
    assert target.github_secret == "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


def test_a_github_secret_may_contain_spaces() -> None:
    assert one(entry(secret="It's a Secret to Everybody")).secrets == (
        "It's a Secret to Everybody",
    )


@pytest.mark.parametrize(
    ("keys", "reason"),
    [
        ({"signature": "standard", "secret": "not base64!"}, "signature: standard needs whsec_"),
        ({"signature": "standrad"}, "'signature' must be 'github' or 'standard'"),
        ({"durable": "yes"}, "'durable' must be true or false"),
        ({"name": 7}, "'name' must be a string"),
        ({"secret_env": 7}, "'secret_env' must be the name of an environment variable"),
    ],
)
def test_malformed_keys_skip_the_entry(keys: dict[str, Any], reason: str) -> None:
    targets, skipped = parse(entry(**keys))
    assert targets == [] and skipped[0].reason.startswith(reason)


def test_durable_schedule_and_attempts() -> None:
    durable = one(entry(durable=True))
    assert durable.schedule == DEFAULT_DURABLE_SCHEDULE == (1.0, 5.0, 30.0, 120.0, 600.0, 3600.0)
    assert durable.max_attempts == 7
    tuned = one(entry(durable=True, retry_schedule=[0.05, 0.1]))
    assert (tuned.schedule, tuned.max_attempts) == ((0.05, 0.1), 3)
    # An ordinary target keeps D-80's two attempts: only the first delay is used.
    ordinary = one(entry(retry_schedule=[0.05, 0.1]))
    assert (ordinary.schedule, ordinary.max_attempts) == ((0.05,), 2)


@pytest.mark.parametrize("value", [[], [0], [-1], ["1"], [True], 5, [1] * 21, [100000]])
def test_a_bad_retry_schedule_falls_back(value: Any, caplog: pytest.LogCaptureFixture) -> None:
    assert one(entry(name="r", retry_schedule=value)).retry_schedule is None
    assert warnings(caplog) == [
        f"{AT}retry_schedule must be a list of 1 to 20 delays in seconds "
        "(each above 0, at most 86400); using the default"
    ]


def test_durable_targets_need_unique_labels(caplog: pytest.LogCaptureFixture) -> None:
    targets, _ = parse(
        """
        hooks:
          outbound:
            - {name: ci, url: "https://a.example/", events: [on_session_end], durable: true}
            - {name: ci, url: "https://b.example/", events: [on_session_end], durable: true}
        """
    )
    assert [t.durable for t in targets] == [True, False]
    assert warnings(caplog) == [
        f"{SOURCE}: hooks.outbound[1]: durable targets need a unique name; 'ci' is used "
        "twice, so this one is delivered without the outbox. Fix: give it its own name."
    ]


def test_unknown_keys_are_reported_and_ignored(caplog: pytest.LogCaptureFixture) -> None:
    target = one(entry(name="k", **{"secret-env": "X"}))
    assert target.signed is False
    (message,) = warnings(caplog)
    assert message.startswith(f"{AT}unknown key(s) secret-env ignored (known: ")


def test_the_label_falls_back_to_the_url() -> None:
    assert one(entry()).label == "https://hooks.example/in"


# -- the list and its entries ------------------------------------------------------------


def test_outbound_must_be_a_list(caplog: pytest.LogCaptureFixture) -> None:
    assert parse("hooks:\n  outbound: {url: x}\n") == ([], [])
    assert warnings(caplog) == [
        f"{SOURCE}: hooks.outbound must be a list of targets (- url: ..., events: [...]); "
        "no outbound webhook loaded"
    ]


def test_non_mapping_entries_are_skipped_and_the_rest_load(
    caplog: pytest.LogCaptureFixture,
) -> None:
    targets, skipped = parse(
        """
        hooks:
          outbound:
            - just a string
            - {url: "https://ok.example/", events: [subagent_stop]}
        """
    )
    assert [t.index for t in targets] == [1]
    assert skipped == [Skipped(0, "#0", "must be a mapping with at least url and events")]
    assert warnings(caplog) == [f"{AT}must be a mapping with at least url and events; skipped"]


def test_no_hooks_section_is_nothing() -> None:
    assert parse_outbound({}, SOURCE, {}) == ([], [])
    assert parse_outbound({"hooks": {"pre_tool_call": []}}, SOURCE, {}) == ([], [])


def test_d08_keys_tell_targets_apart() -> None:
    targets, _ = parse(
        """
        hooks:
          outbound:
            - {name: a, url: "https://x.example/", events: [on_session_end]}
            - {name: b, url: "https://x.example/", events: [on_session_end]}
            - {name: a, url: "https://x.example/", events: [on_session_end], secret: s}
            - {name: a, url: "https://x.example/", events: [on_session_end]}
        """
    )
    keys = [t.key("/h", "on_session_end") for t in targets]
    assert len({keys[0], keys[1], keys[2]}) == 3
    assert keys[3] == keys[0]


def test_standard_without_a_secret_sends_no_standard_headers(
    caplog: pytest.LogCaptureFixture,
) -> None:
    target = one(entry(name="s", signature="standard", secret_env="UNSET_VAR"))
    assert (target.signed, target.standard_keys) == (False, ())
    assert warnings(caplog) == [
        f"{AT}secret_env UNSET_VAR is not set — deliveries will be UNSIGNED",
        f"{AT}signature: standard has no secret to sign with; no "
        "webhook-signature header will be sent",
    ]

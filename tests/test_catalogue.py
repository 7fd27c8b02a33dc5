"""Meta-tests that keep the catalogue honest: names, contracts, docs, facade."""

from __future__ import annotations

import dataclasses
import inspect
import re
from pathlib import Path

import pytest

import hermes_hooks
from hermes_hooks._contract import (
    KIND_SENTENCES,
    POLICY,
    Kind,
    OnError,
    Selection,
    ShellUse,
    Thread,
)
from hermes_hooks._plan import Plan
from hermes_hooks._select import AGGREGATORS
from hermes_hooks.config import Settings
from hermes_hooks.hooks import Hooks
from hermes_hooks.hookspecs import CATALOGUE, STREAMING_HOOKS, VALID_HOOKS, hookspec

CAT_T1 = [
    "pre_tool_call",
    "post_tool_call",
    "transform_tool_result",
    "transform_terminal_output",
    "pre_transcription",
    "pre_llm_call",
    "post_llm_call",
    "transform_llm_output",
    "pre_verify",
    "pre_api_request",
    "post_api_request",
    "api_request_error",
    "on_stream_start",
    "on_stream_delta",
    "on_stream_end",
    "on_interim_message",
    "transform_api_error_classification",
    "on_session_start",
    "on_session_end",
    "on_session_finalize",
    "on_session_reset",
    "on_skill_lifecycle",
    "subagent_start",
    "subagent_stop",
    "pre_gateway_dispatch",
    "gateway_platform_event",
    "pre_command",
    "pre_approval_request",
    "post_approval_response",
    "kanban_task_claimed",
    "kanban_task_completed",
    "kanban_task_blocked",
    "on_kanban_worker_spawned",
    "on_kanban_worker_exited",
    "on_kanban_worker_stale_claim",
    "on_kanban_task_updated",
    "on_kanban_dispatch_tick",
]


def test_valid_hooks_are_exactly_the_37_of_table_cat_t1() -> None:
    assert len(CAT_T1) == 37
    assert frozenset(CAT_T1) == VALID_HOOKS == hermes_hooks.VALID_HOOKS


def test_the_policy_table_covers_valid_hooks_exactly() -> None:
    assert set(POLICY) == set(VALID_HOOKS)


def test_policy_rows_follow_the_decisions_table() -> None:
    unbounded = {name for name, row in POLICY.items() if not row.bounded}
    assert unbounded == {
        "on_stream_start",
        "on_stream_delta",
        "on_stream_end",
        "on_interim_message",
        "subagent_stop",
    }
    assert [n for n, row in POLICY.items() if row.on_error is OnError.FAIL_CLOSED] == [
        "pre_tool_call"
    ]
    assert POLICY["subagent_stop"].thread is Thread.CALLER
    assert POLICY["pre_gateway_dispatch"].thread is Thread.LOOP


def test_every_hook_docstring_opens_with_its_kind_sentence() -> None:
    for contract in CATALOGUE.values():
        assert contract.doc.startswith(KIND_SENTENCES[contract.kind]), contract.name
        assert len(contract.doc.splitlines()) > 2, contract.name


def test_categories_match_table_cat_t1() -> None:
    directives = {n for n, c in CATALOGUE.items() if c.kind is Kind.DIRECTIVE}
    transforms = {n for n, c in CATALOGUE.items() if c.kind is Kind.TRANSFORM}
    assert directives == {"pre_tool_call", "pre_llm_call", "pre_verify", "pre_gateway_dispatch"}
    assert transforms == {
        "transform_tool_result",
        "transform_terminal_output",
        "pre_transcription",
        "transform_llm_output",
        "transform_api_error_classification",
    }


def test_payload_fields_match_table_cat_t1_for_pre_tool_call() -> None:
    assert [f.name for f in CATALOGUE["pre_tool_call"].fields] == [
        "tool_name",
        "args",
        "task_id",
        "session_id",
        "tool_call_id",
        "turn_id",
        "api_request_id",
        "middleware_trace",
    ]


def test_every_selection_has_an_aggregator() -> None:
    assert set(AGGREGATORS) == set(Selection)


def test_every_hook_has_a_facade_method_and_an_async_twin() -> None:
    for name in VALID_HOOKS:
        method = getattr(Hooks, name)
        twin = getattr(Hooks, "a" + name)
        assert not inspect.iscoroutinefunction(method), name
        assert inspect.iscoroutinefunction(twin), name
        assert f"``{name}``" in (method.__doc__ or ""), name


def test_only_gateway_platform_event_lacks_the_envelope_marker() -> None:
    assert [n for n, c in CATALOGUE.items() if not c.marker] == ["gateway_platform_event"]


def test_hookimpl_marker_belongs_to_the_hermes_project() -> None:
    @hermes_hooks.hookimpl(tryfirst=True)
    def pre_tool_call(**kwargs: object) -> None: ...

    assert pre_tool_call.hermes_impl["tryfirst"] is True  # type: ignore[attr-defined]


#: Meta-tests that walk the whole catalogue: naming every hook does not test any one.
_CATALOGUE_WIDE = {"test_catalogue.py", "test_docs.py", "test_schemas.py", "test_facade.py"}


def test_every_hook_has_a_test_of_its_own() -> None:
    tests = Path(__file__).resolve().parent
    texts = [
        path.read_text(encoding="utf-8")
        for path in tests.rglob("*.py")
        if path.name not in _CATALOGUE_WIDE
    ]
    untested = [
        name for name in CATALOGUE if not any(re.search(rf"\b{name}\b", text) for text in texts)
    ]
    assert untested == [], f"hooks with no test of their own: {untested}"


def test_per_hook_facts_are_declared_in_the_catalogue() -> None:
    refused = {n: c.shell_refusal for n, c in CATALOGUE.items() if c.shell is ShellUse.REFUSED}
    assert sorted(refused) == ["on_stream_delta", "transform_api_error_classification"]
    assert all(reason for reason in refused.values())
    assert [n for n, c in CATALOGUE.items() if c.shell_refusal] == list(refused)
    assert [n for n, c in CATALOGUE.items() if not c.webhooks] == ["on_stream_delta"]
    assert [n for n, c in CATALOGUE.items() if c.matcher] == ["pre_tool_call", "post_tool_call"]
    assert STREAMING_HOOKS == ("on_stream_start", "on_stream_delta", "on_stream_end")
    assert [n for n, c in CATALOGUE.items() if c.opt_in] == ["on_stream_delta"]
    assert all(c.policy is POLICY[n] for n, c in CATALOGUE.items())


def test_a_refused_shell_use_needs_its_reason_in_words() -> None:
    with pytest.raises(TypeError, match="give shell_refusal"):

        @hookspec(kind=Kind.OBSERVER, shell=ShellUse.REFUSED)
        def refused_without_reason(telemetry_schema_version: str) -> None:
            """Observer: the return value is ignored."""


def test_the_dispatcher_follows_on_error_not_the_hook_name() -> None:
    contract = CATALOGUE["pre_tool_call"]
    open_policy = dataclasses.replace(
        contract, policy=dataclasses.replace(contract.policy, on_error=OnError.FAIL_OPEN)
    )
    hooks = Hooks.empty(settings=Settings(hook_callback_timeout=0))

    def broken(**_: object) -> None:
        raise RuntimeError("bug")

    callback = hooks.manager.register_callback("pre_tool_call", broken, owner="p")
    for policy, expected in ((contract, "block"), (open_policy, "allow")):
        aggregator = AGGREGATORS[policy.selection](policy, {"args": {}})
        hooks.dispatcher._settle(aggregator, callback, RuntimeError("bug"), 0.0, ok=False)
        assert aggregator.answer().action == expected
    hooks.close()


def test_a_fail_closed_hook_needs_a_selection_that_can_block() -> None:
    observer = CATALOGUE["post_tool_call"]
    closed = dataclasses.replace(
        observer, policy=dataclasses.replace(observer.policy, on_error=OnError.FAIL_CLOSED)
    )
    with pytest.raises(TypeError, match="post_tool_call: fails closed, but its selection"):
        Plan(closed)

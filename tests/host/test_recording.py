"""The recording format: parsing, validation messages (file:line: reason), the writer."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from hermes_hooks.errors import RecordingError
from hermes_hooks.host.recording import (
    RecordingWriter,
    load_recording,
    parse_recording,
    slash_command,
)
from tests.host.helpers import calls, header, recording, result, say, user


def lines_of(*items: object) -> list[str]:
    return [item if isinstance(item, str) else json.dumps(item) for item in items]


def error_of(*items: object) -> str:
    with pytest.raises(RecordingError) as caught:
        parse_recording(lines_of(*items), "rec.jsonl")
    return str(caught.value)


def test_a_recording_parses_into_exchanges_and_steps() -> None:
    parsed = recording(
        header(cwd="/work", tools=["terminal"]),
        user("hi"),
        calls(("c1", "terminal", {"command": "ls"}), text="Looking."),
        result("c1", output="a\n", returncode=0),
        say("Done."),
        user("/model gpt-5"),
    )
    assert parsed.header.session_id == "s1"
    assert parsed.header.cwd == "/work"
    assert parsed.header.tools == ("terminal",)
    first, command = parsed.exchanges
    assert first.user.text == "hi"
    assert first.user.line == 2
    assert [s.assistant.text for s in first.steps] == ["Looking.", "Done."]
    call = first.steps[0].assistant.tool_calls[0]
    assert (call.id, call.name, call.arguments) == ("c1", "terminal", {"command": "ls"})
    assert first.steps[0].results["c1"].output == "a\n"
    assert command.command == ("model", "gpt-5")
    assert parsed.tool_call_count == 1


def test_openai_style_string_arguments_are_parsed() -> None:
    parsed = recording(
        header(),
        user("x"),
        {"type": "assistant", "tool_calls": [{"id": "c", "name": "t", "arguments": '{"a": 1}'}]},
        result("c", content={"ok": True}),
    )
    step = parsed.exchanges[0].steps[0]
    assert step.assistant.tool_calls[0].arguments == {"a": 1}
    assert step.results["c"].content == '{"ok": true}'  # a JSON value becomes its text


def test_blank_lines_are_ignored_and_line_numbers_count_them() -> None:
    parsed = parse_recording(lines_of(header(), "", user("a"), "   ", user("b")), "r")
    assert [e.user.line for e in parsed.exchanges] == [3, 5]


@pytest.mark.parametrize(
    ("items", "message"),
    [
        (
            (header(), "{not json"),
            "rec.jsonl:2: not valid JSON (Expecting property name "
            "enclosed in double quotes at column 2)",
        ),
        ((header(), "[1, 2]"), "rec.jsonl:2: each line must be a JSON object, not list"),
        (
            (header(), {"text": "x"}),
            "rec.jsonl:2: 'type' is missing; expected one of header, "
            "user, assistant, tool_result, subagent, interrupt",
        ),
        (
            (header(), {"type": "bot"}),
            "rec.jsonl:2: 'type' is \"bot\"; expected one of header, "
            "user, assistant, tool_result, subagent, interrupt",
        ),
        ((user("x"),), 'rec.jsonl:1: the first line must be the header ("type": "header")'),
        (
            (header(version=2),),
            "rec.jsonl:1: unsupported recording version 2 (this hermes-hooks reads version 1)",
        ),
        (
            ({"type": "header", "session_id": "s", "platform": "cli", "model": "m"},),
            "rec.jsonl:1: header line: 'version' must be 1",
        ),
        (
            (header(session_id=""),),
            "rec.jsonl:1: header line: 'session_id' must be a non-empty string, not \"\"",
        ),
        (
            ({"type": "header", "version": 1, "platform": "cli", "model": "m"},),
            "rec.jsonl:1: header line: 'session_id' is required (a string)",
        ),
        ((header(), header()), "rec.jsonl:2: a second header (the header is on line 1)"),
        ((header(), say("hi")), "rec.jsonl:2: assistant line before the first user line"),
        (
            (header(), user("x"), calls(("c1", "t", {})), user("y")),
            "rec.jsonl:4: tool call 'c1' (t, line 3) has no tool_result before this line; "
            "add one, or an interrupt line",
        ),
        (
            (header(), user("x"), say("a"), result("c9", content="r")),
            "rec.jsonl:4: tool_result line for tool call 'c9', which the preceding assistant "
            "line did not make",
        ),
        (
            (header(), user("x"), calls(("c1", "t", {})), result("c1"), result("c1")),
            "rec.jsonl:5: tool call 'c1' already has a tool_result on line 4",
        ),
        (
            (header(), user("x"), calls(("c1", "t", {})), result("c1"), calls(("c1", "t", {}))),
            "rec.jsonl:5: tool call id 'c1' is already used on line 3",
        ),
        (
            (header(), user("/new"), say("hi")),
            "rec.jsonl:3: assistant line after the slash command /new on line 2; a command "
            "does not start a model turn",
        ),
        (
            (header(), user("x"), {"type": "interrupt"}, say("late")),
            "rec.jsonl:4: assistant line after the interrupt on line 3; an interrupted turn "
            "ends there",
        ),
        (
            (header(), user("x"), {"type": "assistant", "tool_calls": [{"id": "c", "name": ""}]}),
            "rec.jsonl:3: assistant line: tool_calls[0].name must be a non-empty string",
        ),
        (
            (header(), user("x"), {"type": "assistant", "error": {"status_code": 500}}),
            "rec.jsonl:3: assistant line: error.message must be a non-empty string",
        ),
        (
            (header(), user("x"), calls(("c", "t", {})), result("c", status="fine")),
            "rec.jsonl:4: tool_result line: 'status' must be \"ok\" or \"error\", not 'fine'",
        ),
        (
            (header(), user("x"), calls(("c", "t", {})), result("c", returncode="0")),
            "rec.jsonl:4: tool_result line: 'returncode' must be an integer, not \"0\"",
        ),
        (
            (header(), {"type": "user", "text": 5}),
            "rec.jsonl:2: user line: 'text' must be a string, not 5",
        ),
    ],
)
def test_malformed_lines_name_the_line_and_the_reason(items: tuple, message: str) -> None:
    assert error_of(*items) == message


def test_an_empty_file_needs_a_header(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n", encoding="utf-8")
    with pytest.raises(RecordingError) as caught:
        load_recording(path)
    assert str(caught.value) == f"{path}:1: empty recording; it needs a header line"


def test_a_missing_file_is_a_recording_error(tmp_path: Path) -> None:
    with pytest.raises(RecordingError) as caught:
        load_recording(tmp_path / "nope.jsonl")
    assert str(caught.value) == f"{tmp_path / 'nope.jsonl'}: no such file"


def test_an_interrupt_excuses_missing_results() -> None:
    parsed = recording(
        header(), user("x"), calls(("c1", "t", {})), {"type": "interrupt"}, user("y")
    )
    assert parsed.exchanges[0].interrupt is not None
    assert parsed.exchanges[0].interrupt.issuer == "user"
    assert parsed.exchanges[0].steps[0].results == {}


def test_slash_commands() -> None:
    assert slash_command("/new") == ("new", "")
    assert slash_command("  /Model  openai/gpt-5 ") == ("model", "openai/gpt-5")
    assert slash_command("/ not a command") is None
    assert slash_command("path /tmp") is None


def test_the_writer_writes_what_the_reader_reads() -> None:
    stream = io.StringIO()
    writer = RecordingWriter(stream)
    writer.header("s9", "cli", "m", provider="p", cwd=None)
    writer.user("hello")
    writer.assistant("ok", [{"id": "c1", "name": "terminal", "arguments": {"command": "ls"}}])
    writer.subagent("c1", "goal", role="leaf", status="completed")
    writer.tool_result("c1", output="x", returncode=0, changed_paths=[])
    writer.error("boom", status_code=503)
    writer.assistant("done", finish_reason="stop")
    writer.interrupt()
    text = stream.getvalue()
    assert text.splitlines()[0] == (
        '{"type": "header", "version": 1, "session_id": "s9", "platform": "cli", '
        '"model": "m", "provider": "p"}'
    )
    parsed = parse_recording(text.splitlines(), "w")
    (exchange,) = parsed.exchanges
    first, failed, last = exchange.steps
    assert first.subagents["c1"][0].goal == "goal"
    assert first.results["c1"].returncode == 0
    assert failed.assistant.error is not None
    assert failed.assistant.error.status_code == 503
    assert last.assistant.finish_reason == "stop"
    assert exchange.interrupt is not None

"""The Claude Code dialect: ``dialect: claude-code`` entries, run as Claude Code runs them.

A script written for Claude Code's hooks runs here unchanged; the entry is otherwise an
ordinary shell hook (consent, timeouts, process groups, ``fail_closed``).  The tables
(events, tools, matchers) are :mod:`.claude_tables`; this module is the dialect:

* **When it fires**: Claude's matcher on Claude's name of the tool (or the session
  source, the end reason, the agent type), ``PostToolUse`` vs ``PostToolUseFailure``
  by the call's status, and the handler's ``if:`` rule on each Claude input.
* **Input** (:mod:`.claude_input`): the stdin JSON Claude Code sends and its
  environment.  A call that is several Claude inputs (several URLs, a batch, a
  multi-file patch) runs the hook once per input; any block blocks the call
  (:mod:`.claude_tools`).
* **Output** (:func:`read`): exit 0 is JSON when the first character after trimming
  whitespace and a byte-order mark is ``{``, otherwise plain text (context on
  UserPromptSubmit and SessionStart; elsewhere ignored, with a warning when it hides
  a JSON answer); exit 2 blocks where Claude blocks, stderr the reason, stdout
  ignored; any other exit is a warning with no effect (``fail_closed`` blocks).
* **Handlers**: ``type: prompt``/``agent`` are answered by the host's model
  (:mod:`.model`); ``async``/``asyncRewake`` run in the background
  (:mod:`hermes_hooks.shell.background`).
* **Delivery** (:meth:`ClaudeCodeDialect.deliver`): SessionStart context, and what a
  background hook says, wait for the session's next ``pre_llm_call``
  (:class:`~.claude_tables.SessionContexts`); the variables a SessionStart hook wrote
  to ``CLAUDE_ENV_FILE`` are its answer.

* **Feedback**: a ``PostToolUse`` hook's exit 2 or ``decision: block`` reason reaches
  the model below the tool's result (``transform_tool_result``, :mod:`.feedback`),
  with a WARNING carrying the hook's stderr.
* **Shell**: an entry with ``shell: bash`` runs through bash (:mod:`.shells`).

What Hermes cannot honour (a prompt rejected by ``UserPromptSubmit``, ``continue:
false`` after the call) is never dropped silently: it logs one WARNING per hook and
shows in ``hermes-hooks test``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from hermes_hooks._callback import Degraded, Group
from hermes_hooks._log import get_logger, warn_once
from hermes_hooks._select import directive_word, first_text
from hermes_hooks.claude.feedback import feedback, register_tool_feedback
from hermes_hooks.claude.input import (
    environment,
    input_document,
    new_env_file,
    read_env_file,
    transcript_for,
)
from hermes_hooks.claude.model import host_capabilities, model_prompt, model_result
from hermes_hooks.claude.options import MODEL_KINDS, REWAKE
from hermes_hooks.claude.shells import plugin_variables, shell_argv
from hermes_hooks.claude.tables import (
    DIALECT as DIALECT_NAME,
)
from hermes_hooks.claude.tables import (
    EVENTS,
    UNMAPPED_EVENTS,
    ClaudeContext,
    ClaudeSpec,
    read_spec,
    spec_of,
    text_or,
)
from hermes_hooks.claude.tools import DEFAULT_TOOLS, TOOLS_KEY, Inputs, tool_table
from hermes_hooks.envelope import dumps
from hermes_hooks.errors import PluginLoadError
from hermes_hooks.shell.background import BACKGROUND
from hermes_hooks.shell.dialect import Block, Execute
from hermes_hooks.shell.entry import EntryMatcher, ShellEntry, Warn
from hermes_hooks.shell.output import (
    DEFAULT_BLOCK_MESSAGE,
    SHELL_CALLBACKS,
    Directive,
    Outcome,
    Reading,
    decode_stdout,
    delivered,
    exit_reason,
    stderr_text,
)
from hermes_hooks.shell.output import interpret as interpret_with
from hermes_hooks.shell.run import RunResult, run_command, stopped

if TYPE_CHECKING:
    from hermes_hooks._manager import HookManager

__all__ = [
    "DEFAULT_CONTINUE_MESSAGE",
    "DIALECT",
    "ClaudeCodeDialect",
    "input_document",
    "interpret",
    "read",
    "register_session_context",
]

log = get_logger("hermes_hooks.shell")

#: The message of a Stop hook that keeps the turn going without saying why.
DEFAULT_CONTINUE_MESSAGE = "A Stop hook asked to keep going."
_UNPARSEABLE = "unparseable stdout (starts with '{' but is not a JSON object)"


# -- output ------------------------------------------------------------------------------


def _block(message: str | None) -> Directive:
    return {"action": "block", "message": message or DEFAULT_BLOCK_MESSAGE}


def _continue(message: str | None) -> Directive:
    return {"action": "continue", "message": message or DEFAULT_CONTINUE_MESSAGE}


def _tool(reading: Reading) -> str:
    """Our name of the tool the call is for ("" off tool events)."""
    payload = reading.payload if isinstance(reading.payload, Mapping) else {}
    tool = payload.get("tool_name")
    return tool if isinstance(tool, str) else ""


def _unhonoured(reading: Reading, what: str) -> None:
    """An answer Claude Code acts on but Hermes cannot, on this event."""
    entry = reading.entry
    reading.problem = f"{what} is not honoured: Hermes cannot do that on {entry.event}; ignored"
    warn_once(
        log,
        ("claude-unhonoured", entry.where, entry.command, what),
        "shell hook %s (%s, %s): %s",
        entry.where,
        entry.command,
        spec_of(entry).event.name,
        reading.problem,
    )


def read(reading: Reading) -> Directive | None:
    """Read a finished run the way Claude Code would (see the module docstring)."""
    result = reading.result
    code = result.returncode
    if code == 2:
        return _exit_two(reading)
    if code != 0:
        reading.fail(exit_reason(result))  # Claude Code: a non-blocking error; stdout unread
        return None
    text, problem = decode_stdout(result)
    if text is None:
        reading.unparseable = True
        reading.fail(problem or "stdout cannot be read")
        return None
    if not text:
        return None
    if text[0] != "{":
        return _plain_text(reading, text)
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):  # deep nesting exhausts the recursive parser
        doc = None
    if not isinstance(doc, dict):
        reading.unparseable = True
        reading.fail(_UNPARSEABLE)
        return None
    return _from_json(reading, doc)


def interpret(entry: ShellEntry, result: RunResult, payload: Any = None) -> Outcome:
    """One finished run of a claude-code ``entry``, interpreted; ``payload`` is the
    firing's (its ``tool_name`` translates ``updatedInput``)."""
    return interpret_with(entry, result, read, payload)


def _exit_two(reading: Reading) -> dict[str, Any] | None:
    """Exit 2: a blocking error, stderr the reason, stdout ignored (Claude's table)."""
    entry = reading.entry
    reason = reading.stderr_message()
    if entry.event == "pre_tool_call":
        directive = _block(reason)
        reading.exit_two_blocks(directive)
        return directive
    if entry.event == "pre_verify":
        return _continue(reason)
    if entry.event == "post_tool_call":
        return feedback(reading, reason or f"hook {entry.command} exited 2 without a reason")
    if entry.event in ("pre_llm_call", "subagent_stop"):
        _unhonoured(reading, "exit code 2")
        return None
    # SessionStart, SessionEnd, SubagentStart: Claude shows stderr to the user only.
    reading.warn("exit code 2 (Claude Code shows stderr to the user and carries on)")
    return None


def _hidden_answer(text: str) -> str | None:
    """Why plain ``text`` looks like a JSON answer Claude Code would not read, if it
    does: a JSON array, or other output before a JSON object."""
    if text.startswith("["):
        return "stdout is a JSON array, not an object"
    start = text.find("\n{")
    while start >= 0:
        try:
            doc, _ = json.JSONDecoder().raw_decode(text[start + 1 :])
        except ValueError:
            doc = None
        if isinstance(doc, dict):
            return "stdout has other output before its JSON object"
        start = text.find("\n{", start + 1)
    return None


def _plain_text(reading: Reading, text: str) -> dict[str, Any] | None:
    """Exit 0 with stdout that does not start with ``{``: Claude Code reads it as plain
    text, context where it adds some, else nothing (verbose mode only).  Where it is
    ignored but looks like a JSON answer (an array, log lines before the object), a
    decision is lost exactly as in Claude Code, so that is a failure: warned, and a
    ``fail_closed`` gate blocks."""
    if reading.entry.event in ("pre_llm_call", "on_session_start"):
        return {"context": text}
    hidden = _hidden_answer(text)
    if hidden is not None:
        reading.unparseable = True
        reading.fail(
            f"{hidden}: Claude Code reads it as plain text and ignores it; print only the "
            "JSON object"
        )
    return None


def _from_json(reading: Reading, doc: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON answer of a hook that exited 0, read as Claude Code reads it."""
    entry = reading.entry
    event = entry.event
    specific = doc.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    notice = first_text(doc.get("systemMessage"))
    if notice is not None:
        log.info("shell hook %s (%s) says: %s", entry.where, entry.command, notice)
    if doc.get("continue") is False:
        # "Takes precedence over any event-specific decision fields."
        if event == "pre_tool_call":
            return _block(first_text(doc.get("stopReason")))
        if event != "pre_verify":  # on Stop it means: let the turn end
            _unhonoured(reading, "continue: false")
        return None
    decision = directive_word(doc.get("decision"))
    context = specific.get("additionalContext")
    if event == "pre_tool_call":
        return _tool_decision(reading, doc, specific, decision)
    if event == "pre_verify":
        return _continue(first_text(doc.get("reason"))) if decision == "block" else None
    if event in ("pre_llm_call", "on_session_start"):
        if decision == "block":
            _unhonoured(reading, "decision: block")
            return None
        return {"context": context} if context is not None else None
    if decision == "block" and event == "post_tool_call":
        reason = first_text(doc.get("reason"))
        return feedback(reading, reason or f"hook {entry.command} answered decision: block")
    if decision == "block":
        _unhonoured(reading, "decision: block")
    elif context is not None:
        _unhonoured(reading, "additionalContext")
    return None


def _tool_decision(
    reading: Reading, doc: dict[str, Any], specific: dict[str, Any], decision: str
) -> dict[str, Any] | None:
    """PreToolUse: permissionDecision (and the deprecated top-level decision)."""
    entry = reading.entry
    permission = directive_word(specific.get("permissionDecision"))
    reason = first_text(specific.get("permissionDecisionReason"))
    legacy = first_text(doc.get("reason"))
    updated = specific.get("updatedInput")
    # A block anywhere in the answer wins, as for every shell hook.
    if permission == "deny":
        return _block(reason or legacy)
    if decision in ("block", "deny"):  # deprecated spellings of deny
        return _block(legacy or reason)
    if specific.get("additionalContext") is not None:
        _unhonoured(reading, "additionalContext")
    if permission == "ask":
        if isinstance(updated, dict) and updated:
            _unhonoured(reading, "updatedInput together with ask")
        approve: dict[str, Any] = {"action": "approve"}
        if reason is not None:
            approve["message"] = reason
        return approve
    if isinstance(updated, dict) and updated:
        args = spec_of(entry).context.tools.from_claude(_tool(reading), updated)
        return {"action": "modify", "args": args, "replace": True}
    return None  # allow, defer, the deprecated approve, or no decision


# -- running ----------------------------------------------------------------------------


def _cwd() -> str:
    try:
        return os.getcwd()
    except OSError:
        return ""


def _inputs(spec: ClaudeSpec, payload: Mapping[str, Any], cwd: str) -> Inputs:
    """The Claude inputs this firing shows the hook (one off tool events)."""
    if spec.event.subject != "tool":
        return Inputs([{}])
    tool = payload.get("tool_name")
    args = payload.get("args")
    return spec.context.tools.inputs(
        tool if isinstance(tool, str) else "", args if isinstance(args, Mapping) else {}, cwd
    )


def _selected(
    spec: ClaudeSpec, items: list[dict[str, Any]], payload: Mapping[str, Any], cwd: str
) -> list[dict[str, Any]]:
    """The inputs the handler's ``if:`` rule lets through (all without one)."""
    rule = spec.options.condition
    if rule is None or spec.event.subject != "tool":
        return items
    tool = payload.get("tool_name")
    name = spec.context.tools.claude_name(tool if isinstance(tool, str) else "")
    return [item for item in items if rule.matches(name, item, cwd)]


def _session(payload: Mapping[str, Any]) -> str:
    return text_or(payload.get("session_id"), text_or(payload.get("parent_session_id"), ""))


def _execute(
    entry: ShellEntry,
    payload: dict[str, Any],
    item: dict[str, Any],
    cwd: str,
    execute: Execute = run_command,
) -> tuple[RunResult, dict[str, str]]:
    """One run of the handler on one Claude input (a command through ``execute``):
    (the result, the variables it wrote to ``CLAUDE_ENV_FILE``, which are then
    exported to the session's later hooks)."""
    spec = spec_of(entry)
    tool_input = item if spec.event.subject == "tool" else None
    document = input_document(spec, payload, cwd, tool_input)
    options = spec.options
    if options.kind in MODEL_KINDS:
        llm = spec.context.llm
        if llm is None:  # refused at load; kept safe if the host's model went away
            return RunResult(error=f"{options.kind} handler needs the host's model"), {}
        prompt = model_prompt(options.prompt or "", document)
        result = model_result(
            llm,
            spec.event.name,
            prompt,
            model=options.model,
            timeout=float(entry.timeout),
            agent=options.kind == "agent",
        )
        return result, {}
    env_file = new_env_file() if spec.event.name == "SessionStart" else None
    env = environment(spec, payload, cwd, env_file)
    argv = entry.argv
    if options.shell is not None:
        argv = shell_argv(options.shell, entry.runs, argv)
    result = execute(argv, dumps(document), entry.timeout, env=env)
    if env_file is None:
        return result, {}
    values, skipped = read_env_file(env_file, env if env is not None else dict(os.environ))
    for line in skipped:
        warn_once(
            log,
            ("claude-env-file", entry.where, entry.command, line),
            "shell hook %s (%s): CLAUDE_ENV_FILE line %r is not 'export NAME=value'; ignored",
            entry.where,
            entry.command,
            line,
        )
    if values:
        spec.context.environments.update(_session(payload), values)
    return result, values


def _run_one(
    entry: ShellEntry, payload: dict[str, Any], item: dict[str, Any], cwd: str, execute: Execute
) -> Outcome:
    """One run of the handler on one Claude input, interpreted."""
    result, values = _execute(entry, payload, item, cwd, execute)
    outcome = interpret(entry, result, payload)
    if values:  # SessionStart: the exported variables are the hook's answer too
        outcome.directive = {**(outcome.directive or {}), "env": values}
    return outcome


def _combine(entry: ShellEntry, outcomes: list[Outcome]) -> Outcome:
    """One outcome for a call shown as several inputs: a block from any wins; an ask
    from any asks; a rewrite cannot be mapped back onto the whole call (warned)."""
    if len(outcomes) == 1:
        return outcomes[0]
    problem = next((o.problem for o in outcomes if o.problem), None)
    for outcome in outcomes:
        directive = outcome.directive
        if directive is not None and directive.get("action") == "block":
            return outcome
    for outcome in outcomes:
        directive = outcome.directive
        if directive is not None and directive.get("action") == "approve":
            return outcome
    if any(o.directive and o.directive.get("action") == "modify" for o in outcomes):
        warn_once(
            log,
            ("claude-unhonoured", entry.where, entry.command, "updatedInput-many"),
            "shell hook %s (%s): updatedInput is not honoured on a call shown as %d inputs "
            "(it rewrites one of them); ignored",
            entry.where,
            entry.command,
            len(outcomes),
        )
    last = outcomes[-1]
    return Outcome(last.result, None, problem, any(o.unparseable for o in outcomes))


def _partial(entry: ShellEntry, inputs: Inputs) -> Outcome | None:
    """A call the inputs do not show whole: a ``fail_closed`` gate blocks it; any other
    hook is warned (once) and sees what can be shown."""
    why = inputs.why or "it cannot be shown as Claude Code inputs"
    closed = entry.fail_closed and entry.event == "pre_tool_call"
    warn_once(
        log,
        ("claude-partial", entry.where, entry.command, why, closed),
        "shell hook %s (%s): the call cannot be shown whole (%s); %s",
        entry.where,
        entry.command,
        why,
        "blocked (fail_closed)" if closed else "the hook sees part of it",
    )
    if not closed:
        return None
    message = f"hook {entry.command} failed closed: the call cannot be shown whole ({why})"
    return Outcome(RunResult(returncode=0), {"action": "block", "message": message}, why)


def _background(entry: ShellEntry, payload: dict[str, Any]) -> None:
    """An async hook's runs, off the firing thread.  Nothing it answers decides the
    call; what it says goes to the session's next turn: an ``asyncRewake`` hook's
    stderr (stdout when empty) on exit 2, an async hook's ``systemMessage`` and
    ``additionalContext`` on exit 0.  A failed run is warned about once."""
    spec = spec_of(entry)
    cwd = _cwd()
    inputs = _inputs(spec, payload, cwd)
    if not inputs.whole:
        _partial(entry, inputs)  # async hooks cannot be fail_closed: this only warns
    for item in _selected(spec, inputs.items, payload, cwd):
        result, _ = _execute(entry, payload, item, cwd)
        if stopped():  # close() ended the run (and said so): nothing more is delivered
            return
        text = ""
        if spec.options.background == REWAKE and result.returncode == 2:
            text = stderr_text(result) or (decode_stdout(result)[0] or "")
        elif result.returncode == 0:
            text = _async_message(result)
        elif result.returncode != 2:
            reason = result.error or (
                f"timed out after {entry.timeout}s" if result.timed_out else exit_reason(result)
            )
            warn_once(
                log,
                ("claude-async", entry.where, entry.command, reason),
                "async shell hook %s (%s): %s",
                entry.where,
                entry.command,
                reason,
            )
        if text.strip():
            spec.context.sessions.put(_session(payload), text)
            log.info("async shell hook %s (%s) says: %s", entry.where, entry.command, text)


def _async_message(result: RunResult) -> str:
    """The ``systemMessage`` and ``additionalContext`` of a finished async hook."""
    text, _ = decode_stdout(result)
    if not text or not text.startswith("{"):
        return ""
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):
        return ""
    if not isinstance(doc, dict):
        return ""
    specific = doc.get("hookSpecificOutput")
    context = specific.get("additionalContext") if isinstance(specific, dict) else None
    parts = [p for p in (first_text(doc.get("systemMessage")), first_text(context)) if p]
    return "\n\n".join(parts)


# -- the dialect ----------------------------------------------------------------------------


class ClaudeCodeDialect:
    """The Claude Code dialect as a :class:`~hermes_hooks.shell.dialect.Dialect`."""

    name = DIALECT_NAME
    title = "Claude Code"
    events: Mapping[str, str] = {row.name: row.event for row in EVENTS}
    unmapped: Mapping[str, str] = UNMAPPED_EVENTS
    tool_names: Sequence[tuple[str, str]] = tuple((row.tool, row.claude) for row in DEFAULT_TOOLS)

    def stand_in(self, raw: Mapping[str, Any]) -> tuple[str, str | None] | None:
        """A ``type: prompt`` or ``type: agent`` handler is answered by the host's
        model: its argv is the type, and its prompt the consent key when it has no
        command."""
        kind = raw.get("type")
        if not isinstance(kind, str) or kind not in MODEL_KINDS:
            return None
        prompt = raw.get("prompt")
        return kind, (f"{kind}: {prompt.strip()}" if isinstance(prompt, str) else None)

    def read_matcher(
        self,
        event: str,
        raw: Mapping[str, Any],
        declared: str | None,
        warn: Warn,
        block: Block,
    ) -> EntryMatcher:
        """Claude's matcher rules, the entry's Claude event and handler options
        (:func:`read_spec`), with the tables the block's claude-code entries share."""
        text, spec = read_spec(event, raw, declared, self._context(block), warn)
        options = spec.options
        variables = plugin_variables(
            options.shell, options.plugin_root, options.plugin_data, raw.get("command")
        )
        return EntryMatcher(text, spec, spec.event.name, variables)

    def _context(self, block: Block) -> ClaudeContext:
        """What the claude-code entries of ``block`` share, read once: the tool table
        (with the config's ``hooks_claude_tools``) and what the host lends."""
        context = block.shared.get(self.name)
        if isinstance(context, ClaudeContext):
            return context
        tools = tool_table(
            block.config,
            lambda message, narrows=False: block.warn(TOOLS_KEY, message, narrows),
        )
        llm, transcripts = host_capabilities(block.host)
        context = ClaudeContext(tools, llm=llm, transcripts=transcripts)
        block.shared[self.name] = context
        return context

    def describe(self, entry: ShellEntry) -> list[str]:
        """``dialect=claude-code (PreToolUse)`` and the handler options that are set."""
        spec = spec_of(entry)
        parts = [f"dialect={entry.dialect} ({spec.event.name})"]
        options = spec.options
        if options.kind != "command":
            parts.append(f"type={options.kind}")
        if options.background is not None:
            parts.append("asyncRewake" if options.background == REWAKE else "async")
        if options.condition is not None:
            parts.append(f"if={options.condition.text!r}")
        if options.plugin_root is not None:
            parts.append(f"plugin={options.plugin_root}")
        if options.shell is not None:
            parts.append(f"shell={options.shell}")
        return parts

    def loaded(self, entries: list[ShellEntry], manager: HookManager, owner: str) -> None:
        """SessionStart context, and what background hooks say, reach the model
        through ``pre_llm_call``: register the block's waiting texts there when an
        entry can leave some."""
        talkers = [
            spec_of(entry)
            for entry in entries
            if entry.event == "on_session_start" or spec_of(entry).options.background
        ]
        if talkers:
            register_session_context(manager, owner, talkers[0].context)
        critics = [
            spec_of(entry)
            for entry in entries
            if entry.event == "post_tool_call" and not spec_of(entry).options.background
        ]
        if critics:
            register_tool_feedback(manager, owner, critics[0].context.feedback)

    def matches(self, entry: ShellEntry, tool_name: Any) -> bool:
        """Claude Code's rules on Claude's name of the tool (always, off tool events)."""
        return spec_of(entry).matches_tool(tool_name, entry.origin)

    def fires(self, entry: ShellEntry, payload: dict[str, Any]) -> bool:
        """Whether Claude Code would run the hook for this firing: its matcher, and its
        ``if:`` rule on at least one of the call's inputs."""
        spec = spec_of(entry)
        if not spec.fires(payload, entry.origin):
            return False
        if spec.options.condition is None:
            return True
        cwd = _cwd()
        return bool(_selected(spec, _inputs(spec, payload, cwd).items, payload, cwd))

    def fire(self, entry: ShellEntry, payload: dict[str, Any]) -> Directive | Degraded | None:
        """Run and deliver; an ``async`` or ``asyncRewake`` hook starts in the
        background instead and the firing returns nothing at once."""
        spec = spec_of(entry)
        if spec.options.background is None:
            outcome = self.run(entry, payload)
            return delivered(self.deliver(entry, payload, outcome), outcome)
        # The transcript as of this firing, asked for here: once the host has moved on
        # (or ended the session) its provider would give a later file, or none.
        transcript = transcript_for(spec, payload)
        if transcript is not None:
            payload = {**payload, "transcript_path": transcript}
        BACKGROUND.start(lambda: _background(entry, payload), f"{entry.where} ({entry.command})")
        return None

    def run(
        self, entry: ShellEntry, payload: dict[str, Any], execute: Execute = run_command
    ) -> Outcome:
        """Run the handler in line, once per Claude input of the call (those its
        ``if:`` lets through), each command through ``execute``; any block blocks the
        call.  ``hermes-hooks test`` and ``doctor`` call this directly, so they see an
        async hook's answer too."""
        spec = spec_of(entry)
        cwd = _cwd()
        inputs = _inputs(spec, payload, cwd)
        if not inputs.whole:
            refused = _partial(entry, inputs)
            if refused is not None:
                return refused
        items = _selected(spec, inputs.items, payload, cwd)
        outcomes: list[Outcome] = []
        for item in items:
            outcome = _run_one(entry, payload, item, cwd, execute)
            outcomes.append(outcome)
            if outcome.directive is not None and outcome.directive.get("action") == "block":
                break  # any block blocks the whole call
        if not outcomes:
            return Outcome(RunResult(returncode=0), None, None)
        return _combine(entry, outcomes)

    def deliver(
        self, entry: ShellEntry, payload: dict[str, Any], outcome: Outcome
    ) -> Directive | None:
        """What the dispatcher receives for this firing.  SessionStart context waits for
        the session's first ``pre_llm_call`` instead (:class:`SessionContexts`); the
        variables the hook wrote to ``CLAUDE_ENV_FILE`` are its answer (``env``)."""
        directive = outcome.directive
        if entry.event == "on_session_start":
            context = directive.get("context") if directive is not None else None
            text = str(context) if context is not None else ""
            if text.strip():  # Blank context counts for nothing
                spec_of(entry).context.sessions.put(_session(payload), text)
            env = directive.get("env") if directive is not None else None
            return {"env": env} if env else None
        if entry.event == "post_tool_call":
            # Observed only: the reason reaches the model through transform_tool_result.
            reason = directive.get("feedback") if directive is not None else None
            if isinstance(reason, str):
                spec_of(entry).context.feedback.put(
                    _session(payload), text_or(payload.get("tool_call_id"), ""), reason
                )
            return None
        return directive


#: The one instance the adapter uses.
DIALECT = ClaudeCodeDialect()


# -- SessionStart context -----------------------------------------------------------------


def register_session_context(manager: HookManager, owner: str, context: ClaudeContext) -> bool:
    """Register ``context.sessions`` as a ``pre_llm_call`` shell callback of ``owner``,
    ahead of the ``pre_llm_call`` shell entries; False if the manager refused it."""
    try:
        manager.register_callback(
            "pre_llm_call",
            context.sessions,
            owner=owner,
            group=Group.SHELL,
            rank=-1,
            name="claude-code SessionStart context",
            policy=SHELL_CALLBACKS,
        )
    except PluginLoadError as exc:
        log.warning("%s", exc)
        return False
    return True

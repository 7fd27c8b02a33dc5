"""Generate ``docs/hooks.md``: one section per catalogue hook, from the catalogue.

``python -m hermes_hooks._docs docs/hooks.md`` rewrites the file; a test fails when the
checked-in copy drifts from the catalogue.
"""

from __future__ import annotations

import sys
from pathlib import Path

from hermes_hooks._contract import Contract, Selection, ShellUse
from hermes_hooks.hookspecs import CATALOGUE, SPEC_MODULES

__all__ = ["render_hooks_md"]

_RETURNS = {
    Selection.IGNORE: "Ignored.",
    Selection.TOOL_DECISION: (
        "Every callback runs. Any valid block wins (the first block's message is used), "
        "else the first valid approve, else the accumulated modifies. "
        "The host receives a `ToolDecision`."
    ),
    Selection.COLLECT_CONTEXT: (
        'Every non-blank string or `{"context": ...}` is collected in callback order '
        "and joined with one blank line; the host appends it to the user message."
    ),
    Selection.FIRST_STRING: (
        'The first `str` replaces the content (`""` included); `None` keeps it.'
    ),
    Selection.FIRST_NONEMPTY_STRING: (
        'The first non-empty `str` replaces the response; `None` and `""` keep it.'
    ),
    Selection.FIELD_MERGE: (
        "Dicts of `prompt` / `language` / `model` strings, applied in callback order, "
        'last writer wins per field; `""` unsets. The host receives a '
        "`TranscriptionRequest`."
    ),
    Selection.VERIFY_DIRECTIVE: (
        'The first valid `{"action": "continue", "message": ...}` (or '
        '`{"decision": "block", "reason": ...}`) keeps the turn going.'
    ),
    Selection.ERROR_CLASSIFICATION: (
        "The first dict with a valid `reason` wins; the host receives an "
        "`ErrorClassification` or `None`."
    ),
    Selection.DISPATCH_ACTION: (
        "The first recognised `skip` / `rewrite` / `allow` dict decides; the host "
        "receives a `DispatchDecision` or `None`."
    ),
}

_SHELL = {
    ShellUse.REFUSED: "no — refused at config read with a warning",
    ShellUse.OBSERVE: "yes, as an observer (its output is ignored)",
    ShellUse.DIRECTIVE: "yes, and its directives are honoured",
}

_EXAMPLE_BODY = {
    Selection.IGNORE: '    log.info("{name} fired for session %s", kwargs.get("session_id"))\n',
    Selection.TOOL_DECISION: (
        '    if tool_name == "terminal" and "rm -rf /" in args.get("command", ""):\n'
        '        return {{"action": "block", "message": "rm -rf / is not allowed"}}\n'
        "    return None\n"
    ),
    Selection.COLLECT_CONTEXT: '    return {{"context": "Today is a working day."}}\n',
    Selection.FIRST_STRING: "    return None  # or a replacement string\n",
    Selection.FIRST_NONEMPTY_STRING: "    return None  # or a replacement string\n",
    Selection.FIELD_MERGE: '    return {{"prompt": "Hermes, kanban"}}\n',
    Selection.VERIFY_DIRECTIVE: (
        "    if attempt:\n        return None\n"
        '    return {{"action": "continue", "message": "Run the formatter, then finish."}}\n'
    ),
    Selection.ERROR_CLASSIFICATION: (
        '    if provider == "my-provider" and status_code == 404:\n'
        '        return {{"reason": "model_not_found", "retryable": False}}\n'
        "    return None\n"
    ),
    Selection.DISPATCH_ACTION: '    return None  # or {{"action": "skip"}}\n',
}


def _params(contract: Contract, selection: Selection) -> str:
    wanted = {
        Selection.TOOL_DECISION: ["tool_name", "args"],
        Selection.VERIFY_DIRECTIVE: ["attempt"],
        Selection.ERROR_CLASSIFICATION: ["provider", "status_code"],
    }.get(selection, [])
    return "".join(f"{name}, " for name in wanted) + "**kwargs"


def _example(contract: Contract) -> str:
    body = _EXAMPLE_BODY[contract.selection].format(name=contract.name)
    header = "import logging\n\nlog = logging.getLogger(__name__)\n\n\n" if "log." in body else ""
    return (
        "```python\n"
        f"{header}"
        f"def {contract.name}({_params(contract, contract.selection)}):\n"
        f"{body}\n\n"
        "def register(ctx):\n"
        f'    ctx.register_hook("{contract.name}", {contract.name})\n'
        "```\n"
    )


def _markdown(doc: str) -> str:
    """The hookspec docstring as Markdown: the kind sentence dropped (shown above),
    reST literals turned into code spans, indented continuation lines joined."""
    paragraphs = []
    for paragraph in doc.split("\n\n")[1:]:
        lines = [line.strip() for line in paragraph.splitlines()]
        paragraphs.append(" ".join(lines).replace("``", "`"))
    return "\n\n".join(paragraphs)


def _section(contract: Contract) -> str:
    policy = contract.policy
    bound = "bounded by `plugins.hook_callback_timeout`" if policy.bounded else "not time-limited"
    failure = (
        "fails **closed** (a raising or timed-out callback blocks the call)"
        if contract.fail_closed
        else "fails open (a raising or timed-out callback is skipped)"
    )
    webhook = "yes (notification only)" if contract.webhooks else "no (one POST per token)"
    rows = "".join(f"| `{f.name}` | `{f.type}` |\n" for f in contract.fields)
    marker = (
        'Every callback also receives `telemetry_schema_version="hermes.observer.v1"`.\n\n'
        if contract.marker
        else "This hook never carries `telemetry_schema_version`.\n\n"
    )
    return (
        f"## `{contract.name}`\n\n"
        f"- **Kind:** {contract.kind.value}\n"
        f"- **Returns:** {_RETURNS[contract.selection]}\n"
        f"- **Runs:** {bound}, on thread `{policy.thread.value}`; {failure}.\n"
        f"- **Python plugins:** yes. **Shell hooks:** {_SHELL[contract.shell]}. "
        f"**Outbound webhooks:** {webhook}.\n\n"
        f"{_markdown(contract.doc)}\n\n"
        "| Field | Type |\n|---|---|\n"
        f"{rows}\n"
        f"{marker}"
        f"{_example(contract)}\n"
    )


def render_hooks_md() -> str:
    """The whole ``docs/hooks.md`` text."""
    parts = [
        "# Hook reference\n\n"
        "Generated from the catalogue (`hermes_hooks/hookspecs/`) by "
        "`python -m hermes_hooks._docs docs/hooks.md`; do not edit by hand. "
        "Every callback is called with keyword arguments only: declare the fields you "
        "use and accept `**kwargs` for the rest.\n\n"
    ]
    for module in SPEC_MODULES:
        names = [n for n, c in CATALOGUE.items() if getattr(module, n, None) is not None]
        title = (module.__doc__ or module.__name__).splitlines()[0].rstrip(".")
        parts.append(f"# {title}\n\n")
        parts.extend(_section(CATALOGUE[name]) for name in names)
    return "".join(parts).rstrip() + "\n"


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/hooks.md")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render_hooks_md(), encoding="utf-8")
    print(f"wrote {target}")

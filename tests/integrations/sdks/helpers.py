"""A real Hermes home for the SDK adapter tests: a Python directory plugin and shell
hooks, each writing what it saw to a log in the home, so a test reads which fired."""

from __future__ import annotations

import json
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import hermes_hooks
from hermes_hooks.hooks import Hooks

#: The context the plugin's ``pre_llm_call`` adds; the shell hook adds SHELL_CONTEXT.
PLUGIN_CONTEXT = "plugin says: the repository is clean"
SHELL_CONTEXT = "shell says: it is Tuesday"
#: The shell gate's block message for ``rm -rf``.
SHELL_BLOCK = "rm -rf is not allowed here"
#: The plugin's block message for the ``delete_everything`` tool.
PLUGIN_BLOCK = "the guard plugin refuses delete_everything"
#: The fail-closed block of the plugin's gate when it raises (for ``crash_the_gate``).
CRASH_BLOCK = "pre_tool_call plugin callback gate raised RuntimeError: the gate itself crashed"

_PLUGIN = """
import json
from pathlib import Path

LOG = Path(__file__).resolve().parents[2] / "fired.jsonl"


def _note(hook, **fields):
    with LOG.open("a", encoding="utf-8") as out:
        out.write(json.dumps({"by": "plugin", "hook": hook, **fields}) + "\\n")


def gate(tool_name, args, **kwargs):
    _note("pre_tool_call", tool=tool_name, args=args)
    if tool_name == "delete_everything":
        return {"action": "block", "message": "@BLOCK@"}
    if tool_name == "crash_the_gate":
        raise RuntimeError("the gate itself crashed")
    if tool_name == "ask_first":
        return {"action": "approve", "message": "a human should look"}
    if args.get("command") == "ls":
        return {"action": "modify", "args": {"command": "ls -la"}}
    return None


def context(user_message, **kwargs):
    _note("pre_llm_call", user_message=user_message)
    return {"context": "@CONTEXT@"}


def after(tool_name, result, status, **kwargs):
    _note("post_tool_call", tool=tool_name, result=result, status=status)


def transform(tool_name, result, **kwargs):
    if tool_name == "shout":
        return result.upper()
    return None


def session(hook):
    def fire(session_id, **kwargs):
        _note(hook, session_id=session_id)
    return fire


def final(response_text, **kwargs):
    _note("transform_llm_output", text=response_text)
    if response_text == "say it loud":
        return "SAID LOUD"
    return None


def post_llm(assistant_response, **kwargs):
    _note("post_llm_call", response=assistant_response)


def subagent(hook):
    def fire(**kwargs):
        _note(hook, child=kwargs.get("child_subagent_id") or kwargs.get("child_status"))
    return fire


def register(ctx):
    ctx.register_hook("pre_tool_call", gate)
    ctx.register_hook("pre_llm_call", context)
    ctx.register_hook("post_tool_call", after)
    ctx.register_hook("transform_tool_result", transform)
    ctx.register_hook("on_session_start", session("on_session_start"))
    ctx.register_hook("on_session_end", session("on_session_end"))
    ctx.register_hook("transform_llm_output", final)
    ctx.register_hook("post_llm_call", post_llm)
    ctx.register_hook("subagent_start", subagent("subagent_start"))
    ctx.register_hook("subagent_stop", subagent("subagent_stop"))
""".replace("@BLOCK@", PLUGIN_BLOCK).replace("@CONTEXT@", PLUGIN_CONTEXT)

# The shell gate reads the Hermes payload on stdin and blocks `rm -rf`; every firing
# is noted in the same log.
_GATE = """#!/usr/bin/env python3
import json, sys
from pathlib import Path
doc = json.load(sys.stdin)
log = Path(sys.argv[1])
with log.open("a", encoding="utf-8") as out:
    out.write(json.dumps({"by": "shell", "hook": doc["hook_event_name"],
                          "tool": doc.get("tool_name")}) + "\\n")
command = (doc.get("tool_input") or {}).get("command", "")
if "rm -rf" in command:
    print(json.dumps({"decision": "block", "reason": "@BLOCK@"}))
else:
    print("{}")
""".replace("@BLOCK@", SHELL_BLOCK)

_CONTEXT = """#!/usr/bin/env python3
import json, sys
from pathlib import Path
doc = json.load(sys.stdin)
with Path(sys.argv[1]).open("a", encoding="utf-8") as out:
    out.write(json.dumps({"by": "shell", "hook": doc["hook_event_name"]}) + "\\n")
print(json.dumps({"context": "@CONTEXT@"}))
""".replace("@CONTEXT@", SHELL_CONTEXT)


def _script(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def make_home(root: Path, gate_matcher: str = "run_shell") -> Path:
    """A Hermes home with the guard plugin and the two shell hooks (the shell gate on
    the tools ``gate_matcher`` matches)."""
    home = root / "hermes-home"
    plugin = home / "plugins" / "guard"
    plugin.mkdir(parents=True)
    (plugin / "plugin.yaml").write_text("name: guard\nversion: '1.0'\n", encoding="utf-8")
    (plugin / "__init__.py").write_text(_PLUGIN, encoding="utf-8")
    scripts = home / "scripts"
    scripts.mkdir()
    log = home / "fired.jsonl"
    gate = _script(scripts / "gate.py", _GATE)
    context = _script(scripts / "context.py", _CONTEXT)
    (home / "config.yaml").write_text(
        "hooks:\n"
        "  pre_tool_call:\n"
        f"    - matcher: {gate_matcher}\n"
        f'      command: "{gate} {log}"\n'
        "      timeout: 20\n"
        "  pre_llm_call:\n"
        f'    - command: "{context} {log}"\n'
        "      timeout: 20\n",
        encoding="utf-8",
    )
    return home


def load_home(home: Path, **settings: Any) -> Hooks:
    """The home's hooks, shell hooks accepted (the test wrote them itself)."""
    return hermes_hooks.load(home, accept_hooks=True, entry_points=False, **settings)


def fired(home: Path) -> list[dict[str, Any]]:
    """Every note the plugin and the shell hooks wrote, in order."""
    log = home / "fired.jsonl"
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


class BrokenFacade:
    """Real hooks whose ``broken`` facade methods raise, as an adapter bug would: the
    adapter's own failure path, not the dispatcher's (which isolates callbacks)."""

    def __init__(self, hooks: Hooks, *broken: str) -> None:
        self._hooks = hooks
        self._broken = set(broken)

    def __getattr__(self, name: str) -> Any:
        if name in self._broken:

            def fail(**payload: Any) -> Any:
                raise KeyError(f"adapter bug in {name}")

            return fail
        return getattr(self._hooks, name)


def recording_tools(ran: list[str]) -> list[Callable[..., str]]:
    """The tools every SDK test offers its model, as plain functions (each SDK's own
    decorator turns them into its tools): each appends what it was asked to ``ran``, so a
    test tells which ran; the gates block some of them by name."""

    def run_shell(command: str) -> str:
        """Run a shell command."""
        ran.append(command)
        return f"ran: {command}"

    def delete_everything(path: str) -> str:
        """Delete everything under path."""
        ran.append(f"delete {path}")
        return "deleted"

    def crash_the_gate(path: str) -> str:
        """A tool whose gate crashes."""
        ran.append(f"crash {path}")
        return "crashed"

    def ask_first(path: str) -> str:
        """A tool the gate wants approved."""
        ran.append(f"ask {path}")
        return "asked"

    def shout(text: str) -> str:
        """Say it loud."""
        ran.append(f"shout {text}")
        return text

    return [run_shell, delete_everything, crash_the_gate, ask_first, shout]

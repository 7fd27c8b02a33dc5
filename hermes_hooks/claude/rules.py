"""Claude Code permission rules, as a handler's ``if:`` condition reads them.

A handler with ``if: "Bash(git *)"`` runs only for a call the rule matches (Claude
Code's *Common fields* and *Permissions*).  A rule is ``Tool`` or
``Tool(specifier)``, on Claude's tool name and ``tool_input``:

* ``Bash(<pattern>)``: the pattern is matched against every simple command bash can
  run for the command line, found with a real bash grammar
  (:mod:`bash_commands`): in lists, pipelines, subshells, groups, control structures,
  functions, command and process substitutions, and again through the programs that
  run another (``sudo``, ``env``, ``timeout``, ``xargs``, ``find -exec``, ``bash -c``,
  ``eval``, …).  Each is matched as its words after quote removal, joined by spaces,
  leading ``NAME=value`` assignments removed, and once more with the program's
  directory removed (``/bin/rm`` is ``rm``); ``*`` matches any text, ``cmd *`` also
  matches ``cmd`` alone, and the older ``prefix:*`` means ``prefix *``.  The rule
  fails to match only when the command provably runs no matching program: anything
  the analysis cannot resolve (a parse error, an expansion in command position, a
  brace or pathname pattern there, a shell reading a script) matches, so a gate
  always runs when in doubt.  Words known only at run time (``rm $target``, what
  ``xargs`` appends) match whatever they could be.
* ``Read``/``Edit``/``Write``/``MultiEdit``/``NotebookEdit``/``Glob``/``Grep``
  ``(<path pattern>)``: gitignore-style; a pattern without ``/`` matches the file
  name anywhere, ``/x`` and ``./x`` are relative to the working directory, ``//x``
  is absolute, ``~/x`` is under the home directory; ``*`` stays within one directory
  and ``**`` crosses them.
* ``WebFetch(domain:<host>)``: the URL's host (``*.example.com`` for subdomains).
* ``Task(<name>)``/``Agent(<name>)``: the subagent type.
* ``mcp__server`` matches every tool of that server, ``mcp__server__*`` too.

Anything else is refused when the entry is read (:func:`parse_rule` raises), so a
condition is never silently dropped.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from hermes_hooks.claude.bash_commands import commands_run

__all__ = ["PermissionRule", "parse_rule"]

_RULE = re.compile(r"\s*([A-Za-z0-9_*\-]+)\s*(?:\((.*)\))?\s*", re.DOTALL)
_PATH_TOOLS = frozenset({"Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "Glob", "Grep"})
_PATH_FIELDS = ("file_path", "notebook_path", "path")
_AGENT_TOOLS = frozenset({"Task", "Agent"})


@dataclass(frozen=True)
class PermissionRule:
    """One parsed rule: Claude's tool name and an optional specifier."""

    text: str
    tool: str
    specifier: str | None = None

    def matches(self, tool: str, tool_input: Mapping[str, Any], cwd: str) -> bool:
        """Whether Claude's ``tool`` with ``tool_input`` (run in ``cwd``) matches."""
        if not _tool_matches(self.tool, tool):
            return False
        spec = self.specifier
        if spec is None or spec in ("", "*"):
            return True
        if self.tool == "Bash":
            command = tool_input.get("command")
            return isinstance(command, str) and _bash_matches(spec, command)
        if self.tool in _PATH_TOOLS:
            path = next(
                (tool_input[f] for f in _PATH_FIELDS if isinstance(tool_input.get(f), str)), None
            )
            return path is not None and _path_matches(spec, path, cwd)
        if self.tool == "WebFetch":
            url = tool_input.get("url")
            return isinstance(url, str) and _domain_matches(spec, url)
        agent = tool_input.get("subagent_type")
        return isinstance(agent, str) and fnmatch.fnmatchcase(agent, spec)


def parse_rule(text: Any) -> PermissionRule:
    """The rule in ``text``; ``ValueError`` naming the problem when it is not one this
    dialect can evaluate (a condition that cannot be honoured is refused)."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("if: must be one permission rule such as 'Bash(git *)'")
    found = _RULE.fullmatch(text)
    if found is None:
        raise ValueError(f"if: {text!r} is not a permission rule (Tool or Tool(specifier))")
    tool, spec = found.group(1), found.group(2)
    if spec is not None:
        spec = spec.strip()
        supported = (
            tool == "Bash"
            or tool in _PATH_TOOLS
            or tool in _AGENT_TOOLS
            or (tool == "WebFetch" and spec.startswith("domain:"))
        )
        if not supported:
            raise ValueError(
                f"if: {text!r}: a specifier on {tool} is not one this dialect evaluates "
                "(Bash, file tools, WebFetch(domain:...), Task/Agent)"
            )
    return PermissionRule(text.strip(), tool, spec)


def _tool_matches(rule: str, tool: str) -> bool:
    if rule == tool:
        return True
    if rule.startswith("mcp__"):
        server = rule[:-3] if rule.endswith("__*") else rule
        return server.count("__") == 1 and tool.startswith(server + "__")
    return False


# -- Bash --------------------------------------------------------------------------------


def _bash_pattern(spec: str) -> re.Pattern[str]:
    if spec.endswith(":*"):
        spec = spec[:-2] + " *"
    body = "".join(".*" if c == "*" else re.escape(c) for c in spec)
    if spec.endswith(" *"):  # "git *" also matches a bare "git"
        body = body[: -len(re.escape(" ") + ".*")] + r"(?:\s.*)?"
    return re.compile(body, re.DOTALL)


def _bash_matches(spec: str, command: str) -> bool:
    """Whether ``command`` may run a simple command the pattern matches (True when
    that cannot be ruled out)."""
    found = commands_run(command)
    if found is None:
        return True
    pattern = _bash_pattern(spec)
    for simple in found:
        text = " ".join(simple.words)
        if pattern.fullmatch(text) or (simple.open and _could_extend(spec, text)):
            return True
    return False


def _could_extend(spec: str, text: str) -> bool:
    """Whether some text starting with ``text`` matches the pattern ``spec`` (the words
    that follow are known only at run time, so they could be anything)."""
    if spec.endswith(":*"):
        spec = spec[:-2] + " *"
    states = {0}  # positions in spec reached after reading a prefix of text
    for char in text:
        reached: set[int] = set()
        for position in _closure(spec, states):
            if position < len(spec) and (spec[position] == "*" or spec[position] == char):
                reached.add(position if spec[position] == "*" else position + 1)
        if not reached:
            return False
        states = reached
    return True  # what follows can complete the pattern literally


def _closure(spec: str, states: set[int]) -> set[int]:
    """``states`` and every position after a run of ``*`` (which may match nothing)."""
    out = set(states)
    for position in states:
        while position < len(spec) and spec[position] == "*":
            position += 1
            out.add(position)
    return out


# -- paths and domains ------------------------------------------------------------------


def _glob(pattern: str) -> re.Pattern[str]:
    out, index = [], 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
        elif pattern.startswith("**", index):
            out.append(".*")
            index += 2
        elif pattern[index] == "*":
            out.append("[^/]*")
            index += 1
        elif pattern[index] == "?":
            out.append("[^/]")
            index += 1
        else:
            out.append(re.escape(pattern[index]))
            index += 1
    return re.compile("".join(out), re.DOTALL)


def _path_matches(spec: str, path: str, cwd: str) -> bool:
    absolute = os.path.normpath(os.path.join(cwd or "/", os.path.expanduser(path)))
    if spec.startswith("//"):
        anchored = spec[1:]
    elif spec.startswith("~/"):
        anchored = os.path.expanduser("~") + spec[1:]
    elif spec.startswith(("/", "./")):
        anchored = os.path.join(
            cwd or "/", spec.lstrip("./") if spec.startswith("./") else spec[1:]
        )
    elif "/" in spec:
        anchored = os.path.join(cwd or "/", spec)
    else:  # no slash: the name anywhere, as in .gitignore
        return _glob(spec).fullmatch(os.path.basename(absolute)) is not None
    return _glob(anchored).fullmatch(absolute) is not None


def _domain_matches(spec: str, url: str) -> bool:
    domain = spec[len("domain:") :].strip().lower()
    host = (urlsplit(url).hostname or "").lower()
    if domain.startswith("*."):
        return host.endswith(domain[1:])
    return host == domain

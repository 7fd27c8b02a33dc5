"""Tool names as the agents name MCP tools: ``mcp__<server>__<tool>``.

Claude Code and Hermes Agent both name a tool of an MCP server ``mcp__`` + the server's
name in the client's configuration + ``__`` + the tool's own name, with every character
outside ``[A-Za-z0-9_-]`` replaced by ``_``.  The proxy fires hooks under that name, so a
matcher or a Claude Code ``PreToolUse`` entry written for the unproxied server (say
``mcp__files__.*``) matches the proxied one unchanged, as long as ``--name`` is the key
of the server in the client's configuration.
"""

from __future__ import annotations

import os
import re

__all__ = ["default_server_name", "hook_tool_name", "normalise"]

_OUTSIDE = re.compile(r"[^A-Za-z0-9_-]")


def normalise(name: str) -> str:
    """``name`` with the characters the agents replace replaced by ``_``."""
    return _OUTSIDE.sub("_", name)


def hook_tool_name(server: str, tool: str) -> str:
    """The name hooks see for ``tool`` of ``server``."""
    return f"mcp__{normalise(server)}__{normalise(tool)}"


def default_server_name(command: list[str]) -> str:
    """A server name from the upstream command when ``--name`` is not given: the stem
    of its last argument that is not an option (``npx -y @scope/server-files`` →
    ``server-files``), else of the program."""
    words = [w for w in command if not w.startswith("-")] or command or ["upstream"]
    stem = os.path.basename(words[-1].rstrip("/")) or "upstream"
    return normalise(stem.rsplit(".", 1)[0] if stem.endswith((".py", ".js")) else stem)

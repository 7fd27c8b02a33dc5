"""Between MCP tool results and the hook payload's ``result`` string.

Hooks see a tool result as the text a model reads: the text blocks of ``content``
joined by newlines, any other block as its JSON.  A ``transform_tool_result`` answer
replaces the content with one text block; ``structuredContent`` cannot be derived from
free text, so it is replaced only in the SDK's shape for plain returns
(``{"result": "<text>"}``) and dropped otherwise (a client that validates an output
schema then reports the call as failed: what a redaction needs, never the old data).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["block_result", "refusal_result", "replace_result", "result_text"]


def result_text(result: dict[str, Any]) -> str:
    """The hook payload's ``result`` for an MCP ``CallToolResult`` (as a dict)."""
    parts = []
    for block in result.get("content") or []:
        if isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        else:
            parts.append(json.dumps(block, ensure_ascii=False, sort_keys=True))
    return "\n".join(parts)


def replace_result(result: dict[str, Any], text: str) -> dict[str, Any]:
    """``result`` with its content replaced by ``text`` (see the module docstring)."""
    replaced = {k: v for k, v in result.items() if k != "structuredContent"}
    replaced["content"] = [{"type": "text", "text": text}]
    structured = result.get("structuredContent")
    if isinstance(structured, dict) and set(structured) == {"result"}:
        replaced["structuredContent"] = {"result": text}
    return replaced


def block_result(message: str, modern: bool = False) -> dict[str, Any]:
    """The ``CallToolResult`` a blocked call gets: an error result with the message,
    so the model reads why (as it does for a tool that failed).  ``modern``: the
    request came on a stateless protocol version (its ``_meta`` names the version),
    whose results say they are complete."""
    result: dict[str, Any] = {"content": [{"type": "text", "text": message}], "isError": True}
    if modern:
        result["resultType"] = "complete"
    return result


refusal_result = block_result  # a refused (hidden) tool answers the same way

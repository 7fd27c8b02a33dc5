"""tool-counter: a minimal directory plugin (the README's example).

It counts tool calls per tool in ``post_tool_call`` and injects a one-line summary
into each turn through ``pre_llm_call``.
"""

from collections import Counter

calls: Counter[str] = Counter()


def count_call(tool_name, **kwargs):
    calls[tool_name] += 1


def summarise(**kwargs):
    if not calls:
        return None
    counts = ", ".join(f"{name}={n}" for name, n in sorted(calls.items()))
    return {"context": f"Tool calls so far: {counts}"}


def register(ctx):
    ctx.register_hook("post_tool_call", count_call)
    ctx.register_hook("pre_llm_call", summarise)

"""guard: the policy the SDK examples run under.

``pre_tool_call`` blocks a shell command containing ``rm -rf`` (whatever the SDK calls
its shell tool); ``pre_llm_call`` adds one line of context to every turn.
"""

SHELL_TOOLS = {"run_shell", "terminal"}


def no_rm_rf(tool_name, args, **kwargs):
    command = args.get("command") if isinstance(args, dict) else None
    if tool_name in SHELL_TOOLS and isinstance(command, str) and "rm -rf" in command:
        return {"action": "block", "message": "guard: rm -rf is not allowed"}
    return None


def house_rules(**kwargs):
    return {"context": "House rules: never delete files."}


def register(ctx):
    ctx.register_hook("pre_tool_call", no_rm_rf)
    ctx.register_hook("pre_llm_call", house_rules)

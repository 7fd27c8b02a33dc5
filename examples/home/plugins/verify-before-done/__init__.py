"""verify-before-done: a pre_verify example for the example home.

When a turn edited Python files, the first would-be final response is held back once
with a nudge to run the tests (``attempt`` keeps it to one nudge per turn, as the
spec's guidance says).
"""


def verify(coding, attempt, changed_paths, **kwargs):
    if attempt or not coding:
        return None
    if not any(path.endswith(".py") for path in changed_paths):
        return None
    return {
        "action": "continue",
        "message": "You edited Python files: run their tests before you finish.",
    }


def register(ctx):
    ctx.register_hook("pre_verify", verify)

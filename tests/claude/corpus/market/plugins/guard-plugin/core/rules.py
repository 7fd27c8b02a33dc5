"""Rules of the guard plugin: (tool, regular expression on the command, message)."""

import re

RULES = [
    (
        "Bash",
        re.compile(r"\brm\s+-[a-zA-Z]*r[a-zA-Z]*f|\brm\s+-[a-zA-Z]*f[a-zA-Z]*r"),
        "rm -rf is blocked by guard-plugin",
    ),
    ("Bash", re.compile(r"\bchmod\s+-R\s+777\b"), "chmod -R 777 is blocked by guard-plugin"),
]


def evaluate(tool, tool_input):
    """The message of the first rule the call breaks, or None."""
    command = tool_input.get("command", "")
    for name, pattern, message in RULES:
        if name == tool and pattern.search(command):
            return message
    return None

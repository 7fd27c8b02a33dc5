"""secret-redaction: replace secret-shaped strings in tool results with ``[REDACTED]``.

A ``transform_tool_result`` plugin (the spec's EX-27): every tool result passes it after
``post_tool_call`` and before the model sees it.  The built-in pattern is EX-27's
``sk-[A-Za-z0-9]{32,}``; ``secret_redaction.patterns`` in ``<home>/config.yaml`` adds
more regular expressions (an invalid one is logged and skipped).  A result without a
match is left alone (the callback returns None), so other transforms still apply.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import yaml

__all__ = ["DEFAULT_PATTERNS", "REPLACEMENT", "Redactor", "register"]

log = logging.getLogger("hermes_secret_redaction")

#: EX-27's secret shape (OpenAI-style API keys).
DEFAULT_PATTERNS: tuple[str, ...] = (r"sk-[A-Za-z0-9]{32,}",)

#: What a secret becomes.
REPLACEMENT = "[REDACTED]"


def _config_patterns(home: Path) -> list[str]:
    try:
        data = yaml.safe_load((home / "config.yaml").read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        return []
    except (OSError, yaml.YAMLError) as exc:
        log.warning("secret-redaction: cannot read %s (%s)", home / "config.yaml", exc)
        return []
    section = data.get("secret_redaction") if isinstance(data, dict) else None
    patterns = section.get("patterns") if isinstance(section, dict) else None
    if patterns is None:
        return []
    if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
        log.warning(
            "secret-redaction: %s: secret_redaction.patterns must be a list of regular "
            "expressions; ignored",
            home / "config.yaml",
        )
        return []
    return patterns


class Redactor:
    """One compiled alternation of every pattern (compiled once, at register time)."""

    def __init__(self, patterns: list[str] | tuple[str, ...] = DEFAULT_PATTERNS) -> None:
        valid = []
        for pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as exc:
                log.warning(
                    "secret-redaction: pattern %r is not a valid regex (%s); skipped", pattern, exc
                )
                continue
            valid.append(f"(?:{pattern})")
        self.pattern = re.compile("|".join(valid)) if valid else None

    def redact(self, text: str) -> str | None:
        """``text`` with every secret replaced, or None when nothing matched."""
        if self.pattern is None:
            return None
        redacted, count = self.pattern.subn(REPLACEMENT, text)
        return redacted if count else None

    def transform_tool_result(self, result: Any = None, **kwargs: Any) -> str | None:
        """The ``transform_tool_result`` callback."""
        return self.redact(result) if isinstance(result, str) else None


def register(ctx: Any) -> None:
    """Register the redactor with the default and the configured patterns."""
    redactor = Redactor([*DEFAULT_PATTERNS, *_config_patterns(Path(ctx.home))])
    ctx.register_hook("transform_tool_result", redactor.transform_tool_result)

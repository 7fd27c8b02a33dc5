"""The Hermes home and its ``config.yaml``: read once at load, never per call.

Bad input never raises out of here: an unreadable or malformed file, or a key of the
wrong type, logs one WARNING that names the file, the key and the fix, and the
documented default applies.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULT_CALLBACK_TIMEOUT",
    "MAX_CALLBACK_TIMEOUT",
    "Settings",
    "env_flag",
    "parse_callback_timeout",
    "read_config",
    "resolve_home",
    "safe_mode",
]

log = logging.getLogger("hermes_hooks.config")

DEFAULT_CALLBACK_TIMEOUT = 30.0
MAX_CALLBACK_TIMEOUT = 600.0
_TRUTHY = frozenset({"1", "true", "yes", "on"})


def env_flag(name: str, environ: Mapping[str, str] | None = None) -> bool:
    """Whether environment variable ``name`` is truthy (``1``/``true``/``yes``/``on``)."""
    value = (os.environ if environ is None else environ).get(name, "")
    return value.strip().lower() in _TRUTHY


def safe_mode(environ: Mapping[str, str] | None = None) -> bool:
    """``HERMES_SAFE_MODE``: when truthy no plugin, shell, webhook or gateway hook loads."""
    return env_flag("HERMES_SAFE_MODE", environ)


def resolve_home(home: str | os.PathLike[str] | None = None) -> Path:
    """The Hermes home: ``home`` if given, else ``$HERMES_HOME``, else ``~/.hermes``."""
    if home is not None:
        return Path(home).expanduser()
    env = os.environ.get("HERMES_HOME", "").strip()
    return Path(env).expanduser() if env else Path.home() / ".hermes"


def read_config(home: Path) -> dict[str, Any]:
    """Parse ``<home>/config.yaml``; a missing file is an empty config."""
    path = home / "config.yaml"
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        log.warning("%s: cannot read the file (%s); using defaults", path, exc)
        return {}
    except UnicodeDecodeError as exc:
        log.warning("%s: not UTF-8 text (%s); using defaults. Save it as UTF-8.", path, exc)
        return {}
    import yaml  # here: a home without config.yaml never pays for the parser

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        log.warning("%s: not valid YAML (%s); using defaults. Fix the syntax.", path, exc)
        return {}
    except RecursionError:  # PyYAML composes nested collections recursively
        log.warning("%s: nested too deeply to read; using defaults. Fix the syntax.", path)
        return {}
    if data is None:
        return {}
    if not isinstance(data, dict):
        log.warning(
            "%s: the top level must be a mapping, got %s; using defaults",
            path,
            type(data).__name__,
        )
        return {}
    return data


def parse_callback_timeout(value: Any, source: str = "config.yaml") -> float:
    """``plugins.hook_callback_timeout`` as D-13 says: 30 by default, 0 = no limit,
    at most 600; anything unusable warns and falls back to 30."""
    key = f"{source}: plugins.hook_callback_timeout"
    if value is None:
        return DEFAULT_CALLBACK_TIMEOUT
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        log.warning(
            "%s is %r, not a number of seconds; using %g. Fix: a number such as 30 "
            "(0 disables the limit).",
            key,
            value,
            DEFAULT_CALLBACK_TIMEOUT,
        )
        return DEFAULT_CALLBACK_TIMEOUT
    if value < 0:
        log.warning(
            "%s is negative (%r); using %g. Fix: 0 disables the limit.",
            key,
            value,
            DEFAULT_CALLBACK_TIMEOUT,
        )
        return DEFAULT_CALLBACK_TIMEOUT
    if value > MAX_CALLBACK_TIMEOUT:
        log.warning("%s is %r, above the maximum; clamped to %g", key, value, MAX_CALLBACK_TIMEOUT)
        return MAX_CALLBACK_TIMEOUT
    return float(value)


def _name_list(value: Any, key: str, source: str) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        log.warning(
            "%s: plugins.%s must be a list of plugin names; ignored",
            source,
            key,
        )
        return None
    return [v.strip() for v in value if v.strip()]


@dataclass(frozen=True)
class Settings:
    """The runtime settings of one load, parsed from the ``plugins:`` section."""

    hook_callback_timeout: float = DEFAULT_CALLBACK_TIMEOUT
    stream_reasoning_deltas: bool = False
    enabled: list[str] | None = None
    disabled: list[str] = field(default_factory=list)

    @classmethod
    def from_config(cls, config: Mapping[str, Any], source: str = "config.yaml") -> Settings:
        """Read ``plugins.*`` from a parsed config, warning about bad values."""
        plugins = config.get("plugins")
        if plugins is None:
            plugins = {}
        if not isinstance(plugins, dict):
            log.warning("%s: 'plugins' must be a mapping; ignored", source)
            plugins = {}
        return cls(
            hook_callback_timeout=parse_callback_timeout(
                plugins.get("hook_callback_timeout"), source
            ),
            stream_reasoning_deltas=plugins.get("stream_reasoning_deltas") is True,
            enabled=_name_list(plugins.get("enabled"), "enabled", source),
            disabled=_name_list(plugins.get("disabled"), "disabled", source) or [],
        )

    def allows(self, key: str) -> str | None:
        """Why plugin ``key`` must not load (``disabled`` wins), or None if it may."""
        if key in self.disabled:
            return "disabled by plugins.disabled"
        if self.enabled is not None and key not in self.enabled:
            return "not listed in plugins.enabled"
        return None

"""The Hermes home and its ``config.yaml``: read once at load, never per call.

Bad input never raises out of here unless a host asks (``strict``): a key of the wrong
type logs one WARNING that names the file, the key and the fix, and the documented
default applies; a file that cannot be used at all (unreadable, not YAML, a top level
that is not a mapping, over the bounds of :mod:`hermes_hooks._yaml`) logs an ERROR
naming ``config.yaml:line:col``, because then no hook of it runs.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_hooks._log import get_logger
from hermes_hooks.errors import ConfigError

if TYPE_CHECKING:
    from hermes_hooks.report import Finding

__all__ = [
    "DEFAULT_CALLBACK_TIMEOUT",
    "MAX_CALLBACK_TIMEOUT",
    "ConfigData",
    "ConfigFile",
    "Settings",
    "check_config",
    "env_flag",
    "inspect_config",
    "parse_callback_timeout",
    "position_of",
    "read_config",
    "resolve_home",
    "safe_mode",
]

log = get_logger("hermes_hooks.config")

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


class ConfigData(dict[str, Any]):
    """The mapping of a ``config.yaml`` read from its file, which also knows where each
    key is written, so that a finding about any part of it (a shell entry, an unknown
    event) names ``config.yaml:line:col`` like the YAML and unknown-key findings do.
    A plain mapping (a config built in code) has no positions: findings then name the
    file alone."""

    def __init__(
        self,
        data: Mapping[str, Any] | None = None,
        path: Path | str = "config.yaml",
        marks: Mapping[tuple[Any, ...], Any] | None = None,
    ) -> None:
        super().__init__(data or {})
        self.path = str(path)
        # key path -> Position (1-based line and column), as the YAML reader records it
        self._marks = dict(marks or {})

    def position(self, path: tuple[Any, ...]) -> str | None:
        """``<file>:<line>:<col>`` of the value at ``path`` (keys and list indexes),
        or None when it is not known.  A list item is where its first key is written;
        a path not written in the file is placed at its nearest written parent."""
        mark = self._marks.get(path)
        if mark is None:
            inside = [m for p, m in self._marks.items() if p[: len(path)] == path]
            if inside:
                mark = min(inside, key=lambda m: (m.line, m.column))
        while mark is None and len(path) > 1:
            path = path[:-1]
            mark = self._marks.get(path)
        return None if mark is None else f"{self.path}:{mark.line}:{mark.column}"


def position_of(config: Mapping[str, Any], path: tuple[Any, ...]) -> str | None:
    """Where ``path`` is written in ``config`` (``<file>:<line>:<col>``), when ``config``
    was read from a file (:class:`ConfigData`); else None."""
    return config.position(path) if isinstance(config, ConfigData) else None


@dataclass
class ConfigFile:
    """``config.yaml`` as read for one load: its data and what is wrong with it.

    ``findings`` are in file order; an ``error`` one means hooks are not running as
    written (the file is unusable, a value was thrown away, or a misspelt key leaves
    a gate weaker), which makes ``doctor`` exit 1 and ``load(strict=True)`` raise.
    """

    path: Path
    data: dict[str, Any] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    #: The file exists but could not be read as a whole (unreadable, not UTF-8, not
    #: YAML, not a mapping): ``data`` is empty because of that, not because it is.
    unusable: bool = False
    #: What is wrong with the ``plugins:`` settings (each falls back to its default);
    #: reported by ``doctor``, logged by the load that reads the settings.
    settings: list[Finding] = field(default_factory=list)

    @property
    def errors(self) -> list[Finding]:
        """The error-level findings."""
        return [f for f in self.findings if f.level == "error"]

    def _unusable(self, where: str, problem: str, fix: str) -> ConfigFile:
        # Every hook of the file is off: that must never pass quietly (a syntax error
        # used to look like "no hooks configured" to doctor).
        from hermes_hooks.report import Finding  # deferred: a readable config never needs it

        self.findings.append(
            Finding(
                "error",
                where,
                f"{problem}; no hook or setting of this file applies until it is fixed. Fix: {fix}",
            )
        )
        self.data = {}
        self.unusable = True
        return self


def inspect_config(home: Path) -> ConfigFile:
    """Read ``<home>/config.yaml`` within the YAML bounds and check it against its
    schema; logs nothing (see :func:`read_config`).  A missing file is an empty config."""
    config = ConfigFile(home / "config.yaml")
    path = config.path
    if not path.exists():  # most homes have none: skip importing the YAML reader
        return config
    from hermes_hooks._yaml import YamlError, read_yaml

    try:
        document = read_yaml(path)
    except FileNotFoundError:
        return config
    except OSError as exc:
        return config._unusable(str(path), f"cannot read the file ({exc})", "make it readable")
    except UnicodeDecodeError as exc:
        return config._unusable(str(path), f"not UTF-8 text ({exc})", "save it as UTF-8")
    except YamlError as exc:
        return config._unusable(exc.where(path), exc.problem, exc.fix)
    if document.data is None:  # empty, or a top-level value over the bounds
        config.findings.extend(issue.finding(path) for issue in document.issues)
        return config
    if not isinstance(document.data, dict):
        return config._unusable(
            f"{path}:1:1",
            f"the top level must be a mapping, got {type(document.data).__name__}",
            "write keys such as 'hooks:' and 'plugins:' at the start of their lines",
        )
    config.data = ConfigData(document.data, path, document.marks)
    from hermes_hooks.config_schema import unknown_keys

    issues = [*document.issues, *unknown_keys(document, "config.yaml")]
    issues.sort(key=lambda i: (i.position.line, i.position.column))
    config.findings.extend(_entry_finding(issue.finding(path), issue.path) for issue in issues)
    from hermes_hooks.report import Finding

    # The plugins: settings a load warns about (and falls back on), as findings; kept
    # apart, since the load's Settings.from_config logs them itself.
    Settings.from_config(
        config.data,
        str(path),
        lambda where, text: config.settings.append(Finding("warn", where, text)),
    )
    return config


def _entry_finding(finding: Finding, path: tuple[Any, ...]) -> Finding:
    """``finding`` naming the ``list`` entry its key lies in (a shell hook's
    ``hooks.<event>[<i>]``, an outbound target's ``hooks.outbound[<i>]``), so that
    ``list`` marks that entry as ``doctor`` reports it."""
    if len(path) < 3 or path[0] != "hooks" or not isinstance(path[2], int):
        return finding
    event, index = str(path[1]), path[2]
    if event == "outbound":
        entry = f"outbound hooks.outbound[{index}]"
    elif event == "output_spill":
        return finding
    else:
        entry = f"shell hooks.{event}[{index}]"
    return dataclasses.replace(finding, entry=entry)


def read_config(home: Path, *, strict: bool = False) -> dict[str, Any]:
    """Parse ``<home>/config.yaml``; a missing file is an empty config.

    Every finding is logged once (errors at ERROR).  With ``strict`` an error-level
    finding raises :class:`~hermes_hooks.errors.ConfigError` instead, naming each one,
    for hosts that would rather not start than run with a gate missing.
    """
    config = inspect_config(home)
    if strict and config.errors:
        raise ConfigError("\n".join(f"{f.subject}: {f.message}" for f in config.errors))
    _log_findings(config)
    return config.data


def reread_config(home: Path) -> dict[str, Any] | None:
    """For a reload: :func:`read_config`, or None when the file cannot be used, so the
    caller keeps what it loaded before (an editor caught half-way through a write must
    not switch every gate off)."""
    config = inspect_config(home)
    _log_findings(config)
    return None if config.unusable else config.data


def _log_findings(config: ConfigFile) -> None:
    for finding in config.findings:
        level = logging.ERROR if finding.level == "error" else logging.WARNING
        log.log(level, "%s: %s", finding.subject, finding.message)


#: Logged at every load in safe mode, and doctor's finding then: every guard is off.
SAFE_MODE_PROBLEM = (
    "HERMES_SAFE_MODE is set: no plugin, shell hook, outbound webhook or gateway hook is "
    "loaded, so no guard runs. Fix: unset HERMES_SAFE_MODE once troubleshooting is done"
)


def check_config(hooks: Any) -> list[Finding]:
    """``doctor``: what is wrong with the ``config.yaml`` of ``hooks.home`` (nothing
    when the file is missing or clean), after safe mode if it is on: it switches off
    every guard of the home, which doctor must not call healthy."""
    from hermes_hooks.report import Finding  # deferred: only doctor asks for findings

    safe = [Finding("error", "safe mode", SAFE_MODE_PROBLEM)] if safe_mode() else []
    config = inspect_config(hooks.home)
    return [*safe, *config.findings, *config.settings]


#: Where a ``plugins:`` setting is and what is wrong with it, for a log line or a finding.
Report = Callable[[str, str], None]


def _log_report(where: str, text: str) -> None:
    log.warning("%s: %s", where, text)


def parse_callback_timeout(
    value: Any, source: str = "config.yaml", report: Report | None = None
) -> float:
    """``plugins.hook_callback_timeout``: 30 by default, 0 = no limit,
    at most 600; anything unusable warns (through ``report``: where, then what) and
    falls back to 30."""
    say = report or _log_report
    key = "plugins.hook_callback_timeout"
    if value is None:
        return DEFAULT_CALLBACK_TIMEOUT
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        say(
            source,
            f"{key} is {value!r}, not a number of seconds; using "
            f"{DEFAULT_CALLBACK_TIMEOUT:g}. Fix: a number such as 30 (0 disables the limit).",
        )
        return DEFAULT_CALLBACK_TIMEOUT
    if value < 0:
        say(
            source,
            f"{key} is negative ({value!r}); using {DEFAULT_CALLBACK_TIMEOUT:g}. Fix: 0 "
            "disables the limit.",
        )
        return DEFAULT_CALLBACK_TIMEOUT
    if value > MAX_CALLBACK_TIMEOUT:
        say(source, f"{key} is {value!r}, above the maximum; clamped to {MAX_CALLBACK_TIMEOUT:g}")
        return MAX_CALLBACK_TIMEOUT
    return float(value)


def _name_list(value: Any, key: str, source: str, say: Report) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        say(source, f"plugins.{key} must be a list of plugin names; ignored")
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
    def from_config(
        cls, config: Mapping[str, Any], source: str = "config.yaml", report: Report | None = None
    ) -> Settings:
        """Read ``plugins.*`` from a parsed config, warning about bad values (logged,
        or through ``report``: where, at ``config.yaml:line:col`` when known, then
        what)."""
        say = report or _log_report

        def at(*path: str) -> str:
            return position_of(config, ("plugins", *path)) or source

        plugins = config.get("plugins")
        if plugins is None:
            plugins = {}
        if not isinstance(plugins, dict):
            say(at(), "'plugins' must be a mapping; ignored")
            plugins = {}
        return cls(
            hook_callback_timeout=parse_callback_timeout(
                plugins.get("hook_callback_timeout"), at("hook_callback_timeout"), say
            ),
            stream_reasoning_deltas=plugins.get("stream_reasoning_deltas") is True,
            enabled=_name_list(plugins.get("enabled"), "enabled", at("enabled"), say),
            disabled=_name_list(plugins.get("disabled"), "disabled", at("disabled"), say) or [],
        )

    def allows(self, key: str) -> str | None:
        """Why plugin ``key`` must not load (``disabled`` wins), or None if it may."""
        if key in self.disabled:
            return "disabled by plugins.disabled"
        if self.enabled is not None and key not in self.enabled:
            return "not listed in plugins.enabled"
        return None

"""Parsing ``hooks.outbound`` into :class:`Target` objects.

Everything is decided here, once, when the config loads: the URL's scheme, the events,
the timeout, the matcher (compiled once), the secret (``secret_env`` read once) and the
delivery options.  A malformed entry logs one WARNING naming the file, the entry and
the fix, and is skipped; the other entries still load.

Keys of one entry::

    name            label for logs and ``list`` (default: the url)
    url             required; https:// (http:// warns), anything else skips the entry
    events          required; non-empty list of catalogue hooks (not on_stream_delta)
    secret_env      variable holding the HMAC secret; wins over ``secret``
    secret          literal secret (discouraged: keep config.yaml free of credentials)
    timeout         seconds per attempt, integer 1..60, default 10
    matcher         regex on the tool name, only for pre_tool_call / post_tool_call
    signature       "github" (default) or "standard" (adds Standard Webhooks headers)
    durable         true: keep events in the SQLite outbox until delivered
    retry_schedule  seconds between attempts (tuning and tests); see docs
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from hermes_hooks._log import get_logger, remember_secret
from hermes_hooks._manager import suggest_hook
from hermes_hooks.config import ConfigData, position_of
from hermes_hooks.hookspecs import CATALOGUE
from hermes_hooks.user_regex import UserRegex
from hermes_hooks.webhooks.signing import split_secrets, standard_key
from hermes_hooks.webhooks.urls import redact_urls

__all__ = [
    "DEFAULT_DURABLE_SCHEDULE",
    "DEFAULT_RETRY_DELAY",
    "DEFAULT_TIMEOUT",
    "MAX_TIMEOUT",
    "MIN_TIMEOUT",
    "Matcher",
    "Note",
    "Skipped",
    "Target",
    "TargetRecord",
    "parse_outbound",
]

log = get_logger("hermes_hooks.outbound")

DEFAULT_TIMEOUT = 10
MIN_TIMEOUT = 1
MAX_TIMEOUT = 60
#: The one retry of an ordinary target waits 1 s.
DEFAULT_RETRY_DELAY = 1.0
#: Durable targets: the wait before each retry (7 attempts over about 73 minutes).
DEFAULT_DURABLE_SCHEDULE: tuple[float, ...] = (1.0, 5.0, 30.0, 120.0, 600.0, 3600.0)
_MAX_SCHEDULE_ITEMS = 20
_MAX_SCHEDULE_DELAY = 86_400.0
#: The hooks on which a matcher filters by tool name, in catalogue order.
_MATCHER_EVENTS = tuple(name for name, c in CATALOGUE.items() if c.matcher)
_SIGNATURES = ("github", "standard")
_KNOWN_KEYS = frozenset(
    {
        "name",
        "url",
        "events",
        "secret_env",
        "secret",
        "timeout",
        "matcher",
        "signature",
        "durable",
        "retry_schedule",
    }
)


@dataclass(frozen=True)
class Matcher:
    """A compiled matcher: the whole tool name must match; an invalid regular
    expression falls back to literal equality; a missing tool name never matches.  The
    expression runs in bounded time (:class:`~hermes_hooks.user_regex.UserRegex`): a name
    it cannot finish on is not delivered (a webhook cannot block, and what a filter may
    have kept from leaving the machine stays here), with one WARNING."""

    pattern: str
    regex: UserRegex | None
    label: str = ""

    @classmethod
    def compile(
        cls, pattern: str, label: str, report: Callable[[str], None] | None = None
    ) -> Matcher:
        """Compile ``pattern`` once, warning (through ``report``, else logged) and
        matching literally if it is invalid."""
        try:
            return cls(pattern, UserRegex(pattern), label)
        except (re.error, OverflowError, RecursionError) as exc:  # all mean "cannot compile"
            message = (
                f"matcher {pattern!r} is not a valid regular expression ({exc}); "
                "matching the tool name literally"
            )
            if report is None:
                log.warning("outbound webhook %s: %s", label, message)
            else:
                report(message)
            return cls(pattern, None, label)

    def matches(self, tool_name: Any) -> bool:
        """Whether ``tool_name`` passes this matcher."""
        if not isinstance(tool_name, str):
            return False
        if self.regex is None:
            return tool_name == self.pattern
        where = f"outbound webhook {self.label}"
        return self.regex.decide(tool_name, gate=False, where=where, log=log)


@dataclass(frozen=True)
class Target:
    """One usable ``hooks.outbound`` entry, fully resolved."""

    index: int
    label: str
    url: str
    events: tuple[str, ...]
    name: str | None = None
    timeout: int = DEFAULT_TIMEOUT
    matcher: Matcher | None = None
    secret_env: str | None = None
    # Kept out of repr(): a Target in a log line or a traceback must not show them.
    secrets: tuple[str, ...] = field(default=(), repr=False)
    secret_source: str = "none"  # "env:<VAR>", "inline:<digest>" or "none"
    signature: str = "github"
    standard_keys: tuple[bytes, ...] = field(default=(), repr=False)
    durable: bool = False
    retry_schedule: tuple[float, ...] | None = None
    #: What was wrong with the entry although it loaded, at its place in config.yaml.
    notes: tuple[Note, ...] = field(default=(), compare=False)
    #: ``<file>:<line>:<col>`` of the entry, when the config was read from a file.
    position: str | None = field(default=None, compare=False)

    def __repr__(self) -> str:
        # A url may carry credentials (user:pass@, ?token=): a Target in a log line or a
        # traceback shows it without them, and never shows a secret.
        return (
            f"Target(index={self.index}, label={redact_urls(self.label)!r}, "
            f"url={redact_urls(self.url)!r}, events={self.events!r}, name={self.name!r}, "
            f"timeout={self.timeout}, signature={self.signature!r}, "
            f"secret_source={self.secret_source!r}, durable={self.durable})"
        )

    @property
    def signed(self) -> bool:
        """Whether deliveries carry a signature (``list`` shows UNSIGNED otherwise)."""
        return bool(self.secrets)

    @property
    def github_secret(self) -> str | None:
        """The secret of the ``X-Hermes-Signature-256`` header (the first one)."""
        return self.secrets[0] if self.secrets else None

    @property
    def schedule(self) -> tuple[float, ...]:
        """The waits before each retry: one for ordinary targets, several for
        durable ones."""
        if self.durable:
            return self.retry_schedule or DEFAULT_DURABLE_SCHEDULE
        return ((self.retry_schedule or (DEFAULT_RETRY_DELAY,))[0],)

    @property
    def max_attempts(self) -> int:
        """Attempts before an event is dropped (ordinary) or dead-lettered (durable)."""
        return len(self.schedule) + 1

    def matcher_for(self, event: str) -> Matcher | None:
        """The matcher that filters ``event`` (None unless the event is tool-scoped)."""
        return self.matcher if CATALOGUE[event].matcher else None

    def key(self, home: str, event: str) -> tuple[str, ...]:
        """The registration identity of this target's callback for ``event``."""
        return (
            home,
            event,
            self.url,
            self.name or "",
            self.matcher.pattern if self.matcher else "",
            self.secret_source,
        )


@dataclass(frozen=True)
class Note:
    """One problem of a ``hooks.outbound`` entry, in the ``hooks:`` block's shape:
    ``<position>: <where>: <message>``."""

    where: str  # hooks.outbound[<index>]
    message: str
    #: ``<file>:<line>:<col>`` of the key the problem is about, when the config was
    #: read from a file.
    position: str | None = None

    @property
    def located(self) -> str:
        """:attr:`where`, after its ``<file>:<line>:<col>`` when known."""
        return self.where if self.position is None else f"{self.position}: {self.where}"

    def as_dict(self) -> dict[str, str | None]:
        """A JSON-ready view (urls without their credentials)."""
        return {
            "position": self.position,
            "where": self.where,
            "message": redact_urls(self.message),
        }


@dataclass(frozen=True)
class Skipped:
    """A ``hooks.outbound`` entry that could not be used, with the reason."""

    index: int
    label: str
    reason: str
    #: ``<file>:<line>:<col>`` of the key that made it unusable (or of the entry).
    position: str | None = None
    notes: tuple[Note, ...] = ()


class _Skip(Exception):
    """Raised inside entry parsing: the message is the reason and the fix; ``key``
    is the entry's key it is about (None: the entry as a whole)."""

    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key


#: Records one problem of the entry being read: (key path inside the entry, message).
_Say = Callable[[tuple[Any, ...], str], None]


def _where(source: str, index: int) -> str:
    return f"{source}: hooks.outbound[{index}]"


def _hide_in_logs(url: Any) -> None:
    """Mask what follows the host of a target's ``url`` in every log line of ours.

    Many receivers take their credential in the path (``/services/T0/B0/<token>``) or the
    query (``?sig=...``), and the url reaches log lines as an unnamed target's label or
    inside an HTTP client's error message; only scheme and host stay readable there.  A
    url with no host is left alone: the message refusing it must show it.
    """
    if not isinstance(url, str):
        return
    url = url.strip()
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return
    if parts.hostname:  # with a host, the url reads "<scheme>://<netloc><the rest>"
        after_host = url.partition("//")[2][len(parts.netloc) :]
        remember_secret(after_host)


def _label(entry: Mapping[str, Any], index: int) -> str:
    name = entry.get("name")
    if isinstance(name, str) and name.strip():
        return name.strip()
    url = entry.get("url")
    if isinstance(url, str) and url.strip():
        return url.strip()
    return f"#{index}"


def _url(value: Any, say: _Say) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _Skip("has no 'url'. Fix: add url: https://<host>/<path>")
    url = value.strip()
    try:
        parts = urllib.parse.urlsplit(url)
        scheme, host, _ = parts.scheme.lower(), parts.hostname, parts.port
    except ValueError as exc:  # a bad IPv6 literal or port: every send would fail
        raise _Skip(f"url {url!r} is not a valid address ({exc})", "url") from None
    if scheme not in ("http", "https") or not host:
        raise _Skip(f"url {url!r} must be an https:// (or http://) address with a host", "url")
    if scheme == "http":
        say(
            ("url",),
            f"url {url} uses http:// — payloads (tool inputs included) travel unencrypted; "
            "prefer https://",
        )
    return url


def unknown_event(name: str) -> str:
    """The message for an unknown event under ``hooks.outbound``, as the ``hooks:``
    block words one: a did-you-mean, or where the names are listed."""
    return (
        f"unknown hook event '{name}' in hooks.outbound — {suggest_hook(name, outcome='dropped')}"
    )


def _events(value: Any, say: _Say) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise _Skip(
            "'events' must be a list of event names, e.g. events: [on_session_end]", "events"
        )
    events: list[str] = []
    for position, item in enumerate(value):
        name = item.strip() if isinstance(item, str) else item
        contract = CATALOGUE.get(name) if isinstance(name, str) else None
        if contract is not None and not contract.webhooks:
            say(
                ("events", position),
                f"{name} is not available to outbound webhooks: {contract.webhook_refusal}; "
                "dropped",
            )
        elif contract is None:
            say(("events", position), unknown_event(str(name)))
        elif name not in events:
            events.append(name)
    if not events:
        raise _Skip("has no usable events left in 'events'", "events")
    return tuple(events)


def _timeout(value: Any, say: _Say) -> int:
    if value is None:
        return DEFAULT_TIMEOUT
    integral = isinstance(value, int) or (
        isinstance(value, float) and math.isfinite(value) and value.is_integer()
    )
    if isinstance(value, bool) or not integral:
        say(
            ("timeout",),
            f"timeout {value!r} is not an integer number of seconds; using {DEFAULT_TIMEOUT}",
        )
        return DEFAULT_TIMEOUT
    seconds = int(value)
    clamped = min(max(seconds, MIN_TIMEOUT), MAX_TIMEOUT)
    if clamped != seconds:
        say(
            ("timeout",),
            f"timeout {seconds} is outside {MIN_TIMEOUT}–{MAX_TIMEOUT} seconds; "
            f"clamped to {clamped}",
        )
    return clamped


def _matcher(value: Any, events: tuple[str, ...], label: str, say: _Say) -> Matcher | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise _Skip("'matcher' must be a string (a regular expression on the tool name)", "matcher")
    pattern = value.strip()
    if not pattern:
        return None
    if not any(CATALOGUE[e].matcher for e in events):
        say(
            ("matcher",),
            f"the matcher field is only honored for {' / '.join(_MATCHER_EVENTS)}, and this "
            "target subscribes to neither; the matcher is dropped and every subscribed "
            "event is delivered.",
        )
        return None
    return Matcher.compile(pattern, label, lambda message: say(("matcher",), message))


def _secret(
    entry: Mapping[str, Any], say: _Say, environ: Mapping[str, str]
) -> tuple[str | None, str | None, str]:
    """(secret text or None, secret_env name or None, secret source); a non-blank
    ``secret_env`` wins over ``secret``."""
    env_name = entry.get("secret_env")
    if env_name is not None and not isinstance(env_name, str):
        raise _Skip("'secret_env' must be the name of an environment variable", "secret_env")
    env_name = (env_name or "").strip()
    if env_name:
        value = environ.get(env_name, "")
        if not value.strip():
            say(
                ("secret_env",),
                f"secret_env {env_name} is not set — deliveries will be UNSIGNED",
            )
            return None, env_name, f"env:{env_name}"
        return value, env_name, f"env:{env_name}"
    inline = entry.get("secret")
    if inline is None:
        return None, None, "none"
    if not isinstance(inline, str):
        raise _Skip(
            "'secret' must be a string (better: put it in an env var, use secret_env)", "secret"
        )
    if not inline:
        return None, None, "none"
    digest = hashlib.sha256(inline.encode("utf-8")).hexdigest()[:16]
    return inline, None, f"inline:{digest}"


def _schedule(value: Any, say: _Say) -> tuple[float, ...] | None:
    if value is None:
        return None
    ok = (
        isinstance(value, list)
        and 0 < len(value) <= _MAX_SCHEDULE_ITEMS
        and all(
            isinstance(v, (int, float))
            and not isinstance(v, bool)
            and math.isfinite(v)
            and 0 < v <= _MAX_SCHEDULE_DELAY
            for v in value
        )
    )
    if not ok:
        say(
            ("retry_schedule",),
            f"retry_schedule must be a list of 1 to {_MAX_SCHEDULE_ITEMS} delays in "
            f"seconds (each above 0, at most {_MAX_SCHEDULE_DELAY:g}); using the default",
        )
        return None
    return tuple(float(v) for v in value)


def _entry(
    entry: Mapping[str, Any],
    index: int,
    label: str,
    environ: Mapping[str, str],
    say: _Say,
    known_places: bool = False,
) -> Target:
    unknown = sorted(str(k) for k in entry if k not in _KNOWN_KEYS)
    if unknown and not known_places:
        # A file's unknown keys are its schema check's, each at its line with a
        # did-you-mean (hermes_hooks.config_schema); a config built in code has none.
        say(
            (),
            f"unknown key(s) {', '.join(unknown)} ignored (known: "
            f"{', '.join(sorted(_KNOWN_KEYS))})",
        )
    name = entry.get("name")
    if name is not None and not isinstance(name, str):
        raise _Skip("'name' must be a string", "name")
    url = _url(entry.get("url"), say)
    events = _events(entry.get("events"), say)
    signature = entry.get("signature", "github")
    if signature not in _SIGNATURES:
        raise _Skip(f"'signature' must be 'github' or 'standard', not {signature!r}", "signature")
    durable = entry.get("durable", False)
    if not isinstance(durable, bool):
        raise _Skip(f"'durable' must be true or false, not {durable!r}", "durable")
    secret, secret_env, secret_source = _secret(entry, say, environ)
    secrets: tuple[str, ...] = ()
    keys: tuple[bytes, ...] = ()
    if secret is not None:
        remember_secret(secret)  # never in a log line (hermes_hooks._log)
        secrets = tuple(split_secrets(secret)) if signature == "standard" else (secret,)
        for each in secrets:
            remember_secret(each)
        if signature == "standard":
            try:
                keys = tuple(standard_key(s) for s in secrets)
            except ValueError as exc:
                raise _Skip(
                    f"signature: standard needs whsec_<base64> secrets: the secret is {exc}",
                    "signature",
                ) from None
    elif signature == "standard":
        say(
            ("signature",),
            "signature: standard has no secret to sign with; no webhook-signature header "
            "will be sent",
        )
    return Target(
        index=index,
        label=label,
        url=url,
        events=events,
        name=(name.strip() or None) if isinstance(name, str) else None,
        timeout=_timeout(entry.get("timeout"), say),
        matcher=_matcher(entry.get("matcher"), events, label, say),
        secret_env=secret_env,
        secrets=secrets,
        secret_source=secret_source,
        signature=signature,
        standard_keys=keys,
        durable=durable,
        retry_schedule=_schedule(entry.get("retry_schedule"), say),
    )


def _unique_durable(targets: list[Target], source: str, config: Mapping[str, Any]) -> list[Target]:
    """Durable events are keyed by the target's label: it must be unique."""
    seen: set[str] = set()
    result = []
    for target in targets:
        if target.durable and target.label in seen:
            note = _note(
                config,
                target.index,
                ("name",),
                f"durable targets need a unique name; '{target.label}' is used twice, so "
                "this one is delivered without the outbox. Fix: give it its own name.",
            )
            _log_note(note, source)
            target = replace(target, durable=False, notes=(*target.notes, note))
        elif target.durable:
            seen.add(target.label)
        result.append(target)
    return result


def parse_outbound(
    config: Mapping[str, Any],
    source: str = "config.yaml",
    environ: Mapping[str, str] | None = None,
) -> tuple[list[Target], list[Skipped]]:
    """Read ``hooks.outbound`` from a parsed config; return the usable targets and the
    skipped entries, in list order."""
    env = os.environ if environ is None else environ
    hooks = config.get("hooks")
    if hooks is None:
        return [], []
    if not isinstance(hooks, Mapping):
        where = position_of(config, ("hooks",)) or source
        log.warning("%s: 'hooks' must be a mapping; outbound webhooks not loaded", where)
        return [], []
    entries = hooks.get("outbound")
    if entries is None:
        return [], []
    if not isinstance(entries, list):
        log.warning(
            "%s: hooks.outbound must be a list of targets (- url: ..., events: [...]); "
            "no outbound webhook loaded",
            position_of(config, ("hooks", "outbound")) or source,
        )
        return [], []
    targets: list[Target] = []
    skipped: list[Skipped] = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, Mapping):
            reason = "must be a mapping with at least url and events"
            position = position_of(config, ("hooks", "outbound", index))
            log.warning("%s: %s; skipped", _where(position or source, index), reason)
            skipped.append(Skipped(index, f"#{index}", reason, position))
            continue
        _hide_in_logs(entry.get("url"))  # before anything can log it
        label = _label(entry, index)
        notes: list[Note] = []

        def say(
            key: tuple[Any, ...], message: str, index: int = index, notes: list[Note] = notes
        ) -> None:
            note = _note(config, index, key, message)
            _log_note(note, source)
            notes.append(note)

        try:
            target = _entry(entry, index, label, env, say, isinstance(config, ConfigData))
        except _Skip as exc:
            key = ("hooks", "outbound", index) + ((exc.key,) if exc.key else ())
            position = position_of(config, key)
            log.warning("%s: %s; skipped", _where(position or source, index), exc)
            skipped.append(Skipped(index, label, str(exc), position, tuple(notes)))
            continue
        position = position_of(config, ("hooks", "outbound", index))
        targets.append(replace(target, notes=tuple(notes), position=position))
    return _unique_durable(targets, source, config), skipped


def _note(config: Mapping[str, Any], index: int, key: tuple[Any, ...], message: str) -> Note:
    """A problem of entry ``index`` about its ``key``, at the place it is written."""
    position = position_of(config, ("hooks", "outbound", index, *key))
    return Note(f"hooks.outbound[{index}]", message, position)


def _log_note(note: Note, source: str) -> None:
    log.warning("%s: %s: %s", note.position or source, note.where, note.message)


@dataclass
class TargetRecord:
    """One ``hooks.outbound`` entry as ``list`` and ``doctor`` show it (urls without
    their credentials)."""

    index: int
    label: str
    state: str  # "loaded" or "skipped"
    url: str | None = None
    events: list[str] = field(default_factory=list)
    matcher: str | None = None
    timeout: int | None = None
    signed: bool = False
    secret: str | None = None  # where the secret comes from, never the secret itself
    signature: str = "github"
    durable: bool = False
    reason: str | None = None
    problems: list[str] = field(default_factory=list)
    #: ``<file>:<line>:<col>`` of the entry (of what made a skipped entry unusable),
    #: when the config was read from a file.
    position: str | None = None
    #: What was wrong with the entry as written: ``position``, ``where``, ``message``.
    config_problems: list[dict[str, str | None]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready view for ``--json`` output."""
        return asdict(self)

"""Logging helpers: the package logger, warn-once deduplication, escaping and
redaction.

Escaping rule: the same filter escapes every argument of a record
(:func:`~hermes_hooks._escape.escape`: newlines, ``ESC``, carriage returns, other
controls and bidirectional overrides become visible ``\\n``, ``\\x1b``, ``\\u202e``),
so a tool name, an exception message or a hook's stderr cannot forge a log line or
rewrite the terminal that shows it.  The format string is ours: its newlines stay.  A
traceback keeps its lines, with each exception's message escaped whole.

Redaction rule: every record logged through one of :data:`REDACTED_LOGGERS` (all the
loggers of this package, ``gateway.hooks`` included) passes :func:`redact` before any
handler sees it: its message, its arguments and a formatted traceback alike.  Our own
lines often carry text we did not write (a callback's exception message, a hook's
stderr, a YAML parser's excerpt of ``config.yaml``), and any of it may echo a payload
value or a credential.  :func:`redact` masks

* the secrets this process knows: webhook secrets read from the config
  (:func:`remember_secret`) and the values of environment variables whose names end in
  a secret word (``OPENAI_API_KEY``, ``GITHUB_TOKEN``, ``..._SECRET``, ``..._PASSWORD``);
* values written after a secret-named key: ``api_key=…``, ``"token": "…"``,
  ``'OPENAI_API_KEY': '…'``, ``Authorization: Bearer …``;
* token-shaped strings: ``sk-…``, ``ghp_…``, ``github_pat_…``, ``xox?-…``, ``whsec_…``,
  AWS access key ids, Google API keys, JWTs, ``Bearer …``, PEM private keys, and the
  password of a URL (``https://user:…@host``).

Where we cut third-party text to a length we redact before cutting, so a secret never
survives as a prefix.  Decision messages handed back to the host (the block message of a
timed-out or raising ``pre_tool_call`` callback) are not log lines and keep their
specified text.
"""

from __future__ import annotations

import functools
import logging
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Hashable, Mapping
from numbers import Number
from types import TracebackType

from hermes_hooks._escape import escape

__all__ = [
    "REDACTED",
    "REDACTED_LOGGERS",
    "WarnOnce",
    "exception_text",
    "excerpt",
    "get_logger",
    "logger",
    "redact",
    "remember_secret",
    "warn_once",
]

#: The package logger; adapters use children such as ``hermes_hooks.shell``.
logger = logging.getLogger("hermes_hooks")

#: What a masked secret reads as.
REDACTED = "[REDACTED]"

#: ``extra=`` for the ERROR of a plugin or gateway hook that failed to load: the same
#: failure is kept on the source's record, where ``list``, ``doctor`` and ``replay
#: --fail-on error`` read it, so a collector of logged errors can skip the line.
ON_RECORD: dict[str, object] = {"hermes_hooks_on_record": True}

_SEEN_LIMIT = 4096  # bounded, so ever-changing messages cannot grow memory forever


class WarnOnce:
    """Which warnings were logged already: WARNING the first time a key is seen, DEBUG
    afterwards, so a callable failing on every firing cannot flood the log.

    Each :class:`~hermes_hooks._manager.HookManager` has its own (``manager.warnings``),
    so two loads in one process (a test suite, two homes) warn independently; code that
    belongs to no manager uses the process-wide :func:`warn_once`.
    """

    __slots__ = ("_lock", "_seen")

    def __init__(self) -> None:
        self._seen: OrderedDict[Hashable, None] = OrderedDict()
        self._lock = threading.Lock()

    def warn(
        self,
        log: logging.Logger,
        key: Hashable,
        message: str,
        *args: object,
        level: int = logging.WARNING,
    ) -> None:
        """Log ``message`` at ``level`` (WARNING) the first time ``key`` is seen, at DEBUG
        afterwards."""
        with self._lock:
            first = key not in self._seen
            if first:
                self._seen[key] = None
                if len(self._seen) > _SEEN_LIMIT:
                    self._seen.popitem(last=False)
        log.log(level if first else logging.DEBUG, message, *args)

    def reset(self) -> None:
        """Forget which warnings were logged."""
        with self._lock:
            self._seen.clear()


_PROCESS = WarnOnce()


def warn_once(
    log: logging.Logger,
    key: Hashable,
    message: str,
    *args: object,
    level: int = logging.WARNING,
) -> None:
    """Log ``message`` at ``level`` (WARNING) the first time ``key`` is seen in this
    process, at DEBUG afterwards (for code that belongs to no manager)."""
    _PROCESS.warn(log, key, message, *args, level=level)


def exception_text(exc: BaseException, limit: int | None = None) -> str:
    """``str(exc)``, cut to ``limit`` characters, for messages about third-party errors.

    Never raises: an exception whose ``__str__`` fails reads ``<unprintable Type>``, so
    reporting a callback's failure cannot itself fail.
    """
    try:
        text = str(exc)
    except Exception:
        text = f"<unprintable {type(exc).__name__}>"
    return text if limit is None else text[:limit]


def reset_warn_once() -> None:
    """Forget which process-wide warnings were logged (tests use a fresh slate per test)."""
    _PROCESS.reset()


# -- redaction ---------------------------------------------------------------------------

# A key names a secret when its last word is one of these (``OPENAI_API_KEY``,
# ``webhook_secret``, ``x-auth-token``), but not ``max_tokens`` or ``secret_env``.
_SECRET_WORD = (
    r"(?:api[_-]?key|apikey|secret|token|password|passwd|passphrase|credentials?"
    r"|authorization|private[_-]?key|access[_-]?key|session[_-]?key)"
)


@functools.cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """(secret name, keyed value, token shapes), compiled on first use: most runs never
    log a line, and ``import hermes_hooks`` should not pay for the compile."""
    secret_name = re.compile(rf"(?:[A-Za-z0-9]+[_.-])*{_SECRET_WORD}", re.IGNORECASE)
    keyed_value = re.compile(
        rf"(?P<head>(?<![A-Za-z0-9_.-])(?:[A-Za-z0-9]+[_.-])*{_SECRET_WORD}(?![A-Za-z0-9_])"
        r"\\*['\"]?\s*[:=]\s*)(?!\\*['\"]?\[REDACTED\])"  # already masked
        r"(?:(?P<quote>\\*['\"])(?P<quoted>[^'\"\\\n]+)"
        r"|(?P<bare>(?:(?:bearer|basic|token)\s+)?[^\s'\"\\,;&)}\]]+))",
        re.IGNORECASE,
    )
    token_shapes = re.compile("|".join(_TOKEN_SHAPES), re.DOTALL)
    return secret_name, keyed_value, token_shapes


_TOKEN_SHAPES = (
    r"\bsk-[A-Za-z0-9_-]{16,}",
    r"\bgh[pousr]_[A-Za-z0-9]{20,}",
    r"\bgithub_pat_[A-Za-z0-9_]{20,}",
    r"\bxox[abposr]-[A-Za-z0-9-]{10,}",
    r"\bwhsec_[A-Za-z0-9+/=]{8,}",
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
    r"\bAIza[0-9A-Za-z_-]{30,}",
    r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    r"(?i:\bbearer\s+[A-Za-z0-9._~+/=-]{8,})",
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)",
    r"(?<=://)[^/\s:@]+:[^/\s@]+(?=@)",  # a URL's user:password
)
_MIN_SECRET = 8  # shorter values would mask ordinary words
_EXCERPT_SLACK = 1000  # longer than any secret worth masking
_known: set[str] = set()
_known_lock = threading.Lock()


def remember_secret(value: str) -> None:
    """Mask ``value`` in every later log line (webhook secrets, when the config loads)."""
    if isinstance(value, str) and len(value.strip()) >= _MIN_SECRET:
        with _known_lock:
            _known.add(value.strip())


def _secrets_now() -> list[str]:
    """Known secrets plus secret-named environment variables, longest first."""
    with _known_lock:
        found = set(_known)
    for name, value in list(os.environ.items()):
        if len(value) >= _MIN_SECRET and _patterns()[0].fullmatch(name):
            found.add(value)
    return sorted(found, key=len, reverse=True)


def _mask_keyed(match: re.Match[str]) -> str:
    if match.group("quoted") is not None:
        return f"{match.group('head')}{match.group('quote')}{REDACTED}"
    return f"{match.group('head')}{REDACTED}"


def redact(text: str) -> str:
    """``text`` with every secret the rule above recognises replaced by ``[REDACTED]``."""
    for secret in _secrets_now():
        if secret in text:
            text = text.replace(secret, REDACTED)
    _, keyed_value, token_shapes = _patterns()
    text = keyed_value.sub(_mask_keyed, text)  # first: "Authorization: Bearer x" whole
    return token_shapes.sub(REDACTED, text)


def excerpt(text: str, limit: int) -> str:
    """The first ``limit`` characters of ``text``, redacted before the cut (so a secret
    never survives as a prefix).  Only a window a little past ``limit`` is scanned:
    a callback failing with a megabyte message on every firing stays cheap."""
    return redact(text[: limit + _EXCERPT_SLACK])[:limit]


_ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None]


class _Shown:
    """A log argument as the line shows it: its ``str`` and ``repr`` redacted and
    escaped (:func:`~hermes_hooks._escape.escape`), so ``%s`` and ``%r`` both work."""

    __slots__ = ("_value",)

    def __init__(self, value: object) -> None:
        self._value = value

    def __str__(self) -> str:
        return _escaped(str(self._value))

    def __repr__(self) -> str:
        return _escaped(repr(self._value))


def _escaped(text: str) -> str:
    # Redact before escaping too: an escape can split a secret from the key naming it
    # ("token=\x1bsk-..."), which the redaction of the whole line would then miss.
    escaped = escape(text)
    return text if escaped is text else escape(redact(text))


def _shown(value: object) -> object:
    # Numbers keep their type, so "%d" and "%.3f" still format them.
    return value if isinstance(value, Number) else _Shown(value)


def _shown_args(args: tuple[object, ...] | Mapping[str, object]) -> object:
    if isinstance(args, Mapping):
        return {key: _shown(value) for key, value in args.items()}
    return tuple(_shown(value) for value in args)


def _traceback_text(exc_info: _ExcInfo) -> str:
    """A record's traceback with each exception's message and notes escaped whole, and
    the rest (file names, source lines: the traceback's own lines) kept line by line."""
    text = logging.Formatter().formatException(exc_info)
    pieces: set[str] = set()
    pending: list[BaseException | None] = [exc_info[1]]
    seen: set[int] = set()
    while pending:
        exc = pending.pop()
        if exc is None or id(exc) in seen:
            continue
        seen.add(id(exc))
        pieces.add(exception_text(exc))
        notes = getattr(exc, "__notes__", None)
        if isinstance(notes, (list, tuple)):
            pieces.update(note for note in notes if isinstance(note, str))
        pending += [exc.__cause__, exc.__context__, *getattr(exc, "exceptions", ())]
    for piece in sorted(pieces, key=len, reverse=True):
        if escape(piece) is not piece:
            text = text.replace(piece, escape(piece))
    return escape(text, keep_newlines=True)


class RedactingFilter(logging.Filter):
    """Escapes and redacts a record before any handler sees it.

    Each message argument (the text we did not write: a tool name, an exception, a
    hook's stderr) is escaped whole, newlines included, so it cannot forge a line or
    move the cursor; the format string is ours, so its newlines stay, and only the
    other controls are escaped in the final line.  A traceback keeps its lines, with
    each exception's message escaped whole.  Then :func:`redact` masks secrets.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = str(record.msg) % _shown_args(record.args) if record.args else None
        except Exception:  # a "%c" of a string, say: the whole line is escaped below
            message = None
        if message is None:
            try:
                message = record.getMessage()
            except Exception:  # a broken format: let logging report it as it always does
                return True
            if record.args:
                message = escape(message)
        record.msg, record.args = redact(escape(message, keep_newlines=True)), None
        if record.exc_info and record.exc_info[1] is not None and not record.exc_text:
            record.exc_text = _traceback_text(record.exc_info)
        elif record.exc_text:
            record.exc_text = escape(record.exc_text, keep_newlines=True)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
            record.exc_info = None  # handlers would format the raw exception again
        if record.stack_info:
            record.stack_info = escape(record.stack_info, keep_newlines=True)
        return True


#: Every logger this package logs through; a test checks the package names no other.
REDACTED_LOGGERS: tuple[str, ...] = (
    "gateway.hooks",
    "hermes_hooks",
    "hermes_hooks.cli",
    "hermes_hooks.config",
    "hermes_hooks.consent",
    "hermes_hooks.dispatch",
    "hermes_hooks.host",
    "hermes_hooks.integrations",
    "hermes_hooks.manager",
    "hermes_hooks.mcp",
    "hermes_hooks.outbound",
    "hermes_hooks.plugins",
    "hermes_hooks.plugins.prompt_sections",
    "hermes_hooks.shell",
    "hermes_hooks.stream",
    "hermes_hooks.telemetry",
)
_FILTER = RedactingFilter()
for _name in REDACTED_LOGGERS:
    logging.getLogger(_name).addFilter(_FILTER)


def get_logger(name: str) -> logging.Logger:
    """The logger ``name``, one of :data:`REDACTED_LOGGERS`: every module of this
    package gets its logger here, so that the redacting filter, attached when this
    module loads, is on a logger before anything of ours can log through it."""
    if name not in REDACTED_LOGGERS:
        raise ValueError(f"{name!r} is not a redacted logger; add it to REDACTED_LOGGERS")
    return logging.getLogger(name)

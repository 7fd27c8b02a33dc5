"""Visible escapes for untrusted text on its way to a log line or a terminal.

A tool name, a plugin's exception message, a hook's stderr, a configured command: any
of them may carry a newline (which forges a whole log line), a carriage return or an
ANSI sequence such as ``ESC [2K`` (which erases what a reviewer was about to read and
writes something else in its place), or a Unicode bidirectional override (which shows
the characters of a command in another order than they run).  :func:`escape` writes
each such character as a visible escape, the way Python writes it in a string literal:
``\\n``, ``\\r``, ``\\x1b``, ``\\x9b``, ``\\u202e``.

What is escaped (:data:`UNSAFE`): every C0 control but the tab, DEL, every C1 control
(U+0080 to U+009F, which some terminals read as ``ESC`` sequences), the Unicode line
and paragraph separators (U+2028, U+2029, which log readers split lines at), and the
bidirectional controls: the embeddings and overrides U+202A to U+202E, the isolates
U+2066 to U+2069 and the marks U+200E, U+200F and U+061C.

The tab is kept: it only moves the cursor forward, so it can neither hide nor overwrite
text, and it forges no line; escaping it would make every indented stderr line and
traceback of a hook unreadable.  A backslash is not doubled: commands are full of them
(regular expressions, ``printf`` formats), and doubling each would make the command a
reviewer reads differ from the one in ``config.yaml`` for the common case.  So a shown
``\\x1b`` is either an ESC or those four characters as written; either way nothing is
hidden from the reader, and the approval pins the exact string.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

__all__ = ["UNSAFE", "escape", "escape_json", "escape_lines"]

_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"

#: Every character :func:`escape` writes as a visible escape.
UNSAFE = frozenset(
    [chr(c) for c in range(0x20) if c != 0x09]
    + [chr(c) for c in range(0x7F, 0xA0)]
    + ["\u2028", "\u2029"]
    + list(_BIDI)
)


def _class(chars: frozenset[str]) -> re.Pattern[str]:
    """A pattern matching any one of ``chars`` (each written as a ``\\uXXXX`` escape)."""
    return re.compile("[" + "".join(f"\\u{ord(c):04x}" for c in sorted(chars)) + "]")


@functools.cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """(every unsafe character, all but the line feed, those JSON leaves raw), compiled
    on first use: ``import hermes_hooks`` should not pay for the compile."""
    return (
        _class(UNSAFE),
        _class(UNSAFE - {"\n"}),
        # json.dumps(ensure_ascii=False) escapes the C0 controls itself, not these.
        _class(frozenset(c for c in UNSAFE if ord(c) >= 0x7F)),
    )


_NAMED = {"\n": "\\n", "\r": "\\r"}


def _visible(char: str) -> str:
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def _replace(match: re.Match[str]) -> str:
    return _visible(match.group())


def escape(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` with every character of :data:`UNSAFE` written as a visible escape.

    ``keep_newlines=True`` keeps the line feed (only it: a carriage return is still
    escaped) for text whose lines are ours by design, such as a formatted traceback
    whose untrusted parts were escaped on their own.
    """
    pattern = _patterns()[1 if keep_newlines else 0]
    if pattern.search(text) is None:
        return text
    return pattern.sub(_replace, text)


def escape_lines(lines: Iterable[str]) -> str:
    """``lines`` joined with newlines for the terminal, each line escaped whole.

    The text output of a command is built from lines, many holding text from a config
    or a hook (a command, a plugin's name or error, a hook's stderr or reason): escaping
    each line keeps an ``ESC`` sequence from rewriting the screen and a newline from
    forging a line of the report, while the lines themselves stay lines."""
    return "\n".join(escape(line) for line in lines)


def escape_json(text: str) -> str:
    """A ``json.dumps(..., ensure_ascii=False)`` document with the unsafe characters it
    leaves raw (DEL, C1 controls, line separators, bidirectional controls) written as
    ``\\uXXXX`` escapes: the same JSON value, safe to print on a terminal.  Each of them
    can only stand inside a JSON string, where ``\\uXXXX`` means the same character."""
    raw = _patterns()[2]
    if raw.search(text) is None:
        return text
    return raw.sub(lambda m: f"\\u{ord(m.group()):04x}", text)

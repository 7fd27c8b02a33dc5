"""Reading one recording line safely: JSON with limits, so a hostile file is refused
with ``<file>:<line>: <reason>`` before any hook runs, never a traceback.

A recording comes from outside (an import, a colleague, a CI artefact).  The limits
below keep every later stage (payload copies, sanitising, JSON for shell hooks and
webhooks) inside what it can handle:

* a line longer than :data:`MAX_LINE_CHARS` characters;
* containers nested deeper than :data:`MAX_DEPTH` (recursive copies and encoders
  would run out of stack);
* integers outside the signed 64-bit range and non-finite numbers (``1e999``,
  ``NaN``): receivers in other languages cannot read them back;
* strings holding a lone UTF-16 surrogate (``"\\ud800"``): they cannot be written
  as UTF-8, so the first shell hook or webhook would fail on them.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from hermes_hooks.errors import RecordingError

__all__ = [
    "MAX_DEPTH",
    "MAX_LINE_CHARS",
    "JsonRefused",
    "check_value",
    "decode_limited",
    "read_line",
]

#: The longest line read (characters): far above any real tool result (the terminal
#: tool caps its output at 100 000 characters), far below what exhausts memory.
MAX_LINE_CHARS = 16 * 1024 * 1024

#: The deepest nesting of objects and lists accepted in one line.
MAX_DEPTH = 64

_INT_LIMIT = 2**63
_SURROGATE = re.compile("[\ud800-\udfff]")


class JsonRefused(RecordingError, ValueError):
    """A JSON text that is malformed or outside the limits; ``str()`` is the reason
    only (callers add the location: the file and line, or the imported row)."""


class _Refused(JsonRefused):
    """A value the limits refuse (raised from inside ``json.loads``)."""


def _parse_int(text: str) -> int:
    # Checked on the digits before converting, so a 10 000-digit number costs nothing.
    digits = len(text) - (text[0] == "-")
    if digits > 19:
        raise _Refused(f"integer with {digits} digits is out of range (at most 2**63 - 1)")
    value = int(text)
    if not -_INT_LIMIT <= value < _INT_LIMIT:
        raise _Refused(f"integer {text} is out of range (at most 2**63 - 1)")
    return value


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"number {text[:40]} is too large (not a finite number)")
    return value


def _parse_constant(name: str) -> float:
    raise _Refused(f"{name} is not JSON (use a number or null)")


#: One decoder for every line (``json.loads`` with hooks would build one per call).
_DECODER = json.JSONDecoder(
    parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant
)


def check_value(value: Any) -> str | None:
    """The first problem of a parsed line's values (nesting, lone surrogates), or None."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        kind = type(item)
        if kind is str:
            if _SURROGATE.search(item):
                return "a string holds a lone UTF-16 surrogate (not valid Unicode text)"
            continue
        if kind is dict:
            if depth > MAX_DEPTH:
                return f"nested deeper than {MAX_DEPTH} levels"
            for key, inner in item.items():
                if _SURROGATE.search(key):
                    return "a key holds a lone UTF-16 surrogate (not valid Unicode text)"
                if type(inner) in (dict, list, str):
                    stack.append((inner, depth + 1))
        elif kind is list:
            if depth > MAX_DEPTH:
                return f"nested deeper than {MAX_DEPTH} levels"
            stack.extend((inner, depth + 1) for inner in item if type(inner) in (dict, list, str))
    return None


def decode_limited(text: str) -> Any:
    """Parse the JSON ``text`` within the limits above (the line length aside).

    Used for every JSON text a recording or an imported session carries, the line
    itself and the JSON inside it (a tool call's ``arguments`` string), so no nesting
    or number gets past the reader.  Raises :class:`JsonRefused` with the reason.
    """
    try:
        data = _DECODER.decode(text)
    except _Refused:
        raise
    except json.JSONDecodeError as exc:
        raise JsonRefused(f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise JsonRefused(f"nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # e.g. an integer too long for int()
        raise JsonRefused(f"not readable JSON ({exc})") from None
    problem = check_value(data)
    if problem is not None:
        raise JsonRefused(problem)
    return data


def read_line(path: str, number: int, text: str) -> Any:
    """Parse line ``number`` of ``path`` (its ``text``) within the limits above.

    Returns the JSON value; raises :class:`RecordingError` naming ``path:number``.
    """
    if len(text) > MAX_LINE_CHARS:
        raise RecordingError(
            f"{path}:{number}: line is {len(text)} characters long; the limit is "
            f"{MAX_LINE_CHARS} (split the content or shorten the tool output)"
        )
    try:
        return decode_limited(text)
    except JsonRefused as exc:
        raise RecordingError(f"{path}:{number}: {exc}") from None

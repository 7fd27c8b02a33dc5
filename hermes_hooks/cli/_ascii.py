"""ASCII stand-ins for the marks the CLI prints (✓, ✗, →, ...), for a terminal or pipe
whose encoding cannot write them (``PYTHONIOENCODING=ascii``, an old ``LANG=C``
console): the output keeps its meaning instead of ending in a ``UnicodeEncodeError``.
"""

from __future__ import annotations

import codecs
import io
from typing import TextIO

__all__ = ["MARKS", "fit_to_encoding"]

#: Each mark the CLI prints, and what stands in for it in plain ASCII.
MARKS = {
    "✓": "ok",
    "✗": "X",
    "⚠": "!",
    "ℹ": "i",
    "→": "->",
    "—": "--",
    "–": "-",
    "·": "*",
    "•": "*",
    "…": "...",
}
_HANDLER = "hermes-hooks-ascii"


def _stand_in(error: UnicodeError) -> tuple[str, int]:
    """The encode error handler: a mark becomes its stand-in, anything else a visible
    ``\\u`` escape (never a silent ``?``)."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    text = error.object[error.start : error.end]
    out = "".join(
        MARKS.get(char, char.encode("ascii", "backslashreplace").decode()) for char in text
    )
    return out, error.end


def fit_to_encoding(*streams: TextIO) -> None:
    """Make each stream that cannot encode the CLI's marks write their ASCII stand-ins."""
    for stream in streams:
        encoding = getattr(stream, "encoding", None) or "ascii"
        try:
            "".join(MARKS).encode(encoding)
        except (UnicodeEncodeError, LookupError):
            if not isinstance(stream, io.TextIOWrapper):
                continue  # a test's capture or a custom writer: left as given
            try:
                codecs.lookup_error(_HANDLER)
            except LookupError:
                codecs.register_error(_HANDLER, _stand_in)
            stream.reconfigure(errors=_HANDLER)

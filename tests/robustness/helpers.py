"""Helpers shared by the tests of this folder (imported, not fixtures)."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from hypothesis import strategies as st

FULL = os.environ.get("HERMES_ROBUST_SCALE", "small") == "full"


def scale(small: int, full: int) -> int:
    """``full`` under ``HERMES_ROBUST_SCALE=full``, else ``small``."""
    return full if FULL else small


class Captured:
    """Log records captured by :func:`capture_logs`."""

    def __init__(self) -> None:
        self.records: list[logging.LogRecord] = []

    def messages(self, level: int | None = None) -> list[str]:
        """The formatted messages, optionally only those at ``level``."""
        return [r.getMessage() for r in self.records if level is None or r.levelno == level]

    def text(self) -> str:
        """Everything a log handler would write: messages and formatted tracebacks."""
        formatter = logging.Formatter("%(levelname)s %(name)s %(message)s")
        return "\n".join(formatter.format(r) for r in self.records)


class _ListHandler(logging.Handler):
    def __init__(self, sink: Captured) -> None:
        super().__init__(logging.DEBUG)
        self.sink = sink

    def emit(self, record: logging.LogRecord) -> None:
        self.sink.records.append(record)


@contextmanager
def capture_logs(names: Iterable[str] = ("hermes_hooks", "gateway.hooks")) -> Iterator[Captured]:
    """Capture every record (DEBUG and up) of the named loggers and their children.

    Usable inside Hypothesis examples, where function-scoped fixtures such as
    ``caplog`` are not reset between examples.
    """
    sink = Captured()
    handler = _ListHandler(sink)
    loggers = [logging.getLogger(name) for name in names]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
    try:
        yield sink
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.removeHandler(handler)
            logger.setLevel(level)


# -- Hypothesis strategies the fuzz modules share ----------------------------------------

# Every Unicode code point, lone surrogates included (and made common, Hypothesis draws
# them rarely): embedders hand us Python strings, not only what YAML or JSON can carry.
any_text = st.text(max_size=40) | st.text(
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF) | st.characters(), max_size=40
)


def nested(leaves: st.SearchStrategy[Any], keys: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Lists and dicts of ``leaves``, a few levels deep."""
    return st.recursive(
        leaves,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
        max_leaves=12,
    )


json_values = nested(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    st.text(max_size=10),
)


def encode_json(doc: Any) -> bytes:
    """``doc`` as the JSON bytes a peer would send."""
    return json.dumps(doc).encode()

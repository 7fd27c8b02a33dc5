"""The top-level ``hermes-hooks --help``, pre-rendered from the real parser.

Building the parser means importing argparse and all thirteen command modules, which
is most of what ``hermes-hooks --help`` used to cost.  Instead, ``python -m
hermes_hooks.cli._help_gen`` renders that help once with the real parser into
``_help_text.py``, and a test fails when the checked-in text drifts from what the
parser prints (as for the generated facade).

argparse wraps its help to the terminal's width and its layout changes between Python
versions, so the text is used only where argparse would print exactly it: on the
Python minor version that rendered it and at the width it was rendered for (the width
argparse assumes when the output is not a terminal, and that of a standard terminal).
Anywhere else :func:`prerendered` answers None and the real parser prints.
"""

from __future__ import annotations

import os
import sys

__all__ = ["COLUMNS", "columns", "prerendered"]

#: The terminal width the text is rendered for (what argparse assumes off a terminal).
COLUMNS = 80
_FALLBACK = 80  # shutil.get_terminal_size's fallback width


def prerendered() -> str | None:
    """The top-level help exactly as argparse would print it here, or None when the
    pre-rendered text may differ (another Python version or terminal width)."""
    from hermes_hooks.cli import _help_text

    if sys.version_info[:2] != _help_text.PYTHON or columns() != _help_text.COLUMNS:
        return None
    return _help_text.TEXT


def columns() -> int:
    """The width argparse wraps to here: ``shutil.get_terminal_size().columns``, asked
    the same way ($COLUMNS if a positive number, else the terminal on stdout, else 80)
    but without importing shutil, which imports ``re`` and would cost --help a third of
    its start-up.  A test checks it against shutil on and off a terminal."""
    try:
        width = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        width = 0
    if width <= 0:
        try:
            width = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            width = 0
    return width or _FALLBACK

"""The exit codes of ``hermes-hooks``: 0 success, 1 a check failed or a hook blocked,
2 bad usage or input, 130 interrupted (Ctrl-C, as shells report SIGINT)."""

from __future__ import annotations

__all__ = ["EXIT_FAILURE", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_USAGE"]

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

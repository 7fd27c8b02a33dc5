"""Helpers shared by the tests of this folder (imported, not fixtures)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hermes_hooks.claude import tables as claude_tables
from hermes_hooks.claude.import_settings import consent_key
from hermes_hooks.synthetic import synthetic_payload
from tests.shell.helpers import approve, write_config

HERE = Path(__file__).resolve().parent


CORPUS = HERE / "corpus"


JQ_SHIM = HERE / "jqshim"


def corpus(name: str) -> str:
    """The command that runs corpus script ``name`` (its absolute path)."""
    path = CORPUS / name
    assert path.is_file(), path
    return str(path)


def payload(event: str, tool: str | None = None, **overrides: Any) -> dict[str, Any]:
    """A complete payload of our ``event`` (synthetic), with ``overrides`` applied."""
    result = synthetic_payload(event, tool_name=tool)
    result.update(overrides)
    return result


def our_event(key: str) -> str:
    """Our event name for a ``hooks:`` key in either spelling."""
    event, _ = claude_tables.event_for_key(key)
    assert event is not None, key
    return event


def configure(home: Path, block: dict[str, Any], *, approved: bool = True, **top: Any) -> None:
    """Write ``block`` as the ``hooks:`` block and approve every command in it."""
    write_config(home, block, **top)
    if approved:
        for key, entries in block.items():
            for entry in entries or []:
                approve(home, our_event(key), consent_key(entry))


class Problems(list[tuple[str, bool]]):
    """A dialect's ``warn`` that records ``(message, narrows)`` in order."""

    def __call__(self, message: str, /, *, narrows: bool = False) -> None:
        self.append((message, narrows))

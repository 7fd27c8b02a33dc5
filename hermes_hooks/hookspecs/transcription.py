"""Speech-to-text hooks."""

from __future__ import annotations

from typing import Any

from hermes_hooks._contract import Kind, Selection
from hermes_hooks.hookspecs._marker import hookspec


@hookspec(kind=Kind.TRANSFORM, selection=Selection.FIELD_MERGE)
def pre_transcription(
    file_path: str,
    provider: str,
    model: str | None,
    language: str | None,
    prompt: str | None,
    source: str | None,
    telemetry_schema_version: str,
) -> dict[str, Any] | None:
    """Transform: a valid return value replaces content.

    Fires in the STT dispatcher after the provider is resolved and before any backend
    runs.

    Returns: ``None``, or a dict with any of ``prompt``, ``language``, ``model`` mapped
    to strings.  Every callback sees the original values; the dicts are applied in
    callback order, last writer wins per field.  ``""`` unsets a field
    (``prompt`` clears ``stt.prompt``; ``language``/``model`` reset to ``None``).
    Non-string values and unknown keys are ignored; changing ``file_path`` is refused
    with a warning.

    Sensitivity: the final prompt is sent to the STT provider with the audio.
    """

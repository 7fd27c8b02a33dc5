"""Plugin system-prompt sections.

A plugin registers a bounded section with
``ctx.register_system_prompt_section(id, content, position="after_memory",
max_chars=4000)``; ``content`` is a string or a callable taking the read-only session
map.  The host asks :meth:`PromptSections.render` once per new session and places the
text after the memory/profile context and before the session metadata.  The bytes are
frozen per session: a later call for the same session returns them unchanged, and
:func:`recover` finds them again in a persisted system prompt after a restart, so
plugin state is never read twice for one session.

Rendered form, byte-exact::

    <!-- hermes-plugin-sections:start -->
    ## Plugin Context: <id>
    <!-- hermes-plugin-section-chars:<N> -->

    <content>

    ## Plugin Context: <next id>
    ...
    <!-- hermes-plugin-sections:end -->
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from hermes_hooks._isolation import escapes
from hermes_hooks._log import exception_text, get_logger

__all__ = [
    "MAX_SECTIONS",
    "MAX_SECTION_CHARS",
    "MAX_TOTAL_CHARS",
    "PromptSections",
    "Section",
    "recover",
]

log = get_logger("hermes_hooks.plugins.prompt_sections")

MAX_SECTION_CHARS = 4000
MAX_TOTAL_CHARS = 8000
MAX_SECTIONS = 32
START = "<!-- hermes-plugin-sections:start -->"
END = "<!-- hermes-plugin-sections:end -->"
_MARKER_PREFIX = "<!-- hermes-plugin-section"
# Compiled on first use by ``re``'s own cache: a load whose plugins register no
# section never pays for the compile.
_ID = r"^[a-z0-9][a-z0-9._-]{0,127}$"
#: The keys of the read-only map a callable receives.
SESSION_KEYS = ("session_id", "model", "provider", "platform", "profile_name", "cwd")

Content = str | Callable[[Mapping[str, Any]], Any]


@dataclass(frozen=True)
class Section:
    """One registered section."""

    id: str
    plugin: str
    content: Content
    position: str
    max_chars: int


class PromptSections:
    """The sections registered in one :class:`~hermes_hooks.hooks.Hooks`."""

    def __init__(self) -> None:
        self._sections: dict[str, Section] = {}
        self._frozen: dict[str, str] = {}
        self._lock = threading.Lock()

    def register(
        self,
        plugin: str,
        section_id: str,
        content: Content,
        *,
        position: str = "after_memory",
        max_chars: int = MAX_SECTION_CHARS,
    ) -> None:
        """Add a section; ``TypeError`` on bad content, ``ValueError`` on a bad or taken id,
        a position other than ``after_memory`` or a cap outside 1..4000."""
        if not isinstance(section_id, str) or not re.match(_ID, section_id):
            raise ValueError(
                f"System prompt section id {section_id!r} is invalid: use 1 to 128 "
                "lowercase letters, digits, '.', '_' or '-', starting with a letter or digit"
            )
        if not isinstance(content, str) and not callable(content):
            raise TypeError(
                f"System prompt section '{section_id}': content must be a string or a "
                f"callable, not {type(content).__name__}"
            )
        if position != "after_memory":
            raise ValueError(
                f"System prompt section '{section_id}': position must be 'after_memory', "
                f"not {position!r}"
            )
        if (
            isinstance(max_chars, bool)
            or not isinstance(max_chars, int)
            or not 0 < max_chars <= MAX_SECTION_CHARS
        ):
            raise ValueError(
                f"System prompt section '{section_id}': max_chars must be an integer "
                f"between 1 and {MAX_SECTION_CHARS}, not {max_chars!r}"
            )
        with self._lock:
            existing = self._sections.get(section_id)
            if existing is not None:
                raise ValueError(
                    f"System prompt section '{section_id}' is already registered by "
                    f"plugin '{existing.plugin}'"
                )
            self._sections[section_id] = Section(section_id, plugin, content, position, max_chars)

    def unregister_plugin(self, plugin: str) -> None:
        """Remove every section ``plugin`` registered (frozen sessions keep their text)."""
        with self._lock:
            for section_id in [k for k, s in self._sections.items() if s.plugin == plugin]:
                del self._sections[section_id]

    def plugins(self) -> set[str]:
        """The plugins that registered at least one section."""
        with self._lock:
            return {s.plugin for s in self._sections.values()}

    def ids(self) -> list[str]:
        """Registered section ids in render (ascending) order."""
        return sorted(self._sections)

    def render(self, session: Mapping[str, Any]) -> str:
        """The sections block for a session; ``""`` when no section is accepted.

        Computed once per ``session_id`` and frozen.
        """
        session_id = str(session.get("session_id") or "")
        with self._lock:
            if session_id and session_id in self._frozen:
                return self._frozen[session_id]
            sections = [self._sections[k] for k in sorted(self._sections)]
        text = self._build(sections, MappingProxyType({k: session.get(k) for k in SESSION_KEYS}))
        if session_id:
            with self._lock:
                text = self._frozen.setdefault(session_id, text)
        return text

    def restore(self, session_id: str, system_prompt: str) -> str:
        """Freeze ``session_id`` to the block found in its persisted system prompt, so a
        resumed session never re-reads plugin state; returns that block."""
        text = recover(system_prompt)
        with self._lock:
            self._frozen[session_id] = text
        return text

    def forget(self, session_id: str) -> None:
        """Drop a finished session's frozen text."""
        with self._lock:
            self._frozen.pop(session_id, None)

    @staticmethod
    def _build(sections: list[Section], info: Mapping[str, Any]) -> str:
        blocks: list[str] = []
        total = len(START) + 1 + len(END)  # the markers and the newline between them
        for section in sections:
            text = _content(section, info)
            if text is None:
                continue
            block = (
                f"## Plugin Context: {section.id}\n"
                f"<!-- hermes-plugin-section-chars:{len(text)} -->\n\n{text}"
            )
            if len(blocks) == MAX_SECTIONS:
                log.warning(
                    "System prompt section '%s' skipped: at most %d sections are rendered",
                    section.id, MAX_SECTIONS,
                )  # fmt: skip
                continue
            added = len(block) + (2 if blocks else 1)  # "\n\n" between blocks, "\n" first
            if total + added > MAX_TOTAL_CHARS:
                log.warning(
                    "System prompt section '%s' skipped: it would take all plugin "
                    "sections past %d characters", section.id, MAX_TOTAL_CHARS,
                )  # fmt: skip
                continue
            total += added
            blocks.append(block)
            log.info(
                "System prompt section '%s' from plugin '%s' at %s: %d chars",
                section.id, section.plugin, section.position, len(text),
            )  # fmt: skip
        if not blocks:
            return ""
        return f"{START}\n" + "\n\n".join(blocks) + f"\n{END}"


def _content(section: Section, info: Mapping[str, Any]) -> str | None:
    """The trimmed text of one section, or None (with a warning) when it is skipped."""
    value: Any = section.content
    if callable(value):
        try:
            value = value(info)
        except BaseException as exc:  # SystemExit included: plugin code never ends the host
            if escapes(exc):
                raise
            log.error(
                "System prompt section '%s' skipped: its callable raised %s: %s "
                "(plugin '%s')",
                section.id, type(exc).__name__, exception_text(exc, 200), section.plugin,
            )  # fmt: skip
            return None
    if not isinstance(value, str):
        log.warning(
            "System prompt section '%s' skipped: content is %s, not a string",
            section.id, type(value).__name__,
        )  # fmt: skip
        return None
    text = value.strip()
    if not text:
        log.warning("System prompt section '%s' skipped: it is empty", section.id)
        return None
    if len(text) > section.max_chars:
        log.warning(
            "System prompt section '%s' skipped: %d characters, over its max_chars of %d",
            section.id, len(text), section.max_chars,
        )  # fmt: skip
        return None
    if _MARKER_PREFIX in text:
        log.warning(
            "System prompt section '%s' skipped: it contains a plugin-section marker",
            section.id,
        )
        return None
    return text


def recover(system_prompt: str) -> str:
    """The sections block inside a rendered system prompt, or ``""`` if none."""
    start = system_prompt.find(START)
    if start < 0:
        return ""
    end = system_prompt.find(END, start)
    if end < 0:
        return ""
    return system_prompt[start : end + len(END)]

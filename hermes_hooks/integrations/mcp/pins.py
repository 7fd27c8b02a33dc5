"""Consent for upstream tool definitions: ``<home>/mcp-tool-pins.json``.

A tool's definition (its name, description and input schema) is what the model reads
and trusts, so a server that swaps a harmless description for an instruction to the
model changes what the agent does as surely as an edited hook script.  Definitions are
therefore consented like shell hooks: each is pinned by the sha256 of its canonical JSON
when approved (``hermes-hooks approve mcp__<server>__<tool>``, or ``--accept-hooks`` for
one run), and the proxy hides and refuses a tool whose definition no longer matches.

The file reuses the shell-hooks allowlist's machinery (the same document shape, the
same locked, atomic read-modify-write, a corrupt file set aside instead of overwritten);
only its entries differ::

    {"approvals": [{"tool": "mcp__files__read", "sha256": "9f86d0...",
                    "fields": {"name": "...", "description": "...", "inputSchema": "..."},
                    "approved_at": "2026-07-22T14:00:00Z"},
                   {"tool": "mcp__files__write", "sha256": "...", "fields": {...},
                    "approved_at": null, "seen_at": "2026-07-23T08:00:00Z"}]}

An entry with ``approved_at: null`` is a definition the proxy saw but nobody approved
yet: ``approve`` pins exactly that definition (the bytes the human can inspect in the
file), never whatever the server serves by then.  No module here imports the SDK.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from hermes_hooks._log import get_logger
from hermes_hooks.report import Finding
from hermes_hooks.shell import consent

__all__ = ["FIELDS", "PINS_NAME", "ToolPins", "Verdict", "definition_hashes"]

PINS_NAME = "mcp-tool-pins.json"
#: The parts of a tool definition that are pinned, in the order messages name them.
FIELDS = ("name", "description", "inputSchema")

log = get_logger("hermes_hooks.mcp")


def _sha256(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def definition_hashes(tool: dict[str, Any]) -> tuple[str, dict[str, str]]:
    """(the sha256 of the whole pinned definition, the sha256 of each field)."""
    fields = {name: _sha256(tool.get(name)) for name in FIELDS}
    return _sha256({name: tool.get(name) for name in FIELDS}), fields


def _now() -> str:
    return datetime.now(tz=timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the pins say of one definition: ``state`` is ``"approved"``, ``"new"``
    (never approved) or ``"changed"`` (approved once, differs now; ``changed`` names
    the fields that differ)."""

    tool: str
    state: str
    changed: tuple[str, ...] = ()

    @property
    def allowed(self) -> bool:
        """True when the tool may be listed and called."""
        return self.state == "approved"

    def message(self) -> str:
        """The refusal text for the client and the log (empty when allowed)."""
        # The name comes from the upstream: quoted so that pasted it approves this tool.
        hint = f"approve it with: hermes-hooks approve {consent.bash_word(self.tool)}"
        if self.state == "changed":
            what = " and ".join(self.changed) or "definition"
            return (
                f"tool {self.tool} changed its {what} since it was approved; it is hidden "
                f"and refused until approved again ({hint})"
            )
        if self.state == "new":
            return f"tool {self.tool} has not been approved; it is hidden and refused ({hint})"
        return ""


class _PinFile(consent.Allowlist):
    """The allowlist's locked read-modify-write, pointed at the pins file."""

    kind = "pins file"

    def __init__(self, home: Path) -> None:
        super().__init__(home)
        self.path = self.home / PINS_NAME
        self.lock_path = self.home / (PINS_NAME + ".lock")

    def entries(self) -> tuple[list[dict[str, Any]], str | None]:
        """(every well-formed entry, the problem of an unusable file or None)."""
        document, problem = consent._read_document(self.path)
        if document is None:
            return [], problem
        return [e for e in document["approvals"] if _well_formed(e)], None


def _well_formed(entry: Any) -> bool:
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("tool"), str)
        and isinstance(entry.get("sha256"), str)
        and isinstance(entry.get("fields", {}), dict)
    )


class ToolPins:
    """The pinned tool definitions of one home, re-read when the file changes (one
    ``stat`` per check), so an ``approve`` in another terminal takes effect at the
    client's next ``tools/list`` without restarting the proxy."""

    def __init__(self, home: Path) -> None:
        self._file = _PinFile(Path(home))
        self._stamp: tuple[int, int] | None = None
        self._approved: dict[str, dict[str, Any]] = {}
        self.problem: str | None = None

    @property
    def path(self) -> Path:
        """The pins file."""
        return self._file.path

    def _refresh(self) -> None:
        try:
            stat = self._file.path.stat()
            stamp: tuple[int, int] | None = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            stamp = None
        if stamp == self._stamp and self._stamp is not None:
            return
        self._stamp = stamp
        entries, self.problem = self._file.entries()
        self._approved = {e["tool"]: e for e in entries if e.get("approved_at")}

    def check(self, tool: str, definition: dict[str, Any]) -> Verdict:
        """The verdict on ``definition``, served under the name ``tool``."""
        self._refresh()
        digest, fields = definition_hashes(definition)
        approved = self._approved.get(tool)
        if approved is None:
            return Verdict(tool, "new")
        if approved["sha256"] == digest:
            return Verdict(tool, "approved")
        then = approved.get("fields") or {}
        changed = tuple(name for name in FIELDS if then.get(name) != fields[name])
        return Verdict(tool, "changed", changed)

    def record(self, seen: dict[str, dict[str, Any]], *, approve: bool) -> None:
        """Write the definitions ``seen`` (tool name → definition) that are not the
        approved ones: as approved when ``approve`` (``--accept-hooks``), else as seen
        and waiting for ``hermes-hooks approve``.

        Raises ``OSError`` when the file cannot be written.
        """
        now = _now()
        fresh = []
        for tool, definition in seen.items():
            digest, fields = definition_hashes(definition)
            entry: dict[str, Any] = {"tool": tool, "sha256": digest, "fields": fields}
            entry["approved_at"] = now if approve else None
            if not approve:
                entry["seen_at"] = now
            fresh.append(entry)
        if not fresh:
            return
        with self._file._update() as entries:
            names = {e["tool"] for e in fresh}
            if approve:  # the new approval replaces the old one and any waiting entry
                entries[:] = [e for e in entries if not (_well_formed(e) and e["tool"] in names)]
            else:  # keep the approval (it still refuses the change); replace what waited
                entries[:] = [
                    e
                    for e in entries
                    if not (_well_formed(e) and e["tool"] in names and not e.get("approved_at"))
                ]
            entries.extend(fresh)
        self._stamp = None

    def approve(self, pattern: str) -> list[str]:
        """Approve every seen definition whose tool matches ``pattern`` (a name, or a
        glob such as ``mcp__files__*``); return the tools approved.

        Raises ``OSError`` when the file cannot be written.
        """
        approved: list[str] = []
        now = _now()
        with self._file._update() as entries:
            waiting = [
                e
                for e in entries
                if _well_formed(e)
                and not e.get("approved_at")
                and fnmatch.fnmatchcase(e["tool"], pattern)
            ]
            names = {e["tool"] for e in waiting}
            kept = [e for e in entries if not (_well_formed(e) and e["tool"] in names)]
            for entry in waiting:
                entry = {k: v for k, v in entry.items() if k != "seen_at"}
                entry["approved_at"] = now
                kept.append(entry)
                approved.append(entry["tool"])
            entries[:] = kept
        self._stamp = None
        return sorted(approved)


def check_pins(home: Path) -> list[Finding]:
    """``doctor``'s findings on the pins file of ``home`` (none when there is none):
    an unusable file and a changed definition are errors (tools are refused), a
    definition waiting for its first approval is a warning."""
    pin_file = _PinFile(Path(home))
    if not pin_file.path.exists():
        return []
    subject = str(pin_file.path)
    entries, problem = pin_file.entries()
    if problem is not None:
        message = f"{problem}; every tool of every proxied server is refused. Fix or delete it."
        return [Finding("error", subject, message)]
    approved = {e["tool"]: e for e in entries if e.get("approved_at")}
    findings: list[Finding] = []
    for entry in entries:
        if entry.get("approved_at"):
            continue
        tool = entry["tool"]
        then = approved.get(tool)
        if then is None:
            verdict = Verdict(tool, "new")
            findings.append(Finding("warn", tool, verdict.message()))
        else:
            fields = entry.get("fields") or {}
            changed = tuple(f for f in FIELDS if (then.get("fields") or {}).get(f) != fields.get(f))
            findings.append(Finding("error", tool, Verdict(tool, "changed", changed).message()))
    findings.append(Finding("ok", subject, f"{len(approved)} MCP tool definition(s) pinned"))
    return findings

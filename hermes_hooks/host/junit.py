"""The JUnit XML report of ``hermes-hooks replay --junit-xml FILE``.

One ``<testcase>`` per recording (named by its path), one ``<failure>`` per
``--fail-on`` hit naming the turn, the hook and the callback, and one of type
``replay-crashed`` for a recording whose replay died; the counts of the
``<testsuite>`` follow.  The element and attribute names are the ones the JUnit XML
schema used by CI systems (Jenkins, GitLab, GitHub test reporters) requires.

Messages come from hooks and recordings, so they may hold characters XML 1.0 cannot
carry at all (control characters such as ESC of a colour code, NUL, lone surrogates):
each is written as its escape, ``\x1b`` or ``\ud800``, so the file always parses and
the reader sees that something was there.  ``<``, ``&`` and ``]]>`` are escaped by the
XML writer as usual.
"""

from __future__ import annotations

import os
import re
import socket
import xml.etree.ElementTree as ET
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_hooks.config import resolve_home

if TYPE_CHECKING:
    from hermes_hooks.host.job import ReplayResult

__all__ = ["junit_tree", "write_junit", "xml_text"]

SUITE = "hermes-hooks replay"


def _seconds(value: float) -> str:
    return f"{value:.3f}"


#: What XML 1.0 cannot hold: C0 controls other than tab, newline and carriage return,
#: lone surrogates, and U+FFFE / U+FFFF.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def xml_text(text: str) -> str:
    """``text`` with every character XML 1.0 cannot hold written as its escape."""
    return _NOT_XML.sub(_visible, text)


def _clean(root: ET.Element) -> None:
    for element in root.iter():
        if element.text:
            element.text = xml_text(element.text)
        if element.tail:
            element.tail = xml_text(element.tail)
        for key, value in element.attrib.items():
            element.attrib[key] = xml_text(value)


def junit_tree(
    results: list[ReplayResult], fail_on: tuple[str, ...], home: str | None = None
) -> ET.ElementTree:
    """The report as an element tree (``<testsuites>`` with one ``<testsuite>``)."""
    failures = sum(1 for r in results if r.hits or r.crashed)
    elapsed = sum(r.seconds for r in results)
    counts = {
        "tests": str(len(results)),
        "failures": str(failures),
        "errors": "0",
        "skipped": "0",
        "time": _seconds(elapsed),
    }
    root = ET.Element("testsuites", {"name": SUITE, **counts})
    suite = ET.SubElement(
        root,
        "testsuite",
        {
            "name": SUITE,
            **counts,
            "timestamp": datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
            "hostname": socket.gethostname() or "localhost",
        },
    )
    properties = ET.SubElement(suite, "properties")
    # The home as an absolute path: a CI report read later, elsewhere, must say which
    # folder was replayed (its name alone is "home" or ".hermes" more often than not).
    where = str(resolve_home(home).resolve())
    for name, value in (("home", where), ("fail-on", ",".join(fail_on) or "none")):
        ET.SubElement(properties, "property", {"name": name, "value": value})
    for result in results:
        case = ET.SubElement(
            suite,
            "testcase",
            {
                "name": result.path,
                "classname": f"replay.{Path(result.path).stem}",
                "time": _seconds(result.seconds),
            },
        )
        if result.crashed:
            crash = ET.SubElement(
                case,
                "failure",
                {"message": f"not replayed: {result.crashed}"[:1000], "type": "replay-crashed"},
            )
            crash.text = f"the recording was not replayed to its end: {result.crashed}\n"
        for hit in result.hits:
            failure = ET.SubElement(
                case,
                "failure",
                {"message": hit.describe()[:1000], "type": f"fail-on-{hit.kind}"},
            )
            failure.text = (
                f"{hit.where}\nhook: {hit.hook}\ncallback: {hit.callback} ({hit.source})\n"
                f"reason: {hit.reason}\n"
            )
    _clean(root)
    ET.indent(root)
    return ET.ElementTree(root)


def write_junit(
    path: str | os.PathLike[str],
    results: list[ReplayResult],
    fail_on: tuple[str, ...],
    home: str | None = None,
) -> None:
    """Write the report to ``path`` (UTF-8, with an XML declaration)."""
    junit_tree(results, fail_on, home).write(path, encoding="utf-8", xml_declaration=True)

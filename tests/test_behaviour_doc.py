"""Rule IDs resolve inside the repository, and user-facing text carries none.

Code comments and tests cite behaviour rules by short IDs (``D-20``, ``SH-17`` ...).
Each cited ID must have its own section in ``docs/behaviour.md``, and the pages and
messages users read (README, the other ``docs/`` pages, the hookspec docstrings that
``hermes-hooks hooks`` prints) state rules in words instead.
"""

from __future__ import annotations

import re
from pathlib import Path

from hermes_hooks.hookspecs import CATALOGUE

ROOT = Path(__file__).resolve().parents[1]
BEHAVIOUR = ROOT / "docs" / "behaviour.md"

#: Every family of internal rule IDs the repository cites.
RULE_ID = re.compile(
    r"\b(D-[0-9]{2}|SH-T?[0-9]+|GW-T?[0-9]+|PL-[0-9]+|OUT-[0-9]+|CLI-[0-9]+|BOOT-[0-9]+"
    r"|PS-[0-9]+|ST-[0-9]+|EX-[0-9]+|CAT-T[0-9]+|CAT-[a-z_]+)\b"
)

#: Where IDs may be cited: the package, tests, contrib, bench, examples and docs.
CITING_DIRS = ("hermes_hooks", "tests", "contrib", "bench", "examples", "docs", "hookspecs")
TEXT_SUFFIXES = {".py", ".md", ".json", ".jsonl", ".yaml", ".yml", ".sh", ".toml", ".txt"}

#: ``### D-20 — title``: the heading of one rule's section.
SECTION = re.compile(r"^### (\S+) — \S", re.MULTILINE)


def _is_build_output(path: Path) -> bool:
    """Caches and build copies (``build/``, ``*.egg-info``) are not sources."""
    return any(
        p in {"__pycache__", "build"} or p.endswith(".egg-info")
        for p in path.relative_to(ROOT).parts
    )


def _text_files() -> list[Path]:
    files = [ROOT / "README.md"]
    for name in CITING_DIRS:
        for path in sorted((ROOT / name).rglob("*")):
            if path.is_file() and path.suffix in TEXT_SUFFIXES and not _is_build_output(path):
                files.append(path)
    return files


def _cited_ids() -> dict[str, Path]:
    cited: dict[str, Path] = {}
    for path in _text_files():
        if path == BEHAVIOUR:
            continue
        for match in RULE_ID.finditer(path.read_text(encoding="utf-8", errors="replace")):
            cited.setdefault(match.group(1), path)
    return cited


def test_every_cited_rule_id_has_a_section_in_behaviour_md() -> None:
    sections = SECTION.findall(BEHAVIOUR.read_text(encoding="utf-8"))
    assert len(sections) == len(set(sections)), "a rule ID has two sections"
    missing = {
        rule: str(path.relative_to(ROOT))
        for rule, path in sorted(_cited_ids().items())
        if rule not in sections
    }
    assert missing == {}, "cited rule IDs without a section in docs/behaviour.md"


def test_every_section_heading_is_a_rule_id() -> None:
    for rule in SECTION.findall(BEHAVIOUR.read_text(encoding="utf-8")):
        assert RULE_ID.fullmatch(rule), rule


def test_user_facing_pages_cite_no_rule_id() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    pages += [*sorted((ROOT / "contrib").rglob("*.md")), *sorted((ROOT / "examples").rglob("*.md"))]
    found = {
        str(page.relative_to(ROOT)): sorted(set(RULE_ID.findall(page.read_text(encoding="utf-8"))))
        for page in pages
        if page != BEHAVIOUR
    }
    assert {page: ids for page, ids in found.items() if ids} == {}


def test_hookspec_docstrings_cite_no_rule_id() -> None:
    found = {
        name: sorted(set(RULE_ID.findall(contract.doc)))
        for name, contract in CATALOGUE.items()
        if RULE_ID.search(contract.doc)
    }
    assert found == {}

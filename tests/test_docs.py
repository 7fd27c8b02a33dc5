"""docs/hooks.md is generated from the catalogue, and each documented example works."""

from __future__ import annotations

import re
from pathlib import Path

import hermes_hooks
from hermes_hooks._docs import render_hooks_md
from hermes_hooks.hookspecs import CATALOGUE
from tests.helpers import write_plugin

DOCS = Path(__file__).resolve().parents[1] / "docs" / "hooks.md"


def test_hooks_md_matches_the_catalogue() -> None:
    assert DOCS.read_text(encoding="utf-8") == render_hooks_md(), (
        "docs/hooks.md drifted: run python -m hermes_hooks._docs docs/hooks.md"
    )


def test_every_hook_has_a_section_with_its_fields() -> None:
    text = DOCS.read_text(encoding="utf-8")
    sections = re.split(r"^## ", text, flags=re.MULTILINE)[1:]
    assert [s.splitlines()[0] for s in sections] == [f"`{name}`" for name in CATALOGUE]
    for section in sections:
        name = section.splitlines()[0].strip("`")
        for field in CATALOGUE[name].fields:
            assert f"| `{field.name}` |" in section, (name, field.name)


def test_every_documented_example_loads_as_a_plugin(home: Path) -> None:
    examples = re.findall(r"```python\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.DOTALL)
    assert len(examples) == len(CATALOGUE)
    for index, code in enumerate(examples):
        write_plugin(home / "plugins", f"example{index:02d}", code)
    hooks = hermes_hooks.load(home, entry_points=False)
    records = hooks.sources["python"].records()
    assert [(r.state, r.problems) for r in records] == [("loaded", [])] * len(CATALOGUE)
    assert sorted(h for r in records for h in r.hooks) == sorted(CATALOGUE)
    hooks.close()

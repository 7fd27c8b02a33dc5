"""The test suite's own layout: helpers live in ``helpers`` modules, never imported
from a ``conftest`` (pytest loads conftests itself; importing one runs it twice under
two module names)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_CONFTEST_IMPORT = re.compile(
    r"^\s*(?:from\s+[\w.]*conftest\s+import|import\s+[\w.]*conftest)", re.M
)


def test_no_test_imports_from_a_conftest() -> None:
    offenders = [
        str(path.relative_to(ROOT))
        for folder in ("tests", "contrib", "bench")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if _CONFTEST_IMPORT.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


# -- the package's own layout ---------------------------------------------------------

PACKAGE = ROOT / "hermes_hooks"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _runtime_imports(path: Path, modules: set[str]) -> set[str]:
    """The package modules ``path`` imports when it runs, inside functions included
    (imports under ``if TYPE_CHECKING:`` never run, so they are left out)."""
    name = _module_name(path)
    return _imports_in(path.read_text(encoding="utf-8"), name, path.name, modules)


def _every_import(path: Path, modules: set[str]) -> set[str]:
    """The package modules ``path`` names in any import: at run time, inside functions
    and under ``if TYPE_CHECKING:`` (a type-only import still ties one package's code
    to another's)."""
    name = _module_name(path)
    text = path.read_text(encoding="utf-8")
    return _imports_in(text, name, path.name, modules, typing=True)


def _imports_in(
    text: str, name: str, filename: str, modules: set[str], *, typing: bool = False
) -> set[str]:
    """The package modules the source ``text`` of module ``name`` (in file
    ``filename``) imports; ``typing``: count the imports under ``if TYPE_CHECKING:``."""
    tree = ast.parse(text)
    typing_only = (
        set()
        if typing
        else {
            id(node)
            for block in ast.walk(tree)
            if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
            for statement in block.body
            for node in ast.walk(statement)
        }
    )
    package = name if filename == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            targets = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names
            ]
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_package_has_no_import_cycle() -> None:
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {name: _runtime_imports(path, set(paths)) for name, path in paths.items()}
    assert _cycles(graph) == []


def test_the_package_has_no_import_cycle_even_counting_type_only_imports() -> None:
    # A type-only import still ties one module's code to another's: the core, the hook
    # systems and the tools form no circle even through them.
    modules = _modules()
    graph = {name: _every_import(path, set(modules)) for name, path in modules.items()}
    assert _cycles(graph) == []


def test_the_cycle_finder_sees_a_cycle_through_a_function_level_import() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_no_package_module_is_over_700_lines() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in PACKAGE.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 700
    }
    assert long == {}


# -- one package per hook system -------------------------------------------------------

#: The packages beside the core: one per hook system, and the tools built on them.
PEER_PACKAGES = (
    "plugins",
    "shell",
    "claude",
    "webhooks",
    "gateway",
    "telemetry",
    "host",
    "integrations",
    "cli",
)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _within(found: set[str], package: str) -> list[str]:
    prefix = f"hermes_hooks.{package}"
    return sorted(m for m in found if m == prefix or m.startswith(prefix + "."))


#: The closed core: the catalogue, the facade, the dispatcher and what it runs on. It
#: names no hook system: each system registers callbacks that carry their own policy.
CORE_MODULES = (
    "_callback",
    "_capabilities",
    "_contract",
    "_dispatch",
    "_handoff",
    "_isolation",
    "_manager",
    "_plan",
    "_select",
    "_stream",
    "_workers",
    "config",
    "errors",
    "sources",
    "types",
)


def test_every_hook_system_is_a_package_of_its_own() -> None:
    assert [p for p in PEER_PACKAGES if not (PACKAGE / p / "__init__.py").is_file()] == []
    assert not (PACKAGE / "adapters").exists()


def test_the_core_imports_no_hook_system() -> None:
    # Counting imports inside functions and type-only ones: the core knows no adapter.
    modules = _modules()
    core = {f"hermes_hooks.{name}" for name in CORE_MODULES} | {
        name
        for name in modules
        if name.startswith(("hermes_hooks.hookspecs", "hermes_hooks._facade"))
    }
    assert core <= set(modules)
    offenders = {
        name: named
        for name in sorted(core)
        if (
            named := [
                m
                for package in PEER_PACKAGES
                for m in _within(_every_import(modules[name], set(modules)), package)
            ]
        )
    }
    assert offenders == {}


def test_the_shell_package_never_imports_the_claude_package() -> None:
    # Claude Code is a dialect the shell finds through its registry (data), never an
    # import: not at run time, not inside a function, not for type checking.
    modules = _modules()
    offenders = {
        name: found
        for name, path in modules.items()
        if name.startswith("hermes_hooks.shell")
        if (found := _within(_every_import(path, set(modules)), "claude"))
    }
    assert offenders == {}


def test_the_loader_imports_no_hook_system() -> None:
    modules = _modules()
    found = _every_import(PACKAGE / "_loader.py", set(modules))
    assert [m for package in PEER_PACKAGES for m in _within(found, package)] == []
    assert "hermes_hooks.sources" in found  # the adapters come from the registry (data)


def test_the_import_finder_counts_type_checking_and_function_imports() -> None:
    modules = {"hermes_hooks.shell.x", "hermes_hooks.claude.tables", "hermes_hooks.claude.model"}
    text = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from hermes_hooks.claude.tables import ClaudeSpec\n"
        "def f():\n"
        "    from hermes_hooks.claude import model\n"
    )
    every = _imports_in(text, "hermes_hooks.shell.x", "x.py", modules, typing=True)
    runtime = _imports_in(text, "hermes_hooks.shell.x", "x.py", modules)
    assert every == {"hermes_hooks.claude.tables", "hermes_hooks.claude.model"}
    assert runtime == {"hermes_hooks.claude.model"}

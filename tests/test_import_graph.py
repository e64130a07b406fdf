"""The package's import graph: no cycle (imports inside functions included), and the core imports
no harness at module level (lm-eval, Inspect, swebench are optional extras)."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("benchchecker_plugin", "harness_adapters")
HARNESSES = ("lm_eval", "inspect_ai", "swebench", "harness_adapters")
#: Inspect's own entry points (tasks and the model API registered with Inspect): loaded by Inspect only
INSPECT_PLUGIN = ("benchchecker_plugin.inspect_tasks", "benchchecker_plugin._inspect_registry")


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


MODULES = _modules()


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _imports(name: str) -> list[tuple[str, bool]]:
    """(imported module, at module level) for every import in ``name``, ``TYPE_CHECKING`` blocks
    left out."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    here = name if _is_package(name) else name.rsplit(".", 1)[0]
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, top: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if _type_checking(child):
                continue
            inner = top and not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                found.extend((a.name, top) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    parent = here.split(".")[: len(here.split(".")) - child.level + 1]
                    base = ".".join(parent + ([base] if base else []))
                for alias in child.names:
                    sub = f"{base}.{alias.name}"
                    found.append((sub if sub in MODULES else base, top))
            visit(child, inner)

    visit(tree, True)
    return found


def test_the_import_graph_has_no_cycle() -> None:
    graph = nx.DiGraph()
    for name in MODULES:
        graph.add_node(name)
        for target, _ in _imports(name):
            if target in MODULES and target != name and not (_is_package(name) and target.startswith(name + ".")):
                graph.add_edge(name, target)
    cycles = [c for c in nx.simple_cycles(graph) if len(c) > 1]
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c + [c[0]]) for c in cycles[:5])


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("benchchecker_plugin")
                                        and not n.startswith(INSPECT_PLUGIN)))
def test_the_core_imports_no_harness_at_module_level(name: str) -> None:
    bad = [t for t, top in _imports(name) if top and t.split(".")[0] in HARNESSES]
    assert not bad, f"{name} imports {bad} at module level"


def test_the_walk_sees_function_level_imports() -> None:
    """The walk itself: a lazy import counts for cycles, and is seen as not module level."""
    imports = _imports("benchchecker_plugin.testrun.swebench")
    assert ("harness_adapters.swebench.compat", False) in imports


def test_the_core_reaches_swebench_only_through_its_compat_module() -> None:
    """Even lazily: every swebench name goes through ``harness_adapters.swebench.compat`` (one
    place that knows swebench's module layout and checks its version)."""
    bad = {name: t for name in MODULES if name.startswith("benchchecker_plugin")
           for t, _ in _imports(name) if t.split(".")[0] == "swebench"}
    assert not bad


def _all(name: str) -> set[str] | None:
    for node in ast.parse(MODULES[name].read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
            return set(ast.literal_eval(node.value))
    return None


def test_names_used_across_modules_are_public_and_in_all() -> None:
    """``from .x import name`` between our modules: ``name`` is public and in ``x.__all__`` (a
    neighbour's private helper is a contract nobody wrote down)."""
    bad = []
    for name, path in MODULES.items():
        here = name if _is_package(name) else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            base = node.module or ""
            if node.level:
                parent = here.split(".")[: len(here.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            for alias in node.names:
                if base not in MODULES or f"{base}.{alias.name}" in MODULES:
                    continue   # another package's name, or a submodule
                exported = _all(base)
                private = alias.name.startswith("_") and not alias.name.startswith("__")
                if private or exported is None or alias.name not in exported:
                    bad.append(f"{name}: {base}.{alias.name}")
    assert not bad, bad

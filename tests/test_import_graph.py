"""The package's import graph: no cycle (imports inside functions included, a package's imports of
its own children counted), the core imports no harness at module level (lm-eval, Inspect, swebench
are optional extras) and no adapter at all (layers point down: adapters import the core)."""

from __future__ import annotations

import ast
import re
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


def _import_base(module: str, node: ast.ImportFrom) -> str:
    """The absolute module an ``ImportFrom`` in ``module`` reads from (relative levels resolved)."""
    base = node.module or ""
    if node.level:
        here = module if _is_package(module) else module.rsplit(".", 1)[0]
        parent = here.split(".")[: len(here.split(".")) - node.level + 1]
        base = ".".join(parent + ([base] if base else []))
    return base


def _imports(name: str) -> list[tuple[str, bool]]:
    """(imported module, at module level) for every import in ``name``, ``TYPE_CHECKING`` blocks
    left out."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, top: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if _type_checking(child):
                continue
            inner = top and not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                found.extend((a.name, top) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = _import_base(name, child)
                for alias in child.names:
                    sub = f"{base}.{alias.name}"
                    found.append((sub if sub in MODULES else base, top))
            visit(child, inner)

    visit(tree, True)
    return found


def _graph(modules: dict[str, Path] | None = None) -> nx.DiGraph:
    """Module -> imported module, every edge (a package's ``__init__`` importing its children too:
    ``from ..scoring import X`` runs ``scoring/__init__``, which imports every child it re-exports)."""
    graph = nx.DiGraph()
    for name in MODULES if modules is None else modules:
        graph.add_node(name)
        for target, _ in _imports(name):
            if target in MODULES and target != name:
                graph.add_edge(name, target)
    return graph


def _cycles(graph: nx.DiGraph) -> list[list[str]]:
    return [c for c in nx.simple_cycles(graph) if len(c) > 1]


def test_the_import_graph_has_no_cycle() -> None:
    cycles = _cycles(_graph())
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c + [c[0]]) for c in cycles[:5])


def test_the_cycle_check_sees_a_cycle_through_a_package() -> None:
    """The cycle main once had and the old check (which dropped package -> child edges) missed:
    ``leaderboard.tiers`` -> ``scoring`` (its ``__init__``) -> ``scoring.flag_scores`` ->
    ``leaderboard.tiers``. Planted in a copy of the graph (its two cross edges), it is found."""
    graph = _graph()
    graph.add_edge("benchchecker_plugin.leaderboard._tiers", "benchchecker_plugin.scoring")
    graph.add_edge("benchchecker_plugin.scoring._flag_scores", "benchchecker_plugin.leaderboard._tiers")
    assert graph.has_edge("benchchecker_plugin.scoring", "benchchecker_plugin.scoring._flag_scores")
    found = {frozenset(c) for c in _cycles(graph)}
    assert frozenset({"benchchecker_plugin.leaderboard._tiers", "benchchecker_plugin.scoring",
                      "benchchecker_plugin.scoring._flag_scores"}) in found


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("benchchecker_plugin")
                                        and not n.startswith(INSPECT_PLUGIN)))
def test_the_core_imports_no_harness_at_module_level(name: str) -> None:
    bad = [t for t, top in _imports(name) if top and t.split(".")[0] in HARNESSES]
    assert not bad, f"{name} imports {bad} at module level"


def test_the_walk_sees_function_level_imports() -> None:
    """The walk itself: a lazy import counts for cycles, and is seen as not module level."""
    imports = _imports("benchchecker_plugin.testrun._swebench")
    assert ("benchchecker_plugin.swebench_compat", False) in imports


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("benchchecker_plugin")))
def test_the_core_imports_no_adapter(name: str) -> None:
    """Layers point down: ``harness_adapters`` imports the core, never the reverse, even lazily
    (the CLI finds the adapters' commands by name, as entry-point strings, not by import)."""
    bad = [t for t, _ in _imports(name) if t.split(".")[0] == "harness_adapters"]
    assert not bad, f"{name} imports {bad}"


def _defines(name: str, attr: str) -> bool:
    for node in ast.parse(MODULES[name].read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == attr:
            return True
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == attr for t in node.targets):
            return True
    return False


def test_the_adapters_the_core_names_exist() -> None:
    """The core names adapter functions as ``"module:attribute"`` strings instead of importing them:
    each such string names a module of ours that defines the attribute (a typo fails here, not in
    a user's run)."""
    named = {node.value for name in MODULES if name.startswith("benchchecker_plugin")
             for node in ast.walk(ast.parse(MODULES[name].read_text(encoding="utf-8")))
             if isinstance(node, ast.Constant) and isinstance(node.value, str)
             and re.fullmatch(r"harness_adapters(\.\w+)+:\w+", node.value)}
    assert "harness_adapters.lm_eval._detect:probes_for_tasks" in named
    bad = [s for s in sorted(named) if s.split(":")[0] not in MODULES or not _defines(*s.split(":"))]
    assert not bad, bad


def test_the_core_reaches_swebench_only_through_its_compat_module() -> None:
    """Even lazily: every swebench name goes through ``benchchecker_plugin.swebench_compat`` (one
    place that knows swebench's module layout and checks its version)."""
    bad = {name: t for name in MODULES if name.startswith("benchchecker_plugin")
           for t, _ in _imports(name) if t.split(".")[0] == "swebench"}
    assert not bad


def _all(name: str) -> set[str] | None:
    for node in ast.parse(MODULES[name].read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
            return set(ast.literal_eval(node.value))
    return None


def _owner(module: str) -> str:
    """The package whose face a module sits behind: ``benchchecker_plugin.X`` or
    ``harness_adapters.X`` for anything below them; a root module (``benchchecker_plugin.errors``)
    is its own face."""
    parts = module.split(".")
    head = ".".join(parts[:2])
    return head if head in MODULES and _is_package(head) else module


def _private(module: str) -> bool:
    return any(p.startswith("_") and not p.startswith("__") for p in module.split(".")[2:])


def _face_violations(name: str, tree: ast.AST) -> list[str]:
    """What module ``name`` (parsed as ``tree``) does against the house rule: a package is reached
    through its face. From another package, import only from the package (its ``__init__``) and
    only names in its ``__all__``; a private module (``_name.py``) is imported only by its own
    package; inside a package, a neighbour's ``_helper`` is still not taken."""
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [(a.name, None) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _import_base(name, node)
            targets = [(base, a.name) for a in node.names]
        else:
            continue
        for base, attr in targets:
            module = f"{base}.{attr}" if attr and f"{base}.{attr}" in MODULES else base
            if module not in MODULES:
                continue
            inside = _owner(module) == _owner(name)
            if _private(module) and not inside:
                bad.append(f"{name} imports {module}: a private module of another package "
                           f"(import from {_owner(module)})")
            elif module == base and attr and not attr.startswith("__"):
                if attr.startswith("_"):
                    bad.append(f"{name} imports {base}.{attr}: a private name")
                elif not inside and _is_package(base) and attr not in (_all(base) or ()):
                    bad.append(f"{name} imports {base}.{attr}: not in {base}.__all__")
    return bad


def test_a_package_is_reached_through_its_face() -> None:
    bad = [v for name, path in MODULES.items()
           for v in _face_violations(name, ast.parse(path.read_text(encoding="utf-8")))]
    assert not bad, bad


def test_the_face_check_finds_planted_breaches() -> None:
    """Each rule of :func:`_face_violations` on a planted import in a real module."""
    name = "benchchecker_plugin.stage2._engine"
    planted = {
        "from ..models._hf import HFModel": "a private module of another package",
        "import benchchecker_plugin.repos._git": "a private module of another package",
        "from ..models import _LAZY": "a private name",
        "from ._judge import _block_flag": "a private name",
        "from ..scoring import strata_sums": "not in benchchecker_plugin.scoring.__all__",
    }
    for line, why in planted.items():
        found = _face_violations(name, ast.parse(line))
        assert len(found) == 1 and why in found[0], (line, found)
    for line in ("from ..models import HFModel", "from ._judge import verdict", "from ..errors import InputError"):
        assert _face_violations(name, ast.parse(line)) == [], line


def test_every_module_below_a_package_is_private() -> None:
    """A package's modules are its own business (``_name.py``); what other packages use is named
    in the package's ``__init__`` (its face). Only root modules (``benchchecker_plugin.errors``)
    and packages keep public names."""
    public = sorted(n for n in MODULES if not _is_package(n) and _owner(n) != n and not _private(n))
    assert not public, public


def test_private_modules_declare_no_all() -> None:
    """``__all__`` is what a face offers; a private module has none to offer."""
    declared = sorted(n for n in MODULES if _private(n) and not _is_package(n) and _all(n) is not None)
    assert not declared, declared


#: The floors of the house (README, "Architecture"): a package imports its own floor or below,
#: never above; within a floor the package graph has no cycle.
FLOORS: dict[str, int] = {
    **dict.fromkeys(("_version", "errors", "progress", "warnings_text", "hub_reach", "atomic", "safe_io",
                     "extras", "local_data", "lazy_names", "cutoff", "tier_schemes", "rescore_options", "benchmarks",
                     "execution", "shipped_tasks", "private_api", "table_files", "cutoffs_file"), 0),
    **dict.fromkeys(("flags", "models", "repos", "instances", "swebench_compat", "patch_dates"), 1),
    **dict.fromkeys(("scoring", "stage1", "stage2", "testrun", "baselines", "tsguessing", "membership",
                     "overlap", "report", "leaderboard", "inspect_tasks"), 2),
    **dict.fromkeys(("check", "demo", "republish", "_inspect_registry", "(root)"), 3),
    "cli": 4,
    "harness_adapters": 5,
}


def _package(module: str) -> str:
    parts = module.split(".")
    return "harness_adapters" if parts[0] == "harness_adapters" else parts[1] if len(parts) > 1 else "(root)"


def _package_graph() -> nx.DiGraph:
    graph = nx.DiGraph()
    for name in MODULES:
        graph.add_node(_package(name))
        for target, _ in _imports(name):
            if target in MODULES and _package(target) != _package(name):
                graph.add_edge(_package(name), _package(target))
    return graph


def test_every_package_has_a_floor() -> None:
    assert sorted(set(_package_graph()) - set(FLOORS)) == []


def test_packages_import_down_and_have_no_cycle() -> None:
    """Package -> package edges (lazy imports included): never to a higher floor, and no cycle
    (``scoring`` once read instance tables through ``leaderboard`` while ``leaderboard`` imported
    ``scoring``: no module cycle, but a package one)."""
    graph = _package_graph()
    assert not _upward(graph), _upward(graph)
    assert not _cycles(graph), _cycles(graph)[:3]
    graph.add_edge("flags", "cli")       # planted: found
    graph.add_edge("cli", "flags")
    assert _upward(graph) == ["flags (floor 1) -> cli (floor 4)"] and _cycles(graph)


def _upward(graph: nx.DiGraph) -> list[str]:
    return sorted(f"{a} (floor {FLOORS[a]}) -> {b} (floor {FLOORS[b]})" for a, b in graph.edges
                  if FLOORS.get(b, -1) > FLOORS.get(a, 99))


BENCHMARKS = sorted((ROOT / "benchmarks").glob("*.py"))


def _private_imports(tree: ast.AST) -> list[str]:
    """The library modules below a package face that ``tree`` imports (``benchchecker_plugin.x._y``)."""
    found = []
    for node in ast.walk(tree):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
        found += [n for n in names if n.split(".")[0] == "benchchecker_plugin" and _private(n)]
    return found


def test_benchmarks_reach_the_library_only_through_its_faces() -> None:
    """What a benchmark script needs, a user needs too: it is on a package's face."""
    bad = {p.name: _private_imports(ast.parse(p.read_text(encoding="utf-8"))) for p in BENCHMARKS}
    assert not {k: v for k, v in bad.items() if v}
    planted = "from benchchecker_plugin.stage2._engine import run_stage2\nimport benchchecker_plugin.flags._io"
    assert _private_imports(ast.parse(planted)) == ["benchchecker_plugin.stage2._engine",
                                                    "benchchecker_plugin.flags._io"]


#: functions of 100 lines or more, each to be cut (the list may only shrink)
LONG_FUNCTIONS = {"harness_adapters/lm_eval/_cli.py::execute_filtered"}


def _long_functions(paths: list[Path], most: int = 99) -> set[str]:
    out = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                    node.end_lineno is not None and node.end_lineno - node.lineno + 1 > most:
                out.add(f"{path.relative_to(ROOT)}::{node.name}")
    return out


def test_no_function_reaches_100_lines() -> None:
    """A function of 100 lines does several things: the house's longest stay below (the known
    ones are listed, and the list only shrinks)."""
    found = _long_functions(list(MODULES.values()) + BENCHMARKS)
    assert found <= LONG_FUNCTIONS, sorted(found - LONG_FUNCTIONS)
    assert LONG_FUNCTIONS <= found, f"cut since: {sorted(LONG_FUNCTIONS - found)}: drop it from the list"
    assert _long_functions([ROOT / "benchmarks" / "flags_scale.py"], most=10)   # the walk sees them


#: the most names a package face may export (``__all__``): the widest today, ``tsguessing``, has 58
FACE_SIZE = 64


def _faces() -> list[str]:
    """Every face of the house: the root package, each package and root module under it (what
    :func:`_owner` makes its own face) and each of ``harness_adapters``'s, with an ``__all__``."""
    return sorted(n for n in MODULES if n.split(".")[0] in PACKAGES and _owner(n) == n
                  and not _private(n) and _all(n) is not None)


def _top_level(tree: ast.Module) -> list[ast.stmt]:
    """A module's statements, those under ``if TYPE_CHECKING:`` (a face's lazy names) included."""
    out: list[ast.stmt] = []
    for node in tree.body:
        out.extend(node.body if _type_checking(node) else [node])  # type: ignore[attr-defined]
    return out


def _definition(module: str, name: str, depth: int = 0) -> tuple[str, str]:
    """Where ``module.name`` is defined: followed through ``from ... import`` re-exports to the
    module that binds it (``(module, "")`` for a module itself, the import's source for a name
    from outside the house)."""
    for node in _top_level(ast.parse(MODULES[module].read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = _import_base(module, node)
            for alias in node.names:
                if (alias.asname or alias.name) != name:
                    continue
                if f"{base}.{alias.name}" in MODULES:
                    return f"{base}.{alias.name}", ""
                if base in MODULES and depth < 20:
                    return _definition(base, alias.name, depth + 1)
                return base, alias.name
    return module, name


def _clashes(exports: dict[str, dict[str, tuple[str, str]]]) -> list[str]:
    """Names two faces export bound to different definitions (``{face: {name: definition}}``)."""
    seen: dict[str, dict[tuple[str, str], list[str]]] = {}
    for face, names in exports.items():
        for name, where in names.items():
            seen.setdefault(name, {}).setdefault(where, []).append(face)
    return sorted(f"{name}: " + "; ".join(f"{', '.join(faces)} -> {'.'.join(w for w in where if w)}"
                                           for where, faces in sorted(defs.items()))
                  for name, defs in seen.items() if len(defs) > 1)


def test_no_two_faces_export_one_name_for_two_things() -> None:
    """A name two package faces export is one object (a re-export: ``flags.Verdict`` at the root),
    never two things that share a name (``FORMATS`` of instances and of leaderboard results once
    were). Checked from the source: each exported name followed to the module that defines it."""
    exports = {face: {name: _definition(face, name) for name in sorted(_all(face) or ())} for face in _faces()}
    assert len(exports) > 40 and "benchchecker_plugin.execution" in exports
    assert exports["benchchecker_plugin"]["Verdict"] == ("benchchecker_plugin.flags._record", "Verdict")
    assert exports["benchchecker_plugin.overlap"]["run_overlap"] == ("benchchecker_plugin.overlap._run",
                                                                       "run_overlap")   # a lazy name
    clashes = _clashes(exports)
    assert not clashes, clashes
    planted = {**exports, "benchchecker_plugin.demo": {
        **exports["benchchecker_plugin.demo"], "Verdict": ("benchchecker_plugin.demo._steps", "Verdict")}}
    assert _clashes(planted) == ["Verdict: benchchecker_plugin.demo -> benchchecker_plugin.demo._steps.Verdict; "
                                 "benchchecker_plugin, benchchecker_plugin.flags -> "
                                 "benchchecker_plugin.flags._record.Verdict"]


def test_faces_stay_under_their_size() -> None:
    """No face exports more than :data:`FACE_SIZE` names: a package that needs more is two
    concepts (``overlap`` once exported 66)."""
    sizes = {face: len(_all(face) or ()) for face in _faces()}
    wide = {face: n for face, n in sizes.items() if n > FACE_SIZE}
    assert not wide, wide
    assert max(sizes.values()) > FACE_SIZE // 2   # the walk sees the faces

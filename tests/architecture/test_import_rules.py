"""The layout's rules, generated from the one declaration of the tiers (``tiers.py``) and checked on the
source of every module of ``accel_sim/`` (an AST scan: imports at module level, inside functions, and
under ``TYPE_CHECKING`` alike; a string naming a module of the package, as the lazy tables of
``accel_sim/__init__.py`` hold, counts as an import of it, and the catalog imports each name it lists).

- no module imports a higher tier; between parts of one tier only as ``PEERS`` lets it; no circle of
  parts (a part: the folder or module just below a tier's folder) and no circle of modules;
- every folder of ``accel_sim/models/`` has the family contract's shape: only the contract's roles,
  each a module or a package, and ``spec``, ``plan``, ``fast``, ``reference``, ``accounting``, ``family``;
- a model's ``reference`` imports only its own ``spec`` / ``plan`` / ``counters`` / ``reference``, the
  shared hardware blocks, a few foundations (errors, layer types, the arch's base, the contract), the
  standard library, numpy and simpy: it never reuses the code it checks; ``fast`` never imports
  ``reference`` nor ``accounting``, and so on (``FORBIDDEN_BY_ROLE``);
- models never load energy tables (one costing path: ``accel_sim.pipeline.simulate``);
- ``compress`` imports neither simpy nor pandas nor the workloads; only ``pipeline/plot`` imports matplotlib.
"""
from __future__ import annotations

import ast
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.architecture.tiers import NEVER, PEERS, TIERS

PACKAGE = Path(__file__).resolve().parents[2] / "accel_sim"
ROLES = ("spec", "plan", "counters", "fast", "reference", "accounting", "family", "functional")
REQUIRED_ROLES = ("spec", "plan", "fast", "reference", "accounting", "family")
STDLIB = set(sys.stdlib_module_names)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


PATHS = sorted(PACKAGE.rglob("*.py"))
MODULES = {module_name(p): p for p in PATHS}


def imports_in(tree: ast.AST, name: str, is_package: bool, modules: Mapping[str, object]) -> set[str]:
    """Absolute names of every module a parsed module imports (``from a import b`` gives ``a.b`` when
    ``a.b`` is a module, else ``a``), plus every string constant that names a module of the package."""
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if candidate in modules else base)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in modules \
                and node.value.startswith("accel_sim.") and node.value != name:
            found.add(node.value)
    return found


def _catalog_models() -> set[str]:
    """The catalog imports ``accel_sim.models.<name>.family`` for each name of its list."""
    tree = ast.parse(MODULES["accel_sim.pipeline.catalog"].read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "MODEL_NAMES"
                                                for t in node.targets):
            return {f"accel_sim.models.{name}.family" for name in ast.literal_eval(node.value)}
    raise AssertionError("accel_sim/pipeline/catalog.py has no MODEL_NAMES")


def import_graph() -> dict[str, set[str]]:
    graph = {name: imports_in(ast.parse(path.read_text()), name, path.name == "__init__.py", MODULES)
             for name, path in MODULES.items()}
    graph["accel_sim.pipeline.catalog"] |= _catalog_models()
    return graph


GRAPH = import_graph()


# ---- tiers and parts, generated from tiers.py ----

def within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def tier_of(name: str) -> int | None:
    """Index of the tier ``name`` belongs to (0 = top); the longest matching package decides."""
    best = None
    for index, tier in enumerate(TIERS):
        for package in tier.packages:
            if within(name, package) and (best is None or len(package) > len(best[1])):
                best = (index, package)
    return None if best is None else best[0]


def part_of(name: str) -> str:
    """The folder or module just below the tier's own package (the tier itself for its package's
    ``__init__`` and for top-level modules such as ``accel_sim.__main__``)."""
    index = tier_of(name)
    package = max((p for p in TIERS[index].packages if within(name, p)), key=len)
    rest = name[len(package):].lstrip(".").split(".")
    return package if not rest[0] else f"{package}.{rest[0]}"


def layout_violations(graph: Mapping[str, set[str]]) -> list[str]:
    """Every import that runs up a tier, or across parts of one tier without leave."""
    bad = []
    for name, imported in graph.items():
        source_tier = tier_of(name)
        assert source_tier is not None, f"{name} is in no tier of tests/architecture/tiers.py"
        for target in sorted(imported):
            if not within(target, "accel_sim") or target not in graph:
                continue
            target_tier = tier_of(target)
            if target_tier < source_tier:
                bad.append(f"{name} imports {target}: from tier {TIERS[source_tier].name} up to "
                           f"{TIERS[target_tier].name}")
            elif target_tier == source_tier:
                source_part, target_part = part_of(name), part_of(target)
                allowed = PEERS.get(source_part, ())
                if source_part != target_part and target_part != TIERS[source_tier].packages[0] \
                        and not any(within(target, p) for p in allowed) and source_part in PEERS_CHECKED[source_tier]:
                    bad.append(f"{name} imports {target}: parts {source_part} -> {target_part} of tier "
                               f"{TIERS[source_tier].name} (not in PEERS)")
    return bad


# Tiers whose parts may only import each other as PEERS says (models: never; pipeline, systems: as
# declared). In foundations, studies and the interface, parts build on each other freely, without circles.
PEERS_CHECKED = {index: ({part_of(n) for n in MODULES if tier_of(n) == index}
                         if tier.name in ("systems", "pipeline", "models") else set())
                 for index, tier in enumerate(TIERS)}


def never_violations(graph: Mapping[str, set[str]]) -> list[str]:
    """Imports of a lower tier that ``NEVER`` forbids (studies reaching into a model)."""
    return [f"{name} imports {target}" for name, imported in graph.items() for source, banned in NEVER.items()
            if within(name, source) for target in sorted(imported) if any(within(target, b) for b in banned)]


def part_circles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    parts: dict[str, set[str]] = {}
    for name, imported in graph.items():
        source = part_of(name)
        parts.setdefault(source, set())
        parts[source] |= {part_of(t) for t in imported if t in graph and part_of(t) != source}
    return circles(parts)


def circles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    state: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                found.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return found


def test_every_module_is_in_a_tier():
    assert not [name for name in MODULES if tier_of(name) is None]


def test_no_import_runs_up_a_tier_or_across_parts():
    bad = layout_violations(GRAPH)
    assert not bad, "\n".join(bad)


def test_every_peer_permission_is_used():
    """PEERS says what the code does: a permission no import uses is stale and is removed."""
    used = {(part_of(name), part_of(target)) for name, imported in GRAPH.items() for target in imported
            if target in GRAPH and tier_of(target) == tier_of(name) and part_of(target) != part_of(name)}
    stale = [f"{source} -> {target}" for source, targets in PEERS.items() for target in targets
             if (source, target) not in used]
    assert not stale, f"PEERS permissions no import uses: {stale}"


def test_studies_are_clients():
    bad = never_violations(GRAPH)
    assert not bad, "\n".join(bad)


def test_no_circle_of_parts():
    found = part_circles(GRAPH)
    assert not found, "circles of parts:\n" + "\n".join(" -> ".join(c) for c in found[:10])


def test_no_circle_of_modules():
    # a package's __init__ importing its own submodules is how packages re-export: not a circle
    graph = {name: {i for i in deps if i in MODULES and i != name
                    and not (within(i, name) and MODULES[name].name == "__init__.py")}
             for name, deps in GRAPH.items()}
    found = circles(graph)
    assert not found, "import circles:\n" + "\n".join(" -> ".join(c) for c in found[:10])


PLANTED = '''
def helper():
    from accel_sim.pipeline.simulate import simulate   # a foundation reaching up, inside a function
    return simulate
'''


def test_a_planted_upward_import_fails():
    """The rules catch an upward import made inside a function, and a model importing another model."""
    planted = "accel_sim.foundations.workload.planted"
    graph = {name: set(deps) for name, deps in GRAPH.items()}
    graph[planted] = imports_in(ast.parse(PLANTED), planted, False, MODULES)
    assert any(v.startswith(f"{planted} imports accel_sim.pipeline.simulate") for v in layout_violations(graph))
    graph = {name: set(deps) for name, deps in GRAPH.items()}
    graph["accel_sim.models.eie.plan"] = graph["accel_sim.models.eie.plan"] | {"accel_sim.models.scnn.spec"}
    assert any("parts accel_sim.models.eie -> accel_sim.models.scnn" in v for v in layout_violations(graph))
    graph["accel_sim.studies.planted"] = {"accel_sim.models.scnn.plan"}
    assert never_violations(graph) == ["accel_sim.studies.planted imports accel_sim.models.scnn.plan"]


# ---- the family contract, on every folder of accel_sim/models/ ----

MODEL_FOLDERS = sorted(p.name for p in (PACKAGE / "models").iterdir() if (p / "__init__.py").is_file())


def model_modules(model: str) -> dict[str, Path]:
    return {name: path for name, path in MODULES.items() if name.startswith(f"accel_sim.models.{model}.")}


def role_of(name: str) -> str:
    return name.split(".")[3]


@pytest.mark.parametrize("model", MODEL_FOLDERS)
def test_model_folder_holds_only_contract_roles(model):
    strays = sorted(name for name in model_modules(model) if role_of(name) not in ROLES)
    assert not strays, f"{model}: modules outside the contract roles {ROLES}: {strays}"
    for role in REQUIRED_ROLES:
        assert any(role_of(n) == role for n in model_modules(model)), f"{model}: no {role} module"


REFERENCE_MAY_IMPORT = ("accel_sim.foundations.errors", "accel_sim.foundations.workload.layer",
                        "accel_sim.foundations.arch", "accel_sim.foundations.contract")


def allowed_for_reference(model: str, imported: str) -> bool:
    top = imported.split(".")[0]
    if top in ("numpy", "simpy") or (top in STDLIB and top != "accel_sim"):
        return True
    own = imported.startswith(f"accel_sim.models.{model}.") and role_of(imported) in (
        "spec", "plan", "counters", "reference")
    return own or within(imported, "accel_sim.hardware") or imported in REFERENCE_MAY_IMPORT


@pytest.mark.parametrize("model", MODEL_FOLDERS)
def test_reference_imports_only_spec_plan_and_shared_blocks(model):
    bad = {name: sorted(i for i in GRAPH[name] if not allowed_for_reference(model, i))
           for name in model_modules(model) if role_of(name) == "reference"}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, f"{model} reference imports code outside its spec/plan and the shared blocks: {bad}"


FORBIDDEN_BY_ROLE = {"plan": ("fast", "reference", "accounting"), "counters": ("fast", "reference", "accounting"),
                     "fast": ("reference", "accounting"), "accounting": ("fast", "reference")}


@pytest.mark.parametrize("model", MODEL_FOLDERS)
def test_roles_keep_apart(model):
    bad = [f"{name} imports {imported}" for name in model_modules(model) for imported in GRAPH[name]
           if imported.startswith(f"accel_sim.models.{model}.")
           and role_of(imported) in FORBIDDEN_BY_ROLE.get(role_of(name), ())]
    assert not bad, bad


def test_no_model_loads_energy():
    bad = [f"{name} imports {i} (costing happens after counting)" for name in MODULES
           if within(name, "accel_sim.models") for i in GRAPH[name] if within(i, "accel_sim.foundations.energy")]
    assert not bad, bad


def test_compress_is_pure_numpy():
    bad = [f"{name} imports {i}" for name in MODULES if within(name, "accel_sim.foundations.compress")
           for i in GRAPH[name]
           if i.split(".")[0] in ("simpy", "pandas") or within(i, "accel_sim.foundations.workload")]
    assert not bad, bad


def test_only_plot_imports_matplotlib():
    bad = [name for name in MODULES if not within(name, "accel_sim.pipeline.plot")
           and any(i.split(".")[0] == "matplotlib" for i in GRAPH[name])]
    assert not bad, bad

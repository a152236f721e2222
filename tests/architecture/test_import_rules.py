"""Import rules of the family contract, checked on the source (AST scan of every module).

- a family's ``reference`` imports only its family's ``spec`` / ``plan`` / ``counters`` / ``reference``
  modules, the shared hardware blocks (:mod:`accel_sim.hardware`), the layer types, errors,
  the standard library, numpy and simpy: it never reuses the code it checks;
- ``fast`` never imports ``reference`` nor ``accounting``; ``accounting`` never imports ``fast`` nor
  ``reference``; ``plan`` imports neither;
- a family's folder holds only the contract's roles; no family imports another family;
- model code never loads energy tables (one costing path: ``accel_sim.simulate``);
- ``compress/`` imports neither simpy nor pandas nor ``workload/``; only ``plot/`` imports matplotlib;
- no import circle in ``accel_sim/`` (module-level and function-level imports alike).
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from accel_sim.family.registry import FAMILIES

PACKAGE = Path(__file__).resolve().parents[2] / "accel_sim"
ROLES = ("spec", "plan", "counters", "fast", "reference", "accounting", "family", "functional")
STDLIB = set(sys.stdlib_module_names)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """Absolute names of every module ``path`` imports (``from a import b`` gives ``a.b`` when
    ``a.b`` is a module of the package, else ``a``)."""
    tree = ast.parse(path.read_text())
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    typing_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                   and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
                   for n in ast.walk(node)}  # imports for type checkers never run
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
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
                found.add(candidate if candidate in MODULES else base)
    return found


PATHS = sorted(PACKAGE.rglob("*.py"))
MODULES = {module_name(p): p for p in PATHS}


def family_modules(family: str) -> dict[str, Path]:
    return {name: path for name, path in MODULES.items() if name.startswith(f"accel_sim.{family}.")}


def role_of(name: str) -> str:
    return name.split(".")[2]


@pytest.mark.parametrize("family", FAMILIES)
def test_family_folder_holds_only_contract_roles(family):
    strays = sorted(name for name in family_modules(family) if role_of(name) not in ROLES)
    assert not strays, f"{family}: modules outside the contract roles {ROLES}: {strays}"
    for role in ("spec", "plan", "fast", "reference", "accounting", "family"):
        assert any(role_of(n) == role for n in family_modules(family)), f"{family}: no {role} module"


def allowed_for_reference(family: str, imported: str) -> bool:
    top = imported.split(".")[0]
    if top in ("numpy", "simpy") or (top in STDLIB and top != "accel_sim"):
        return True
    own = imported.startswith(f"accel_sim.{family}.") and role_of(imported) in ("spec", "plan", "counters",
                                                                                "reference")
    shared = imported == "accel_sim.hardware" or imported.startswith("accel_sim.hardware.")
    return own or shared or imported in ("accel_sim.errors", "accel_sim.workload.layer", "accel_sim.arch.spec",
                                         "accel_sim.family.contract")


@pytest.mark.parametrize("family", FAMILIES)
def test_reference_imports_only_spec_plan_and_shared_blocks(family):
    bad = {name: sorted(i for i in imports_of(path) if not allowed_for_reference(family, i))
           for name, path in family_modules(family).items() if role_of(name) == "reference"}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, f"{family} reference imports code outside its spec/plan and the shared blocks: {bad}"


FORBIDDEN_BY_ROLE = {"plan": ("fast", "reference", "accounting"), "counters": ("fast", "reference", "accounting"),
                     "fast": ("reference", "accounting"), "accounting": ("fast", "reference")}


@pytest.mark.parametrize("family", FAMILIES)
def test_roles_keep_apart(family):
    bad = []
    for name, path in family_modules(family).items():
        for imported in imports_of(path):
            if imported.startswith(f"accel_sim.{family}.") and role_of(imported) in FORBIDDEN_BY_ROLE.get(
                    role_of(name), ()):
                bad.append(f"{name} imports {imported}")
    assert not bad, bad


@pytest.mark.parametrize("family", FAMILIES)
def test_no_family_imports_another_and_none_loads_energy(family):
    others = [f for f in FAMILIES if f != family]
    bad = []
    for name, path in family_modules(family).items():
        for imported in imports_of(path):
            if any(imported == f"accel_sim.{o}" or imported.startswith(f"accel_sim.{o}.") for o in others):
                bad.append(f"{name} imports {imported}")
            if imported.startswith("accel_sim.energy") or imported.startswith("accel_sim.simulate"):
                bad.append(f"{name} imports {imported} (costing happens after counting)")
    assert not bad, bad


def test_compress_is_pure_numpy():
    bad = [f"{name} imports {i}" for name, path in MODULES.items() if name.startswith("accel_sim.compress")
           for i in imports_of(path)
           if i.split(".")[0] in ("simpy", "pandas") or i.startswith("accel_sim.workload")]
    assert not bad, bad


def test_only_plot_imports_matplotlib():
    bad = [name for name, path in MODULES.items() if not name.startswith("accel_sim.plot")
           and any(i.split(".")[0] == "matplotlib" for i in imports_of(path))]
    assert not bad, bad


def test_no_import_circle():
    graph = {name: {i for i in imports_of(path) if i in MODULES and i != name} for name, path in MODULES.items()}
    # a package's __init__ importing its own submodules is how packages re-export: not a circle
    graph = {name: {i for i in deps if not (i.startswith(name + ".") and MODULES[name].name == "__init__.py")}
             for name, deps in graph.items()}
    # importing a.b.c runs a/__init__ and a/b/__init__ first
    for name in list(graph):
        parts = name.split(".")
        graph[name] |= {".".join(parts[:k]) for k in range(1, len(parts)) if ".".join(parts[:k]) in MODULES
                        and not name.startswith(".".join(parts[:k]) + ".")} - {name}
    state: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                circles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert not circles, "import circles:\n" + "\n".join(" -> ".join(c) for c in circles[:10])

"""Mutation testing of the family models: does a one-line bug in the fast path fail a test?

For one family it mutates, one site at a time, the code both paths rely on or that the
reference checks (its ``plan``, ``counters``, ``fast`` and ``accounting`` modules or packages,
and any other file named with ``--files``), and runs only that family's refinement tests
(``tests/<family>/test_refinement*.py``) against each mutant. A mutant is *killed* when
those tests fail (or time out); it *survives* when they pass.

Mutations (each a classic one-line bug): ``+`` <-> ``-``, ``*`` <-> ``/``, ``//`` -> ``/``,
``%`` -> ``//``, ``<`` <-> ``<=``, ``>`` <-> ``>=``, ``==`` <-> ``!=``, ``and`` <-> ``or``,
``max`` <-> ``min``, an integer constant ``n`` -> ``n + 1``, ``True`` <-> ``False``, ``not x`` -> ``x``
and ``-x`` -> ``x``. Code inside ``raise`` and ``assert`` statements, docstrings, decorators and
type annotations is not mutated (a mutant of an error message proves nothing).

Each mutant runs in a scratch copy of the repository (``accel_sim/`` and ``tests/``), so the
working tree is never touched. Equivalent mutants (that no test can kill because they do not
change behaviour) are listed in ``tools/equivalent_mutants/<family>.txt``, one per line as
``path | line | mutation | why`` (every site of that mutation on the line) or
``path | line:col | mutation | why`` (the one site whose mutated token stands at line ``line``,
0-based column ``col``: the operator of a binary operation, comparison or augmented assignment,
else the start of the constant, ``max`` / ``min`` call, ``not`` / ``-`` or ``and`` / ``or`` expression;
columns count as Python's ``ast`` does, UTF-8 bytes), and excluded from the rate. Surviving mutants
are printed as ``path|line:col|mutation``, ready to be listed.

    python tools/mutation.py cnvlutin                 # every site of cnvlutin's plan/fast/accounting
    python tools/mutation.py scnn --max-mutants 150   # a deterministic sample of 150 sites
    python tools/mutation.py --all --jobs 2           # every family, a table of kill rates

Exit code 0 (it is a measurement; 2 for a malformed equivalents line, named); the table and the
surviving mutants are printed and written to ``--out`` (default ``reports/mutation/``) as CSV.
"""
from __future__ import annotations

import argparse
import ast
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The roles whose code is mutated: each a module (plan.py) or a package (plan/) of the family folder.
MUTATED_ROLES = ("plan", "counters", "fast", "accounting")
EQUIVALENTS_DIR = ROOT / "tools" / "equivalent_mutants"

BINOP_SWAPS: dict[type, type] = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
                                 ast.FloorDiv: ast.Div, ast.Mod: ast.FloorDiv, ast.LShift: ast.RShift,
                                 ast.RShift: ast.LShift, ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd}
COMPARE_SWAPS: dict[type, type] = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
                                   ast.Eq: ast.NotEq, ast.NotEq: ast.Eq}
BOOL_SWAPS: dict[type, type] = {ast.And: ast.Or, ast.Or: ast.And}
CALL_SWAPS = {"max": "min", "min": "max"}


@dataclass(frozen=True)
class Mutant:
    path: str          # relative to the repository
    node_index: int    # position of the node in ast.walk order (stable for one source text)
    line: int          # where the mutated expression starts
    mutation: str      # e.g. "Add->Sub", "const 1->2"
    token: tuple[int, int] = (0, 0)   # (line, column) of the mutated token (:func:`token_position`)

    @property
    def key(self) -> str:
        """Every site of this mutation on the line (an equivalents entry without a column)."""
        return f"{self.path}|{self.line}|{self.mutation}"

    @property
    def site(self) -> str:
        """This site alone (an equivalents entry with a column)."""
        return f"{self.path}|{self.token[0]}:{self.token[1]}|{self.mutation}"


def _protected(tree: ast.AST) -> set[int]:
    """ids of nodes that are not mutated: raise / assert statements, docstrings, annotations."""
    skip: set[int] = set()

    def mark(node: ast.AST | None) -> None:
        if node is not None:
            skip.update(id(n) for n in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, (ast.Raise, ast.Assert)):
            mark(node)
        elif isinstance(node, (ast.AnnAssign, ast.arg)):
            mark(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            mark(node.returns)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for decorator in node.decorator_list:  # @dataclass(frozen=True): not behaviour
                mark(decorator)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                mark(first)
        if isinstance(node, ast.JoinedStr):
            mark(node)
    return skip


def _mutations_of(node: ast.AST) -> list[str]:
    if isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in BINOP_SWAPS:
        return [f"{type(node.op).__name__}->{BINOP_SWAPS[type(node.op)].__name__}"]
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in COMPARE_SWAPS:
        return [f"{type(node.ops[0]).__name__}->{COMPARE_SWAPS[type(node.ops[0])].__name__}"]
    if isinstance(node, ast.BoolOp):
        return [f"{type(node.op).__name__}->{BOOL_SWAPS[type(node.op)].__name__}"]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in CALL_SWAPS:
        return [f"{node.func.id}->{CALL_SWAPS[node.func.id]}"]
    if isinstance(node, ast.Constant) and type(node.value) is bool:
        return [f"{node.value}->{not node.value}"]
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return [f"const {node.value}->{node.value + 1}"]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
        return [f"drop {type(node.op).__name__}"]
    return []


def token_position(node: ast.AST, lines: list[bytes]) -> tuple[int, int]:
    """(line, column) of the token a mutation of ``node`` changes: the operator of a binary operation,
    comparison or augmented assignment (the first character after its left operand that is not a space,
    a closing parenthesis or a line continuation), else where the node starts. Columns in UTF-8 bytes,
    as :mod:`ast` counts them, so that ``a + b + c``'s two ``+`` are two sites."""
    left = {ast.BinOp: "left", ast.Compare: "left", ast.AugAssign: "target"}.get(type(node))
    if left is None:
        return node.lineno, node.col_offset
    operand = getattr(node, left)
    line, col = operand.end_lineno, operand.end_col_offset
    while line <= len(lines):
        text = lines[line - 1]
        while col < len(text) and text[col:col + 1] in (b" ", b"\t", b")", b"\\"):
            col += 1
        if col < len(text) and text[col:col + 1] != b"#":
            return line, col
        line, col = line + 1, 0
    return node.lineno, node.col_offset


def find_mutants(path: Path) -> list[Mutant]:
    source = path.read_text()
    tree = ast.parse(source)
    lines = source.encode().splitlines()
    skip = _protected(tree)
    rel = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
    found = []
    for index, node in enumerate(ast.walk(tree)):
        if id(node) in skip:
            continue
        for mutation in _mutations_of(node):
            found.append(Mutant(rel, index, node.lineno, mutation, token_position(node, lines)))
    return found


class _Apply(ast.NodeTransformer):
    def __init__(self, target: ast.AST):
        self.target = target

    def visit(self, node: ast.AST) -> ast.AST:
        if node is not self.target:
            return super().visit(node)
        if isinstance(node, (ast.BinOp, ast.AugAssign)):
            node.op = BINOP_SWAPS[type(node.op)]()
        elif isinstance(node, ast.Compare):
            node.ops = [COMPARE_SWAPS[type(node.ops[0])]()]
        elif isinstance(node, ast.BoolOp):
            node.op = BOOL_SWAPS[type(node.op)]()
        elif isinstance(node, ast.Call):
            node.func = ast.Name(id=CALL_SWAPS[node.func.id], ctx=ast.Load())
        elif isinstance(node, ast.Constant) and type(node.value) is bool:
            node.value = not node.value
        elif isinstance(node, ast.Constant):
            node.value = node.value + 1
        elif isinstance(node, ast.UnaryOp):
            return node.operand
        return node


def mutated_source(source: str, mutant: Mutant) -> str:
    tree = ast.parse(source)
    target = list(ast.walk(tree))[mutant.node_index]
    tree = ast.fix_missing_locations(_Apply(target).visit(tree))
    return ast.unparse(tree)


def refinement_tests(family: str) -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / family).glob("test_refinement*.py"))


def _scratch_copy() -> Path:
    scratch = Path(tempfile.mkdtemp(prefix="accel_sim_mutant_"))
    for name in ("accel_sim", "tests", "arch_configs", "workloads", "pyproject.toml"):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, scratch / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        elif source.exists():
            shutil.copy2(source, scratch / name)
    return scratch


def _run_tests(scratch: Path, tests: list[str], timeout: float) -> tuple[bool, float]:
    """(tests passed, seconds)."""
    start = time.perf_counter()
    env = {"PYTHONPATH": str(scratch), "PYTHONDONTWRITEBYTECODE": "1", "PATH": "/usr/bin:/bin",
           "HYPOTHESIS_PROFILE": "mutation"}
    import os
    env = {**os.environ, **env}
    try:
        done = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                               "-p", "no:randomly", *tests], cwd=scratch, env=env, capture_output=True,
                              timeout=timeout)
        return done.returncode == 0, time.perf_counter() - start
    except subprocess.TimeoutExpired:
        return False, time.perf_counter() - start


class ListingError(ValueError):
    """A line of an equivalents listing that is not ``path | line[:col] | mutation | why``."""


SITE = re.compile(r"(\d+)(?::(\d+))?")   # an entry's "line" or "line:col"


def parse_equivalent(text: str, where: str = "equivalents") -> tuple[str, str]:
    """(key, why) of one listing line ``path | line | mutation | why`` or ``path | line:col | mutation |
    why``: the key is a :attr:`Mutant.key` (every site of the mutation on the line) or a
    :attr:`Mutant.site` (one site)."""
    parts = [part.strip() for part in text.split("|", 3)]
    site = SITE.fullmatch(parts[1]) if len(parts) == 4 else None
    if site is None or not all(parts):
        raise ListingError(f"{where}: expected 'path | line | mutation | why' or 'path | line:col | mutation | why', "
                         f"got {text!r}")
    path, _, mutation, why = parts
    line, col = site.groups()
    return (f"{path}|{int(line)}|{mutation}" if col is None else f"{path}|{int(line)}:{int(col)}|{mutation}"), why


def load_equivalents(family: str) -> dict[str, str]:
    listing = EQUIVALENTS_DIR / f"{family}.txt"
    if not listing.exists():
        return {}
    entries = {}
    for number, line in enumerate(listing.read_text().splitlines(), start=1):
        if line.strip() and not line.startswith("#"):
            key, why = parse_equivalent(line, f"{listing.relative_to(ROOT)}:{number}")
            entries[key] = why
    return entries


def is_listed(mutant: Mutant, equivalents: dict[str, str]) -> bool:
    """Whether an equivalents entry names the mutant: its line (every site of the kind) or its site."""
    return mutant.key in equivalents or mutant.site in equivalents


def target_files(family: str, extra: list[str]) -> list[Path]:
    folder = ROOT / "accel_sim" / "models" / family
    files = []
    for role in MUTATED_ROLES:
        if (folder / f"{role}.py").exists():
            files.append(folder / f"{role}.py")
        if (folder / role).is_dir():
            files += sorted((folder / role).rglob("*.py"))
    files += [ROOT / p for p in extra]
    return files


def run_family(family: str, files: list[Path], max_mutants: int | None, jobs: int, seed: int) -> dict:
    tests = refinement_tests(family)
    if not tests:
        raise SystemExit(f"no refinement tests for {family}: expected tests/{family}/test_refinement*.py")
    mutants = [m for path in files for m in find_mutants(path)]
    equivalents = load_equivalents(family)
    excluded = [m for m in mutants if is_listed(m, equivalents)]
    mutants = [m for m in mutants if not is_listed(m, equivalents)]
    total_sites = len(mutants)
    if max_mutants is not None and len(mutants) > max_mutants:
        mutants = sorted(random.Random(seed).sample(mutants, max_mutants), key=lambda m: (m.path, m.node_index))
    scratches = [_scratch_copy() for _ in range(jobs)]
    try:
        passed, baseline = _run_tests(scratches[0], tests, timeout=1800)
        if not passed:
            raise SystemExit(f"{family}: the refinement tests fail without any mutant; fix them first")
        timeout = max(30.0, 5 * baseline)
        sources = {m.path: (ROOT / m.path).read_text() for m in mutants}
        free = list(scratches)

        def one(mutant: Mutant) -> tuple[Mutant, bool]:
            scratch = free.pop()
            target = scratch / mutant.path
            try:
                target.write_text(mutated_source(sources[mutant.path], mutant))
                survived, _ = _run_tests(scratch, tests, timeout)
            finally:
                target.write_text(sources[mutant.path])
                free.append(scratch)
            mark = "SURVIVED" if survived else "killed"
            print(f"  {mark:8s} {mutant.site}", flush=True)
            return mutant, survived

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            outcomes = list(pool.map(one, mutants))
    finally:
        for scratch in scratches:
            shutil.rmtree(scratch, ignore_errors=True)
    survivors = [m for m, survived in outcomes if survived]
    killed = len(outcomes) - len(survivors)
    return {"family": family, "sites": total_sites, "run": len(outcomes), "killed": killed,
            "survived": len(survivors), "kill_rate": killed / len(outcomes) if outcomes else 1.0,
            "equivalent_excluded": len(excluded), "survivors": survivors, "tests": tests,
            "baseline_s": round(baseline, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("family", nargs="?", help="a family folder name, e.g. cnvlutin")
    parser.add_argument("--all", action="store_true", help="every family of the registry")
    parser.add_argument("--files", nargs="*", default=[], help="extra files to mutate (repository-relative)")
    parser.add_argument("--max-mutants", type=int, default=None, help="a deterministic sample of this many sites")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "reports" / "mutation")
    args = parser.parse_args(argv)
    if args.all:
        sys.path.insert(0, str(ROOT))
        from accel_sim.pipeline.catalog import FAMILIES
        families = list(FAMILIES)
    elif args.family:
        families = [args.family]
    else:
        parser.error("name a family or give --all")
    rows = []
    for family in families:
        print(f"{family}:", flush=True)
        try:
            rows.append(run_family(family, target_files(family, args.files), args.max_mutants, args.jobs, args.seed))
        except ListingError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
    args.out.mkdir(parents=True, exist_ok=True)
    lines = ["family,sites,run,killed,survived,kill_rate,equivalent_excluded"]
    survivors = ["family,path,line,mutation,site"]
    print(f"\n{'family':12s} {'sites':>6s} {'run':>5s} {'killed':>7s} {'survived':>9s} {'kill rate':>10s} {'equiv.':>7s}")
    for row in rows:
        print(f"{row['family']:12s} {row['sites']:6d} {row['run']:5d} {row['killed']:7d} {row['survived']:9d} "
              f"{row['kill_rate']:10.1%} {row['equivalent_excluded']:7d}")
        lines.append(f"{row['family']},{row['sites']},{row['run']},{row['killed']},{row['survived']},"
                     f"{row['kill_rate']:.4f},{row['equivalent_excluded']}")
        survivors += [f"{row['family']},{m.path},{m.line},{m.mutation},{m.token[0]}:{m.token[1]}" for m in row["survivors"]]
    total_run = sum(r["run"] for r in rows)
    total_killed = sum(r["killed"] for r in rows)
    if len(rows) > 1 and total_run:
        print(f"{'overall':12s} {'':6s} {total_run:5d} {total_killed:7d} {total_run - total_killed:9d} "
              f"{total_killed / total_run:10.1%}")
    name = "all" if args.all else families[0]
    (args.out / f"kill_rates_{name}.csv").write_text("\n".join(lines) + "\n")
    (args.out / f"survivors_{name}.csv").write_text("\n".join(survivors) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The walkthrough of docs/adding_a_model.md works: the minimal ``skipper`` family runs through the
contract (plan, both paths, accounting, costing), its paths agree, its reference obeys the import rules,
and adding it to accel_sim is its folder plus one line of the catalog.

Its files sit in ``tests/example_family/skipper/`` as they would in ``accel_sim/models/skipper/`` (their
imports name ``accel_sim.models.skipper``): the test puts that folder on the models' search path.
"""
from __future__ import annotations

import ast
import difflib
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import accel_sim.models
from accel_sim.foundations.energy.cost import cost
from accel_sim.foundations.energy.table import load_energy_table
from accel_sim.foundations.errors import SimulationError
from accel_sim.foundations.workload import GemmLayer
from accel_sim.foundations.workload.layer import OperandSource
from accel_sim.pipeline.catalog import MODEL_NAMES, arch_spec_class, import_models

HERE = Path(__file__).parent
REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "adding_a_model.md"

# tests/example_family/ holds the folder skipper/: on the models' search path, it is accel_sim.models.skipper
if str(HERE) not in accel_sim.models.__path__:
    accel_sim.models.__path__.append(str(HERE))
(FAMILY,) = import_models(["skipper"])
SkipperSpec = FAMILY.section.spec
# The catalog's ArchSpec with the skipper listed after the shipped models (step 1 of the walkthrough,
# done here on a class of the test's own so the shipped catalog stays as it is).
ArchWithSkipper = arch_spec_class(import_models(MODEL_NAMES + ("skipper",)))


def arch(**spec):
    return ArchWithSkipper(name="skipper", family="skipper", word_bits=8, skipper=SkipperSpec(**spec))


@pytest.fixture
def layer(tmp_path):
    """3 input rows of k = 4 with 2, 0 and 3 non-zeros; n = 5 outputs."""
    path = tmp_path / "x.npz"
    np.savez(path, inputs=np.array([[1, 0, 2, 0], [0, 0, 0, 0], [3, 4, 0, 5]], dtype=np.float32))
    return GemmLayer("fc", m=3, k=4, n=5, operands=OperandSource(payload=str(path)))


def test_worked_example(layer):
    spec = arch(lanes=2, fifo_depth=1)
    plan = FAMILY.plan(spec, layer)
    assert plan.nonzeros_per_row.tolist() == [2, 0, 3] and plan.cycles_per_activation == 3
    expected = {"cycles": 1 + 5 * 3, "activation_reads": 5, "weight_reads": 25, "macs_issued": 25}
    assert FAMILY.fast(plan, None).as_dict() == expected
    assert FAMILY.reference(plan, None).as_dict() == expected
    result = FAMILY.layer_result(spec, layer)
    assert (result.macs_dense, result.macs_issued, result.macs_skipped) == (60, 25, 35)
    assert result.sram_read_bytes == 30
    energy = cost(result.actions, load_energy_table(spec.energy_table))
    assert energy.total_pj == pytest.approx(sum(energy.by_component_pj.values())) and energy.total_pj > 0


@pytest.mark.parametrize("lanes, depth", [(1, 1), (2, 3), (5, 2), (16, 4)])
def test_paths_agree(lanes, depth):
    layer = GemmLayer("fc", m=4, k=30, n=9, input_density=0.4)
    assert FAMILY.refinement(arch(lanes=lanes, fifo_depth=depth), layer) == []


def test_max_cycles_guard(layer):
    plan = FAMILY.plan(arch(lanes=2), layer)
    for count in (FAMILY.fast, FAMILY.reference):
        with pytest.raises(SimulationError, match="max_cycles"):
            count(plan, 15)


def test_reference_imports_only_spec_plan_counters_and_shared_blocks():
    tree = ast.parse((HERE / "skipper" / "reference.py").read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    own = {f"accel_sim.models.skipper.{role}" for role in ("spec", "plan", "counters")}
    assert imported <= own | {"__future__", "simpy", "numpy", "accel_sim.hardware", "accel_sim.foundations.errors"}


def test_walkthrough_shows_the_example_files():
    """Every code block of the walkthrough that names a skipper file is that file, verbatim."""
    text = DOC.read_text()
    blocks = re.findall(r"`tests/example_family/skipper/(\w+\.py)`:\n\n```python\n(.*?)```", text, re.S)
    assert {name for name, _ in blocks} >= {"counters.py", "reference.py", "family.py"}
    for name, code in blocks:
        assert code == (HERE / "skipper" / name).read_text(), name


ONE_LINE_ADDED = 'MODEL_NAMES = ("systolic", "eie", "scnn", "pe_array", "tensor_core", "cnvlutin", "dlu", "simt", "vector_unit", "lowbit", "bitserial")'


def test_adding_the_family_is_its_folder_and_one_line(tmp_path):
    """A copy of accel_sim with skipper/ copied into its models and its name added to the catalog's list
    (one line changed, nothing else): a config file with ``family: skipper`` loads, simulates through the
    public API with costing, and the other families still work."""
    package = tmp_path / "accel_sim"
    shutil.copytree(REPO / "accel_sim", package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(HERE / "skipper", package / "models" / "skipper", ignore=shutil.ignore_patterns("__pycache__"))
    for data in ("arch_configs", "workloads"):   # the copy's clone folders, as in a checkout
        (tmp_path / data).symlink_to(REPO / data)
    catalog = package / "pipeline" / "catalog.py"
    before = catalog.read_text()
    assert ONE_LINE_ADDED in before, "the catalog's list changed: update this test's copy of its line"
    after = before.replace(ONE_LINE_ADDED, ONE_LINE_ADDED[:-1] + ', "skipper")')
    catalog.write_text(after)
    changed = [line for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
               if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    assert len(changed) == 2   # one line out, one line in
    (tmp_path / "skipper.yaml").write_text("name: skipper\nfamily: skipper\nskipper:\n  lanes: 4\n")
    script = textwrap.dedent(f"""
        from accel_sim import load_arch, simulate
        from accel_sim.foundations.workload.layer import GemmLayer, Network
        net = Network("one", (GemmLayer("fc", m=4, k=30, n=9, input_density=0.4),))
        run = simulate(load_arch({str(tmp_path / "skipper.yaml")!r}), net)
        layer = run.layers[0]
        assert layer.macs_issued + layer.macs_skipped == layer.macs_dense and run.summary_row()["energy_pj"] > 0
        simulate(load_arch("tpu_like_128x128_ws"), net)
        print("ok", layer.cycles)
    """)
    env = {"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("ok")

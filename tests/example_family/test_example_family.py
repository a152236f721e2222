"""The walkthrough of docs/adding_a_model.md works: the minimal ``skipper`` family runs through the
contract (plan, both paths, accounting, costing), its paths agree, and its reference obeys the
import rules."""
from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest

from accel_sim.arch.spec import ArchSpec
from accel_sim.config.schema import spec_field
from accel_sim.energy.cost import cost
from accel_sim.energy.table import load_energy_table
from accel_sim.errors import SimulationError
from accel_sim.workload import GemmLayer
from accel_sim.workload.layer import OperandSource
from tests.example_family.skipper.family import FAMILY
from tests.example_family.skipper.spec import SkipperSpec

HERE = Path(__file__).parent
DOC = Path(__file__).resolve().parents[2] / "docs" / "adding_a_model.md"


@dataclasses.dataclass(frozen=True)
class ArchWithSkipper(ArchSpec):
    """Step 1 of the walkthrough (a section on ArchSpec), done on a subclass so the test leaves
    the shipped ArchSpec alone."""

    skipper: SkipperSpec | None = spec_field("The example family.", None)


def arch(**spec) -> ArchWithSkipper:
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
    own = {f"tests.example_family.skipper.{role}" for role in ("spec", "plan", "counters")}
    assert imported <= own | {"__future__", "simpy", "numpy", "accel_sim.hardware", "accel_sim.errors"}


def test_walkthrough_shows_the_example_files():
    """Every code block of the walkthrough that names a skipper file is that file, verbatim."""
    text = DOC.read_text()
    blocks = re.findall(r"`tests/example_family/skipper/(\w+\.py)`:\n\n```python\n(.*?)```", text, re.S)
    assert {name for name, _ in blocks} >= {"counters.py", "reference.py", "family.py"}
    for name, code in blocks:
        assert code == (HERE / "skipper" / name).read_text(), name

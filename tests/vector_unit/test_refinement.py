"""The vector unit's closed form against its SimPy reference, every counter, on generated
operators, shapes and unit configurations; plus conservation laws of the counters."""
from __future__ import annotations

import math

import numpy as np
import pytest

from accel_sim.foundations.contract import counter_differences
from accel_sim.models.vector_unit.fast import fast
from accel_sim.models.vector_unit.plan.ops import OPS
from accel_sim.models.vector_unit.plan import plan
from accel_sim.models.vector_unit.reference import reference
from accel_sim.models.vector_unit.spec import VectorUnitSpec
from accel_sim.foundations.workload.layer import VECTOR_OPS, VectorLayer


def generated_cases(count: int = 40, seed: int = 19):
    rng = np.random.default_rng(seed)
    for index in range(count):
        spec = VectorUnitSpec(units=int(rng.integers(1, 5)), lanes=int(rng.choice([4, 8, 16, 32])),
                              special_per_cycle=int(rng.choice([1, 2, 4, 16])),
                              sram_bandwidth=float(rng.choice([4, 8, 24, 64, 256])),
                              element_bits=int(rng.choice([8, 16, 32])), fifo_depth=int(rng.integers(1, 4)),
                              reduction_level_cycles=int(rng.integers(1, 3)))
        op = VECTOR_OPS[index % len(VECTOR_OPS)]
        width = int(rng.integers(1, 40)) * (2 if op == "rotary" else 1)
        yield spec, VectorLayer(f"case{index}", op, rows=int(rng.integers(1, 9)), width=width)


CASES = list(generated_cases())


@pytest.mark.parametrize("spec,layer", CASES, ids=[layer.name + "_" + layer.op for _, layer in CASES])
def test_fast_equals_reference_on_every_counter(spec, layer):
    work = plan(spec, layer)
    assert counter_differences(fast(work), reference(work)) == []


@pytest.mark.parametrize("spec,layer", CASES[:12], ids=[layer.name for _, layer in CASES[:12]])
def test_cycles_respect_the_throughput_bounds(spec, layer):
    counters = fast(plan(spec, layer))
    alu_bound = (counters.adds + counters.mults) / (spec.lanes * spec.units)
    special_bound = counters.special / (spec.special_per_cycle * spec.units)
    sram_bound = (counters.sram_read_bits + counters.sram_write_bits) / (8 * spec.sram_bandwidth * spec.units)
    assert counters.busy_cycles >= max(alu_bound, special_bound, sram_bound)


def test_work_counts_are_elements_times_the_recipe():
    spec = VectorUnitSpec(units=3, lanes=16)
    layer = VectorLayer("ln", "layernorm", rows=7, width=50)
    counters = fast(plan(spec, layer))
    passes = OPS["layernorm"]
    assert counters.adds == 7 * 50 * sum(p.adds for p in passes)
    assert counters.special == 7 * sum(p.row_special for p in passes)
    assert counters.sram_read_bits == 7 * 50 * spec.element_bits * sum(p.reads for p in passes)
    assert counters.sram_write_bits == 7 * 50 * spec.element_bits  # one output per element
    assert counters.vectors == 7 * math.ceil(50 / 16) * len(passes)
    # element-wise: the 30 elements split 15 / 15 over two units, each one stream of ceil(15 / 16) = 1 vector
    add = fast(plan(VectorUnitSpec(units=2, lanes=16), VectorLayer("r", "residual_add", rows=3, width=10)))
    assert (add.vectors, add.adds, add.special, add.reductions) == (2, 30, 0, 0)


def test_rows_spread_over_units_and_elementwise_streams():
    spec = VectorUnitSpec(units=4, lanes=8)
    one = fast(plan(VectorUnitSpec(units=1, lanes=8), VectorLayer("a", "residual_add", rows=8, width=64)))
    four = fast(plan(spec, VectorLayer("a", "residual_add", rows=8, width=64)))
    assert four.busy_cycles * 4 <= one.busy_cycles + 4 * 8  # element-wise: an even share each, plus fill
    softmax_rows = [fast(plan(spec, VectorLayer("s", "softmax", rows=r, width=64))).busy_cycles for r in (4, 5, 8)]
    assert softmax_rows[0] < softmax_rows[1] == softmax_rows[2]  # 5 rows: one unit takes 2, as with 8


def test_accounting_turns_counters_into_actions_bytes_and_exposed_cycles():
    from accel_sim.models.vector_unit.accounting import account

    spec = VectorUnitSpec(units=2, lanes=8, element_bits=16, compute_bits=32, sram_size=4096)
    layer = VectorLayer("sm", "softmax", rows=3, width=20)
    work = plan(spec, layer)
    counters = fast(work)
    result = account(work, counters, hidden_cycles=5)
    assert (result.cycles, result.compute_cycles, result.stall_cycles) == (counters.busy_cycles - 5,) * 2 + (0,)
    assert result.sram_read_bytes == 3 * 20 * 2 * 2 and result.sram_write_bytes == 3 * 20 * 2  # 2 passes read, 1 writes
    actions = {(a.component_class, a.action): a for a in result.actions}
    assert actions[("add_fp", "op")].count == counters.adds + counters.reductions * (8 - 1)
    assert actions[("add_fp", "op")].bits == 32 and actions[("special_function", "op")].count == counters.special
    assert actions[("sram", "read")].count == 3 * 20 * 2 * 16 // 64 and actions[("sram", "read")].bits == 64
    assert actions[("sram", "write")].count == 15 and actions[("sram", "write")].capacity_bytes == 4096
    assert actions[("mult_fp", "op")].count == counters.mults
    assert result.metrics["vector_busy_cycles"] == counters.busy_cycles and result.metrics["vector_hidden_cycles"] == 5
    assert result.metrics["vector_elements"] == 60 and result.peak_macs_per_cycle == 0 and result.macs_issued == 0
    assert result.macs_dense == 0 and result.dram_read_bytes == 0 and result.dram_write_bytes == 0
    assert account(work, counters).cycles == counters.busy_cycles  # serial: nothing hidden
    with pytest.raises(ValueError):
        account(work, counters, hidden_cycles=counters.busy_cycles + 1)


def test_cycles_of_hand_worked_cases():
    """Softmax of 4 rows of 64 on one 128-lane unit (16 SFU results / cycle, 256 B / cycle, 16-bit):
    pass 1 reads 1 element (read 1 cycle), computes 3 + 1 ALU ops and 128 / 16 = 8 SFU cycles (12),
    then reduces 2 scalars over 7 tree levels and takes 1 reciprocal (14 + 1); pass 2 reads 1 and
    writes 1 (2 cycles), computes 1 + 2 + 8 = 11. A row: 1 + 12 + 15 + 2 + 11 = 41; 4 rows: 164.
    RMSNorm on a 2-lane unit (one tree level), one row of 4 elements, 1 SFU result / cycle, 1 B / cycle."""
    spec = VectorUnitSpec(units=1, lanes=128, special_per_cycle=16, sram_bandwidth=256.0, element_bits=16)
    assert fast(plan(spec, VectorLayer("s", "softmax", rows=4, width=64))).busy_cycles == 164
    small = VectorUnitSpec(units=1, lanes=2, special_per_cycle=1, sram_bandwidth=1.0, element_bits=8,
                           reduction_level_cycles=3)
    # pass 1: read 2 B (2), compute 1 + 1 (2), 2 vectors: 2 + 2 + 1 x 2 = 6, barrier 1 level x 3 + 1 rsqrt = 4;
    # pass 2: read 2 + write 1 per element: 6 B (6), compute 2: 6 + 2 + 1 x 6 = 14. Total 24.
    assert fast(plan(small, VectorLayer("n", "rmsnorm", rows=1, width=4))).busy_cycles == 24
    # one lane: no tree levels. Pass 1: 1 + 2 + 1 x 2 = 5, barrier 0 + 1 rsqrt; pass 2: 3 + 2 + 1 x 3 = 8.
    one_lane = VectorUnitSpec(units=1, lanes=1, special_per_cycle=1, sram_bandwidth=1.0, element_bits=8)
    assert fast(plan(one_lane, VectorLayer("n", "rmsnorm", rows=1, width=2))).busy_cycles == 14

"""Block-scaled (MX / NVFP4) operands on the systolic array: fast == reference (timing is SCALE-Sim's, in
words), the accounting by hand (narrow elements, a scale byte per block of K, one scale application per
output per block), and a block that does not divide K refused."""
from __future__ import annotations

import dataclasses

import pytest

from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.layer import GemmLayer
from accel_sim.models.systolic.family import FAMILY
from tests.systolic.test_refinement_examples import actions_of, arch


def scaled(fmt, dataflow="ws", **extra):
    base = arch(dataflow, rows=4, cols=4)
    return dataclasses.replace(base, systolic=dataclasses.replace(base.systolic, block_format=fmt, **extra))


@pytest.mark.parametrize("dataflow", ["os", "ws", "is"])
@pytest.mark.parametrize("fmt", ["mxfp4", "nvfp4", "mxint8"])
def test_fast_equals_reference_and_timing_is_the_word_models(dataflow, fmt):
    layer = GemmLayer("g", m=6, k=64, n=5)
    plan = FAMILY.plan(scaled(fmt, dataflow), layer)
    fast = FAMILY.fast(plan)
    assert fast == FAMILY.reference(plan)
    assert fast == FAMILY.fast(FAMILY.plan(arch(dataflow, rows=4, cols=4), layer))   # same cycles and words


def test_accounting_by_hand():
    layer = GemmLayer("g", m=6, k=64, n=5)
    plan = FAMILY.plan(scaled("mxfp4"), layer)
    counters = FAMILY.fast(plan)
    result = FAMILY.account(plan, counters)
    actions = {(c, k, a, b): n for c, k, a, n, b in actions_of(result)}
    fills = counters.ifmap_dram_reads + counters.filter_dram_reads
    assert actions[("dram", "dram", "read", 4)] == fills
    assert actions[("dram", "dram", "read", 8)] == fills // 32             # one E8M0 byte per 32 elements
    assert actions[("dram", "dram", "write", 8)] == counters.ofmap_dram_writes   # outputs at word_bits
    assert actions[("pe_array", "mult_fp", "op", 4)] == counters.macs_issued
    assert actions[("scale_unit", "add_int", "op", 8)] == 6 * 5 * (64 // 32)
    assert actions[("scale_unit", "shift", "op", 32)] == 6 * 5 * 2
    assert result.dram_read_bytes == fills * 4 // 8 + fills // 32


def test_nvfp4_scales_are_multiplies_per_16():
    layer = GemmLayer("g", m=2, k=32, n=3)
    plan = FAMILY.plan(scaled("nvfp4"), layer)
    actions = {(c, k, a, b): n for c, k, a, n, b in actions_of(FAMILY.account(plan, FAMILY.fast(plan)))}
    assert actions[("scale_unit", "mult_int", "op", 8)] == 2 * 3 * 2


def test_block_that_does_not_divide_k():
    with pytest.raises(InputError, match="block_size 32 .* must divide the layer's reduction length, got k = 40"):
        FAMILY.plan(scaled("mxfp4"), GemmLayer("g", m=2, k=40, n=3))
    assert isinstance(FAMILY.plan(scaled("mxfp4", block_size=8), GemmLayer("g", m=2, k=40, n=3)).scaling.block, int)

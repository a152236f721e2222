"""Plain int8 operands on the systolic array (``systolic.block_format: int8``): int8 elements whose scales are
applied outside the array, packed ``elements_per_pe`` to a PE word like the block formats but with no scale bytes
or scale applications. Fast == reference, the actions, and the refusals."""
from __future__ import annotations

import dataclasses

import pytest

from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.layer import ConvLayer, GemmLayer
from accel_sim.models.systolic.family import FAMILY
from tests.systolic.test_refinement_examples import actions_of, arch


CONV = ConvLayer("c", in_h=6, in_w=5, in_channels=3, out_channels=5, kernel_h=2, kernel_w=2)    # k = 12


def _small(fmt, pack=2, word_bits=16):
    base = arch("ws", rows=4, cols=4, mode="user", size=24)
    return dataclasses.replace(base, word_bits=word_bits,
                               systolic=dataclasses.replace(base.systolic, block_format=fmt, elements_per_pe=pack))


@pytest.mark.parametrize("layer", [GemmLayer("g", m=6, k=64, n=5), CONV])
def test_plain_int8_fast_equals_reference_and_moves_no_scales(layer):
    """Plain int8 packs like mxint8 (the same timing) and moves only its elements: no scale bytes, no scale unit."""
    plan = FAMILY.plan(_small("int8"), layer)
    counters = FAMILY.fast(plan)
    assert counters == FAMILY.reference(plan) and plan.mapping.gemm.k == layer.gemm().k // 2
    result = FAMILY.account(plan, counters)
    elements = (counters.ifmap_dram_reads + counters.filter_dram_reads) * 2
    dram_reads = [(n, b) for c, k, a, n, b in actions_of(result) if c == "dram" and a == "read"]
    assert result.macs_issued == layer.macs and dram_reads == [(elements, 8)]
    assert not [c for c, *_ in actions_of(result) if c == "scale_unit"]
    assert [(k, n, b) for c, k, a, n, b in actions_of(result) if c == "pe_array" and a == "op"] == [
        ("mult_int", layer.macs, 8), ("add_int", layer.macs, 32)]
    if layer.gemm().k % 32 == 0:
        mx_plan = FAMILY.plan(_small("mxint8"), layer)
        mx_counters = FAMILY.fast(mx_plan)
        mx = FAMILY.account(mx_plan, mx_counters)
        assert mx_counters == counters and mx.dram_read_bytes == result.dram_read_bytes + elements // 32


def test_plain_int8_refuses_an_odd_k():
    with pytest.raises(InputError, match="elements_per_pe.*reduction length .k = 25."):
        FAMILY.plan(_small("int8"), GemmLayer("g", m=2, k=25, n=3))
    with pytest.raises(InputError, match="fit word_bits .8."):
        FAMILY.plan(_small("int8", word_bits=8), GemmLayer("g", m=2, k=24, n=3))

"""Packed narrow elements (``systolic.elements_per_pe``): p block-scaled elements per PE word along K, p
products per PE per cycle. Fast == reference on GEMMs and convolutions, a hand count of folds and cycles, the
accounting in elements, and the bad inputs."""
from __future__ import annotations

import dataclasses

import pytest

from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.layer import ConvLayer, GemmLayer
from accel_sim.models.systolic.family import FAMILY
from tests.systolic.test_refinement_examples import actions_of, arch


def packed(fmt="mxfp4", dataflow="ws", pack=2, word_bits=8, **extra):
    base = arch(dataflow, rows=4, cols=4, **extra)
    spec = dataclasses.replace(base.systolic, block_format=fmt, elements_per_pe=pack)
    return dataclasses.replace(base, systolic=spec, word_bits=word_bits)


CONV = ConvLayer("c", in_h=6, in_w=5, in_channels=8, out_channels=5, kernel_h=3, kernel_w=3, pad_top=1, pad_bottom=1,
                 pad_left=1, pad_right=1)
CONV_ODD = ConvLayer("c3", in_h=5, in_w=5, in_channels=6, out_channels=3, kernel_h=3, kernel_w=3, stride_h=2, stride_w=2,
                     pad_top=1, pad_bottom=1, pad_left=1, pad_right=1)


# 3 channels, 2 x 2 kernel: a packed word spans two window positions' channels (k = 12)
CONV_SPLIT = ConvLayer("c2", in_h=5, in_w=4, in_channels=3, out_channels=4, kernel_h=2, kernel_w=2)


@pytest.mark.parametrize("dataflow", ["os", "ws", "is"])
@pytest.mark.parametrize("layer, block", [(GemmLayer("g", m=6, k=64, n=5), 0), (CONV, 72), (CONV_ODD, 54),
                                          (CONV_SPLIT, 12)])
@pytest.mark.parametrize("mode, size", [("calc", 1024), ("user", 24)])
def test_fast_equals_reference(dataflow, layer, block, mode, size):
    spec = packed(dataflow=dataflow, mode=mode, size=size)
    spec = dataclasses.replace(spec, systolic=dataclasses.replace(spec.systolic, block_size=block))
    plan = FAMILY.plan(spec, layer)
    assert plan.mapping.gemm.k == layer.gemm().k // 2
    assert FAMILY.fast(plan) == FAMILY.reference(plan)


def test_hand_count_ws_gemm():
    """WS, 4 x 4 array, m = 6, k = 64, n = 5. One element per PE: k on 4 rows is 16 row folds x 2 column
    folds; a fold takes 2R + C + T - 2 = 8 + 4 + 6 - 2 = 16 cycles, so 32 x 16 - 1 = 511 cycles. Two mxfp4
    elements per 8-bit PE word: k' = 32, 8 row folds, 16 folds, 255 cycles; 960 packed MACs = 1,920 products."""
    layer = GemmLayer("g", m=6, k=64, n=5)
    one = FAMILY.fast(FAMILY.plan(packed(pack=1), layer))
    plan = FAMILY.plan(packed(pack=2), layer)
    two = FAMILY.fast(plan)
    assert (one.folds, one.compute_cycles) == (32, 511)
    assert (two.folds, two.compute_cycles, two.macs_issued) == (16, 255, 960)
    result = FAMILY.account(plan, two)
    assert result.macs_issued == layer.macs == 1920 and result.peak_macs_per_cycle == 4 * 4 * 2
    actions = {(c, k, a, b): n for c, k, a, n, b in actions_of(result)}
    fills = (two.ifmap_dram_reads + two.filter_dram_reads) * 2        # elements: 6 x 64 + 64 x 5
    assert fills == 6 * 64 + 64 * 5
    assert actions[("dram", "dram", "read", 4)] == fills
    assert actions[("dram", "dram", "read", 8)] == fills // 32          # one E8M0 byte per 32 elements
    assert actions[("pe_array", "mult_fp", "op", 4)] == 1920
    assert actions[("scale_unit", "add_int", "op", 8)] == 6 * 5 * 2
    assert result.dram_read_bytes == fills * 4 // 8 + fills // 32
    # the same traffic in elements as one element per word; half the cycles
    flat = FAMILY.account(FAMILY.plan(packed(pack=1), layer), one)
    assert result.dram_read_bytes == flat.dram_read_bytes and result.macs_issued == flat.macs_issued


def test_four_fp4_in_a_16_bit_word():
    layer = GemmLayer("g", m=6, k=64, n=5)
    plan = FAMILY.plan(packed(pack=4, word_bits=16), layer)
    assert plan.mapping.gemm.k == 16 and FAMILY.fast(plan) == FAMILY.reference(plan)


def test_bad_packing():
    layer = GemmLayer("g", m=2, k=64, n=3)
    with pytest.raises(InputError, match="elements_per_pe.*must divide the block .32. and fit word_bits .8."):
        FAMILY.plan(packed(pack=4), layer)                               # 4 x 4 bits > 8
    with pytest.raises(InputError, match="elements_per_pe"):
        FAMILY.plan(packed(pack=3, word_bits=16), layer)                 # 3 does not divide 32
    with pytest.raises(ValueError, match="needs a block_format"):
        dataclasses.replace(arch("ws").systolic, elements_per_pe=2)

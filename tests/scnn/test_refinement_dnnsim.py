"""Refinement (b) for DNNsim's rules: hand-derived worked examples, independent of both paths
(DNNsim's README, /work/shared/validation/dnnsim_scnn, and its SCNN.cpp)."""
import dataclasses

import numpy as np
import pytest

from accel_sim import load_arch
from accel_sim.models.scnn.fast.drain import largest_halo_region
from accel_sim.models.scnn.family import FAMILY
from accel_sim.models.scnn.plan.bank_mapping import xor_bank
from accel_sim.models.scnn.plan.tiling import conv_view, make_tiling
from accel_sim.models.scnn.reference.drain import largest_region
from accel_sim.foundations.workload import ConvLayer

DNNSIM = load_arch("scnn_dnnsim")


def conv(h, k, pad, c=2, out=4, w=None):
    return ConvLayer("c", in_h=h, in_w=w or h, in_channels=c, out_channels=out, kernel_h=k, kernel_w=k,
                     pad_top=pad, pad_bottom=pad, pad_left=pad, pad_right=pad)


@pytest.mark.parametrize("k,y,x,bank", [
    (0, 0, 0, 0), (3, 0, 0, 3), (4, 0, 0, 16),      # k mod 4 low bits, k_2 -> 16
    (0, 1, 0, 8), (0, 0, 1, 4), (0, 1, 1, 12),      # y_0 -> 8, x_0 -> 4
    (0, 2, 0, 16), (0, 0, 2, 16), (0, 2, 2, 0),     # y_1 ^ x_1
    (4, 2, 0, 0), (4, 2, 2, 16), (7, 3, 3, 31),     # k_2 ^ y_1 ^ x_1: 1^1^1 = 1, + 8 + 4 + 3
    (13, 6, 5, 16 * (1 ^ 1 ^ 0) + 0 + 4 + 1),       # k = 0b1101, y = 0b110, x = 0b101
])
def test_xor_bank_worked_examples(k, y, x, bank):
    assert xor_bank(DNNSIM.scnn, k, y, x) == bank


def test_xor_bank_modulo_fewer_banks():
    arch = load_arch("scnn_dnnsim", {"scnn.accumulator_banks": 8})
    assert xor_bank(arch.scnn, 7, 3, 3) == 31 % 8


@pytest.mark.parametrize("h,k,pad,block,region", [
    (7, 3, 1, 2, 2),     # 5b-3x3: 9 padded -> 16 -> blocks of 2; lengths (1, 2, 1): largest 1 x 2
    (14, 5, 2, 3, 6),    # 4a-5x5: 18 -> 24 -> 3; lengths (2, 3, 2): 2 x 3
    (27, 5, 2, 4, 8),    # conv2: 31 -> 32 -> 4; lengths (2, 4, 2): 2 x 4
    (7, 1, 0, 1, 0),     # 1x1: lengths (0, 1, 0)
    (14, 3, 0, 2, 4),    # no padding: lengths (2, 2, 0): 2 x 2
])
def test_padded_blocks_and_largest_halo_region(h, k, pad, block, region):
    layer = conv(h, k, pad)
    plan = FAMILY.plan(DNNSIM, layer)
    assert plan.tiling.rows.block == plan.tiling.cols.block == block
    assert largest_region(plan) == region
    view = plan.view
    assert largest_halo_region(plan.spec, plan.tiling, view.r, view.s, view.pad_top, view.pad_left) == region


def test_padded_blocks_cut_the_padded_plane():
    # 14 x 14, pad 2: padded 18 -> 24, blocks of 3 in padded coordinates: PE rows start at
    # padded 0, 3, 6, ... = input rows -2 (clipped to 0), 1, 4, ..., 19 (clipped to 14)
    view = conv_view(conv(14, 5, 2))
    tiling = make_tiling(DNNSIM.scnn, view, 1, 1)
    assert tiling.rows.lo.tolist() == [0, 1, 4, 7, 10, 13, 14, 14]
    assert tiling.rows.hi.tolist() == [1, 4, 7, 10, 13, 14, 14, 14]
    assert tiling.rows.own_lo.tolist() == [0, 1, 4, 7, 10, 13, 14, 14]   # outputs at padded position - pad


@pytest.mark.parametrize("h,k,pad,out,kc", [
    (27, 5, 2, 128, 64),     # 27 x 27 outputs: tiles of 4 x 4 -> 1024 / 16
    (13, 3, 1, 384, 256),    # 13 x 13: 2 x 2
    (14, 1, 0, 480, 256),    # 14 x 14: 2 x 2
    (7, 3, 1, 384, 384),     # 7 x 7: 1 x 1 -> 1024, capped at K
    (20, 1, 0, 200, 113),    # 20 x 20: 3 x 3 -> floor(1024 / 9), not a power of two
])
def test_output_tile_kc(h, k, pad, out, kc):
    tiling = make_tiling(DNNSIM.scnn, conv_view(conv(h, k, pad, out=out)), 1, 1)
    assert tiling.kc == kc
    assert tiling.group_channels(out).tolist() == [kc] * (out // kc) + ([out % kc] if out % kc else [])


def test_a_one_pixel_layer_worked_by_hand():
    """One input channel, one activation at the centre of a 4 x 4 plane, 3 x 3 kernel, pad 1, two
    filters each with one weight at (r, s) = (1, 1) (filter 0) and (0, 0) (filter 1), on 2 x 2 PEs
    of F = I = 4 with DNNsim's rules: one step of 2 products to outputs (1, 1) of filter 0 and
    (2, 2) of filter 1, banks 16(0^0^0)+8+4+0 = 12 and 16(0^1^1)+0+0+1 = 1: 1 cycle. Padded 6 -> 6,
    blocks of 3; Kc = 1024 / (2 x 2) -> 2 filters, one group; halo lengths (1, 3, 1): region 3,
    charge 3 x 2 = 6. Layer: 1 + 6 = 7 cycles."""
    arch = load_arch("scnn_dnnsim", {"scnn.pe_rows": 2, "scnn.pe_cols": 2})
    layer = conv(4, 3, 1, c=1, out=2)
    weights = np.zeros((2, 1, 3, 3), dtype=np.float32)
    weights[0, 0, 1, 1] = weights[1, 0, 0, 0] = 1
    inputs = np.zeros((1, 1, 4, 4), dtype=np.float32)
    inputs[0, 0, 2, 2] = 1
    plan = FAMILY.plan(arch, layer)

    plan = dataclasses.replace(plan, weights=weights[None], inputs=inputs[:, None], weight_mask=weights[None] != 0,
                               input_mask=inputs[:, None] != 0)
    for count in (FAMILY.fast, FAMILY.reference):
        c = count(plan)
        assert (c.compute_cycles, c.steps, c.products, c.macs_issued, c.bank_conflict_cycles) == (7, 1, 2, 2, 0)


def test_fc_layer_as_dnnsim_planes_counted_by_hand():
    """fc_layout dnnsim_planes: a 2 x 300 by 300 x 3 FC layer is 2 images of ceil(300 / 256) = 2
    channels of 16 x 16 planes (zero-padded) and 3 filters of 16 x 16 taps with one output pixel
    (stride 1, no padding). Every non-zero input meets every non-zero weight of its channel (the
    Cartesian product; out-of-plane products take a slot), and the product of input (y, x) and tap
    (r, s) lands in the plane iff (y - r, x - s) = (0, 0): exactly the FC's multiply-accumulates of two
    non-zeros. One output per (image, filter) is drained."""
    from accel_sim.foundations.workload import GemmLayer
    from accel_sim.foundations.workload.operands import layer_operands
    arch = load_arch("scnn_dnnsim", {"scnn.pe_rows": 2, "scnn.pe_cols": 2})
    layer = GemmLayer("fc", m=2, k=300, n=3, weight_density=0.3, input_density=0.5)
    operands = layer_operands(layer)
    weights, inputs = operands.weights != 0, operands.inputs != 0     # (k, n), (m, k)
    channel = np.arange(layer.k) // 256
    products = sum(int(inputs[b, channel == c].sum()) * int(weights[channel == c].sum())
                   for b in range(layer.m) for c in range(2))
    macs = int((inputs.astype(np.int64) @ weights.astype(np.int64)).sum())
    plan = FAMILY.plan(arch, layer)
    for count in (FAMILY.fast, FAMILY.reference):
        c = count(plan, None)
        assert (c.products, c.macs_issued, c.ppu_outputs) == (products, macs, layer.m * layer.n)

"""SCNN's zero-run encoding (paper Fig. 7), vectorised block storage, tiling, Kc and bank mapping."""
import numpy as np
import pytest

from accel_sim import load_arch
from accel_sim.compress import SCNNZeroRun
from accel_sim.scnn.fast.crossbar import EMPTY_SHIFT, max_bank_load
from accel_sim.scnn.plan import plan
from accel_sim.scnn.plan.bank_mapping import bank_of
from accel_sim.scnn.plan.encoding import block_bits, block_entries, plane_storage_bits
from accel_sim.scnn.plan.tiling import conv_view, make_tiling, split_bounds
from accel_sim.workload import ConvLayer


def test_paper_figure_7_example():
    filters = np.array([[[0, 23, 0], [0, 0, 0], [18, 0, 42]], [[77, 0, 0], [0, 24, 0], [0, 0, 8]]])
    block = SCNNZeroRun.from_dense(filters)
    assert block.values.tolist() == [23, 18, 42, 77, 24, 8]
    assert block.index_vector().tolist() == [6, 1, 4, 1, 0, 3, 3]


@pytest.mark.parametrize("density", [0.02, 0.1, 0.5, 1.0])
def test_vectorised_block_storage_equals_scnn_zero_run(density):
    rng = np.random.default_rng(int(density * 100))
    blocks = [(rng.random(int(rng.integers(1, 200))) < density) * rng.integers(1, 9, 1) for _ in range(30)]
    ids = np.concatenate([np.full(np.count_nonzero(b), i) for i, b in enumerate(blocks)]).astype(np.int64)
    pos = np.concatenate([np.flatnonzero(b) for b in blocks]).astype(np.int64)
    sizes = np.array([b.size for b in blocks])
    bits = block_bits(block_entries(ids, pos, len(blocks), 4), sizes, 16, 4)
    expected = [SCNNZeroRun.from_dense(b.astype(float)).storage(16).total_bits for b in blocks]
    assert bits.tolist() == expected


def test_uneven_planar_tiles_are_explicit():
    assert split_bounds(10, 4).tolist() == [0, 3, 6, 8, 10]
    assert split_bounds(3, 8).tolist() == [0, 1, 2, 3, 3, 3, 3, 3, 3]   # five PEs get empty tiles
    arch = load_arch("scnn")
    layer = ConvLayer("c", in_h=13, in_w=13, in_channels=4, out_channels=8, kernel_h=3, kernel_w=3,
                      pad_top=1, pad_bottom=1, pad_left=1, pad_right=1)
    tiling = make_tiling(arch.scnn, conv_view(layer), 1, 1)
    assert (tiling.rows.hi - tiling.rows.lo).tolist() == [2, 2, 2, 2, 2, 1, 1, 1]
    assert (tiling.acc_h, tiling.acc_w) == (4, 4)   # largest tile (2) + kernel - 1
    assert tiling.kc == 8                           # 1024 // 16 = 64 >= 8 channels


def test_kc_rule_respects_accumulator_capacity():
    layer = ConvLayer("c", in_h=64, in_w=64, in_channels=2, out_channels=256, kernel_h=3, kernel_w=3,
                      pad_top=1, pad_bottom=1, pad_left=1, pad_right=1)
    arch = load_arch("scnn")
    tiling = make_tiling(arch.scnn, conv_view(layer), 1, 1)
    assert (tiling.acc_h, tiling.acc_w) == (10, 10)
    assert tiling.kc == 1024 // 100 and tiling.out_groups == 26
    fixed = make_tiling(load_arch("scnn", {"scnn.kc_rule": "fixed", "scnn.kc": 8}).scnn, conv_view(layer), 1, 1)
    assert fixed.kc == 8 and fixed.out_groups == 32


def test_activations_that_do_not_fit_the_iaram_are_tiled_temporally():
    layer = ConvLayer("c", in_h=32, in_w=32, in_channels=64, out_channels=8, kernel_h=3, kernel_w=3,
                      pad_top=1, pad_bottom=1, pad_left=1, pad_right=1, input_density=0.6)
    small = plan(load_arch("scnn", {"scnn.iaram_size": "1 KiB"}), layer)
    big = plan(load_arch("scnn"), layer)
    assert big.tiling.temporal_tiles == 1 and small.tiling.temporal_tiles > 1
    assert plane_storage_bits(small.tiling, small.spec, small.inputs[0, 0], True, 16).max() <= 8 * 1024


def test_bank_conflicts_serialise_products_on_one_bank():
    arch = load_arch("scnn")
    a = arch.scnn.accumulator_banks
    mask = np.uint64(0b1111)   # activations on banks 0..3
    doubled = np.array([[[mask | (mask << np.uint64(a))]]], dtype=np.uint64)
    # weight terms 0 and 1: banks {0..3} and {1..4} overlap on 1, 2, 3: two products each
    shifts = np.array([[[(a - 0) % a, (a - 1) % a, EMPTY_SHIFT, EMPTY_SHIFT]]], dtype=np.uint64)
    assert max_bank_load(doubled, shifts, a)[0, 0, 0] == 2
    shifts = np.array([[[(a - 8) % a, (a - 16) % a, 0, (a - 24) % a]]], dtype=np.uint64)
    assert max_bank_load(doubled, shifts, a)[0, 0, 0] == 1   # disjoint banks: one cycle
    tiling = make_tiling(arch.scnn, conv_view(ConvLayer("c", in_h=16, in_w=16, in_channels=1, out_channels=4,
                                                        kernel_h=3, kernel_w=3)), 1, 1)
    assert bank_of(arch.scnn, tiling, 1, 0, 0) == (tiling.acc_h * tiling.acc_w) % a

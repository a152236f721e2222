"""SparseRT on a convolution without im2col (sparsert_conv) and CSB SpMM with load balancing over block rows
(csb_spmm): hand-derived examples on both paths, and the bad inputs each refuses."""
from __future__ import annotations

import numpy as np
import pytest

from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload import ConvLayer, GemmLayer
from accel_sim.foundations.workload.layer import OperandSource
from accel_sim.models.simt.family import FAMILY
from accel_sim.models.simt.plan.csb_spmm import chunks_of
from accel_sim.models.simt.plan.sparsert import conv_input_addresses
from tests.simt.archs import payload_layer, simt


@pytest.fixture()
def row_conv(tmp_path):
    """One 2 x 16 input channel (row y at byte 64 y), a 1 x 3 kernel padded by 1 on each side: 32 output pixels.
    Filter 0 keeps taps s = 0 and 2, filter 1 tap 1: K = 3 im2col rows (s = 0, 1, 2), all touched."""
    weights = np.zeros((2, 1, 1, 3), dtype=np.float32)
    weights[0, 0, 0, [0, 2]] = 1.0
    weights[1, 0, 0, 1] = 2.0
    path = tmp_path / "conv.npz"
    np.savez(path, weights=weights)
    return ConvLayer("conv", in_h=2, in_w=16, in_channels=1, out_channels=2, kernel_h=1, kernel_w=3, pad_left=1,
                     pad_right=1, operands=OperandSource(payload=str(path)))


def test_conv_input_addresses_follow_the_shift_and_the_padding():
    layer = ConvLayer("c", in_h=3, in_w=3, in_channels=2, out_channels=1, kernel_h=3, kernel_w=3, pad_top=1,
                      pad_bottom=1, pad_left=1, pad_right=1, stride_h=2, stride_w=2)
    # out 2 x 2; k = (c, r, s) = c * 9 + r * 3 + s; n = y * 2 + x; input (c, iy, ix) at c * 9 + iy * 3 + ix
    k = np.array([0, 4, 8, 9 + 4, 9 + 8])
    n = np.array([0, 3])
    assert conv_input_addresses(layer, k[:, None], n[None, :]).tolist() == [
        [-1, 4], [0, 8], [4, -1], [9, 17], [13, -1]]


def test_sparsert_conv_worked_example_on_both_paths(row_conv):
    arch = simt({"sms": 1, "memory_latency": 400}, kernel="sparsert_conv", sparsert_rows=(2,), sparsert_tile_n=(64,))
    plan = FAMILY.plan(arch, row_conv)
    (c,) = plan.candidates
    s = c.schedule
    assert (s.kernel, s.ctas, s.warps, s.threads_per_cta) == ("sparsert_conv", 1, 1, 32)
    # 3 loads, 3 FFMAs (2 issue cycles each), 2 stores, 2 set-up
    assert s.group_issue.tolist() == [3 + 6 + 2 + 2] and s.group_latency.tolist() == [400]
    # each tap's load: 15 or 16 valid pixels of each input row, 2 sectors per row: 4 sectors; all three taps share
    # the input's 4 sectors (im2col would read 3 distinct rows of 4 sectors)
    assert s.cached_ptr.tolist() == [0, 4] and s.cached_sectors.tolist() == [0, 1, 2, 3]
    assert s.cta_l1_bytes.tolist() == [(12 + 8) * 32]                   # B loads' sectors and C's two rows
    assert s.cta_l2_sectors.tolist() == [8 + 5]                         # C stores, 10 instructions of 16 B
    assert (s.dram_read_bytes, s.dense_operand_bytes, s.dram_write_bytes) == (160 + 128, 128, 2 * 32 * 4)
    assert s.products == s.fmas == 3 * 32
    im2col = FAMILY.plan(simt({"sms": 1}, kernel="sparsert", sparsert_rows=(2,), sparsert_tile_n=(64,)),
                         row_conv).candidates[0].schedule
    assert int(im2col.cached_ptr[-1]) == 12 and im2col.dense_operand_bytes == 3 * 32 * 4
    counters = [path(plan, None) for path in (FAMILY.fast, FAMILY.reference)]
    assert counters[0] == counters[1]
    assert (counters[0].l1_hits, counters[0].l1_misses, counters[0].l2_sectors) == (0, 4, 13 + 4)


def test_sparsert_conv_refuses_gemm_and_grouped_layers(tmp_path):
    for layer in (GemmLayer("fc", m=4, k=8, n=8, weight_density=0.5),
                  ConvLayer("g", in_h=3, in_w=3, in_channels=4, out_channels=4, kernel_h=3, kernel_w=3, groups=2,
                            weight_density=0.5)):
        with pytest.raises(InputError, match="sparsert_conv runs convolutions of one group"):
            FAMILY.plan(simt(kernel="sparsert_conv"), layer)


@pytest.fixture()
def three_blocks(tmp_path):
    """A (4 x 4) in 2 x 2 blocks: (0, 0) holds (0, 0), (0, 1), (1, 0); (0, 1) holds (1, 3); (1, 0) holds (2, 1).
    B is 4 x 40 (row k at byte 160 k): column tiles of 32 and 8."""
    weights = np.zeros((4, 4), dtype=np.float32)                        # A^T
    for row, col in ((0, 0), (0, 1), (1, 0), (1, 3), (2, 1)):
        weights[col, row] = 1.0 + row
    return payload_layer(tmp_path, "g", 40, weights)


def test_chunks_cut_block_rows_at_multiples_of_the_target():
    block_row = np.array([0, 0, 0, 1, 3, 3])
    block_nnz = np.array([3, 1, 4, 2, 5, 5])
    # target ceil(20 / 4) = 5: row 0's work before its blocks 0, 3, 4 -> chunks 0, 0, 0; row 3's 0, 5 -> 0, 1
    assert chunks_of(block_row, block_nnz, 20, 4, True).tolist() == [0, 0, 0, 1, 2, 3]
    assert chunks_of(block_row, block_nnz, 20, 8, True).tolist() == [0, 1, 1, 2, 3, 4]   # target 3: 0, 3, 4 // 3
    assert chunks_of(block_row, block_nnz, 20, 8, False).tolist() == [0, 0, 0, 1, 2, 2]
    # a row's cuts count the work before its blocks within the row (12 before row 1: its 0 and 3 stay one chunk)
    assert chunks_of(np.array([0, 0, 1, 1]), np.array([6, 6, 3, 5]), 20, 4, True).tolist() == [0, 1, 2, 2]


def test_csb_spmm_worked_example_on_both_paths(three_blocks):
    arch = simt({"sms": 1, "memory_latency": 400}, kernel="csb_spmm", csb_beta=2, threads_per_cta=64,
                loop_overhead_instructions=3, l2_latency=100, shared_memory_latency=10)
    plan = FAMILY.plan(arch, three_blocks)
    (c,) = plan.candidates
    s = c.schedule
    # 2 block rows x 2 tiles fill the one SM: target ceil(5 / 2) = 3 cuts block row 0 after its first block
    assert (s.ctas, s.warps, s.shared_memory_per_cta) == (6, 12, 2 * 32 * 4)
    # per block: a batch (2 loads + 3 loop) and 9 per non-zero; every warp zeroes and writes its row: 4
    assert s.group_issue.tolist() == [5 + 27 + 4, 4, 14 + 4, 4, 14 + 4, 4] * 2
    assert s.group_latency.tolist() == [400 + 510, 400] * 6
    # values and indices 2 sectors + block pointers 1 + C's two rows of the tile (4 + 4 sectors, or 1 + 1)
    assert s.cta_l2_sectors.tolist() == [11, 11, 11, 5, 5, 5]
    assert s.cached_ptr.tolist() == [0, 8, 12, 16, 18, 19, 20]
    assert s.cached_sectors.tolist() == [0, 1, 2, 3, 5, 6, 7, 8, 15, 16, 17, 18, 5, 6, 7, 8, 4, 9, 19, 9]
    # block row 0's two chunks add rows 0 and 1 (4 sectors in tile 0, 1 in tile 1) with atomics
    assert s.atomic_cta.tolist() == [0] * 8 + [1] * 8 + [3, 3, 4, 4]
    assert s.atomic_sector.tolist() == [0, 1, 2, 3, 5, 6, 7, 8] * 2 + [4, 9, 4, 9]
    assert (s.atomics, s.dram_read_bytes) == (20, 5 * 8 + 5 * 4 + 640)
    # every stored value times every column of B, on CUDA cores (fast and reference both read these from the plan)
    assert (s.fmas, s.products, s.tensor_macs, s.tensor_core, s.gemm_l2_sectors) == (5 * 40, 5 * 40, 0, False, 0)
    # L1: A, pointers, B requests (3 non-zeros x 4 sectors, or 1 each) and C in sectors, plus the red.shared adds
    # (non-zeros x columns x 4 B) and the tile zeroed and read back (rows x columns x 4 B, twice)
    assert s.cta_l1_bytes.tolist() == [(2 + 1 + 12 + 8) * 32 + 384 + 512, (2 + 1 + 4 + 8) * 32 + 128 + 512,
                                       (2 + 1 + 4 + 8) * 32 + 128 + 512, (2 + 1 + 3 + 2) * 32 + 96 + 128,
                                       (2 + 1 + 1 + 2) * 32 + 32 + 128, (2 + 1 + 1 + 2) * 32 + 32 + 128]
    counters = [path(plan, None) for path in (FAMILY.fast, FAMILY.reference)]
    assert counters[0] == counters[1] and counters[0].atomics == 20
    whole = FAMILY.plan(simt({"sms": 1}, kernel="csb_spmm", csb_beta=2, threads_per_cta=64, csb_balance=False),
                        three_blocks).candidates[0].schedule
    assert (whole.ctas, whole.atomics, whole.atomic_cta) == (4, 0, None)


def test_sputnik_reverse_offset_alignment_loads_a_in_aligned_vectors(tmp_path):
    """Rows of 3, 6 and 1 non-zeros (row pointers 0, 3, 9, 10), B 8 columns wide: subwarps of 2 lanes (float4 B),
    one warp. Scalar A loads: batches of 2 (2, 3, 1 per row: the warp takes 3). Reverse-offset alignment: batches of
    2 x 4 from the row start backed up to a multiple of 4 (offsets 0, 3, 1: spans 3, 9, 2 -> 1, 2, 1 batches)."""
    weights = np.zeros((8, 3), dtype=np.float32)                      # A^T: A is 3 x 8
    weights[[0, 1, 2], 0] = 1.0
    weights[[0, 1, 2, 3, 4, 5], 1] = 2.0
    weights[7, 2] = 3.0
    layer = payload_layer(tmp_path, "g", 8, weights)
    plans = {roma: FAMILY.plan(simt({"sms": 1}, kernel="sputnik", vector_width=4, tile_n=64,
                                    loop_overhead_instructions=3, reverse_offset_alignment=roma), layer)
             for roma in (False, True)}
    scalar, aligned = (plans[r].candidates[0].schedule for r in (False, True))
    assert scalar.group_issue[0] - aligned.group_issue[0] == (3 - 2) * (2 + 2 + 1 + 3)
    # values and indices at bytes 4 e (sectors 0 and 1: entries 8, 9): per batch its distinct sectors, twice
    # scalar: rows 2 + 4 + 1 sectors; aligned: 1 + 2 + 1
    assert scalar.cta_l2_sectors[0] - aligned.cta_l2_sectors[0] == 2 * ((2 + 4 + 1) - (1 + 2 + 1))
    # the masked entries are staged in shared memory: (3 + 9 + 2) - (3 + 6 + 1) more entries, written and read
    assert aligned.cta_l1_bytes[0] - scalar.cta_l1_bytes[0] == 2 * 4 * 8 - 2 * ((2 + 4 + 1) - (1 + 2 + 1)) * 32
    assert (scalar.shared_memory_per_cta, aligned.shared_memory_per_cta) == (128 * 8, 128 * 4 * 8)
    assert aligned.products == scalar.products == 10 * 8
    for plan in plans.values():
        assert FAMILY.fast(plan, None) == FAMILY.reference(plan, None)


def test_merge_spmv_worked_example_on_both_paths(tmp_path):
    """A (3 x 64): row 0 in columns 0-19, row 1 empty, row 2 in columns 40-54; x is 64 long. One item per thread,
    32 threads per CTA: the 38 merge items (35 non-zeros, 3 row ends) are CTA 0's 32 (non-zeros 0-29, the ends of
    rows 0 and 1) and CTA 1's 6 (non-zeros 30-34, row 2's end). CTA 0 ends inside row 2: one atomic carry-out."""
    weights = np.zeros((64, 3), dtype=np.float32)                      # A^T
    weights[:20, 0] = 1.0
    weights[40:55, 2] = 2.0
    layer = payload_layer(tmp_path, "spmv", 1, weights)
    arch = simt({"sms": 1, "memory_latency": 400}, kernel="merge_spmv", merge_items_per_thread=1, threads_per_cta=32,
                loop_overhead_instructions=3, l2_latency=100, shared_memory_latency=10)
    plan = FAMILY.plan(arch, layer)
    s = plan.candidates[0].schedule
    assert (s.ctas, s.warps, s.shared_memory_per_cta) == (2, 2, 32 * 4 + 32 * 4)
    # search 6 probes x 4; a batch of 32 (2 loads, gather, multiply x 2, store, loop 3); row-end loads 2; the walk
    # (1 item: 2 + 2 + 3); the reduce-by-key 5 x 3
    assert s.group_issue.tolist() == [24 + 9 + 2 + 7 + 15] * 2
    assert s.group_latency.tolist() == [6 * 10 + 400 + 100 + 10] * 2
    # CTA 0: values 4 + indices 4 + row ends 1 sectors, y 1, x 5 (sectors 0-2, 5, 6), its carry-out 1; CTA 1: 2 + 2 +
    # 1, y 1, x 1 (sector 6)
    assert s.cta_l2_sectors.tolist() == [9 + 1 + 5 + 1, 5 + 1 + 1]
    assert s.cta_l1_bytes.tolist() == [(9 + 5 + 1) * 32 + 2 * 32 * 4, (5 + 1 + 1) * 32 + 2 * 6 * 4]
    assert (s.atomic_cta.tolist(), s.atomic_sector.tolist(), s.atomics) == ([0], [0], 1)
    assert (s.dram_read_bytes, s.dram_write_bytes, s.products) == (35 * 8 + 4 * 4 + 64 * 4, 3 * 4, 35)
    counters = [path(plan, None) for path in (FAMILY.fast, FAMILY.reference)]
    assert counters[0] == counters[1] and counters[0].atomics == 1
    two = FAMILY.plan(simt({"sms": 1}, kernel="merge_spmv", merge_items_per_thread=1, threads_per_cta=32),
                      payload_layer(tmp_path, "spmm", 2, weights)).candidates[0].schedule
    assert (two.ctas, two.atomics, two.atomic_sector.tolist()) == (4, 2, [0, 1])   # column 1's y one sector on
    assert (two.products, two.fmas, two.dram_read_bytes) == (70, 70, 35 * 8 + 4 * 4 + 2 * 64 * 4)


def test_merge_spmv_warp_of_row_ends_only_waits_for_no_load(tmp_path):
    """40 rows, only the last holds non-zeros (3): warp 0's 32 items are the ends of the empty rows 0-31, so it loads
    no non-zero and exposes only its search and the walk's shared-memory latencies; warp 1 also its loads'."""
    weights = np.zeros((8, 40), dtype=np.float32)                     # A^T
    weights[[1, 4, 6], 39] = 1.0
    arch = simt({"sms": 1, "memory_latency": 400}, kernel="merge_spmv", merge_items_per_thread=1, threads_per_cta=32,
                l2_latency=100, shared_memory_latency=10)
    plan = FAMILY.plan(arch, payload_layer(tmp_path, "spmv", 1, weights))
    s = plan.candidates[0].schedule
    assert s.group_latency.tolist() == [6 * 10 + 10, 6 * 10 + 400 + 100 + 10]
    assert FAMILY.fast(plan, None) == FAMILY.reference(plan, None)


def test_csb_spmm_splits_a_lone_block_row_to_fill_the_sms(tmp_path):
    """A (2 x 16), one block row of 2 x 2 blocks: block columns 0 (2 non-zeros), 3 and 7 (1 each); B 16 x 40 (2 tiles).
    One SM: one work unit, no cut. Four SMs: ceil(4 / 2 tiles) = 2 units, target 2: the work before the blocks
    (0, 2, 3) cuts after block column 0; chunk 1's two blocks go to its warps 0 and 1 of 4."""
    weights = np.zeros((16, 2), dtype=np.float32)                     # A^T
    weights[[0, 1], 0] = 1.0
    weights[6, 1] = 2.0
    weights[15, 0] = 3.0
    layer = payload_layer(tmp_path, "g", 40, weights)
    def schedule(sms):
        arch = simt({"sms": sms}, kernel="csb_spmm", csb_beta=2, threads_per_cta=128, loop_overhead_instructions=3)
        return FAMILY.plan(arch, layer)
    whole, split = (schedule(sms).candidates[0].schedule for sms in (1, 4))
    assert (whole.ctas, whole.atomics, split.ctas, split.atomics) == (2, 0, 4, 2 * 2 * (4 + 1))
    # blocks (2 non-zeros: 5 + 18 issue; 1: 5 + 9) and every warp's tile epilogue (2 x ceil(2 / 4) + 2)
    assert split.group_issue.tolist()[:8] == [23 + 4, 4, 4, 4, 14 + 4, 14 + 4, 4, 4]
    assert whole.group_issue.tolist()[:4] == [23 + 4, 14 + 4, 14 + 4, 4]
    # block pointers: block ids 0-7 (36 bytes from 0: 2 sectors) whole; ids 0 (1) and 3-7 (24 bytes from 12: 2) split
    assert whole.cta_l2_sectors.tolist() == [6 + 2 + 8, 6 + 2 + 2]
    assert split.cta_l2_sectors.tolist() == [2 + 1 + 8, 4 + 2 + 8, 2 + 1 + 2, 4 + 2 + 2]
    plan = schedule(4)
    assert FAMILY.fast(plan, None) == FAMILY.reference(plan, None)


def _conv_payload(tmp_path, weights: np.ndarray, **shape) -> ConvLayer:
    path = tmp_path / "w.npz"
    np.savez(path, weights=weights)
    return ConvLayer("conv", out_channels=weights.shape[0], in_channels=weights.shape[1], kernel_h=weights.shape[2],
                     kernel_w=weights.shape[3], operands=OperandSource(payload=str(path)), **shape)


def test_sparsert_conv_loads_the_first_input_element(tmp_path):
    """A 1 x 1 input of 2 channels (elements 0 and 1, both in sector 0), one filter on both: each of the two loads
    covers one sector, the first one element 0's."""
    layer = _conv_payload(tmp_path, np.ones((1, 2, 1, 1), dtype=np.float32), in_h=1, in_w=1)
    s = FAMILY.plan(simt({"sms": 1}, kernel="sparsert_conv", sparsert_rows=(1,), sparsert_tile_n=(32,)),
                    layer).candidates[0].schedule
    assert s.cta_l1_bytes.tolist() == [(1 + 1 + 1) * 32]                # two loads' sectors and C's one
    assert (s.cached_ptr.tolist(), s.cached_sectors.tolist()) == ([0, 1], [0])


def test_sparsert_conv_ctas_list_their_own_channels_sectors(tmp_path):
    """Two 2 x 16 channels (channel c at bytes 128 c), filter f reads channel f only; a row per CTA: CTA 0 loads
    sectors 0-3, CTA 1 sectors 4-7."""
    weights = np.zeros((2, 2, 1, 1), dtype=np.float32)
    weights[0, 0] = weights[1, 1] = 1.0
    layer = _conv_payload(tmp_path, weights, in_h=2, in_w=16)
    plan = FAMILY.plan(simt({"sms": 2}, kernel="sparsert_conv", sparsert_rows=(1,), sparsert_tile_n=(32,)), layer)
    s = plan.candidates[0].schedule
    assert (s.cached_ptr.tolist(), s.cached_sectors.tolist()) == ([0, 4, 8], [0, 1, 2, 3, 4, 5, 6, 7])
    assert FAMILY.fast(plan, None) == FAMILY.reference(plan, None)
    # 16-column tiles: CTA (tile t, row block b) = 2 t + b reads its channel's pixels 16 t .. 16 t + 15 (2 sectors)
    s = FAMILY.plan(simt({"sms": 2}, kernel="sparsert_conv", sparsert_rows=(1,), sparsert_tile_n=(16,)),
                    layer).candidates[0].schedule
    assert (s.cached_ptr.tolist(), s.cached_sectors.tolist()) == ([0, 2, 4, 6, 8], [0, 1, 4, 5, 2, 3, 6, 7])


def test_csb_spmm_work_units_round_up_when_the_tiles_do_not_divide_the_sms(tmp_path):
    """A (2 x 16), one block row of 2 x 2 blocks: one non-zero in each of block columns 0..5 (6 in all); B 16 x 40
    (tiles of 32 and 8 columns: 2). Five SMs: the work units are the block rows or "enough to fill the SMs",
    max(1, ceil(5 / 2)) = 3 (a whole number of units), target ceil(6 / 3) = 2: the work before the blocks, 0..5,
    cuts them into chunks 0, 0, 1, 1, 2, 2: 3 chunks x 2 tiles = 6 CTAs (a fractional 2.5 units would give target
    ceil(6 / 2.5) = 3 and 2 chunks). Each chunk adds its tile's 2 rows of C with atomics: tile 0 row 0 bytes 0..127
    (4 sectors), row 1 bytes 160..287 (sectors 5..8: 4); tile 1 bytes 128..159 (1) and 288..319 (1): 10 a chunk."""
    weights = np.zeros((16, 2), dtype=np.float32)                     # A^T
    weights[[0, 2, 4, 6, 8, 10], 0] = 1.0
    layer = payload_layer(tmp_path, "g", 40, weights)
    arch = simt({"sms": 5}, kernel="csb_spmm", csb_beta=2, threads_per_cta=128, loop_overhead_instructions=3)
    plan = FAMILY.plan(arch, layer)
    s = plan.candidates[0].schedule
    assert (s.ctas, s.atomics) == (3 * 2, 3 * 10)
    assert s.atomic_cta.tolist() == [0] * 8 + [1] * 8 + [2] * 8 + [3, 3, 4, 4, 5, 5]
    # every warp's epilogue 2 x ceil(2 / 4) + 2 = 4; a block of one non-zero 5 + 9: chunk c's blocks on warps 0, 1
    assert s.group_issue.tolist()[:12] == [14 + 4, 14 + 4, 4, 4] * 3

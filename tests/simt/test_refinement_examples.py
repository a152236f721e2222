"""Hand-derived SIMT examples, checked on both paths (a bug in the shared plan fails here: both
paths would agree on it), and the coalescing / dispatch / drain blocks on their own."""
from __future__ import annotations

import numpy as np
import pytest

from accel_sim.models.simt.fast import SectorCache, dispatch, drain, drains
from accel_sim.models.simt.family import FAMILY
from accel_sim.models.simt.plan.sectors import distinct_per_group, sorted_unique, span_sectors
from accel_sim.models.simt.spec import SgemmTile
from accel_sim.foundations.workload import GemmLayer
from tests.simt.archs import payload_layer, simt, two_blocks_layer


def test_span_sectors_counts_the_32_byte_sectors_a_byte_range_touches():
    assert span_sectors(np.array([0, 0, 31, 32, 28, 5]), np.array([32, 33, 2, 0, 8, 1]), 32).tolist() == [1, 2, 2, 0, 2, 1]


def test_distinct_per_group_counts_each_groups_distinct_keys():
    assert distinct_per_group(np.array([0, 0, 0, 2, 2]), np.array([5, 5, 7, 5, 1]), 4).tolist() == [2, 0, 2, 0]
    assert sorted_unique(np.array([3, 1, 3, 2, 1])).tolist() == [1, 2, 3]


def test_dispatch_gives_each_cta_the_earliest_then_lowest_free_slot():
    start, slot = dispatch(np.array([5, 3, 4, 1, 2]), 2)
    assert start.tolist() == [0, 0, 3, 5, 6] and slot.tolist() == [0, 1, 1, 0, 0]
    start, slot = dispatch(np.array([2, 2, 2]), 2)
    assert start.tolist() == [0, 0, 2] and slot.tolist() == [0, 1, 0]     # tie at 2: slot 0 first


def test_drain_is_the_fifo_servers_last_departure_per_sm():
    # SM 0: arrivals 0 (3 cycles), 1 (1), 10 (2) -> busy to 4, then 10..12; SM 1: one demand 5 at 2
    out = drain(np.array([0, 1, 10, 2]), np.array([0, 0, 0, 1]), np.array([3, 1, 2, 5]), 3)
    assert out.tolist() == [12, 7, 0]


def test_drains_order_arrivals_whose_sm_key_would_overflow():
    """Arrivals 2^60 on SM 7 and 0 on SM 0 (given out of order, so numpy orders them): a (SM, arrival) key
    7 x (2^60 + 1) + 2^60 passes 2^63, so drains orders them by (SM, arrival, launch) without the packed key.
    Each SM's last departure is its one arrival plus its service: SM 0 at 0 + 5, SM 7 at 2^60 + 3."""
    (out,) = drains(np.array([2 ** 60, 0]), np.array([7, 0]), [np.array([3, 5])], 8)
    assert out.tolist() == [5, 0, 0, 0, 0, 0, 0, 2 ** 60 + 3]


def test_l1_evicts_the_least_recently_used_line_whatever_its_tag():
    """A 256-line L1 (4 sectors a line) filled a line per step, tags in the order 97 i mod 257: the 257th line
    evicts the first used (tag 0); tag 0 coming back evicts the next oldest, tag 97, which then misses; the last
    line used still hits. (Eviction picks the oldest of 257 keys, where numpy's partial sort takes another path.)"""
    cache = SectorCache(256, np.array([bin(v).count("1") for v in range(16)], dtype=np.int64))
    order = [97 * i % 257 for i in range(257)]
    for stamp, tag in enumerate(order):
        assert cache.access(np.array([tag]), np.array([0b1]), stamp) == 0
    assert cache.access(np.array([0]), np.array([0b1]), 257) == 0
    assert cache.access(np.array([97]), np.array([0b1]), 258) == 0
    assert cache.access(np.array([order[-1]]), np.array([0b1]), 259) == 1
    small = SectorCache(2, cache.popcount)   # the oldest line holds the highest tag: it still goes first
    for stamp, tag in enumerate((9, 0, 5)):
        small.access(np.array([tag]), np.array([0b1]), stamp)
    assert small.access(np.array([9]), np.array([0b1]), 3) == 0


def test_csr_vector_worked_example_on_both_paths(two_rows):
    arch = simt({"sms": 1, "memory_latency": 400}, kernel="csr_vector", threads_per_cta=32, l2_latency=193,
                loop_overhead_instructions=3)
    plan = FAMILY.plan(arch, two_rows)
    s = plan.candidates[0].schedule
    # iteration issue 3 loads + FFMA (2 cycles: 32 lanes on 16) + 3 loop = 8; pointers 2, reduction 5 x (1 + 2), store 1
    assert s.group_issue.tolist() == [2 * 8 + 2 + 15 + 1, 8 + 2 + 15 + 1]
    assert s.group_latency.tolist() == [400 + 2 * (400 + 193), 400 + (400 + 193)]
    # row 0: values 4 + 1 sectors, indices 4 + 1, pointers 1, y 1, x sectors 0..4 (5); row 1: 1 + 1 + 1 + 1 + 1
    assert s.cta_l2_sectors.tolist() == [17, 5]
    assert s.cta_l1_bytes.tolist() == [(10 + 1 + 5) * 32, (2 + 1 + 1) * 32]
    assert plan.candidates[0].ctas_per_sm == 2            # 32 CTAs fit, the grid has 2 for 1 SM
    assert s.shared_memory_per_cta == 0                   # x is read through the L1, nothing staged
    assert s.dram_read_bytes == 41 * (4 + 4) + 3 * 4 + 64 * 4 and s.dram_write_bytes == 2 * 4
    for path in (FAMILY.fast, FAMILY.reference):
        c = path(plan, None)
        assert (c.cycles, c.sm_cycles, c.latency_cycles, c.issue_cycles, c.l1_cycles, c.l2_port_cycles) == (
            1620, 1620, 1620 + 1019, 9 + 7, 4 + 1, 9 + 3)
        assert (c.l2_cycles, c.dram_cycles, c.fmas, c.atomics, c.issue_slots) == (1, 1, 41, 0, 34 + 26)


def test_csr_vector_transpose_scatters_with_atomics(two_rows):
    arch = simt({"sms": 1}, kernel="csr_vector", transpose=True, threads_per_cta=32)
    plan = FAMILY.plan(arch, two_rows)
    for path in (FAMILY.fast, FAMILY.reference):
        c = path(plan, None)
        assert c.atomics == 5 + 1                          # y sectors 0..4 of row 0, sector 7 of row 1
    s = plan.candidates[0].schedule
    # stream, pointers, x segment, one sector per atomic request (its data to L2 once, no reply)
    assert s.cta_l2_sectors.tolist() == [10 + 1 + 1 + 5, 2 + 1 + 1 + 1]
    assert s.atomic_cta.tolist() == [0] * 5 + [1] and s.atomic_sector.tolist() == [0, 1, 2, 3, 4, 7]
    assert s.atomic_serial.tolist() == [1] * 6                 # a row's lanes add into distinct columns
    assert s.cta_l1_bytes.tolist() == [(10 + 1 + 1) * 32, (2 + 1 + 1) * 32]   # the scatter bypasses the L1


def test_sputnik_packs_one_lane_subwarps_and_runs_as_long_as_its_longest_row(two_rows):
    arch = simt({"sms": 1}, kernel="sputnik", threads_per_cta=32, tile_n=4, vector_width=4, loop_overhead_instructions=3)
    s = FAMILY.plan(arch, two_rows).candidates[0].schedule
    assert s.ctas == 1 and s.warps == 1                    # a 1-lane subwarp per row: 32 rows per warp
    # lock step: 40 iterations (row 0), 40 batches of 1; batch 2+2+1+3, iteration 2 + (1 + 4 x 2) + 3, store 1, pointers 2
    assert s.group_issue.tolist() == [40 * 8 + 40 * 14 + 1 + 2]
    # A: a value and an index sector per batch (40 + 1 batches); pointers 1 per row; C 1 per row; B rows 41 distinct
    # (4 bytes each) through the L1: columns 0..39 in sectors 0..4, column 63 in sector 7
    assert s.cta_l2_sectors.tolist() == [82 + 2 + 2] and s.cached_sectors.tolist() == [0, 1, 2, 3, 4, 7]
    assert s.cta_l1_bytes.tolist() == [(82 + 2 + 41 + 2) * 32 + 2 * 41 * 8]   # A staged: written and read
    assert FAMILY.refinement(arch, two_rows) == []


def test_merge_gives_every_warp_an_equal_share_of_the_merge_path(two_rows):
    arch = simt({"sms": 1, "memory_latency": 400}, kernel="merge", threads_per_cta=32, merge_items_per_thread=1,
                l2_latency=193, loop_overhead_instructions=3)
    s = FAMILY.plan(arch, two_rows).candidates[0].schedule
    assert s.warps == 2 and s.ctas == 2                   # 41 non-zeros + 2 row ends = 43 items, 32 per warp
    assert s.shared_memory_per_cta == 0                   # merge stages nothing in shared memory
    # path: non-zeros 0..39 at 0..39, row end 0 at 40, non-zero 40 at 41, row end 1 at 42: shares 32 + 9 non-zeros
    # binary search 6 x (1 + 3); a batch 2 + 3; per non-zero 2 shuffles + load + FFMA 2 + 3; row ends; carry-out
    assert s.group_issue.tolist() == [24 + 5 + 32 * 8 + 0 + 1, 24 + 5 + 9 * 8 + 2 + 0]
    assert s.group_latency.tolist() == [6 * 400 + 593, 6 * 400 + 593]
    # stream (values 4 + indices 4 + search 6), carry 1 | 2 + 2 + 6, C 2; through the L1: B rows 0..31 (sectors
    # 0..3) | rows 32..39 and 63 (sectors 4 and 7)
    assert s.cta_l2_sectors.tolist() == [14 + 1, 10 + 2] and s.cached_sectors.tolist() == [0, 1, 2, 3, 4, 7]
    assert s.cached_ptr.tolist() == [0, 4, 6]
    assert s.cta_l1_bytes.tolist() == [(14 + 32) * 32, (10 + 9 + 2) * 32]
    assert s.atomics == 1
    # warp 0's share ends inside row 0: it adds its partial C row (columns 0..1 of row 0: sector 0) with one request
    assert (s.atomic_cta.tolist(), s.atomic_sector.tolist(), s.atomic_serial.tolist()) == ([0], [0], [1])
    assert FAMILY.refinement(arch, two_rows) == []


def test_csb_worked_example_with_an_empty_block(tmp_path):
    """A (4 x 8), beta 4: block (0, 0) holds row 0's columns 0..2 and row 1's column 3; block (0, 1) is empty.
    One warp per CTA: the line's two blocks are two CTAs whose output segments meet in y with atomics."""
    weights = np.zeros((8, 4), dtype=np.float32)
    weights[[0, 1, 2], 0] = 1.0
    weights[3, 1] = 1.0
    layer = payload_layer(tmp_path, "spmv", 1, weights)
    arch = simt({"sms": 1, "memory_latency": 400}, kernel="csb", csb_beta=4, threads_per_cta=32, l2_latency=193,
                shared_memory_latency=19, loop_overhead_instructions=3)
    plan = FAMILY.plan(arch, layer)
    s = plan.candidates[0].schedule
    # pointers 2; segment copy (LDG + STS) + barrier 3; one iteration 3 + FFMA 2 + atomic 1 + 3; output copy 2 + 1
    assert s.group_issue.tolist() == [2 + 3 + 9 + 3, 2 + 3]
    assert s.group_latency.tolist() == [400 + (193 + 19) + (400 + 19), 400]
    assert s.cta_l2_sectors.tolist() == [2 + 1 + 1 + 1, 1 + 1]     # stream, segment, pointers, y atomics (a sector)
    assert s.atomic_cta.tolist() == [0, 1] and s.atomic_sector.tolist() == [0, 0]   # both CTAs add into y's sector 0
    assert s.cta_l1_bytes.tolist() == [(2 + 1 + 1 + 1) * 32 + 64 + 48 + 16, (1 + 1) * 32 + 16]
    assert s.shared_memory_per_cta == 2 * 4 * 4 and s.atomics == 2
    assert (s.dram_read_bytes, s.dram_write_bytes) == (4 * 8 + 3 * 4 + 8 * 4, 4 * 4)
    # 4 stored values x 1 column of B; CUDA cores (no tensor-core MACs); no dense GEMM tile reads in its L2 sectors
    assert (s.fmas, s.products, s.tensor_macs, s.tensor_core, s.gemm_l2_sectors) == (4, 4, 0, False, 0)
    assert FAMILY.refinement(arch, layer) == []


def test_dense_simt_occupancy_from_registers():
    arch = simt({"sms": 1}, kernel="dense_simt")
    plan = FAMILY.plan(arch, GemmLayer("g", m=512, k=64, n=512))
    # 128x128 tile: 8 warps x 32 x 128 registers = 32768 of 65536: two CTAs per SM (the grid has 16)
    assert plan.candidates[0].ctas_per_sm == 2
    assert plan.candidates[0].schedule.threads_per_cta == 256


def test_accounting_counts_products_of_stored_values(two_rows):
    arch = simt({"sms": 1}, kernel="sputnik")
    result = FAMILY.layer_result(arch, two_rows)
    assert result.macs_issued == 41 and result.macs_dense == 128
    assert result.peak_macs_per_cycle == 64
    bsr = FAMILY.layer_result(simt({"sms": 1}, kernel="dense_tensor_core"), two_rows)
    assert bsr.peak_macs_per_cycle == 4 * 256 and bsr.macs_issued == 128


def test_dense_simt_worked_example():
    arch = simt({"sms": 1}, kernel="dense_simt", sgemm_tiles=(SgemmTile(32, 32, 8, 32, 32),), split_k=(1,),
                loop_overhead_instructions=3)
    plan = FAMILY.plan(arch, GemmLayer("g", m=32, k=16, n=32))
    s = plan.candidates[0].schedule
    # per step: 32x32x8 / 32 lanes FFMA x 2 cycles, 4 LDS.128, 2 x 4 fill (LDG + STS), barrier, 3 loop; epilogue 8
    assert s.group_issue.tolist() == [2 * (512 + 4 + 8 + 1 + 3) + 8]
    assert s.cta_l2_sectors.tolist() == [64 + 64 + 128]
    assert s.cta_l1_bytes.tolist() == [2 * (2048 + 2048) + 4096 + 2 * 2048]
    assert (s.fmas, s.shared_memory_per_cta, s.dram_read_bytes, s.dram_write_bytes) == (16384, 4096, 4096, 4096)
    assert s.atomics == 0                                  # no split-K: C is stored, not added with atomics
    assert FAMILY.refinement(arch, GemmLayer("g", m=32, k=16, n=32)) == []


def test_split_k_adds_partial_tiles_with_atomics():
    arch = simt({"sms": 1}, kernel="dense_simt", sgemm_tiles=(SgemmTile(32, 32, 8, 32, 32),), split_k=(2,))
    plan = FAMILY.plan(arch, GemmLayer("g", m=32, k=16, n=32))
    split = plan.candidates[1].schedule                    # candidates: no split, then 2 slices
    assert split.ctas == 2 and split.cta_l2_sectors.tolist() == [32 + 32 + 128] * 2 and split.atomics == 256
    # each slice adds its 32 x 32 C tile: 128 requests on consecutive sectors 0..127
    cta, sector, serial = split.atomic_cta, split.atomic_sector, split.atomic_serial
    assert cta.tolist() == [0] * 128 + [1] * 128 and sector.tolist() == list(range(128)) * 2 and serial.tolist() == [1] * 256


def test_bsr_worked_example(tmp_path):
    layer = two_blocks_layer(tmp_path, 16)
    arch = simt({"sms": 1}, kernel="bsr", block=8, bsr_tile_n=16, loop_overhead_instructions=3)
    s = FAMILY.plan(arch, layer).candidates[0].schedule
    # per block: 16x8x8 MACs / 256 = 4, one ldmatrix, one cp.async, barrier, 3 loop; epilogue 1, pointers 2
    assert s.group_issue.tolist() == [4 + 1 + 1 + 1 + 3 + 1 + 2] * 2
    assert s.cta_l2_sectors.tolist() == [4 + 8 + 8 + 1] * 2
    assert s.cta_l1_bytes.tolist() == [128 + 256 + 384 + 256] * 2
    assert (s.tensor_macs, s.products, s.dram_read_bytes, s.dram_write_bytes) == (2048, 2048, 788, 512)
    assert s.shared_memory_per_cta == 2 * (8 * 8 * 2 + 8 * 16 * 2)   # double-buffered FP16 block and its B rows
    assert FAMILY.refinement(arch, layer) == []
    warm = FAMILY.plan(simt({"sms": 1}, kernel="bsr", block=8, bsr_tile_n=16, warm_l2=True), layer)
    for path in (FAMILY.fast, FAMILY.reference):      # B (16 x 16 FP16) already in L2, C kept there
        c = path(warm, None)
        assert (c.dram_read_bytes, c.dram_write_bytes) == (788 - 16 * 16 * 2, 0)


def test_warm_l2_leaves_only_the_sparse_operand_to_dram(two_rows):
    cold = FAMILY.plan(simt({"sms": 1}, kernel="csr_vector"), two_rows).candidates[0]
    warm = FAMILY.plan(simt({"sms": 1}, kernel="csr_vector", warm_l2=True), two_rows).candidates[0]
    assert (cold.dram_read_bytes, cold.dram_write_bytes) == (41 * 8 + 3 * 4 + 64 * 4, 8)
    assert (warm.dram_read_bytes, warm.dram_write_bytes) == (41 * 8 + 3 * 4, 0)


def test_csr_of_the_weights_is_the_format_s_own(two_rows):
    from accel_sim.foundations.compress.formats import CSR
    plan = FAMILY.plan(simt(kernel="csr_vector"), two_rows)
    ours, reference = plan.problem.csr, CSR.from_dense(plan.problem.dense)
    assert (ours.index_bits, ours.pointer_bits) == (reference.index_bits, reference.pointer_bits)
    assert ours.indptr.tolist() == reference.indptr.tolist() and ours.indices.tolist() == reference.indices.tolist()



@pytest.mark.parametrize("beta", [2, 4, 8])
def test_csb_block_pointers_are_the_format_s_own(tmp_path, beta):
    """The CSB kernel counts its blocks from the CSR (no dense copy): the same block_ptr as the CSB format's."""
    from accel_sim.foundations.compress.formats import CSB
    from accel_sim.models.simt.plan.csb import block_pointers
    rng = np.random.default_rng(beta)
    weights = (rng.random((13, 10)) < 0.3) * rng.random((13, 10), dtype=np.float32)   # A (10 x 13), ragged blocks
    problem = FAMILY.plan(simt(kernel="csr_vector"), payload_layer(tmp_path, "csb", 3, weights)).problem
    block_ptr, rows, columns = block_pointers(problem, beta)
    reference = CSB.from_dense(problem.dense, beta=beta)
    assert (rows, columns) == reference.block_grid and block_ptr.tolist() == reference.block_ptr.tolist()


@pytest.mark.parametrize("block", [8, 16])
def test_bsr_stored_blocks_are_the_format_s_own(tmp_path, block):
    """The BSR kernel counts each block row's stored blocks without encoding them: the BSR format's counts."""
    from accel_sim.foundations.compress.formats import BSR
    from accel_sim.models.simt.plan.gemm import stored_blocks
    rng = np.random.default_rng(block)
    weights = (rng.random((48, 32)) < 0.05) * rng.random((48, 32), dtype=np.float32)   # A (32 x 48)
    weights[16:32, 16:32] = 0.0                                                          # a block of A left empty
    problem = FAMILY.plan(simt(kernel="csr_vector"), payload_layer(tmp_path, "bsr", 3, weights)).problem
    counts = stored_blocks(problem, block)
    assert counts.tolist() == np.diff(BSR.from_dense(problem.dense, block_size=block).indptr).tolist()
    assert 0 < counts.sum() < (32 // block) * (48 // block)

def test_a_cta_may_use_exactly_the_sm_s_shared_memory(two_rows):
    from accel_sim.foundations.errors import InputError
    fits = simt(kernel="csb", threads_per_cta=32, csb_beta=167936 // 8)      # (1 warp + 1) x beta x 4 bytes
    assert FAMILY.plan(fits, two_rows).candidates[0].schedule.shared_memory_per_cta == 167936
    with pytest.raises(InputError, match="shared memory"):
        FAMILY.plan(simt(kernel="csb", threads_per_cta=32, csb_beta=167936 // 8 + 1), two_rows)


def test_accounting_actions(two_rows):
    plan, counters = FAMILY.counters(simt({"sms": 1}, kernel="csr_vector"), two_rows)
    actions = {(a.component, a.component_class, a.action): a for a in FAMILY.account(plan, counters).actions}
    l1 = actions[("l1_shared", "sram", "read")]
    assert (l1.count, l1.bits) == (counters.l1_bytes // 4, 32)
    l2 = actions[("l2", "sram", "read")]
    assert (l2.count, l2.bits) == (counters.l2_sectors, 256)
    assert actions[("cuda_cores", "mult_fp", "op")].count == 41 and actions[("cuda_cores", "mult_fp", "op")].bits == 32
    assert actions[("dram", "dram", "read")].count == counters.dram_read_bytes
    result = FAMILY.account(plan, counters)
    assert result.sram_read_bytes == counters.l2_sectors * 32 + counters.l1_bytes


def test_bsr_gathers_every_b_row_segment_of_a_block(tmp_path):
    layer = two_blocks_layer(tmp_path, 32)
    s = FAMILY.plan(simt({"sms": 1}, kernel="bsr", block=8, bsr_tile_n=32), layer).candidates[0].schedule
    # a block: A 4 sectors + 8 B rows x 2 sectors (32 FP16 columns); C 8 rows x 2 sectors; pointers 1
    assert s.cta_l2_sectors.tolist() == [4 + 8 * 2 + 8 * 2 + 1] * 2


def test_merge_carry_out_adds_every_column_tile_of_the_cut_row(two_rows):
    layer = GemmLayer("spmm", m=64, k=64, n=2, operands=two_rows.operands)
    s = FAMILY.plan(simt({"sms": 1}, kernel="merge", threads_per_cta=32, merge_items_per_thread=1), layer).candidates[0].schedule
    assert s.atomics == 1 * (4 + 4)                       # one cut row, two 32-column tiles of 4 sectors


def test_sputnik_tile_is_no_wider_than_b(two_rows):
    arch = simt({"sms": 1}, kernel="sputnik", threads_per_cta=32, tile_n=64, vector_width=4, loop_overhead_instructions=3)
    s = FAMILY.plan(arch, two_rows).candidates[0].schedule
    assert s.group_issue.tolist() == [40 * 8 + 40 * 14 + 1 + 2]    # as a 4-wide tile: B has one column


def test_csr_transpose_latency(two_rows):
    s = FAMILY.plan(simt({"sms": 1, "memory_latency": 400}, kernel="csr_vector", transpose=True, threads_per_cta=32),
                    two_rows).candidates[0].schedule
    assert s.group_latency.tolist() == [2 * 400 + 2 * 400, 2 * 400 + 400]   # pointers and x[r], then each trip
    # per trip: value and index loads, the product's FFMA (2), the atomic, 3 loop; pointers 2, x[r] 1
    assert s.group_issue.tolist() == [2 * (3 + 2 + 3) + 2 + 1, (3 + 2 + 3) + 2 + 1]


def test_csb_over_several_columns_of_b(tmp_path):
    weights = np.zeros((8, 4), dtype=np.float32)
    weights[[0, 1, 2], 0] = 1.0
    layer = payload_layer(tmp_path, "spmm", 3, weights)
    s = FAMILY.plan(simt({"sms": 1}, kernel="csb", csb_beta=4), layer).candidates[0].schedule
    assert (s.fmas, s.products, s.dense_operand_bytes, s.ctas) == (9, 9, 3 * 8 * 4, 3)   # a CTA per column of B
    assert (s.tensor_macs, s.tensor_core, s.gemm_l2_sectors) == (0, False, 0)   # CUDA cores, no GEMM tiles


def test_grouped_convolution_is_one_block_diagonal_operand():
    from accel_sim.foundations.compress.formats import CSR
    from accel_sim.foundations.workload import ConvLayer
    layer = ConvLayer("g", in_h=4, in_w=4, in_channels=4, out_channels=6, kernel_h=1, kernel_w=1, groups=2,
                      weight_density=0.5)
    problem = FAMILY.plan(simt(kernel="csr_vector"), layer).problem
    assert problem.dense.shape == (6, 4) and not problem.dense[:3, 2:].any() and not problem.dense[3:, :2].any()
    reference = CSR.from_dense(problem.dense)
    assert problem.csr.indptr.tolist() == reference.indptr.tolist()
    assert problem.csr.indices.tolist() == reference.indices.tolist()     # group g's columns are g's slice of K


def test_sputnik_counts_b_row_segments_that_straddle_sectors(two_rows):
    """B with 3 columns: row c's 12 bytes start at 12 c, so columns 2 and 5 (mod 8) straddle two sectors."""
    layer = GemmLayer("spmm", m=3, k=64, n=2, operands=two_rows.operands)
    arch = simt({"sms": 1}, kernel="sputnik", threads_per_cta=32, tile_n=4, vector_width=4)
    s = FAMILY.plan(arch, layer).candidates[0].schedule
    b_rows = 40 + 10 + 1                                  # columns 0..39 (10 straddle) and 63: sector requests
    # through the L1 the CTA's distinct sectors: bytes 0..479 (sectors 0..14) and 756..767 (sector 23)
    assert s.cta_l2_sectors.tolist() == [82 + 2 + 2] and s.cached_sectors.tolist() == [*range(15), 23]
    assert s.cta_l1_bytes.tolist() == [(82 + 2 + b_rows + 2) * 32 + 2 * 41 * 8]
    assert s.shared_memory_per_cta == 32 * (4 + 4)        # a batch of values and indices per thread


def test_sputnik_b_rows_are_fetched_by_the_cta_that_needs_them(tmp_path):
    """A (2 x 8): row 0 in column 7, row 1 in column 0; a row per CTA: each CTA fetches its own B row
    (128 columns x 4 B = 16 sectors), its value and index (2), pointers (1) and C row (16)."""
    weights = np.zeros((8, 2), dtype=np.float32)
    weights[7, 0], weights[0, 1] = 1.0, 2.0
    layer = payload_layer(tmp_path, "spmm", 128, weights)
    arch = simt({"sms": 1}, kernel="sputnik", threads_per_cta=32, tile_n=128, vector_width=4, row_swizzle=False)
    s = FAMILY.plan(arch, layer).candidates[0].schedule
    assert s.cta_l2_sectors.tolist() == [2 + 1 + 16, 2 + 1 + 16] and np.diff(s.cached_ptr).tolist() == [16, 16]


def test_sputnik_b_row_of_a_later_cta_is_its_own_column(tmp_path):
    """33 rows of one non-zero: rows 0..31 in column 7 (CTA 0: one warp of 32 one-lane subwarps, B has 3
    columns), row 32 in column 2 (CTA 1): B row 2's 12 bytes at 24..35 straddle two sectors."""
    weights = np.zeros((8, 33), dtype=np.float32)
    weights[7, :32], weights[2, 32] = 1.0, 2.0
    layer = payload_layer(tmp_path, "spmm", 3, weights)
    arch = simt({"sms": 1}, kernel="sputnik", threads_per_cta=32, tile_n=4, vector_width=4, row_swizzle=False)
    s = FAMILY.plan(arch, layer).candidates[0].schedule
    # CTA 0: values + indices 2 per row, pointers 1 per row, C rows 32 + 8 straddling, B row 7 (84..95) 1
    # CTA 1: value and index 2, pointers 1, C row 32 (384..395) 1, B row 2: 2
    assert s.cta_l2_sectors.tolist() == [64 + 32 + 40, 2 + 1 + 1] and np.diff(s.cached_ptr).tolist() == [1, 2]


def test_a_tensor_core_step_shorter_than_the_mma_still_issues_whole_mmas():
    from accel_sim.models.tensor_core.spec import KernelTile
    arch = simt({"sms": 1, "kernels": (KernelTile(16, 8, 8, 16, 8),)}, kernel="dense_tensor_core",
                loop_overhead_instructions=3)
    s = FAMILY.plan(arch, GemmLayer("g", m=8, k=8, n=16)).candidates[0].schedule
    # one m16n8k16 MMA for k = 8 (16 x 8 x 16 MACs at 256 per cycle: 8), 1 LDMATRIX, 1 cp.async, barrier,
    # 3 loop, 1 epilogue store
    assert s.group_issue.tolist() == [8 + 1 + 1 + 1 + 3 + 1]
    slower = simt({"sms": 1, "kernels": (KernelTile(16, 8, 8, 16, 8),), "dense_macs_per_cycle": 300},
                  kernel="dense_tensor_core", loop_overhead_instructions=3)
    s = FAMILY.plan(slower, GemmLayer("g", m=8, k=8, n=16)).candidates[0].schedule
    assert s.group_issue.tolist() == [7 + 1 + 1 + 1 + 3 + 1]          # 2048 MACs at 300 per cycle: 7 whole cycles


def test_dense_simt_epilogue_of_a_large_warp_tile():
    arch = simt({"sms": 1}, kernel="dense_simt", sgemm_tiles=(SgemmTile(64, 64, 8, 64, 64),), split_k=(1,),
                loop_overhead_instructions=3)
    s = FAMILY.plan(arch, GemmLayer("g", m=64, k=8, n=64)).candidates[0].schedule
    # 64x64x8 / 32 x 2 FFMA cycles, 8 LDS.128, 2 x 8 fill, barrier, 3 loop; epilogue 64 x 64 x 4 B / 512 B = 32
    assert s.group_issue.tolist() == [2048 + 8 + 16 + 1 + 3 + 32]


def test_sputnik_streams_a_batch_of_values_as_its_distinct_sectors(two_rows):
    """B 128 columns wide: 32-lane subwarps, a row per CTA. Row 0's 40 values (and indices) come in two
    batches: bytes 0..127 (4 sectors) and 128..159 (1); row 1's one value at byte 160 (1 sector)."""
    layer = GemmLayer("spmm", m=128, k=64, n=2, operands=two_rows.operands)
    arch = simt({"sms": 1}, kernel="sputnik", threads_per_cta=32, tile_n=128, vector_width=4, row_swizzle=False)
    s = FAMILY.plan(arch, layer).candidates[0].schedule
    # values + indices, pointers 1, C row 16, B rows of 16 sectors each (40 and 1)
    assert s.cta_l2_sectors.tolist() == [(5 + 5) + 1 + 16, (1 + 1) + 1 + 16]
    assert np.diff(s.cached_ptr).tolist() == [40 * 16, 16]


def test_tensor_core_warp_tile_of_several_mmas_and_its_accumulate_width():
    from accel_sim.models.tensor_core.spec import KernelTile
    arch = simt({"sms": 1, "kernels": (KernelTile(32, 16, 32, 32, 16),)}, kernel="dense_tensor_core",
                loop_overhead_instructions=3, split_k=(1,))
    layer = GemmLayer("g", m=16, k=32, n=32)
    s = FAMILY.plan(arch, layer).candidates[0].schedule
    # a 32 x 16 warp tile over k = 32: 2 x 2 x 2 m16n8k16 MMAs (2048 MACs each at 256 per cycle: 64 cycles);
    # fragments (32x32 + 32x16) x 2 B / 512 B LDMATRIX: 6; cp.async 3072 B / (16 B x 32): 6; barrier, 3 loop;
    # epilogue 32 x 16 x 2 B / 512 B: 2
    assert s.group_issue.tolist() == [64 + 6 + 6 + 1 + 3 + 2]
    plan, counters = FAMILY.counters(arch, layer)
    actions = {(a.component, a.component_class, a.action): a for a in FAMILY.account(plan, counters).actions}
    assert (actions[("tensor_cores", "mult_fp", "op")].bits, actions[("tensor_cores", "add_fp", "op")].bits) == (16, 32)


def test_split_k_last_slice_is_what_is_left_of_k():
    arch = simt({"sms": 1}, kernel="dense_simt", sgemm_tiles=(SgemmTile(32, 32, 8, 32, 32),), split_k=(2,))
    split = FAMILY.plan(arch, GemmLayer("g", m=32, k=17, n=32)).candidates[1].schedule
    # K = 17 in slices of 9 and 8: A 32 x 9 x 4 B = 36 sectors, B 9 x 32 x 4 B = 36, C 128 atomic requests
    assert split.cta_l2_sectors.tolist() == [36 + 36 + 128, 32 + 32 + 128]


def test_bsr_large_block_fragments_and_epilogue(tmp_path):
    weights = np.ones((32, 32), dtype=np.float32)          # one 32 x 32 block
    layer = payload_layer(tmp_path, "g", 16, weights)
    arch = simt({"sms": 1}, kernel="bsr", block=32, bsr_tile_n=16, loop_overhead_instructions=3)
    s = FAMILY.plan(arch, layer).candidates[0].schedule
    # 16 x 32 x 32 MACs / 256 = 64; LDMATRIX (2048 + 1024 B) / 512 = 6; cp.async (2048 + 1024) / 512 = 6;
    # barrier, 3 loop; epilogue 32 x 16 x 2 B / 512 B = 2; pointers 2
    assert s.group_issue.tolist() == [64 + 6 + 6 + 1 + 3 + 2 + 2]


def test_csb_copies_segments_with_128_bit_vectors(tmp_path):
    weights = np.zeros((136, 136), dtype=np.float32)
    weights[0, 0] = 1.0
    layer = payload_layer(tmp_path, "spmv", 1, weights)
    arch = simt({"sms": 1}, kernel="csb", csb_beta=136, threads_per_cta=32, loop_overhead_instructions=3)
    s = FAMILY.plan(arch, layer).candidates[0].schedule
    # pointers 2; the 136-float segment (544 B) in 16-byte vectors by 32 lanes: 2 (LDG + STS each) + barrier;
    # one iteration 3 + FFMA 2 + atomic 1 + 3 loop; the output segment alike: 2 x 2 + 1
    assert s.group_issue.tolist() == [2 + (2 * 2 + 1) + 9 + (2 * 2 + 1)]


@pytest.mark.parametrize(("kernel", "sms", "shared", "hits"), [("sputnik", 1, True, 8), ("sputnik", 2, True, 0),
                                                          ("sputnik", 1, False, 0), ("merge", 1, True, 0)])
def test_b_rows_another_cta_fetched_hit_the_sm_s_l1(tmp_path, kernel, sms, shared, hits):
    """A (2 x 4): both rows in columns {0, 2}; B 4 x 32 (a row: 128 bytes, 4 sectors). Sputnik with a row per
    warp and a warp per CTA: two CTAs, both loading B rows 0 and 2; merge: one share, one CTA."""
    weights = np.zeros((4, 2), dtype=np.float32)
    weights[[0, 2], :] = 1.0
    layer = payload_layer(tmp_path, "spmm", 32, weights)
    arch = simt({"sms": sms}, kernel=kernel, threads_per_cta=32, tile_n=32, vector_width=1, merge_items_per_thread=8,
                sm_l1_kernels=(kernel,) if shared else ())           # the shipped default shares it for sparsert only
    s = FAMILY.plan(arch, layer).candidates[0].schedule
    rows = [0, 1, 2, 3, 8, 9, 10, 11]
    assert s.cached_sectors.tolist() == (rows * 2 if kernel == "sputnik" else rows)
    # 4 non-zeros x 32 columns; C 2 x 32 x 4 B; B 4 x 32 x 4 B; A's values and indices, 3 row pointers, B
    assert (s.fmas, s.products, s.dram_write_bytes, s.dense_operand_bytes) == (128, 128, 256, 512)
    assert s.dram_read_bytes == 4 * (4 + 4) + 3 * 4 + 512
    for path_ in (FAMILY.fast, FAMILY.reference):
        k = path_(FAMILY.plan(arch, layer), None)
        assert (k.l1_hits, k.l1_misses) == (hits, len(s.cached_sectors) - hits)


def test_sputnik_tile_narrower_than_a_vector_takes_one_lane(two_rows):
    arch = simt({"sms": 1}, kernel="sputnik", threads_per_cta=32, tile_n=2, vector_width=4)
    layer = GemmLayer("spmm", m=8, k=64, n=2, operands=two_rows.operands)
    s = FAMILY.plan(arch, layer).candidates[0].schedule
    # 2-column tiles, one float4 per lane: one-lane subwarps, 32 rows per warp, 4 tiles of B's 8 columns
    assert (s.ctas, s.warps) == (4, 4)
    assert FAMILY.refinement(arch, layer) == []


def test_csr_scalar_issues_no_warp_reduction(two_rows):
    arch = simt({"sms": 1}, kernel="csr_scalar", loop_overhead_instructions=3)
    s = FAMILY.plan(arch, two_rows).candidates[0].schedule
    # a row per lane, both rows in one warp: 40 lock-step trips of 3 loads + FFMA 2 + 3 loop, pointers 2, store 1
    assert s.group_issue.tolist() == [40 * 8 + 2 + 1]


def test_dense_kernels_count_only_their_own_unit():
    layer = GemmLayer("g", m=32, k=16, n=32)
    simt_s = FAMILY.plan(simt({"sms": 1}, kernel="dense_simt"), layer).candidates[0].schedule
    tc_s = FAMILY.plan(simt({"sms": 1}, kernel="dense_tensor_core"), layer).candidates[0].schedule
    # each executes its padded tiles' MACs on its own unit and none on the other
    assert simt_s.fmas >= 32 * 16 * 32 and simt_s.tensor_macs == 0
    assert tc_s.fmas == 0 and tc_s.tensor_macs >= 32 * 16 * 32


def test_csb_last_partial_block_stages_only_its_own_input_segment():
    """CSB A x, beta 16, a dense 16 x 24 FP32 operand: one block row of two blocks, the second only 8 columns
    wide. Worked by hand, the CTA's L2 sectors: non-zero values and indices (block 0: 256 x 4 bytes twice, 64
    sectors; block 1: 128 x 4 bytes twice, 32), input segments (16 x 4 bytes, 2 sectors; the partial block's
    8 x 4 bytes, 1), block pointers (3 x 4 bytes, 1) and the output segment (16 x 4 bytes, 2)."""
    s = FAMILY.plan(simt(kernel="csb", csb_beta=16, threads_per_cta=64),
                    GemmLayer("g", m=1, k=24, n=16, weight_density=1.0)).candidates[0].schedule
    assert s.cta_l2_sectors.tolist() == [64 + 32 + 2 + 1 + 1 + 2]


def test_code_cache_filled_exactly_keeps_every_block():
    """An instruction cache of 10 sectors holds two 5-sector blocks (full, not over): both hit again; a third block
    evicts the least recently used; a block larger than the cache is never kept."""
    from accel_sim.models.simt.fast import CodeCache
    cache = CodeCache(10)
    assert (cache.fetch(1, 5), cache.fetch(2, 5), cache.fetch(1, 5), cache.fetch(2, 5)) == (0, 0, 5, 5)
    assert (cache.fetch(3, 5), cache.fetch(2, 5), cache.fetch(1, 5)) == (0, 5, 0)   # 1 was the oldest
    assert (cache.fetch(4, 11), cache.fetch(4, 11)) == (0, 0)

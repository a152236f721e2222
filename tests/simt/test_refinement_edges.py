"""Hand-derived SIMT examples at the edges of the plans: partial tiles, blocks and slices, a later column tile,
an overflowing L2, 8-bit values, the unit each kernel runs on, the block checks. Both paths read the plan, so
only counts worked out by hand catch a wrong plan; each test here was written against a mutant of the plan that
no other test failed (python tools/mutation.py simt)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from accel_sim.foundations.errors import InputError
from accel_sim.models.simt.family import FAMILY
from accel_sim.models.simt.spec import SgemmTile
from accel_sim.models.tensor_core.spec import KernelTile
from accel_sim.foundations.workload import GemmLayer, NMSparsity
from tests.simt.archs import payload_layer, simt, two_blocks_layer


@pytest.mark.parametrize(("kernel", "transpose"), [("csr_scalar", False), ("csr_scalar", True), ("csr_vector", False),
                                                   ("csr_vector", True), ("sputnik", False), ("merge", False),
                                                   ("csb", False), ("csb", True), ("sparsert", False)])
def test_sparse_cuda_core_kernels_run_every_stored_product_on_the_cuda_cores(two_rows, kernel, transpose):
    """The 41 stored non-zeros of ``two_rows`` are 41 FFMAs and no tensor-core MAC; the layer's peak is the CUDA
    cores' (1 SM x 64 FP32 lanes), not the tensor cores', and no energy goes to the tensor cores."""
    plan, c = FAMILY.counters(simt({"sms": 1}, kernel=kernel, transpose=transpose), two_rows)
    result = FAMILY.account(plan, c)
    assert (c.fmas, c.tensor_macs, result.metrics["executed_macs"], result.metrics["tensor_core"]) == (41, 0, 41, 0)
    assert result.peak_macs_per_cycle == 1 * 64
    assert [a.count for a in result.actions if a.component == "tensor_cores"] == [0, 0]


@pytest.mark.parametrize(("kernel", "sparsity"), [("dense_tensor_core", None), ("nm_tensor_core", NMSparsity(2, 4)),
                                                  ("bsr", None)])
def test_tensor_core_kernels_run_their_macs_on_the_tensor_cores(kernel, sparsity):
    """No FFMA; every executed MAC is a tensor-core MAC, at the tensor cores' peak (108 SMs x 4 x 256 MACs)."""
    layer = GemmLayer("g", m=16, k=64, n=64, weight_sparsity=sparsity)
    plan, c = FAMILY.counters(simt(kernel=kernel), layer)
    result = FAMILY.account(plan, c)
    assert c.fmas == 0 and c.tensor_macs > 0
    assert (result.metrics["executed_macs"], result.metrics["tensor_core"]) == (c.tensor_macs, 1)
    assert result.peak_macs_per_cycle == 108 * 4 * 256


def test_an_overflowing_l2_reads_every_requested_sector_from_dram(two_rows, tmp_path):
    """L2 of 512 B against csr_vector's 596 B read + 8 B written: no reuse survives, so DRAM supplies every sector
    the CTAs request from L2 (17 + 5 = 22 sectors, 704 B) less the 8 B of y they write: 696 B, not the compulsory
    596 B; with the shipped 40 MB L2 the compulsory bytes. A row of 1024 with one non-zero requests 5 sectors
    (value, index, pointers, x, y) but its compulsory footprint, all of x, is 8 + 2 x 4 + 1024 x 4 B: DRAM reads
    at least that, overflowing or not."""
    weights = np.zeros((1024, 1), dtype=np.float32)
    weights[5, 0] = 1.0
    (tmp_path / "one").mkdir()
    one = payload_layer(tmp_path / "one", "one", 1, weights)          # two_rows' payload is tmp_path / w.npz
    cases = ((two_rows, 512, 22 * 32 - 8, 8), (two_rows, 600, 22 * 32 - 8, 8),      # 596 B fit, 596 + 8 do not
             (two_rows, 40 * 2**20, 41 * (4 + 4) + 3 * 4 + 64 * 4, 8), (one, 2048, 8 + 2 * 4 + 1024 * 4, 4))
    for layer, l2_size, read, write in cases:
        plan = FAMILY.plan(simt({"sms": 1, "l2_size": l2_size}, kernel="csr_vector", threads_per_cta=32), layer)
        assert plan.candidates[0].l2_overflow == (l2_size < 40 * 2**20)
        for path in (FAMILY.fast, FAMILY.reference):
            c = path(plan, None)
            assert (c.dram_read_bytes, c.dram_write_bytes) == (read, write)


@pytest.mark.parametrize("kernel", ["sputnik", "merge"])
def test_b_row_segments_of_a_later_column_tile_start_at_the_tile(tmp_path, kernel):
    """A (2 x 4): both rows in columns {0, 2}; B 4 x 48 FP32 (a row: 192 B, 6 sectors), in column tiles [0, 32) and
    [32, 48). Row r's segment in tile 0 is bytes r x 192 + [0, 128), sectors 6r..6r+3; in tile 1 bytes
    r x 192 + [128, 192), sectors 6r+4, 6r+5. Sputnik (a row per CTA) loads rows 0 and 2 in each of its 4 CTAs,
    merge (one share) in each of its 2; through a shared L1, the second CTA of a tile hits on all of its sectors."""
    weights = np.zeros((4, 2), dtype=np.float32)
    weights[[0, 2], :] = 1.0
    layer = payload_layer(tmp_path, "spmm", 48, weights)
    arch = simt({"sms": 1}, kernel=kernel, threads_per_cta=32, tile_n=32, vector_width=1, merge_items_per_thread=8,
                sm_l1_kernels=(kernel,))
    s = FAMILY.plan(arch, layer).candidates[0].schedule
    tile0, tile1 = [0, 1, 2, 3, 12, 13, 14, 15], [4, 5, 16, 17]
    copies = 2 if kernel == "sputnik" else 1
    assert s.cached_sectors.tolist() == tile0 * copies + tile1 * copies
    for path in (FAMILY.fast, FAMILY.reference):
        k = path(FAMILY.plan(arch, layer), None)
        assert (k.l1_hits, k.l1_misses) == ((8 + 4, 8 + 4) if kernel == "sputnik" else (0, 12))


def test_merge_carry_out_adds_into_the_cut_row_s_own_sector(tmp_path):
    """merge, one item per thread; A (2 x 64): row 0 one non-zero, row 1 forty; B 64 x 8 FP32 (a C row: 32 B, one
    sector). Items: non-zero, row end 0, row 1's 40 non-zeros, row end 1: warp 0's 32 items end inside row 1, so
    CTA 0 adds row 1's partial C row into sector 1 (bytes 32..63) with one request, the kernel's only one."""
    weights = np.zeros((64, 2), dtype=np.float32)
    weights[5, 0] = 1.0
    weights[:40, 1] = 1.0
    layer = payload_layer(tmp_path, "spmm", 8, weights)
    arch = simt({"sms": 1}, kernel="merge", threads_per_cta=32, merge_items_per_thread=1, l2_atomic_cycles=100_000)
    s = FAMILY.plan(arch, layer).candidates[0].schedule
    assert (s.atomic_cta.tolist(), s.atomic_sector.tolist(), s.atomic_serial.tolist(), s.atomics) == ([0], [1], [1], 1)
    for path in (FAMILY.fast, FAMILY.reference):   # CTA 0 starts at 0: its one request holds the slice 100,000 cycles
        c = path(FAMILY.plan(arch, layer), None)
        assert c.atomic_cycles == c.cycles == 100_000


def test_dense_tiles_at_the_edges_hold_only_what_is_left():
    """dense_simt, 32 x 32 x 8 tiles, a 48 x 8 x 48 GEMM (FP32): tiles of 32 and 16 rows and of 32 and 16 columns.
    CTA (i, j) requests A rows x 8 x 4 B, B 8 x columns x 4 B and C rows x columns x 4 B, in 32-byte sectors."""
    s = FAMILY.plan(simt({"sms": 1}, kernel="dense_simt", sgemm_tiles=(SgemmTile(32, 32, 8, 32, 32),), split_k=(1,)),
                    GemmLayer("g", m=48, k=8, n=48)).candidates[0].schedule
    assert s.cta_l2_sectors.tolist() == [32 + 32 + 128, 32 + 16 + 64, 16 + 32 + 64, 16 + 16 + 32]


def test_a_block_must_divide_both_sides_of_the_sparse_operand_and_fill_mmas():
    for m, n in ((24, 16), (16, 24), (24, 24)):        # outputs x reduction: 24 is not a multiple of the block 16
        with pytest.raises(InputError, match="block 16 does not divide"):
            FAMILY.plan(simt(kernel="bsr", block=16), GemmLayer("g", m=8, k=n, n=m))
    assert FAMILY.plan(simt(kernel="bsr", block=16), GemmLayer("g", m=8, k=16, n=16)).candidates
    with pytest.raises(InputError, match=r"block 4 must be a multiple of the MMA's n \(4\) and of 8"):
        FAMILY.plan(simt({"mma_n": 4}, kernel="bsr", block=4), GemmLayer("g", m=8, k=16, n=16))


def test_eight_bit_values_take_one_byte(two_rows):
    """INT8 csr_vector: values 41 x 1 B, indices 41 x 4 B, pointers 3 x 4 B and x 64 x 1 B read; y 2 x 1 B."""
    plan = FAMILY.plan(dataclasses.replace(simt(kernel="csr_vector"), word_bits=8), two_rows)
    assert plan.problem.value_bytes == 1
    for path in (FAMILY.fast, FAMILY.reference):
        c = path(plan, None)
        assert (c.dram_read_bytes, c.dram_write_bytes) == (41 * (1 + 4) + 3 * 4 + 64, 2)


def test_tensor_core_gemm_operands_in_dram_dense_and_two_four():
    """A 64 x 64 FP16 weight operand, batch 16: dense it is 64 x 64 x 2 B; 2:4 keeps half the values, each with 2
    bits of metadata, (16 + 2) / 2 = 9 bits per dense element, 4608 B. B is 64 x 16 x 2 B either way; with a
    warm L2 (B left there by its producer, C kept there) DRAM reads only the weights and writes nothing."""
    for kernel, sparsity, a_bytes in (("dense_tensor_core", None, 64 * 64 * 2), ("nm_tensor_core", NMSparsity(2, 4), 4608)):
        layer = GemmLayer("g", m=16, k=64, n=64, weight_sparsity=sparsity)
        for warm, read, write in ((False, a_bytes + 64 * 16 * 2, 64 * 16 * 2), (True, a_bytes, 0)):
            plan = FAMILY.plan(simt(kernel=kernel, warm_l2=warm), layer)
            for path in (FAMILY.fast, FAMILY.reference):
                c = path(plan, None)
                assert (c.dram_read_bytes, c.dram_write_bytes) == (read, write)
            assert plan.candidates[0].schedule.products == 64 * 16 * (64 if sparsity is None else 32)


def test_a_warp_tile_smaller_than_a_warp_still_issues_one_ffma_per_k():
    """dense_simt, CTA tile 8 x 8 x 1 of four 4 x 4 warp tiles, K = 4: a warp's 16 outputs are one FFMA instruction
    (16 of 32 lanes busy, 2 cycles) per k, one LDS.128 for its 16 + 16 B of fragments, 2 x 1 fill (LDG + STS of
    32 + 32 B), barrier, 3 loop: 9 per step, 4 steps; epilogue 1 (64 B)."""
    arch = simt({"sms": 1}, kernel="dense_simt", sgemm_tiles=(SgemmTile(8, 8, 1, 4, 4),), split_k=(1,),
                loop_overhead_instructions=3)
    s = FAMILY.plan(arch, GemmLayer("g", m=8, k=4, n=8)).candidates[0].schedule
    assert s.group_issue.tolist() == [4 * (2 + 1 + 2 + 1 + 3) + 1] * 4


def test_csb_last_partial_block_row_stores_only_its_own_output_segment():
    """CSB A x, beta 16, a dense 24 x 16 FP32 operand (outputs x inputs): block rows of 16 and 8 outputs. CTA 0:
    values and indices 256 x 4 B twice (64 sectors), input 2, block pointers 1, output 16 x 4 B (2); CTA 1: 128
    x 4 B twice (32), input 2, pointers 1, output 8 x 4 B (1)."""
    s = FAMILY.plan(simt(kernel="csb", csb_beta=16, threads_per_cta=64),
                    GemmLayer("g", m=1, k=16, n=24, weight_density=1.0)).candidates[0].schedule
    assert s.cta_l2_sectors.tolist() == [64 + 2 + 1 + 2, 32 + 2 + 1 + 1]
    assert (s.atomics, s.atomic_cta) == (0, None)        # one chunk per block row: y is stored, not added


def test_csb_columns_of_b_add_into_their_own_copies_of_y(tmp_path):
    """CSB A x, beta 4, A (4 x 8) with non-zeros in both block columns, a warp (one block) per CTA: each block
    row's two CTAs add their output segment (4 x 4 B, one sector) into y with atomics. Two columns of B: column
    1's y starts one sector after column 0's."""
    weights = np.zeros((8, 4), dtype=np.float32)
    weights[[0, 5], 0] = 1.0
    layer = payload_layer(tmp_path, "spmm", 2, weights)
    s = FAMILY.plan(simt({"sms": 1}, kernel="csb", csb_beta=4, threads_per_cta=32), layer).candidates[0].schedule
    assert (s.atomic_cta.tolist(), s.atomic_sector.tolist(), s.atomics) == ([0, 1, 2, 3], [0, 0, 1, 1], 4)


def test_split_k_slice_past_the_end_of_k_moves_no_operand():
    """dense_simt, 8 x 8 x 1 tiles, K = 5 in 4 slices of ceil(5 / 4) = 2: depths 2, 2, 1, 0. Each CTA reads
    A 8 x depth x 4 B and B depth x 8 x 4 B and adds C (8 x 8 x 4 B, 8 sectors): the empty slice only adds."""
    arch = simt({"sms": 1}, kernel="dense_simt", sgemm_tiles=(SgemmTile(8, 8, 1, 4, 4),), split_k=(4,))
    split = FAMILY.plan(arch, GemmLayer("g", m=8, k=5, n=8)).candidates[1].schedule
    assert split.cta_l2_sectors.tolist() == [2 + 2 + 8, 2 + 2 + 8, 1 + 1 + 8, 0 + 0 + 8]


def test_bsr_later_column_tile_reads_its_own_sector_of_each_b_row(tmp_path):
    """The BSR worked example's two 8 x 8 blocks, B 32 columns in tiles of 16 (FP16: 32 B, one sector a row):
    every CTA requests A 4 + B 8 x 1 + C 8 x 1 + pointers 1 sectors, tile 1 from byte 32 of each row."""
    layer = two_blocks_layer(tmp_path, 32)
    s = FAMILY.plan(simt({"sms": 1}, kernel="bsr", block=8, bsr_tile_n=16), layer).candidates[0].schedule
    assert s.cta_l2_sectors.tolist() == [4 + 8 + 8 + 1] * 4


def test_ctas_that_all_read_b_row_0_keep_their_own_sectors(tmp_path):
    """Sputnik, a row per CTA, A (2 x 4) with both non-zeros in column 0, B 4 x 32 FP32: each CTA's one distinct B
    row is row 0 (sectors 0..3); through a shared L1 the second CTA hits on all four."""
    weights = np.zeros((4, 2), dtype=np.float32)
    weights[0, :] = 1.0
    layer = payload_layer(tmp_path, "spmm", 32, weights)
    arch = simt({"sms": 1}, kernel="sputnik", threads_per_cta=32, tile_n=32, vector_width=1, sm_l1_kernels=("sputnik",))
    s = FAMILY.plan(arch, layer).candidates[0].schedule
    assert (s.cached_ptr.tolist(), s.cached_sectors.tolist()) == ([0, 4, 8], [0, 1, 2, 3] * 2)
    for path in (FAMILY.fast, FAMILY.reference):
        c = path(FAMILY.plan(arch, layer), None)
        assert (c.l1_hits, c.l1_misses) == (4, 4)


def test_csb_block_rows_add_into_their_own_output_segments(tmp_path):
    """CSB A x, beta 8, a dense 16 x 16 FP32 A: 2 x 2 blocks, a warp (one block) per CTA, so each block row's two
    CTAs add its output segment (8 x 4 B: one sector) with atomics: block row 0 into sector 0, block row 1 into
    sector 1 (byte 32)."""
    layer = payload_layer(tmp_path, "spmm", 1, np.ones((16, 16), dtype=np.float32))
    s = FAMILY.plan(simt({"sms": 1}, kernel="csb", csb_beta=8, threads_per_cta=32), layer).candidates[0].schedule
    assert (s.atomic_cta.tolist(), s.atomic_sector.tolist(), s.atomics) == ([0, 1, 2, 3], [0, 0, 1, 1], 4)


def test_merge_over_one_empty_row_searches_a_path_of_one_item(tmp_path):
    """merge on A (1 x 64) without non-zeros: the merge path is the row end alone, so the binary search takes
    one step (1 + 3 loop, one memory latency), then the row end's store: no batch, no product."""
    layer = payload_layer(tmp_path, "spmv", 1, np.zeros((64, 1), dtype=np.float32))
    arch = simt({"sms": 1, "memory_latency": 400}, kernel="merge", threads_per_cta=32, merge_items_per_thread=1,
                loop_overhead_instructions=3)
    s = FAMILY.plan(arch, layer).candidates[0].schedule
    assert (s.group_issue.tolist(), s.group_latency.tolist(), s.fmas) == ([1 * (1 + 3) + 1], [1 * 400], 0)


def test_csb_transpose_last_chunk_reads_only_its_own_block_pointers():
    """CSB A^T x, beta 4, a dense 12 x 4 FP32 A: one block column of 3 blocks, 2 warps (blocks) per CTA. CTA 0:
    values and indices 2 x (2 + 2) sectors, input segments 2 x 1, a block pointer per block 2, output 1; CTA 1,
    the last block alone: 4 + 1 + 1 + 1."""
    arch = simt({"sms": 1}, kernel="csb", csb_beta=4, transpose=True, threads_per_cta=64)
    s = FAMILY.plan(arch, GemmLayer("g", m=1, k=4, n=12, weight_density=1.0)).candidates[0].schedule
    assert s.cta_l2_sectors.tolist() == [2 * 4 + 2 + 2 + 1, 4 + 1 + 1 + 1]


def test_csb_output_segments_start_at_their_block_row():
    """CSB A x, beta 16, a dense 80 x 16 FP32 A: five block rows. Each CTA: values and indices 256 x 4 B twice (64
    sectors), its input segment (2), block pointers at bytes 4 i .. 4 i + 8 (1) and its output segment at byte
    64 i, 64 B (2 sectors; a segment started anywhere else could span 3)."""
    s = FAMILY.plan(simt(kernel="csb", csb_beta=16, threads_per_cta=32),
                    GemmLayer("g", m=1, k=16, n=80, weight_density=1.0)).candidates[0].schedule
    assert s.cta_l2_sectors.tolist() == [64 + 2 + 1 + 2] * 5


def test_csr_vector_row_reads_its_two_row_pointers(tmp_path):
    """csr_vector, a warp (and a CTA) per row, A (7 x 8) diagonal: each row reads its value and index (1 sector
    each), its two row pointers (bytes 4 r .. 4 r + 8: one sector, also for row 6 at bytes 24..31), x[r] (1) and
    stores y[r] (1)."""
    weights = np.zeros((8, 7), dtype=np.float32)
    weights[np.arange(7), np.arange(7)] = 1.0
    layer = payload_layer(tmp_path, "spmv", 1, weights)
    s = FAMILY.plan(simt({"sms": 1}, kernel="csr_vector", threads_per_cta=32), layer).candidates[0].schedule
    assert s.cta_l2_sectors.tolist() == [1 + 1 + 1 + 1 + 1] * 7


def test_sparse_mma_takes_half_the_math_cycles_of_the_dense_one():
    """nm_tensor_core on the 32 x 16 x 32 tile of test_tensor_core_warp_tile_of_several_mmas (dense: 64 math
    cycles): the sparse MMA covers twice the K per cycle, 32. A at 9 bits a dense element (FP16 2:4 with its
    metadata): fragments 32 x 32 x 9 / 8 + 32 x 16 x 2 = 2176 B / 512 B LDMATRIX: 5; cp.async 2176 B / (16 B x 32):
    5; barrier, 3 loop; epilogue 2."""
    tile = (KernelTile(32, 16, 32, 32, 16),)
    arch = simt({"sms": 1, "kernels": tile, "sparse_kernels": tile}, kernel="nm_tensor_core",
                loop_overhead_instructions=3, split_k=(1,))
    s = FAMILY.plan(arch, GemmLayer("g", m=16, k=32, n=32, weight_sparsity=NMSparsity(2, 4))).candidates[0].schedule
    assert s.group_issue.tolist() == [32 + 5 + 5 + 1 + 3 + 2]


def test_merge_row_ends_and_value_streams_fall_in_their_own_warp_s_share(tmp_path):
    """merge, one item per thread, A (32 x 32) diagonal: 64 items, warp 0 takes rows 0..15 (16 non-zeros, 16 row
    ends), warp 1 rows 16..31. Issue: search ceil(log2 65) = 7 x (1 + 3), one batch (2 + 3), 16 x (2 shuffles +
    load + FFMA 2 + 3), 16 row ends, warp 0's carry-out 1. L2 sectors: values bytes 64 w .. 64 w + 64 (2) and
    indices alike (2), the search 7, the 16 rows' C stores (a sector each), warp 0's carry-out request 1."""
    layer = payload_layer(tmp_path, "spmv", 1, np.eye(32, dtype=np.float32))
    arch = simt({"sms": 1}, kernel="merge", threads_per_cta=32, merge_items_per_thread=1, loop_overhead_instructions=3)
    s = FAMILY.plan(arch, layer).candidates[0].schedule
    per_warp = 7 * 4 + 5 + 16 * 8 + 16
    assert s.group_issue.tolist() == [per_warp + 1, per_warp]
    assert s.cta_l2_sectors.tolist() == [2 + 2 + 7 + 16 + 1, 2 + 2 + 7 + 16]


@pytest.mark.parametrize(("threads", "per_block_row"), [(32, [7] * 7 + [8]), (64, [12, 12, 12, 13])])
def test_csb_chunks_read_their_own_block_pointers(threads, per_block_row):
    """CSB A x, beta 4, a dense 32 x 32 FP32 A: 8 x 8 blocks of 16 values, block pointers row-major (4 B each).
    One block per CTA (32 threads): values 2 + indices 2 + input segment 1 + output segment added with an atomic
    1, and pointers 8 r + c, 8 r + c + 1 at bytes 32 r + 4 c .. + 8: one sector, two for the last chunk (c = 7).
    Two blocks per CTA (64 threads): 2 x (2 + 2) + 2 + 1 and 3 pointers at bytes 32 r + 8 c .. + 12: the last
    chunk's cross a sector boundary."""
    s = FAMILY.plan(simt({"sms": 1}, kernel="csb", csb_beta=4, threads_per_cta=threads),
                    GemmLayer("g", m=1, k=32, n=32, weight_density=1.0)).candidates[0].schedule
    assert s.cta_l2_sectors.tolist() == per_block_row * 8


def test_split_k_tile_starting_inside_a_sector_adds_from_that_sector():
    """dense_simt, 8 x 4 tiles, K = 2 in 2 slices, C 8 x 8 FP32: tile 1 starts at column 4, byte 16, inside
    sector 0; each slice adds its 8 x 4 x 4 B = 4 sectors from the tile's first sector."""
    arch = simt({"sms": 1}, kernel="dense_simt", sgemm_tiles=(SgemmTile(8, 4, 1, 4, 4),), split_k=(2,))
    s = FAMILY.plan(arch, GemmLayer("g", m=8, k=2, n=8)).candidates[1].schedule
    cta, sector = s.atomic_cta, s.atomic_sector
    assert sector.tolist() == [0, 1, 2, 3] * 4
    assert cta.tolist() == [0] * 4 + [1] * 4 + [2] * 4 + [3] * 4


def test_l1_keeps_what_the_carveout_holding_the_ctas_shared_memory_leaves():
    """CSB, beta 512, one warp per CTA: 2 x 512 x 4 B = 4 KB of shared memory, 4 CTAs resident: 16 KB, exactly
    the 16 KB carveout, which leaves (192 KB - 16 KB) / 128 B = 1408 L1 lines."""
    plan = FAMILY.plan(simt({"sms": 1}, kernel="csb", csb_beta=512, threads_per_cta=32),
                       GemmLayer("g", m=1, k=1024, n=1024, weight_density=0.01))
    c = plan.candidates[0]
    assert (c.schedule.shared_memory_per_cta, c.ctas_per_sm, c.l1_lines) == (4096, 4, (196608 - 16384) // 128)


def test_the_plans_operand_cannot_be_edited(two_rows):
    """Plans share the sparse operand (it is cached per layer): its arrays are read-only."""
    csr = FAMILY.plan(simt(kernel="csr_vector"), two_rows).problem.csr
    for array in (csr.indptr, csr.indices, csr.data):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = array[0]


def test_a_cta_may_use_exactly_the_sm_s_registers():
    """1024 threads x 64 registers = the SM's 65,536: accepted; 65 registers a thread: one clear error."""
    layer = GemmLayer("g", m=1, k=64, n=64, weight_density=0.5)
    assert FAMILY.plan(simt(kernel="csr_vector", threads_per_cta=1024, registers_per_thread=64), layer).candidates
    with pytest.raises(InputError, match="needs 66560 registers per CTA; the SM has 65536"):
        FAMILY.plan(simt(kernel="csr_vector", threads_per_cta=1024, registers_per_thread=65), layer)


def test_sputnik_subwarps_batch_each_row_from_its_own_first_non_zero(tmp_path):
    """Sputnik, B 32 columns, 4-wide vectors: 8 lanes cover a row's tile, so 8-lane subwarps, 4 rows a warp, and
    one vector load per lane per non-zero. A: row 0 has 41 non-zeros, row 1 seven (entries 41..47). Issue, lock
    step over the longest row: 6 batches x (2 + 2 + 1 + 3) + 41 x (2 + 1 x (1 + 4 x 2) + 3) + 1 + 2. L2: row 0's
    values and indices per batch of 8 (5 full batches, a sector each, and entry 40's), 6 + 6; row 1's 7 entries
    at bytes 164..191, one sector each, 1 + 1; pointers 1 + 1; C rows 4 + 4."""
    weights = np.zeros((64, 2), dtype=np.float32)
    weights[:41, 0] = 1.0
    weights[:7, 1] = 1.0
    layer = payload_layer(tmp_path, "spmm", 32, weights)
    arch = simt({"sms": 1}, kernel="sputnik", threads_per_cta=32, tile_n=32, vector_width=4,
                loop_overhead_instructions=3, row_swizzle=False)
    s = FAMILY.plan(arch, layer).candidates[0].schedule
    assert s.group_issue.tolist() == [6 * 8 + 41 * 14 + 1 + 2]
    assert s.cta_l2_sectors.tolist() == [(6 + 6) + (1 + 1) + 2 + 8]


def test_sputnik_c_rows_of_a_three_column_tile_straddle_sectors_where_they_lie(tmp_path):
    """Sputnik, tiles of 3 columns over C 3 x 6 FP32 (a row: 24 B): row r's tile 0 is bytes 24 r .. 24 r + 12,
    tile 1 bytes 24 r + 12 .. 24 r + 24. Tile 0 stores 1 + 2 + 1 sectors (row 1 crosses byte 32), tile 1 1 + 1 + 2
    (row 2 crosses byte 64). A (3 x 4) has one non-zero, row 2's: value 1 and index 1; pointers 1 per row."""
    weights = np.zeros((4, 3), dtype=np.float32)
    weights[2, 2] = 1.0
    layer = payload_layer(tmp_path, "spmm", 6, weights)
    arch = simt({"sms": 1}, kernel="sputnik", threads_per_cta=32, tile_n=3, vector_width=1, row_swizzle=False)
    s = FAMILY.plan(arch, layer).candidates[0].schedule
    assert s.cta_l2_sectors.tolist() == [2 + 3 + (1 + 2 + 1), 2 + 3 + (1 + 1 + 2)]


def test_bsr_last_column_tile_stages_only_its_own_columns(tmp_path):
    """The BSR worked example's two 8 x 8 blocks with B 24 columns wide, tiles of 16: tile 1 holds 8 columns. A
    CTA's L1 bytes: the block (128) and its B rows staged (8 x width x 2 B), each warp's fragments (128 + 256),
    the C tile (8 x width x 2 B): 1024 for a 16-column tile, 768 for the 8-column one."""
    layer = two_blocks_layer(tmp_path, 24)
    s = FAMILY.plan(simt({"sms": 1}, kernel="bsr", block=8, bsr_tile_n=16), layer).candidates[0].schedule
    assert s.cta_l1_bytes.tolist() == [128 + 256 + 384 + 256, 128 + 128 + 384 + 128] * 2


@pytest.mark.parametrize(("threads", "registers", "resident"), [(1024, 40, 1), (768, 16, 2)])
def test_occupancy_counts_whole_ctas(threads, registers, resident):
    """1024 threads x 40 registers = 40,960 a CTA: the SM's 65,536 registers hold 1.6 CTAs, so one (the thread
    limit allows 2). 768 threads x 16 registers: the SM's 2048 threads hold 2.67 CTAs, so two (registers allow 5)."""
    plan = FAMILY.plan(simt({"sms": 1}, kernel="csr_vector", threads_per_cta=threads, registers_per_thread=registers),
                       GemmLayer("g", m=1, k=64, n=4096, weight_density=0.1))
    assert plan.candidates[0].ctas_per_sm == resident


def test_two_four_kernel_refuses_a_layer_without_two_four_weights():
    for sparsity in (None, NMSparsity(1, 4)):
        with pytest.raises(InputError, match="nm_tensor_core runs layers marked 2:4"):
            FAMILY.plan(simt(kernel="nm_tensor_core"), GemmLayer("g", m=16, k=64, n=64, weight_sparsity=sparsity))


def test_shared_memory_for_one_and_a_third_ctas_allows_one():
    """CSB, beta 16384, one warp a CTA: (1 + 1) x 16384 x 4 B = 128 KB of shared memory; the SM's 164 KB hold one
    CTA at a time, so the grid's two block rows run one after the other."""
    plan = FAMILY.plan(simt({"sms": 1}, kernel="csb", csb_beta=16384, threads_per_cta=32),
                       GemmLayer("g", m=1, k=1024, n=32768, weight_density=0.001))
    c = plan.candidates[0]
    assert (c.schedule.shared_memory_per_cta, c.schedule.ctas, c.ctas_per_sm) == (131072, 2, 1)


def test_dense_layers_kernel_runs_only_layers_with_dense_unmarked_weights(two_rows):
    """simt.dense_layers_kernel replaces simt.kernel on a layer "with dense weights (weight_density 1, no N:M
    marking)" only. two_rows' A (2 x 64) stores 41 non-zeros, B has 1 column: marked with its density 41 / 128 the
    layer keeps csr_vector (41 x 1 FMAs); left at density 1 it runs dense_simt's SGEMM, whose one 32 x 32 x 8 CTA
    tile covers C (2 x 1) and executes its whole tile over K = 64 (8 steps): 32 x 32 x 8 x 8 = 65536 FMAs; density 1
    but marked 2:4 it keeps csr_vector (41 FMAs)."""
    arch = simt({"sms": 1}, kernel="csr_vector", dense_layers_kernel="dense_simt", threads_per_cta=32,
                sgemm_tiles=(SgemmTile(32, 32, 8, 32, 32),), split_k=(1,))
    def schedule(layer):
        return FAMILY.plan(arch, layer).candidates[0].schedule
    sparse = schedule(dataclasses.replace(two_rows, weight_density=41 / 128))
    assert (sparse.kernel, sparse.fmas) == ("csr_vector", 41)
    dense = schedule(two_rows)
    assert (dense.kernel, dense.fmas) == ("dense_simt", 32 * 32 * 8 * 8)
    marked = schedule(dataclasses.replace(two_rows, weight_sparsity=NMSparsity(2, 4)))
    assert (marked.kernel, marked.fmas) == ("csr_vector", 41)


def test_csr_scalar_last_partial_warp_reads_only_its_own_row_pointers_and_outputs(tmp_path):
    """csr_scalar (a row per thread), A (40 x 8) with one non-zero per row in column 0, one warp a CTA: warp 0 runs
    rows 0..31, warp 1 the 40 - 32 = 8 left. L2 sectors per CTA = values + indices (4 B each) + its row pointers
    (rows + 1 of indptr) + its y + the distinct x sectors. Warp 0: 4 + 4, pointers 0..32 (132 bytes from 0: sectors
    0..4, 5), y 128 bytes (4), x sector 0 (1): 18. Warp 1: entries 32..39 (1 + 1), pointers 32..40 (36 bytes from 128:
    sectors 4, 5), y rows 32..39 (32 bytes from 128: 1), x (1): 6."""
    weights = np.zeros((8, 40), dtype=np.float32)                   # A^T
    weights[0, :] = 1.0
    plan = FAMILY.plan(simt({"sms": 1}, kernel="csr_scalar", threads_per_cta=32), payload_layer(tmp_path, "g", 1, weights))
    s = plan.candidates[0].schedule
    assert s.cta_l2_sectors.tolist() == [4 + 4 + 5 + 4 + 1, 1 + 1 + 2 + 1 + 1]

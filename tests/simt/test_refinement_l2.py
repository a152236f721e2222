"""The L2 model by hand: a set-associative sector cache, LRU, a line's set its number modulo the sets; a dense GEMM's
listed tile reads; an overflowing kernel's DRAM reads are the listed reads' L2 misses plus the other sectors."""
import dataclasses

import numpy as np

from accel_sim.models.simt import fast
from accel_sim.models.simt.family import FAMILY
from accel_sim.models.simt.plan.l2 import GemmReads, listed_atomics, listed_reads, output_base
from accel_sim.models.simt.reference import reference, run_candidate
from accel_sim.models.simt.spec import SgemmTile
from accel_sim.foundations.workload import GemmLayer
from tests.simt.archs import simt

POPCOUNT = np.array([bin(v).count("1") for v in range(16)], dtype=np.int64)


def test_l2_walk_counts_sector_misses_with_lru_per_set():
    # 2 sets x 2 ways; lines 0, 2, 4 share set 0, line 1 is in set 1
    tags = np.array([0, 2, 0, 4, 2, 1])
    masks = np.array([0b0001, 0b0011, 0b0010, 0b1111, 0b0011, 0b0001])
    # 0: 1 sector missed; 2: 2; 0 again: its second sector (1); 4: set full, evicts 2 (least recently used): 4;
    # 2: evicts 0: 2; 1: other set: 1
    assert fast.l2_walk(tags, masks, 2, 2, POPCOUNT) == 1 + 2 + 1 + 4 + 2 + 1
    # a present line's held sectors hit
    assert fast.l2_walk(np.array([3, 3, 3]), np.array([0b0011, 0b0011, 0b0111]), 2, 2, POPCOUNT) == 2 + 0 + 1


def test_gemm_tile_reads_by_hand():
    # A 2 x 8 FP32 (64 bytes: sectors 0, 1), B 8 x 8 FP32 from the next 128-byte line (sectors 4 .. 11)
    reads = GemmReads(m=2, k=8, n=8, tile_m=2, tile_n=8, k_slice=8, splits=1, a_bits=32, element_bytes=4)
    ptr, sectors = listed_reads(reads, 1, 32, 128)
    assert list(ptr) == [0, 10] and list(sectors) == [0, 1, *range(4, 12)]
    # two K slices: slice 0 reads A columns 0..3 (sector 0, and 32..47 bytes: sector 1) and B rows 0..3
    halves = GemmReads(m=2, k=8, n=8, tile_m=2, tile_n=8, k_slice=4, splits=2, a_bits=32, element_bytes=4)
    ptr, sectors = listed_reads(halves, 2, 32, 128)
    assert list(ptr) == [0, 6, 12]
    assert list(sectors[:6]) == [0, 1, 4, 5, 6, 7] and list(sectors[6:]) == [0, 1, 8, 9, 10, 11]


def test_an_overflowing_gemm_reads_its_l2_misses_from_dram():
    """dense_simt, one 32 x 32 tile per CTA, M = 64, N = 64, K = 32 (FP32): 4 CTAs, each reading 32 rows of A (4
    sectors, a line, each) and the 32 B rows of its columns (a line each); with C the footprint (32 KiB) overflows
    both L2s. A 16 KiB L2 (8 sets x 16 ways) holds the 128 lines of A and B, 16 per set: DRAM reads each sector once
    (512); a 2 KiB L2 (one set of 16 lines) keeps only the last 16 lines of a CTA, none the next CTA wants."""
    layer = GemmLayer("g", m=64, k=32, n=64)   # the GEMM view: A is the 64 x 32 weights
    for l2_size, missed in ((16384, 512), (2048, 4 * 256)):
        arch = simt({"sms": 2, "l2_size": l2_size}, kernel="dense_simt", split_k=(1,), l2_ways=16,
                    sgemm_tiles=(SgemmTile(32, 32, 8, 32, 32),))
        plan = FAMILY.plan(arch, layer)
        counters = fast.fast(plan)
        assert counters == reference(plan)
        assert plan.candidates[0].l2_overflow and counters.l2_misses == missed
        assert counters.dram_read_bytes == missed * 32                # C's stores are its writes


def test_without_ways_every_l2_sector_of_an_overflowing_kernel_comes_from_dram():
    """l2_ways 0 (the default, the A100 configs'): the GEMM above with a 16 KiB L2 walks no set model; DRAM reads
    every sector requested from L2 but C's: each CTA's 32 lines of A (its 32 rows of 32 FP32) and 32 lines of B, 4
    sectors each (4 x 256 = 1024 sectors, where the set model reads A and B once: 512), as before the set model."""
    layer = GemmLayer("g", m=64, k=32, n=64)
    arch = simt({"sms": 2, "l2_size": 16384}, kernel="dense_simt", split_k=(1,), sgemm_tiles=(SgemmTile(32, 32, 8, 32, 32),))
    plan = FAMILY.plan(arch, layer)
    counters = fast.fast(plan)
    assert plan.machine.l2_ways == plan.machine.l2_sets == 0 and counters == reference(plan)
    assert counters.l2_misses == 0 and counters.dram_read_bytes == 1024 * 32


def test_atomics_are_listed_after_the_operands():
    ptr, sectors = listed_atomics(np.array([1, 0, 1, 1]), np.array([5, 3, 5, 2]), 2, base=100)
    assert list(ptr) == [0, 1, 3] and list(sectors) == [103, 102, 105]
    reads = GemmReads(m=2, k=8, n=8, tile_m=2, tile_n=8, k_slice=8, splits=1, a_bits=32, element_bytes=4)
    assert output_base(reads, 0, 128, 32) == 12          # A: line 0; B: bytes 128 .. 383; C from byte 384
    assert output_base(None, 200, 128, 32) == 8          # after a 200-byte B: byte 256


def test_split_k_atomics_hit_the_l2_when_it_holds_c():
    """Split-K by 2 on the GEMM above: each slice's CTA adds its 32 x 32 C tile (128 sectors) with atomics; with a
    16 KiB L2 the second slice's adds find the first's lines (if the tile reads have not evicted them) and both paths
    agree on every counter."""
    layer = GemmLayer("g", m=64, k=32, n=64)
    arch = simt({"sms": 2, "l2_size": 16384}, kernel="dense_simt", split_k=(2,), l2_ways=16,
                sgemm_tiles=(SgemmTile(32, 32, 8, 32, 32),))
    plan = FAMILY.plan(arch, layer)
    for index in range(len(plan.candidates)):
        assert fast.count(plan, index) == run_candidate(plan, index, None)
    split = [fast.count(plan, i) for i, c in enumerate(plan.candidates) if c.schedule.atomics]
    assert split and all(0 < c.l2_misses for c in split)


def test_the_v100_sparse_kernels_and_their_dense_baseline_read_one_l2_geometry():
    """Accel-Sim's SM7_QV100 L2: 64 sub-partitions x 32 sets x 24 ways of 128-byte lines = 6 MiB; the SGEMM baseline
    reads the same L2 model as the sparse kernels it divides."""
    from accel_sim import load_arch
    from accel_sim.models.simt.plan.machine import machine
    for name in ("volta_v100_sparsert", "volta_v100_sparsert_conv", "volta_v100_sputnik", "volta_v100_sgemm"):
        m = machine(load_arch(name))
        assert (m.l2_sets, m.l2_ways, m.line, m.sector) == (64 * 32, 24, 128, 32)
        assert m.l2_sets * m.l2_ways * m.line == m.l2_size == 6 * 2**20


def test_listed_reads_by_hand():
    """The DRAM reads the L2 model lists (and takes out of dram_read_bytes): a GEMM's whole reads, B of a kernel
    whose read-only loads go through the L1, nothing for a kernel with neither (its sectors all count as other)."""
    from accel_sim.models.simt.plan.schedule import Schedule
    one = np.zeros(1, dtype=np.int64)
    plain = Schedule("k", 32, 32, 0, one, one, one, one, one, one, dram_read_bytes=1000, dram_write_bytes=64,
                     dense_operand_bytes=300, fmas=0, tensor_macs=0, products=0, atomics=0, tensor_core=False)
    assert plain.listed_read_bytes == 0
    cached = dataclasses.replace(plain, cached_ptr=np.array([0, 2]), cached_sectors=np.array([4, 5]))
    assert cached.listed_read_bytes == 300


def test_gemm_reads_of_a_partial_last_column_tile_hold_only_its_columns():
    """A 1 x 1 (FP32, bytes 0..3: sector 0) times B 1 x 48 (FP32, from the next 128-byte line: bytes 128..319),
    32-column tiles: tile 0 holds columns 0..31, tile 1 the 48 - 1 x 32 = 16 left (the module's docstring: a CTA
    reads "the slice's rows of B over the tile's columns"). CTA 1's B row starts at 128 + 32 x 4 = 256 and is
    16 x 4 = 64 bytes (sectors 8, 9), not a full tile's 128."""
    reads = GemmReads(m=1, k=1, n=48, tile_m=1, tile_n=32, k_slice=1, splits=1, a_bits=32, element_bytes=4)
    owner, first, nbytes = reads.ranges(128)
    assert owner.tolist() == [0, 0, 1, 1]
    assert first.tolist() == [0, 128, 0, 256] and nbytes.tolist() == [4, 128, 4, 64]
    ptr, sectors = listed_reads(reads, 2, 32, 128)
    assert ptr.tolist() == [0, 5, 8] and sectors.tolist() == [0, 4, 5, 6, 7, 0, 8, 9]


def test_split_k_gemm_reads_number_the_ctas_with_the_slice_fastest():
    """A 1 x 2 (FP32: bytes 0..7, sector 0) times B 2 x 16 (FP32 rows of 64 bytes from byte 128), 8-column tiles and
    2 K slices of one row: CTAs (tile row i, tile column j, slice s) with the slice fastest, so CTA c is j = c // 2,
    s = c % 2. CTA (j, s) reads A's column s (bytes 4 s .. 4 s + 3) and B row s over columns 8 j .. 8 j + 7: 32 bytes
    from 128 + 64 s + 32 j, one sector each: 4, 6, 5, 7 for CTAs 0..3."""
    reads = GemmReads(m=1, k=2, n=16, tile_m=1, tile_n=8, k_slice=1, splits=2, a_bits=32, element_bytes=4)
    owner, first, nbytes = reads.ranges(128)
    assert owner.tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    assert first.tolist() == [0, 128, 4, 192, 0, 160, 4, 224] and nbytes.tolist() == [4, 32] * 4
    ptr, sectors = listed_reads(reads, 4, 32, 128)
    assert ptr.tolist() == [0, 2, 4, 6, 8] and sectors.tolist() == [0, 4, 0, 6, 0, 5, 0, 7]

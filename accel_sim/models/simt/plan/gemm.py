"""Tiled GEMM kernels as warp schedules: the dense baselines (CUTLASS-style SIMT SGEMM on the CUDA
cores, HGEMM on the tensor cores), 2:4 sparse tensor cores, and block-sparse (BSR) on tensor cores.

A CTA computes a tile of C; per main-loop step its threads copy the A and B tiles from L2 into
shared memory (multistage: the copy of the next steps overlaps the math, so only the prologue's
DRAM latency is exposed), then each warp reads its fragments from shared memory and does its
math. BSR: a CTA owns one block row of A and ``bsr_tile_n`` columns of C, one warp per 16 columns
(the MMA's M; C^T = B^T A^T puts the dense dimension on the MMA's M so an 8 x 8 block fills an
m16n8k8 MMA); per stored block it copies the block and the block's ``b`` rows of B.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accel_sim.models.simt.plan.l2 import GemmReads
from accel_sim.models.simt.plan.machine import Machine
from accel_sim.models.simt.plan.problem import INDEX_BYTES, SparseProblem
from accel_sim.models.simt.plan.schedule import AtomicRuns, Schedule, ceil_div
from accel_sim.models.simt.plan.sectors import span_sectors
from accel_sim.models.simt.spec import SimtSpec

VECTOR_BYTES = 16        # a 128-bit load / cp.async / store per lane
LDMATRIX_BYTES = 512     # ldmatrix.x4: four 8x8 16-bit matrices per warp instruction (PTX ISA)
BITS_PER_BYTE = 8


@dataclass(frozen=True)
class Tile:
    m: int
    n: int
    k: int
    warp_m: int
    warp_n: int
    stages: int

    @property
    def warps(self) -> int:
        return (self.m // self.warp_m) * (self.n // self.warp_n)


def tile_of(kernel_tile) -> Tile:
    """A tile of the simt section's SGEMM list or of the tensor_core section's kernels (read, not
    imported: the families stay apart)."""
    return Tile(kernel_tile.m, kernel_tile.n, kernel_tile.k, kernel_tile.warp_m, kernel_tile.warp_n,
                kernel_tile.stages)


def dense_gemm(p: SparseProblem, m: Machine, spec: SimtSpec, tile: Tile, kernel: str, splits: int = 1) -> Schedule:
    """dense_simt (FP32 FFMA), dense_tensor_core (FP16 MMA) or nm_tensor_core (2:4 A, sparse MMA), K cut
    into ``splits`` slices (one CTA each; partial C tiles added with atomics when more than one)."""
    w, sector = m.warp_size, m.sector
    simt = kernel == "dense_simt"
    sparse = kernel == "nm_tensor_core"
    eb = p.value_bytes if simt else spec.tensor_core_word_bits // BITS_PER_BYTE
    kept = m.nm[0] / m.nm[1] if sparse else 1.0
    a_bits = (eb * BITS_PER_BYTE + (m.metadata_bits if sparse else 0)) * kept     # per dense A element
    tiles_m, tiles_n = -(-p.m // tile.m), -(-p.n // tile.n)
    k_slice = -(-p.k // splits)
    steps = -(-k_slice // tile.k)
    warps = tile.warps
    threads = warps * w
    a_tile = int(np.ceil(tile.m * tile.k * a_bits / BITS_PER_BYTE))
    b_tile = tile.k * tile.n * eb
    a_frag = int(np.ceil(tile.warp_m * tile.k * a_bits / BITS_PER_BYTE))
    b_frag = tile.k * tile.warp_n * eb
    if simt:
        math = -(-tile.warp_m * tile.warp_n // w) * tile.k * m.fma_issue_cycles     # a warp tile under 32: idle lanes
        fragments = -(-(a_frag + b_frag) // (VECTOR_BYTES * w))
        fill = 2 * -(-(a_tile + b_tile) // (VECTOR_BYTES * threads))             # LDG + STS
    else:
        mma_macs = m.mma_m * m.mma_n * m.mma_k
        mmas = (tile.warp_m // m.mma_m) * (tile.warp_n // m.mma_n) * -(-tile.k // m.mma_k)
        math = -(-mmas * mma_macs // m.tensor_macs_per_cycle)
        if sparse:
            math = -(-math // 2)                                                 # the sparse MMA: 2x K per cycle
        fragments = -(-(a_frag + b_frag) // LDMATRIX_BYTES)
        fill = -(-(a_tile + b_tile) // (VECTOR_BYTES * threads))                  # cp.async
    loop = spec.loop_overhead_instructions
    epilogue = -(-tile.warp_m * tile.warp_n * eb // (VECTOR_BYTES * w))
    per_warp_issue = steps * (math + fragments + fill + 1 + loop) + epilogue
    ctas = tiles_m * tiles_n * splits
    rows = np.minimum(tile.m, p.m - np.arange(tiles_m) * tile.m)
    cols = np.minimum(tile.n, p.n - np.arange(tiles_n) * tile.n)
    depth = np.minimum(k_slice, p.k - np.arange(splits) * k_slice).clip(0)      # K of each slice
    rows_c = np.repeat(np.repeat(rows, tiles_n), splits)                         # CTA (i, j, slice), slice fastest
    cols_c = np.repeat(np.tile(cols, tiles_m), splits)
    depth_c = np.tile(depth, tiles_m * tiles_n)
    a_bytes = np.ceil(rows_c * depth_c * a_bits / BITS_PER_BYTE).astype(np.int64)
    c_sectors = ceil_div(rows_c * cols_c * eb, sector)
    partial = splits > 1
    l2 = (ceil_div(a_bytes, sector) + ceil_div(depth_c * cols_c * eb, sector)
          + c_sectors)                                                        # stored, or added with atomics
    l1 = steps * (a_tile + b_tile + warps * (a_frag + b_frag)) + rows_c * cols_c * eb
    if simt:
        l1 = l1 + steps * (a_tile + b_tile)                                     # LDG through L1, then STS
    executed = ctas * tile.m * tile.n * steps * tile.k
    requests = {}
    if partial:       # every slice adds its C tile, taken as consecutive sectors from the tile's first (C row-major)
        first = (np.arange(tiles_m)[:, None] * tile.m * p.n + np.arange(tiles_n)[None, :] * tile.n) * eb // sector
        requests = dict(atomic=AtomicRuns(np.arange(ctas), np.repeat(first.ravel(), splits), c_sectors))
    return Schedule(
        kernel=kernel, threads_per_cta=threads, registers_per_thread=spec.gemm_registers_per_thread,
        shared_memory_per_cta=tile.stages * (a_tile + b_tile), warp_cta=np.repeat(np.arange(ctas), warps),
        group_warp=np.arange(ctas * warps), group_issue=np.full(ctas * warps, per_warp_issue, dtype=np.int64),
        group_latency=np.full(ctas * warps, m.dram_latency, dtype=np.int64),
        cta_l1_bytes=np.full(ctas, 0, dtype=np.int64) + l1, cta_l2_sectors=l2.astype(np.int64),
        dram_read_bytes=int(np.ceil(p.m * p.k * a_bits / BITS_PER_BYTE)) + p.k * p.n * eb,
        dram_write_bytes=p.m * p.n * eb, dense_operand_bytes=p.k * p.n * eb, fmas=executed if simt else 0, tensor_macs=0 if simt else int(executed * kept),
        products=int(p.m * p.k * kept) * p.n, atomics=int(c_sectors.sum()) if partial else 0, tensor_core=not simt,
        gemm_reads=GemmReads(p.m, p.k, p.n, tile.m, tile.n, k_slice, splits, a_bits, eb),
        gemm_l2_sectors=int((l2 - c_sectors).sum()), **requests)


def stored_blocks(p: SparseProblem, b: int) -> np.ndarray:
    """Blocks with a non-zero in each block row of A (``b`` divides both sides): the counts of
    :meth:`BSR.from_dense <accel_sim.foundations.compress.formats.BSR.from_dense>`'s block rows, without encoding the
    blocks."""
    occupied = (p.dense != 0).reshape(p.m // b, b, p.k // b, b).any(axis=(1, 3))
    return occupied.sum(axis=1).astype(np.int64)


def bsr_gemm(p: SparseProblem, m: Machine, spec: SimtSpec) -> Schedule:
    b, w, sector = spec.block, m.warp_size, m.sector
    eb = spec.tensor_core_word_bits // BITS_PER_BYTE
    per_row = stored_blocks(p, b)                                    # stored blocks of each block row
    n_blocks = int(per_row.sum())
    block_rows = per_row.size
    tile = spec.bsr_tile_n
    warps = -(-tile // m.mma_m)
    starts = np.arange(0, p.n, tile, dtype=np.int64)
    widths = np.minimum(tile, p.n - starts)
    tiles = starts.size
    threads = warps * w
    macs = m.mma_m * b * b                                            # one warp's share of one block
    math = -(-macs // m.tensor_macs_per_cycle)
    a_block = b * b * eb
    b_rows = b * m.mma_m * eb                                         # the warp's 16 columns of b B rows
    fragments = -(-(a_block + b_rows) // LDMATRIX_BYTES)
    fill = -(-(a_block + b * tile * eb) // (VECTOR_BYTES * threads))
    loop = spec.loop_overhead_instructions
    epilogue = -(-b * m.mma_m * eb // (VECTOR_BYTES * w))
    warp_issue = per_row * (math + fragments + fill + 1 + loop) + epilogue + 2
    ctas = block_rows * tiles
    # CTA (block row i, column tile t), column tiles fastest
    blocks_c = np.repeat(per_row, tiles)
    widths_c = np.tile(widths, block_rows)
    starts_c = np.tile(starts, block_rows)
    b_segment = span_sectors(starts_c * eb, widths_c * eb, sector)   # one B row's columns of the tile (N*eb aligned)
    c_rows = b * b_segment
    l2 = blocks_c * (ceil_div(a_block, sector) + b * b_segment) + c_rows + 1
    l1 = blocks_c * (a_block + b * widths_c * eb + warps * (a_block + b_rows)) + b * widths_c * eb
    return Schedule(
        kernel="bsr", threads_per_cta=threads, registers_per_thread=spec.registers_per_thread,
        shared_memory_per_cta=2 * (a_block + b * tile * eb), warp_cta=np.repeat(np.arange(ctas), warps),
        group_warp=np.arange(ctas * warps), group_issue=np.repeat(np.repeat(warp_issue, tiles), warps),
        group_latency=np.full(ctas * warps, m.dram_latency, dtype=np.int64),
        cta_l1_bytes=l1.astype(np.int64), cta_l2_sectors=l2.astype(np.int64),
        dram_read_bytes=n_blocks * (a_block + INDEX_BYTES) + (block_rows + 1) * INDEX_BYTES + p.k * p.n * eb,
        dram_write_bytes=p.m * p.n * eb, dense_operand_bytes=p.k * p.n * eb, fmas=0, tensor_macs=n_blocks * b * b * tiles * warps * m.mma_m,
        products=n_blocks * b * b * p.n, atomics=0, tensor_core=True)

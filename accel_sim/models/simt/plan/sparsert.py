"""SparseRT's generated SpMM as a warp schedule (Wang, PACT 2020; its code generator
github.com/marsupialtail/gpu-sparsert, ``sparsednn/code_gen_ptx.py`` and ``code_fragments.py``).

SparseRT compiles one kernel per sparse matrix (an inspector-executor): the grid is
``A_BLOCKS x C_BLOCKS`` CTAs, each computing ``Ny`` output rows of A for ``Tsz`` columns of B, one
thread per column (one group, ``Gy = 1``). The code of a row block is straight-line PTX: for each
distinct row k of B its rows touch, in order of k, one ``ld.global.nc`` of B[k, column] (a coalesced
warp load, its offset an immediate), then for each non-zero of that row of B one ``fma`` whose
multiplier is the value as an immediate. No values, indices or row pointers are loaded and nothing
is staged in shared memory; at the end each thread stores its ``Ny`` outputs. The autotuner tries
several (``Ny``, ``Tsz``) per layer and keeps the fastest: one candidate each here.

Modelled per warp (one instruction group): issue = one load per distinct B row + the FMAs + the
stores + the address set-up; exposed latency = one DRAM latency (the first B load: every later
address is a constant, so the loads are issued ahead of the FMAs that need them, an assumption).
Per CTA: the B row segments of its distinct rows and its C stores through L1; the C stores and its
row block's code (``instruction_bytes`` each) through the L2 port once; the B loads (read-only,
``ld.global.nc``) are the CTA's cached sectors: they reach the L2 port only when the SM's L1, shared
with the other CTAs the SM runs, misses them. DRAM reads B, C's writes and the code once.
"""
from __future__ import annotations

import numpy as np

from accel_sim.models.simt.plan.machine import Machine
from accel_sim.models.simt.plan.problem import SparseProblem
from accel_sim.models.simt.plan.schedule import Schedule, ceil_div
from accel_sim.models.simt.plan.sectors import cta_sector_lists, sorted_unique
from accel_sim.models.simt.plan.spmm import _row_segments
from accel_sim.models.simt.spec import SimtSpec

ADDRESS_SETUP = 2   # instructions: C_offset and lane from blockIdx / threadIdx (START_NONFUSED; estimate of its SASS)


def sparsert_widths(p: SparseProblem, spec: SimtSpec) -> tuple[int, ...]:
    """Distinct CTA column widths the autotuner tries on this layer (a tile wider than N is N)."""
    return tuple(dict.fromkeys(min(t, p.n) for t in spec.sparsert_tile_n))


def sparsert(p: SparseProblem, m: Machine, spec: SimtSpec, rows: int, width: int) -> Schedule:
    """The kernel generated with ``rows`` (Ny) output rows and ``width`` (Tsz) columns per CTA."""
    csr, vb, sector, w = p.csr, p.value_bytes, m.sector, m.warp_size
    row_blocks = -(-p.m // rows)
    col_tiles = -(-p.n // width)
    warps_per_cta = -(-width // w)
    block_rows = np.minimum(rows, p.m - np.arange(row_blocks) * rows)
    block_of = np.repeat(np.arange(p.m) // rows, np.diff(csr.indptr))
    nnz_block = np.bincount(block_of, minlength=row_blocks).astype(np.int64)
    pairs = sorted_unique(block_of * max(p.k, 1) + np.asarray(csr.indices, dtype=np.int64))   # (row block, B row)
    pair_block, pair_k = pairs // max(p.k, 1), pairs % max(p.k, 1)
    loads = np.bincount(pair_block, minlength=row_blocks).astype(np.int64)   # one ld.global.nc per distinct B row
    instructions = loads + nnz_block + block_rows + ADDRESS_SETUP
    issue = loads + nnz_block * m.fma_issue_cycles + block_rows + ADDRESS_SETUP
    latency = np.where(loads > 0, m.dram_latency, 0)
    # column segments of the warps: tile c, warp j covers [c * width + j * w, ...) within the tile and N
    tile_start = np.arange(col_tiles)[:, None] * width
    seg_start = tile_start + np.arange(warps_per_cta)[None, :] * w
    seg_width = np.clip(np.minimum(tile_start + width, p.n) - seg_start, 0, w)
    starts, widths = seg_start.ravel(), seg_width.ravel()
    b_sectors = np.zeros((row_blocks, starts.size), dtype=np.int64)
    if pairs.size:
        np.add.at(b_sectors, pair_block, _row_segments(pair_k, starts, widths, p.n, vb, sector))
    cached_ptr, cached = _cached_b_sectors(pair_block, pair_k, row_blocks, col_tiles, starts, widths, p.n, vb, sector)
    c_sectors = np.zeros((row_blocks, starts.size), dtype=np.int64)
    np.add.at(c_sectors, np.arange(p.m) // rows, _row_segments(np.arange(p.m, dtype=np.int64), starts, widths, p.n, vb,
                                                               sector))
    data = (b_sectors + c_sectors).reshape(row_blocks, col_tiles, warps_per_cta).sum(axis=2)   # (blocks, tiles)
    stores = c_sectors.reshape(row_blocks, col_tiles, warps_per_cta).sum(axis=2)
    code = ceil_div(instructions * spec.instruction_bytes, sector)
    # CTA = blockIdx.x (row block) fastest: CTA c * row_blocks + b
    cta_l1 = (data * sector).T.ravel()
    cta_l2 = (stores + code[:, None]).T.ravel()
    ctas = row_blocks * col_tiles
    block_of_warp = np.tile(np.repeat(np.arange(row_blocks), warps_per_cta), col_tiles)
    return Schedule(
        # registers: the Ny accumulators (ACC[Ny] of the generated code) on top of the sparse kernels' estimate
        kernel="sparsert", threads_per_cta=warps_per_cta * w, registers_per_thread=spec.registers_per_thread + rows,
        shared_memory_per_cta=0, warp_cta=np.repeat(np.arange(ctas), warps_per_cta),
        group_warp=np.arange(ctas * warps_per_cta), group_issue=issue[block_of_warp],
        group_latency=latency[block_of_warp], cta_l1_bytes=cta_l1, cta_l2_sectors=cta_l2,
        dram_read_bytes=int(instructions.sum()) * spec.instruction_bytes + p.k * p.n * vb,
        dram_write_bytes=p.m * p.n * vb, dense_operand_bytes=p.k * p.n * vb, fmas=p.nnz * p.n, tensor_macs=0,
        products=p.nnz * p.n, atomics=0, tensor_core=False, cached_ptr=cached_ptr, cached_sectors=cached)


def _cached_b_sectors(pair_block: np.ndarray, pair_k: np.ndarray, row_blocks: int, col_tiles: int,
                      starts: np.ndarray, widths: np.ndarray, n: int, vb: int, sector: int) -> tuple[np.ndarray, ...]:
    """Per CTA (tile c, row block b: CTA c * row_blocks + b), the distinct sectors of B its warps load: every
    distinct B row k of the block, each warp's column segment of the tile; sorted (B is row-major)."""
    warps = starts.size // col_tiles
    seg_start = starts.reshape(col_tiles, warps)
    seg_width = widths.reshape(col_tiles, warps)
    # entries (tile, pair, warp) in C order: CTA-major (pairs are sorted by block, then row)
    first = (pair_k[None, :, None] * n + seg_start[:, None, :]) * vb
    nbytes = np.broadcast_to(seg_width[:, None, :] * vb, first.shape)
    cta = np.broadcast_to(np.arange(col_tiles)[:, None, None] * row_blocks + pair_block[None, :, None], first.shape)
    return cta_sector_lists(cta, first, nbytes, sector, row_blocks * col_tiles)

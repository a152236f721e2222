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
with the other CTAs the SM runs, misses them. The code of a row block is the CTA's code block: every CTA of the
row block (one per column tile) runs it, so when the SM's instruction cache holds it from an earlier CTA the
CTA fetches none of it. DRAM reads B, C's writes and the code once.

``sparsert_conv``: the same generated code on a K x K convolution without im2col (SparseRT's sparse 3x3
convolutions): the "B row" of a non-zero weight (c, r, s) is input channel c shifted by (r, s), so a thread's
load for output pixel (y, x) reads input[c, y * stride + r - pad, x * stride + s - pad] (NCHW), nothing for a
padded position. The loads, FMAs and code are sparsert's; the addresses are the input's: a warp's load covers the
distinct sectors of its 32 pixels' shifted positions (an output row's wrap splits it), the shifts of one channel
overlap in the SM's L1, and DRAM reads the input tensor, not the 9x larger im2col matrix.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from accel_sim.models.simt.plan.machine import Machine
from accel_sim.models.simt.plan.problem import SparseProblem
from accel_sim.models.simt.plan.schedule import Schedule, ceil_div
from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.layer import ConvLayer
from accel_sim.models.simt.plan.sectors import cta_sector_lists, distinct_per_group, sorted_unique
from accel_sim.models.simt.plan.spmm import _summed_row_segments
from accel_sim.models.simt.spec import SimtSpec

ADDRESS_SETUP = 2   # instructions: C_offset and lane from blockIdx / threadIdx (START_NONFUSED; estimate of its SASS)


def sparsert_widths(p: SparseProblem, spec: SimtSpec) -> tuple[int, ...]:
    """Distinct CTA column widths the autotuner tries on this layer (a tile wider than N is N)."""
    return tuple(dict.fromkeys(min(t, p.n) for t in spec.sparsert_tile_n))


def sparsert(p: SparseProblem, m: Machine, spec: SimtSpec, rows: int, width: int, implicit_conv: bool = False) -> Schedule:
    """The kernel generated with ``rows`` (Ny) output rows and ``width`` (Tsz) columns per CTA; ``implicit_conv``:
    B's addresses are the convolution input's (``sparsert_conv``)."""
    vb, sector, w = p.value_bytes, m.sector, m.warp_size
    row_blocks = -(-p.m // rows)
    col_tiles = -(-p.n // width)
    warps_per_cta = -(-width // w)
    block_rows = np.minimum(rows, p.m - np.arange(row_blocks) * rows)
    nnz_block, pair_block, pair_k, loads = _row_block_pairs(p, rows)
    instructions = loads + nnz_block + block_rows + ADDRESS_SETUP
    issue = loads + nnz_block * m.fma_issue_cycles + block_rows + ADDRESS_SETUP
    latency = np.where(loads > 0, m.dram_latency, 0)
    # column segments of the warps: tile c, warp j covers [c * width + j * w, ...) within the tile and N
    tile_start = np.arange(col_tiles)[:, None] * width
    seg_start = tile_start + np.arange(warps_per_cta)[None, :] * w
    seg_width = np.clip(np.minimum(tile_start + width, p.n) - seg_start, 0, w)
    starts, widths = seg_start.ravel(), seg_width.ravel()
    if implicit_conv:
        b_sectors, cached_ptr, cached, b_bytes = _conv_b_sectors(p, pair_block, pair_k, row_blocks, col_tiles, starts,
                                                                 widths, sector)
    else:
        b_sectors = _summed_row_segments(pair_block, row_blocks, pair_k, starts, widths, p.n, vb, sector)
        cached_ptr, cached = _cached_b_sectors(pair_block, pair_k, row_blocks, col_tiles, starts, widths, p.n, vb,
                                               sector)
        b_bytes = p.k * p.n * vb
    c_sectors = _summed_row_segments(np.arange(p.m) // rows, row_blocks, np.arange(p.m, dtype=np.int64), starts, widths,
                                     p.n, vb, sector)
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
        kernel="sparsert_conv" if implicit_conv else "sparsert", threads_per_cta=warps_per_cta * w, registers_per_thread=spec.registers_per_thread + rows,
        shared_memory_per_cta=0, warp_cta=np.repeat(np.arange(ctas), warps_per_cta),
        group_warp=np.arange(ctas * warps_per_cta), group_issue=issue[block_of_warp],
        group_latency=latency[block_of_warp], cta_l1_bytes=cta_l1, cta_l2_sectors=cta_l2,
        dram_read_bytes=int(instructions.sum()) * spec.instruction_bytes + b_bytes,
        dram_write_bytes=p.m * p.n * vb, dense_operand_bytes=b_bytes, fmas=p.nnz * p.n, tensor_macs=0,
        products=p.nnz * p.n, atomics=0, tensor_core=False, cached_ptr=cached_ptr, cached_sectors=cached,
        code_block=np.tile(np.arange(row_blocks), col_tiles), code_sectors=code)


@lru_cache(maxsize=4)
def _row_block_pairs(p: SparseProblem, rows: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Of the row blocks of ``rows`` rows: each block's non-zeros, the (row block, B row) pairs in order, and each
    block's loads (one ``ld.global.nc`` per distinct B row). Every column width the autotuning tries with this row
    count has the same: computed once per (problem, rows), read-only."""
    row_blocks = -(-p.m // rows)
    block_of = np.repeat(np.arange(p.m) // rows, np.diff(p.csr.indptr))
    nnz_block = np.bincount(block_of, minlength=row_blocks).astype(np.int64)
    pairs = sorted_unique(block_of * max(p.k, 1) + np.asarray(p.csr.indices, dtype=np.int64))   # (row block, B row)
    pair_block, pair_k = pairs // max(p.k, 1), pairs % max(p.k, 1)
    loads = np.bincount(pair_block, minlength=row_blocks).astype(np.int64)
    for array in (nnz_block, pair_block, pair_k, loads):
        array.flags.writeable = False
    return nnz_block, pair_block, pair_k, loads


def _cached_b_sectors(pair_block: np.ndarray, pair_k: np.ndarray, row_blocks: int, col_tiles: int,
                      starts: np.ndarray, widths: np.ndarray, n: int, vb: int, sector: int) -> tuple[np.ndarray, ...]:
    """Per CTA (tile c, row block b: CTA c * row_blocks + b), the distinct sectors of B its warps load: every
    distinct B row k of the block, each warp's column segment of the tile; sorted (B is row-major)."""
    warps = starts.size // col_tiles
    tile_start = starts.reshape(col_tiles, warps)[:, 0]
    tile_width = widths.reshape(col_tiles, warps).sum(axis=1)
    # a tile's warps load adjacent columns: a B row's segments of the tile are one byte range (the sector two warps
    # share listed once, as for the warps' ranges one by one). Entries (tile, pair) in C order: CTA-major (pairs are
    # sorted by block, then row)
    first = (pair_k[None, :] * n + tile_start[:, None]) * vb
    nbytes = np.broadcast_to(tile_width[:, None] * vb, first.shape)
    cta = np.broadcast_to(np.arange(col_tiles)[:, None] * row_blocks + pair_block[None, :], first.shape)
    return cta_sector_lists(cta, first, nbytes, sector, row_blocks * col_tiles)


def conv_input_addresses(layer: ConvLayer, k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Element index in the NCHW input of im2col entry (``k``, ``n``) (broadcast), -1 where it is padding:
    k = (c, r, s) as the weights' (C, R, S) order, n = (image, y, x) of the output."""
    rs = layer.kernel_h * layer.kernel_w
    c, r, s = k // rs, (k // layer.kernel_w) % layer.kernel_h, k % layer.kernel_w
    pixels = layer.out_h * layer.out_w
    image, y, x = n // pixels, (n // layer.out_w) % layer.out_h, n % layer.out_w
    iy = y * layer.stride_h + r - layer.pad_top
    ix = x * layer.stride_w + s - layer.pad_left
    inside = (iy >= 0) & (iy < layer.in_h) & (ix >= 0) & (ix < layer.in_w)
    return np.where(inside, ((image * layer.in_channels + c) * layer.in_h + iy) * layer.in_w + ix, -1)


@lru_cache(maxsize=4)
def _conv_loads(p: SparseProblem, starts: tuple[int, ...], widths: tuple[int, ...], col_tiles: int,
                sector: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Per distinct input row k of the layer's weights (``rows_k``): the sectors each warp segment's load covers
    (``per_load``, (rows, segments)) and the distinct sorted sectors of each (input row, tile) (``lists[ptr[g]:ptr[g +
    1]]``, g = row x tiles + tile, sector numbers below ``radix``). Every row count the autotuning tries reads the same
    input rows: computed once per (problem, tile width)."""
    layer = p.layer
    starts, widths = np.array(starts, dtype=np.int64), np.array(widths, dtype=np.int64)
    segments = starts.size
    rows_k = np.unique(np.asarray(p.csr.indices, dtype=np.int64))          # distinct input rows
    lane = np.arange(int(widths.max(initial=1)), dtype=np.int64)
    active = lane[None, :] < widths[:, None]                               # (segments, lanes)
    element = conv_input_addresses(layer, rows_k[:, None, None], np.where(active, starts[:, None] + lane, 0)[None])
    row, seg, lane_of = np.nonzero(active[None] & (element >= 0))
    sec = element[row, seg, lane_of] * p.value_bytes // sector
    per_load = distinct_per_group(row * segments + seg, sec, rows_k.size * segments).reshape(rows_k.size, segments)
    # distinct sectors of each (input row, tile)
    warps = segments // col_tiles
    radix = int(sec.max(initial=0)) + 1
    lists = sorted_unique((row * col_tiles + seg // warps) * radix + sec)
    group, lists = lists // radix, lists % radix
    ptr = np.searchsorted(group, np.arange(rows_k.size * col_tiles + 1))
    return rows_k, per_load, ptr, lists, radix


def _conv_b_sectors(p: SparseProblem, pair_block: np.ndarray, pair_k: np.ndarray, row_blocks: int, col_tiles: int,
                    starts: np.ndarray, widths: np.ndarray, sector: int) -> tuple[np.ndarray, ...]:
    """sparsert_conv's loads of the input: sectors each warp's load covers, per (row block, warp segment); each CTA's
    distinct sorted sectors (tile c, row block b: CTA c * row_blocks + b); the input tensor's bytes. The sectors of
    one (input row k, warp segment) are the same in every row block: computed once per distinct k."""
    layer = p.layer
    if not isinstance(layer, ConvLayer) or layer.groups != 1:
        raise InputError.single(layer.name, "simt.kernel", "sparsert_conv runs convolutions of one group; "
                                "use sparsert for GEMM / FC and grouped layers")
    segments = starts.size
    rows_k, per_load, ptr, lists, radix = _conv_loads(p, tuple(starts.tolist()), tuple(widths.tolist()), col_tiles,
                                                      sector)
    pair_row = np.searchsorted(rows_k, pair_k)                             # each pair's distinct input row
    b_sectors = np.zeros((row_blocks, segments), dtype=np.int64)
    np.add.at(b_sectors, pair_block, per_load[pair_row])
    entry_tile = np.repeat(np.arange(col_tiles), pair_k.size)               # entries (tile, pair), CTA-major
    entry_group = pair_row[None, :].repeat(col_tiles, axis=0).ravel() * col_tiles + entry_tile
    counts = ptr[entry_group + 1] - ptr[entry_group]
    offset = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    gathered = lists[np.repeat(ptr[entry_group], counts) + offset]
    cta = np.repeat(entry_tile * row_blocks + np.tile(pair_block, col_tiles), counts)
    key = sorted_unique(cta * radix + gathered)
    ctas = row_blocks * col_tiles
    cached_ptr = np.concatenate(([0], np.cumsum(np.bincount(key // radix, minlength=ctas)))).astype(np.int64)
    return b_sectors, cached_ptr, key % radix, layer.input_elements * p.value_bytes

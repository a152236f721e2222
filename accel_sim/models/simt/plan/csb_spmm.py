"""CSB SpMM with load balancing over block rows (Buluc et al., SPAA 2009: a block row whose work is far above the
average is cut into chunks of consecutive blocks, each a task, their partial outputs added) as a warp schedule.

A is stored in beta x beta blocks (``csb_beta``; 0: Buluc et al.'s sqrt(n) power of two), the non-zeros of a block
contiguous (values and packed in-block indices). A CTA takes one chunk of one block row for one 32-column tile of
B, one lane per column (B row-major: a warp's load of a B row segment is coalesced); the chunk's blocks go to its
warps round robin. Per block a warp loads its non-zeros in batches of 32 (one load of values, one of indices),
then per non-zero broadcasts the value and index by shuffles, loads the B row segment (read-only, ``__ldg``: the
CTA's cached sectors), does the FMA and adds the product into the CTA's beta x 32 output tile in shared memory
(``red.shared``: the chunk's warps meet there). The CTA then stores its tile, or adds it into C with atomics when
its block row has several chunks.

Balance (``csb_balance``): a block row's blocks are cut where the work before them in the row reaches a multiple of
``ceil(nnz / units)``, units the block rows or, when the block rows times the column tiles do not fill the SMs,
``ceil(SMs / column tiles)`` (a DNN layer's few, even block rows are split to occupy the GPU; a skewed matrix's long
block rows are split to the average); a block is never split. Off: one chunk per block row.
Block rows without non-zeros launch no CTA (their rows of C are cleared by a memset, not modelled).
"""
from __future__ import annotations

import numpy as np

from accel_sim.foundations.compress.formats.csb import default_beta
from accel_sim.models.simt.plan.machine import Machine
from accel_sim.models.simt.plan.problem import INDEX_BYTES, SparseProblem
from accel_sim.models.simt.plan.schedule import AtomicRuns, Schedule, ceil_div
from accel_sim.models.simt.plan.sectors import span_sectors
from accel_sim.models.simt.plan.spmm import _dense_rows, _row_segments, _tiles
from accel_sim.models.simt.spec import SimtSpec


def chunks_of(block_row: np.ndarray, block_nnz: np.ndarray, nnz: int, units: int, balance: bool) -> np.ndarray:
    """Chunk number (global, block-row order) of each non-empty block, given sorted by (block row, block column):
    with ``balance``, a block row is cut where the work before a block in it reaches a multiple of nnz / units."""
    if not balance or block_row.size == 0:
        local = np.zeros(block_row.size, dtype=np.int64)
    else:
        target = max(1, -(-nnz // units))
        row_start = np.searchsorted(block_row, block_row)                  # first block of each block's row
        before = np.cumsum(block_nnz) - block_nnz                          # work before each block, whole matrix
        local = (before - before[row_start]) // target
    first = np.concatenate(([True], (block_row[1:] != block_row[:-1]) | (local[1:] != local[:-1])))
    return np.cumsum(first) - 1


def csb_spmm(p: SparseProblem, m: Machine, spec: SimtSpec) -> Schedule:
    csr, vb, sector, w = p.csr, p.value_bytes, m.sector, m.warp_size
    beta = spec.csb_beta or default_beta((p.m, p.k))
    block_cols = -(-p.k // beta)
    row_of = np.repeat(np.arange(p.m), p.lengths)
    cols = np.asarray(csr.indices, dtype=np.int64)
    block_of = (row_of // beta) * block_cols + cols // beta                 # each non-zero's block (CSR order)
    blocks, block_of_nnz, block_nnz = np.unique(block_of, return_inverse=True, return_counts=True)
    if blocks.size == 0:                                                    # no non-zero: one empty chunk
        blocks, block_nnz = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
    block_row = blocks // block_cols
    block_rows = -(-p.m // beta)
    starts, widths = _tiles(p.n, w)
    tiles = starts.size
    units = max(block_rows, -(-m.sms // tiles))                             # work units: block rows, or enough to fill the SMs
    chunk = chunks_of(block_row, block_nnz, p.nnz, units, spec.csb_balance)
    chunks = int(chunk.max(initial=-1)) + 1
    warps_per_cta = spec.threads_per_cta // w
    chunk_first = np.searchsorted(chunk, np.arange(chunks))
    warp_of_block = chunk * warps_per_cta + (np.arange(blocks.size) - chunk_first[chunk]) % warps_per_cta
    warps_local = chunks * warps_per_cta
    first = np.cumsum(block_nnz) - block_nnz                                # CSB order: blocks one after another
    batches = ceil_div(block_nnz, w)
    loop = spec.loop_overhead_instructions
    chunk_row = block_row[chunk_first]
    out_rows = np.minimum(beta, p.m - chunk_row * beta)                     # output rows of each chunk's tile
    epilogue = 2 * ceil_div(out_rows, warps_per_cta) + 2                    # zero and write back the tile, set-up
    per_block = batches * (2 + loop) + block_nnz * (2 + 1 + m.fma_issue_cycles + 1 + loop)
    issue = np.bincount(warp_of_block, weights=per_block, minlength=warps_local).astype(np.int64) \
        + np.repeat(epilogue, warps_per_cta)
    latency = m.dram_latency + np.bincount(warp_of_block, weights=batches * (
        m.dram_latency + m.l2_latency + m.shared_memory_latency), minlength=warps_local).astype(np.int64)
    stream = span_sectors(first * vb, block_nnz * vb, sector) + span_sectors(first * INDEX_BYTES,
                                                                             block_nnz * INDEX_BYTES, sector)
    stream_c = np.bincount(chunk, weights=stream, minlength=chunks).astype(np.int64)
    chunk_last = np.concatenate((chunk_first[1:], [blocks.size])) - 1
    pointers = span_sectors(blocks[chunk_first] * INDEX_BYTES, (blocks[chunk_last] - blocks[chunk_first] + 2)
                            * INDEX_BYTES, sector)
    nnz_warp = warp_of_block[block_of_nnz]
    b_requests, b_ptr, b_cached = _dense_rows(p, nnz_warp, warps_local, chunk[block_of_nnz], chunks, starts, widths,
                                              sector)
    b_chunk = np.zeros((chunks, tiles), dtype=np.int64)
    np.add.at(b_chunk, np.arange(warps_local) // warps_per_cta, b_requests)
    rows = np.arange(p.m, dtype=np.int64)
    row_segments = _row_segments(rows, starts, widths, p.n, vb, sector)     # (rows, tiles)
    by_block_row = np.zeros((block_rows, tiles), dtype=np.int64)
    np.add.at(by_block_row, rows // beta, row_segments)
    output = by_block_row[chunk_row]                                        # (chunks, tiles): stored or added
    shared = np.bincount(chunk_row, minlength=block_rows)[chunk_row] > 1    # the chunk's block row has several
    nnz_c = np.bincount(chunk, weights=block_nnz, minlength=chunks).astype(np.int64)
    red = nnz_c[:, None] * widths[None, :] * vb                              # red.shared bytes
    tile_bytes = out_rows[:, None] * widths[None, :] * vb
    l1 = (stream_c[:, None] + pointers[:, None] + b_chunk + output) * sector + red + 2 * tile_bytes
    l2 = stream_c[:, None] + pointers[:, None] + output
    cta_of = (np.arange(tiles)[:, None] * chunks + np.arange(chunks)[None, :])   # CTA (tile t, chunk c), tile-major
    atomic = {}
    shared_rows = np.flatnonzero(shared)
    if shared_rows.size:                      # each chunk of a shared block row adds its tile's rows into C
        row_first = chunk_row[shared_rows] * beta
        row_list = np.concatenate([np.arange(a, a + b) for a, b in zip(row_first.tolist(), out_rows[shared_rows].tolist())])
        owner = np.repeat(shared_rows, out_rows[shared_rows])
        first_sector = (row_list[None, :] * p.n + starts[:, None]) * vb // sector             # (tiles, rows)
        count = span_sectors((row_list[None, :] * p.n + starts[:, None]) * vb, np.broadcast_to(widths[:, None] * vb,
                                                                                                first_sector.shape), sector)
        atomic = dict(atomic=AtomicRuns(cta_of[:, owner], first_sector, count))
    return Schedule(
        kernel="csb_spmm", threads_per_cta=spec.threads_per_cta, registers_per_thread=spec.registers_per_thread,
        shared_memory_per_cta=beta * w * vb, warp_cta=(np.arange(tiles)[:, None] * chunks
                                                       + np.arange(warps_local)[None, :] // warps_per_cta).ravel(),
        group_warp=np.arange(warps_local * tiles), group_issue=np.tile(issue, tiles),
        group_latency=np.tile(latency, tiles), cta_l1_bytes=l1.T.ravel().astype(np.int64),
        cta_l2_sectors=l2.T.ravel().astype(np.int64),
        dram_read_bytes=p.nnz * (vb + INDEX_BYTES) + (block_rows * block_cols + 1) * INDEX_BYTES + p.k * p.n * vb,
        dram_write_bytes=p.m * p.n * vb, dense_operand_bytes=p.k * p.n * vb, fmas=p.nnz * p.n, tensor_macs=0,
        products=p.nnz * p.n, atomics=int(atomic["atomic"].count.sum()) if atomic else 0, tensor_core=False,
        cached_ptr=b_ptr, cached_sectors=b_cached, **atomic)

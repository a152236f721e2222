"""CSB SpMV (Buluc et al., SPAA 2009) as a warp schedule, for A x and A^T x alike.

Lines are block rows for A x and block columns for A^T x. A CTA takes ``warps_per_cta``
consecutive blocks of one line, one block per warp: the warp stages its block's beta-long input
segment in shared memory, streams the block's non-zeros (values and packed in-block indices,
coalesced) and adds each product into the CTA's output segment with a shared-memory atomic. The
CTA then stores its output segment, or adds it into y with atomics when its line has several CTAs.
Only the line's direction changes between A x and A^T x: the block pointers of a block column are
strided (one sector per block), the non-zeros are the same.
"""
from __future__ import annotations

import numpy as np

from accel_sim.foundations.compress.formats.csb import block_layout, default_beta
from accel_sim.models.simt.plan.csr import _columns
from accel_sim.models.simt.plan.machine import Machine
from accel_sim.models.simt.plan.problem import INDEX_BYTES, SparseProblem
from accel_sim.models.simt.plan.schedule import AtomicRuns, Schedule, ceil_div
from accel_sim.models.simt.plan.sectors import span_sectors
from accel_sim.models.simt.spec import SimtSpec

VECTOR_BYTES = 16   # a 128-bit load or store per lane (segment copies)


def csb_beta(p: SparseProblem, spec: SimtSpec) -> int:
    """The configured block side, or Buluc et al.'s default for the operand's shape."""
    return spec.csb_beta or default_beta((p.m, p.k))


def block_pointers(p: SparseProblem, beta: int) -> tuple[np.ndarray, int, int]:
    """A's CSB block pointers (:class:`~accel_sim.foundations.compress.formats.CSB`'s ``block_ptr``: one offset per
    beta x beta block, blocks row-major, plus the total) and its block grid, counted from the CSR's non-zeros (the same
    non-zeros; the dense matrix is never built)."""
    row_of = np.repeat(np.arange(p.m, dtype=np.int64), p.lengths)
    _, block_ptr = block_layout(row_of, np.asarray(p.csr.indices, dtype=np.int64), (p.m, p.k), beta)
    return block_ptr, -(-p.m // beta), -(-p.k // beta)


def csb_spmv(p: SparseProblem, m: Machine, spec: SimtSpec, beta: int) -> Schedule:
    vb, sector, w = p.value_bytes, m.sector, m.warp_size
    block_ptr, block_rows, block_cols = block_pointers(p, beta)
    per_block = np.diff(block_ptr).reshape(block_rows, block_cols)
    starts = block_ptr[:-1].reshape(block_rows, block_cols)
    if spec.transpose:                                                 # lines are block columns
        per_block, starts = per_block.T, starts.T
    lines, blocks_per_line = per_block.shape
    in_len, out_len = (p.m, p.k) if spec.transpose else (p.k, p.m)
    group = spec.threads_per_cta // w                                  # blocks per CTA, one per warp
    chunks = -(-blocks_per_line // group)
    padded = chunks * group
    nnz = np.zeros((lines, padded), dtype=np.int64)
    nnz[:, :blocks_per_line] = per_block
    first = np.zeros((lines, padded), dtype=np.int64)
    first[:, :blocks_per_line] = starts
    block_index = np.arange(padded)
    seg_len = np.clip(in_len - block_index * beta, 0, beta)            # each block's input segment
    nonempty = nnz > 0
    iters = ceil_div(nnz, w)
    loop = spec.loop_overhead_instructions
    seg_copy = -(-beta * vb // (VECTOR_BYTES * w))                     # one warp copies its segment
    out_seg = np.minimum(beta, out_len - np.arange(lines) * beta)      # (lines,)
    out_copy = ceil_div(out_seg * vb, VECTOR_BYTES * spec.threads_per_cta)
    issue = (2 + nonempty * (2 * seg_copy + 1) + iters * (3 + m.fma_issue_cycles + 1 + loop)
             + (2 * out_copy + 1)[:, None])
    latency = m.dram_latency + nonempty * (m.l2_latency + m.shared_memory_latency) + iters * (
        m.dram_latency + m.shared_memory_latency)
    stream = span_sectors(first * vb, nnz * vb, sector) + span_sectors(first * INDEX_BYTES, nnz * INDEX_BYTES, sector)
    segments = nonempty * span_sectors(block_index * beta * vb, seg_len * vb, sector)[None, :]
    by_cta = (lines, chunks, group)
    stream_c, segments_c = stream.reshape(by_cta).sum(axis=2), segments.reshape(by_cta).sum(axis=2)
    nnz_c = nnz.reshape(by_cta).sum(axis=2)
    if spec.transpose:
        pointers = np.minimum(group, blocks_per_line - np.arange(chunks) * group)[None, :] + np.zeros((lines, 1), int)
    else:
        first_block = np.arange(lines)[:, None] * blocks_per_line + np.arange(chunks)[None, :] * group
        count = np.minimum(group, blocks_per_line - np.arange(chunks) * group)[None, :]
        pointers = span_sectors(first_block * INDEX_BYTES, (count + 1) * INDEX_BYTES, sector)
    out_sectors = span_sectors(np.arange(lines) * beta * vb, out_seg * vb, sector)[:, None]
    shared = chunks > 1                                                # partial output segments meet in y
    output = out_sectors + np.zeros((1, chunks), dtype=np.int64)      # stored, or added with atomics (a sector each)
    staged = (segments_c * sector * 2 + nnz_c * 3 * vb + out_seg[:, None] * vb)
    l2 = stream_c + segments_c + pointers + output
    l1 = (stream_c + segments_c + pointers + out_sectors) * sector + staged
    ctas = lines * chunks
    requests = {}
    if shared:                                                         # each CTA adds its output segment into y
        requests = dict(atomic=AtomicRuns(np.arange(ctas), np.repeat(np.arange(lines) * beta * vb // sector, chunks),
                                          np.repeat(out_sectors[:, 0], chunks)))
    return _columns(Schedule(
        kernel="csb", threads_per_cta=spec.threads_per_cta, registers_per_thread=spec.registers_per_thread,
        shared_memory_per_cta=(group + 1) * beta * vb, warp_cta=np.repeat(np.arange(ctas), group),
        group_warp=np.arange(ctas * group), group_issue=issue.ravel().astype(np.int64),
        group_latency=latency.ravel().astype(np.int64), cta_l1_bytes=l1.ravel().astype(np.int64),
        cta_l2_sectors=l2.ravel().astype(np.int64),
        dram_read_bytes=p.nnz * (vb + INDEX_BYTES) + block_ptr.size * INDEX_BYTES + p.n * in_len * vb,
        dram_write_bytes=p.n * out_len * vb, dense_operand_bytes=p.n * in_len * vb, fmas=p.nnz * p.n, tensor_macs=0, products=p.nnz * p.n,
        atomics=int(out_sectors.sum()) * chunks * p.n if shared else 0, tensor_core=False, **requests), p.n,
        -(-out_len * vb // sector))

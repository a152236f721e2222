"""CSB SpMV (Buluc et al., SPAA 2009) as a warp schedule, for A x and A^T x alike.

A CTA owns one block line: a block row for A x, a block column for A^T x. Its output segment
(beta values) is accumulated in shared memory; for each non-empty block of its line it stages the
block's beta-long input segment in shared memory, then its warps stream the block's non-zeros
(values and packed in-block indices, coalesced) and add each product into the output segment with
a shared-memory atomic. Only the line's direction changes between A x and A^T x: the block
pointers of a block column are strided (one sector per block), the non-zeros are the same.
"""
from __future__ import annotations

import numpy as np

from accel_sim.compress.formats import CSB
from accel_sim.compress.formats.csb import default_beta
from accel_sim.simt.plan.csr import _columns
from accel_sim.simt.plan.machine import Machine
from accel_sim.simt.plan.problem import INDEX_BYTES, SparseProblem
from accel_sim.simt.plan.schedule import Schedule, ceil_div
from accel_sim.simt.plan.sectors import span_sectors
from accel_sim.simt.spec import SimtSpec

VECTOR_BYTES = 16   # a 128-bit load or store per lane (segment copies)


def csb_beta(p: SparseProblem, spec: SimtSpec) -> int:
    """The configured block side, or Buluc et al.'s default for the operand's shape."""
    return spec.csb_beta or default_beta((p.m, p.k))


def csb_spmv(p: SparseProblem, m: Machine, spec: SimtSpec, beta: int) -> Schedule:
    vb, sector, w = p.value_bytes, m.sector, m.warp_size
    csb = CSB.from_dense(p.dense, beta=beta)
    block_rows, block_cols = csb.block_grid
    per_block = np.diff(csb.block_ptr).reshape(block_rows, block_cols)
    if spec.transpose:
        per_block = per_block.T                                        # lines are block columns
    lines, blocks_per_line = per_block.shape
    in_len, out_len = (p.m, p.k) if spec.transpose else (p.k, p.m)
    warps_per_cta = spec.threads_per_cta // w
    threads = spec.threads_per_cta
    iters = ceil_div(per_block, w)                                     # (lines, blocks) warp iterations
    nonempty = per_block > 0
    share = np.stack([ceil_div(np.maximum(iters - i, 0), warps_per_cta) for i in range(warps_per_cta)], axis=-1)
    seg_len = np.minimum(beta, in_len - np.arange(blocks_per_line) * beta)          # input segment of each block
    seg_copy = ceil_div(seg_len * vb, VECTOR_BYTES * threads)          # vector copies per lane
    loop = spec.loop_overhead_instructions
    per_warp_issue = (nonempty[..., None] * (2 * seg_copy[None, :, None] + 1)
                      + share * (3 + m.fma_issue_cycles + 1 + loop)).sum(axis=1)     # (lines, warps)
    out_seg = np.minimum(beta, out_len - np.arange(lines) * beta)
    store = ceil_div(out_seg * vb, VECTOR_BYTES * threads)
    issue = per_warp_issue + 2 * store[:, None] + 1
    latency = (nonempty.sum(axis=1)[:, None] * (m.l2_latency + m.shared_memory_latency)
               + share.sum(axis=1) * (m.dram_latency + m.shared_memory_latency) + m.dram_latency)
    starts = csb.block_ptr[:-1].reshape(block_rows, block_cols)
    if spec.transpose:
        starts = starts.T
    stream = (span_sectors(starts * vb, per_block * vb, sector)
              + span_sectors(starts * INDEX_BYTES, per_block * INDEX_BYTES, sector)).sum(axis=1)
    segments = (nonempty * span_sectors(np.arange(blocks_per_line) * beta * vb, seg_len * vb, sector)[None, :]).sum(axis=1)
    if spec.transpose:
        pointers = nonempty.sum(axis=1) + 1                            # strided: one sector per block
    else:
        pointers = span_sectors(np.arange(lines) * blocks_per_line * INDEX_BYTES,
                                np.full(lines, (blocks_per_line + 1) * INDEX_BYTES), sector)
    out_store = span_sectors(np.arange(lines) * beta * vb, out_seg * vb, sector)
    nnz_line = per_block.sum(axis=1)
    staged = (nonempty * seg_len[None, :]).sum(axis=1) * vb * 2 + nnz_line * 3 * vb + out_seg * vb * 2
    l2 = stream + segments + pointers + out_store
    l1 = (stream + pointers + segments + out_store) * sector + staged
    cta = np.repeat(np.arange(lines), warps_per_cta)
    return _columns(Schedule(
        kernel="csb", threads_per_cta=threads, registers_per_thread=spec.registers_per_thread,
        shared_memory_per_cta=2 * beta * vb, warp_cta=cta, group_warp=np.arange(cta.size),
        group_issue=issue.ravel().astype(np.int64), group_latency=latency.ravel().astype(np.int64),
        cta_l1_bytes=l1.astype(np.int64), cta_l2_sectors=l2.astype(np.int64),
        dram_read_bytes=p.nnz * (vb + INDEX_BYTES) + (csb.block_ptr.size) * INDEX_BYTES + p.n * in_len * vb,
        dram_write_bytes=p.n * out_len * vb, fmas=p.nnz * p.n, tensor_macs=0, products=p.nnz * p.n, atomics=0,
        tensor_core=False), p.n)

"""Merge-based CSR SpMV (Merrill and Garland, SC 2016; CUB's DeviceSpmv) as a warp schedule.

The merge path of the row ends and the non-zeros (``nnz + rows`` items) is cut into equal shares of
``merge_items_per_thread`` items per thread, so every thread has the same work whatever the row lengths. A CTA
loads its tile's non-zeros (values and column indices, coalesced) and its rows' end offsets, gathers x at the
column indices and stages the products and the offsets in shared memory; each thread then finds its share's start
by a binary search of the tile in shared memory, walks its items (an add per non-zero, a store of y per row end)
and the CTA adds the partial row a share boundary cuts across its threads (a reduce-by-key of shuffles). A row cut
by the CTA's end is finished by an atomic add of the carry-out into y (CUB runs a fix-up kernel; assumption: one
atomic request). A B with N columns runs the kernel once per column (grid.y = N), as the CSR SpMV kernels.

Per warp: its 32 threads' shares. Exposed latency: the search probes in shared memory, one DRAM and one L2 latency
(the tile's loads are unrolled, ``ITEMS_PER_THREAD`` independent loads per thread in CUB's AgentSpmv, so all its
batches are in flight together; the gather of x waits for the column indices), the walk's shared-memory latency.
"""
from __future__ import annotations

import math

import numpy as np

from accel_sim.models.simt.plan.csr import _columns, _pairs
from accel_sim.models.simt.plan.machine import Machine
from accel_sim.models.simt.plan.problem import INDEX_BYTES, SparseProblem
from accel_sim.models.simt.plan.schedule import AtomicRuns, Schedule, ceil_div, per_cta
from accel_sim.models.simt.plan.sectors import distinct_per_group, span_sectors
from accel_sim.models.simt.spec import SimtSpec


def merge_spmv(p: SparseProblem, m: Machine, spec: SimtSpec) -> Schedule:
    csr, vb, sector, w = p.csr, p.value_bytes, m.sector, m.warp_size
    ipt = spec.merge_items_per_thread
    share = w * ipt                                                    # items per warp
    cta_share = spec.threads_per_cta * ipt
    items = p.nnz + p.m
    warps = -(-items // share)
    warps_per_cta = spec.threads_per_cta // w
    ctas = -(-warps // warps_per_cta)
    row_of = np.repeat(np.arange(p.m), p.lengths)
    item_of_nnz = np.arange(p.nnz) + row_of
    item_of_end = np.asarray(csr.indptr[1:], dtype=np.int64) + np.arange(p.m)
    warp_of_nnz, warp_of_end = item_of_nnz // share, item_of_end // share
    nnz_w = np.bincount(warp_of_nnz, minlength=warps).astype(np.int64)
    ends_w = np.bincount(warp_of_end, minlength=warps).astype(np.int64)
    first_nnz = np.cumsum(nnz_w) - nnz_w
    first_end = np.cumsum(ends_w) - ends_w
    batches = ceil_div(nnz_w, w)
    search = max(1, math.ceil(math.log2(cta_share + 1)))
    loop = spec.loop_overhead_instructions
    reduce = int(math.log2(w)) * (1 + m.fma_issue_cycles)
    issue = (search * (1 + loop) + batches * (2 + 1 + m.fma_issue_cycles + 1 + loop)
             + ceil_div(ends_w, w) * 2 + ipt * (2 + m.fma_issue_cycles + loop) + reduce)
    latency = (search * m.shared_memory_latency + (nnz_w > 0) * (m.dram_latency + m.l2_latency)
               + m.shared_memory_latency)
    stream = (span_sectors(first_nnz * vb, nnz_w * vb, sector) + span_sectors(first_nnz * INDEX_BYTES,
                                                                              nnz_w * INDEX_BYTES, sector)
              + span_sectors(first_end * INDEX_BYTES, ends_w * INDEX_BYTES, sector))   # values, indices, row ends
    touched = np.asarray(csr.indices, dtype=np.int64) * vb // sector   # x sectors each non-zero gathers
    batch_of_nnz = (np.arange(p.nnz) - first_nnz[warp_of_nnz]) // w
    gathers = _pairs(warp_of_nnz, batch_of_nnz, touched, warps)        # per warp: its batches' distinct x sectors
    stores = span_sectors(first_end * vb, ends_w * vb, sector)          # y of the rows ending in the warp
    cta_of_warp = np.arange(warps) // warps_per_cta
    cached = distinct_per_group(cta_of_warp[warp_of_nnz], touched, ctas)   # the CTA's L1 keeps x
    staged = 2 * (nnz_w + ends_w) * INDEX_BYTES                          # products and offsets: written, read
    l2 = per_cta(stream + stores, cta_of_warp, ctas) + cached
    l1 = per_cta((stream + gathers + stores) * sector + staged, cta_of_warp, ctas)
    # a CTA whose share ends inside a row (not at a row end) adds its carry-out into that row of y
    cta_last_item = np.minimum((np.arange(ctas) + 1) * cta_share, items) - 1
    cut = np.flatnonzero(~np.isin(cta_last_item, item_of_end))
    cut_row = np.searchsorted(item_of_end, cta_last_item[cut])
    return _columns(Schedule(
        kernel="merge_spmv", threads_per_cta=spec.threads_per_cta, registers_per_thread=spec.registers_per_thread,
        shared_memory_per_cta=cta_share * INDEX_BYTES + spec.threads_per_cta * INDEX_BYTES, warp_cta=cta_of_warp,
        group_warp=np.arange(warps), group_issue=issue.astype(np.int64), group_latency=latency.astype(np.int64),
        cta_l1_bytes=l1, cta_l2_sectors=l2 + np.bincount(cut, minlength=ctas),
        dram_read_bytes=p.nnz * (vb + INDEX_BYTES) + (p.m + 1) * INDEX_BYTES + p.n * p.k * vb,
        dram_write_bytes=p.n * p.m * vb, dense_operand_bytes=p.n * p.k * vb, fmas=p.nnz * p.n, tensor_macs=0,
        products=p.nnz * p.n, atomics=int(cut.size) * p.n, tensor_core=False,
        atomic=AtomicRuns(cut, cut_row * vb // sector, np.ones(cut.size, np.int64))), p.n, -(-p.m * vb // sector))

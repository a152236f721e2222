"""CSR SpMV kernels as warp schedules: a row per thread (scalar) and a row per warp (vector), for
A x (gather of x) and A^T x (scatter into y with atomics: a CSR row of A is a column of A^T, so
its products land in as many output elements as it has non-zeros).

Per warp loop iteration: a load of the values and one of the column indices of the non-zeros the
warp's lanes handle (coalesced into the distinct sectors they touch), then the dependent gather of
x (A x) or atomic add into y (A^T x, fire-and-forget: one request per distinct sector, whose data crosses
the SM's L2 port once, as a store's, and whose read-modify-write the atomic unit of the sector's L2 slice
executes, one turn per add to its most-updated address).
An iteration waits for its streamed loads (DRAM latency) and, for A x, the dependent gather (L2).
A B with N columns runs the kernel once per column (grid.y = N), each on a contiguous column copy.
"""
from __future__ import annotations

import numpy as np

from accel_sim.models.simt.plan.machine import Machine
from accel_sim.models.simt.plan.problem import INDEX_BYTES, SparseProblem
from accel_sim.models.simt.plan.schedule import AtomicRequests, AtomicRuns, Schedule, ceil_div, per_cta
from accel_sim.models.simt.plan.sectors import distinct_per_group, span_sectors
from accel_sim.models.simt.spec import SimtSpec



def _pairs(owner: np.ndarray, sub: np.ndarray, sector: np.ndarray, owners: int) -> np.ndarray:
    """Distinct (sub, sector) pairs per owner: the sectors of each iteration ``sub`` of each warp."""
    sub = np.asarray(sub, dtype=np.int64)
    return distinct_per_group(owner, sub * (int(sector.max(initial=0)) + 1) + sector, owners)


def _scatter_requests(group: np.ndarray, column: np.ndarray, value_bytes: int, sector: int) -> tuple[np.ndarray, ...]:
    """The atomic requests of a scatter: per distinct (group, sector), a warp instruction's adds into one sector of y,
    and the most adds one address of it receives (lanes adding into the same column). Returns ``(group, sector,
    serial)`` sorted by group then sector."""
    group, column = np.asarray(group, dtype=np.int64), np.asarray(column, dtype=np.int64)
    if group.size == 0:
        return group, group, group
    radix = int(column.max()) + 1
    addresses, adds = np.unique(group * radix + column, return_counts=True)       # (group, column), adds to it
    g, word = addresses // radix, addresses % radix
    sectors = word * value_bytes // sector
    s_radix = int(sectors.max()) + 1
    key = g * s_radix + sectors
    first = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
    unique = key[first]
    return unique // s_radix, unique % s_radix, np.maximum.reduceat(adds, first)


def csr_spmv(p: SparseProblem, m: Machine, spec: SimtSpec, per_warp_rows: bool) -> Schedule:
    """``per_warp_rows``: csr_vector (a warp per row, 32 non-zeros per iteration); else csr_scalar."""
    csr, lengths, vb, sector, w = p.csr, p.lengths, p.value_bytes, m.sector, m.warp_size
    rows = p.m
    row_of = np.repeat(np.arange(rows), lengths)
    pos = np.arange(p.nnz) - csr.indptr[row_of]
    if per_warp_rows:
        warps, warp_of, iteration = rows, row_of, pos // w
        trips = ceil_div(lengths, w)
        rows_of_warp = np.ones(warps, dtype=np.int64)
        first_row = np.arange(warps)
    else:
        warps, warp_of, iteration = -(-rows // w), row_of // w, pos
        padded = np.zeros(warps * w, dtype=np.int64)
        padded[:rows] = lengths
        trips = padded.reshape(warps, w).max(axis=1)
        first_row = np.arange(warps) * w
        rows_of_warp = np.minimum(w, rows - first_row)
    entry = csr.indptr[row_of] + pos
    stream = (_pairs(warp_of, iteration, entry * vb // sector, warps)
              + _pairs(warp_of, iteration, entry * INDEX_BYTES // sector, warps))
    touched = np.asarray(csr.indices, dtype=np.int64) * vb // sector     # x (A x) or y (A^T x) sectors
    per_iteration = _pairs(warp_of, iteration, touched, warps)
    pointers = span_sectors(first_row * INDEX_BYTES, (rows_of_warp + 1) * INDEX_BYTES, sector)
    own = span_sectors(first_row * vb, rows_of_warp * vb, sector)         # y stored (A x) or x read (A^T x)
    warps_per_cta = spec.threads_per_cta // w
    cta_of_warp = np.arange(warps) // warps_per_cta
    ctas = -(-warps // warps_per_cta)
    loop = spec.loop_overhead_instructions
    requests = {}
    if not spec.transpose:
        reduction = int(np.log2(w)) * (1 + m.fma_issue_cycles) if per_warp_rows else 0   # shuffle + add
        issue = trips * (3 + m.fma_issue_cycles + loop) + 2 + reduction + 1
        latency = m.dram_latency + trips * (m.dram_latency + m.l2_latency)
        cached = distinct_per_group(cta_of_warp[warp_of], touched, ctas)   # the CTA's L1 keeps x
        l2 = per_cta(stream + pointers + own, cta_of_warp, ctas) + cached
        l1 = per_cta((stream + pointers + per_iteration) * sector, cta_of_warp, ctas)
        atomics = 0
        x_len, y_len = p.k, p.m
    else:
        issue = trips * (3 + m.fma_issue_cycles + loop) + 2 + 1
        latency = 2 * m.dram_latency + trips * m.dram_latency
        l2 = per_cta(stream + pointers + own + per_iteration, cta_of_warp, ctas)     # a request: its sector, once
        l1 = per_cta((stream + pointers + own) * sector, cta_of_warp, ctas)
        atomics = int(per_iteration.sum()) * p.n
        x_len, y_len = p.m, p.k
        trip = int(iteration.max(initial=0)) + 1
        group, atomic_sector, serial = _scatter_requests(warp_of * trip + iteration, csr.indices, vb, sector)
        requests = dict(atomic=AtomicRequests(cta_of_warp[group // trip], atomic_sector, serial))
    return _columns(Schedule(
        kernel="csr_vector" if per_warp_rows else "csr_scalar", threads_per_cta=spec.threads_per_cta,
        registers_per_thread=spec.registers_per_thread, shared_memory_per_cta=0, warp_cta=cta_of_warp,
        group_warp=np.arange(warps), group_issue=issue.astype(np.int64), group_latency=latency.astype(np.int64),
        cta_l1_bytes=l1, cta_l2_sectors=l2,
        dram_read_bytes=p.nnz * (vb + INDEX_BYTES) + (rows + 1) * INDEX_BYTES + p.n * x_len * vb,
        dram_write_bytes=p.n * y_len * vb, dense_operand_bytes=p.n * x_len * vb, fmas=p.nnz * p.n, tensor_macs=0, products=p.nnz * p.n,
        atomics=atomics, tensor_core=False, **requests), p.n, -(-y_len * vb // sector))


def _columns(one: Schedule, columns: int, column_sectors: int) -> Schedule:
    """The single-column schedule launched once per column of B (grid.y), CTAs column after column; column j's
    atomic requests add into its own copy of y, ``column_sectors`` sectors after column j - 1's."""
    if columns == 1:
        return one
    ctas, warps = one.ctas, one.warps
    offsets = np.arange(columns)
    requests = {}
    if isinstance(one.atomic, AtomicRuns):   # the runs shifted, still runs
        runs = one.atomic
        requests = dict(atomic=AtomicRuns(
            (np.asarray(runs.run_cta).ravel()[None, :] + ctas * offsets[:, None]).ravel(),
            (np.asarray(runs.first).ravel()[None, :] + column_sectors * offsets[:, None]).ravel(),
            np.tile(np.asarray(runs.count).ravel(), columns)))
    elif one.atomic is not None:
        requests = dict(atomic=AtomicRequests((one.atomic_cta[None, :] + ctas * offsets[:, None]).ravel(),
                                              (one.atomic_sector[None, :] + column_sectors * offsets[:, None]).ravel(),
                                              np.tile(one.atomic_serial, columns)))
    return Schedule(
        kernel=one.kernel, threads_per_cta=one.threads_per_cta, registers_per_thread=one.registers_per_thread,
        shared_memory_per_cta=one.shared_memory_per_cta,
        warp_cta=(one.warp_cta[None, :] + ctas * offsets[:, None]).ravel(),
        group_warp=(one.group_warp[None, :] + warps * offsets[:, None]).ravel(),
        group_issue=np.tile(one.group_issue, columns), group_latency=np.tile(one.group_latency, columns),
        cta_l1_bytes=np.tile(one.cta_l1_bytes, columns), cta_l2_sectors=np.tile(one.cta_l2_sectors, columns),
        dram_read_bytes=one.dram_read_bytes, dram_write_bytes=one.dram_write_bytes,
        dense_operand_bytes=one.dense_operand_bytes, fmas=one.fmas,
        tensor_macs=one.tensor_macs, products=one.products, atomics=one.atomics, tensor_core=one.tensor_core,
        **requests)

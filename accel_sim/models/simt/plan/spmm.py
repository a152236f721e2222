"""CSR SpMM kernels as warp schedules: Sputnik-style and merge-based.

Sputnik (Gale et al., SC 2020): 1-D tiles (a subwarp computes ``tile_n`` columns of one output
row), subwarp tiling (``warp_size / subwarp`` rows per warp when the tile is narrower than a warp
of vector loads), row swizzle (rows launched longest first, so a warp's subwarps have similar
lengths and long rows do not trail), vector loads of B (``vector_width`` values per lane). Per
batch of ``subwarp`` non-zeros the subwarp stages values and indices in shared memory (with
``reverse_offset_alignment``, Sputnik's reverse-offset memory alignment: batches of ``subwarp x
vector_width`` non-zeros loaded as vectors from the row's start backed up to a vector boundary, the
leading entries of the previous row masked: fewer, wider loads; the masked entries are staged, not
multiplied, and share the first real entry's sector); per
non-zero each lane loads a vector of B's row and does ``vector_width`` FMAs. A warp runs its
subwarps in lock step: it iterates as often as its longest row.

Merge-based (Yang, Buluc, Owens 2018): the merge path of row ends and non-zeros is cut into equal
shares, one per warp, so every warp has the same work whatever the row lengths; each lane owns one
of 32 columns of B (row-major B: a warp's load of a B row is coalesced); rows cut by a share
boundary are finished with atomic adds (the carry-out). Values and indices reach the lanes by
shuffles.

B is loaded read-only (``__ldg``): each CTA's distinct B row segments go through the SM's L1, shared by
the CTAs the SM runs, and only its misses reach L2.
"""
from __future__ import annotations

import math

import numpy as np

from accel_sim.models.simt.plan.machine import Machine
from accel_sim.models.simt.plan.problem import INDEX_BYTES, SparseProblem
from accel_sim.models.simt.plan.schedule import AtomicRuns, Schedule, ceil_div
from accel_sim.models.simt.plan.sectors import cta_sector_lists, distinct_per_group, sorted_unique, span_sectors
from accel_sim.models.simt.spec import SimtSpec


def _tiles(n: int, tile: int) -> tuple[np.ndarray, np.ndarray]:
    """First column and width of each column tile."""
    starts = np.arange(0, n, tile, dtype=np.int64)
    return starts, np.minimum(tile, n - starts)


def _row_segments(rows: np.ndarray, starts: np.ndarray, widths: np.ndarray, n: int, vb: int,
                  sector: int) -> np.ndarray:
    """Sectors of each row's segment in each column tile: (rows, tiles)."""
    period = _period(n, vb, sector)
    if rows.size > period:                                    # a row's sectors follow from its phase: look them up
        return _phase_segments(period, starts, widths, n, vb, sector)[np.asarray(rows) % period]
    return span_sectors((rows[:, None] * n + starts[None, :]) * vb, np.broadcast_to(widths * vb, (rows.size, starts.size)),
                        sector)


def _period(n: int, vb: int, sector: int) -> int:
    """Rows after which a row of ``n`` values of ``vb`` bytes starts at the same offset inside a sector again."""
    return sector // math.gcd(n * vb, sector)


def _phase_segments(period: int, starts: np.ndarray, widths: np.ndarray, n: int, vb: int, sector: int) -> np.ndarray:
    """:func:`_row_segments` of rows ``0 .. period - 1``: row ``r``'s are those of every row ``r`` modulo the period
    (the same offsets inside their sectors)."""
    return _row_segments(np.arange(period, dtype=np.int64), starts, widths, n, vb, sector)


def _summed_row_segments(owner: np.ndarray, owners: int, rows: np.ndarray, starts: np.ndarray, widths: np.ndarray,
                         n: int, vb: int, sector: int) -> np.ndarray:
    """Per owner, the sectors of its rows' segments in each column tile, summed: (owners, tiles) (each row's own as
    :func:`_row_segments`; counted by phase, times the phase's sectors)."""
    period = _period(n, vb, sector)
    phases = np.bincount(np.asarray(owner, dtype=np.int64) * period + np.asarray(rows, dtype=np.int64) % period,
                         minlength=owners * period).reshape(owners, period)
    return phases @ _phase_segments(period, starts, widths, n, vb, sector)


def _distinct_rows(cta_local: np.ndarray, cols: np.ndarray, ctas_local: int) -> tuple[np.ndarray, np.ndarray]:
    """Distinct (CTA, B row) pairs: the CTA of each pair and its B row."""
    radix = int(cols.max(initial=0)) + 1
    key = sorted_unique(cta_local.astype(np.int64) * radix + cols)
    return key // radix, key % radix


def _dense_rows(p: SparseProblem, owner: np.ndarray, owners: int, cta_local: np.ndarray, ctas_local: int,
                starts: np.ndarray, widths: np.ndarray, sector: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """B traffic per column tile: sectors each owner (row or warp) of a non-zero requests, (owners, tiles),
    and the distinct sectors each CTA (tile t, local CTA l: CTA t * ctas_local + l) loads through the SM's L1,
    the segments of the distinct B rows it touches, as ``(ptr, sectors)`` (read-only loads: ``__ldg``)."""
    cols = np.asarray(p.csr.indices, dtype=np.int64)
    requests = _summed_row_segments(owner, owners, cols, starts, widths, p.n, p.value_bytes, sector)
    pair_cta, pair_col = _distinct_rows(cta_local, cols, ctas_local)
    # entries (tile, pair) in C order: CTA-major, rows rising inside a CTA (B is row-major)
    first = (pair_col[None, :] * p.n + starts[:, None]) * p.value_bytes
    nbytes = np.broadcast_to(widths[:, None] * p.value_bytes, first.shape)
    cta = np.arange(starts.size)[:, None] * ctas_local + pair_cta[None, :]
    ptr, cached = cta_sector_lists(cta, first, nbytes, sector, starts.size * ctas_local)
    return requests, ptr, cached


def sputnik(p: SparseProblem, m: Machine, spec: SimtSpec) -> Schedule:
    csr, lengths, vb, sector, w = p.csr, p.lengths, p.value_bytes, m.sector, m.warp_size
    vw = spec.vector_width
    tile = min(spec.tile_n, -(-p.n // vw) * vw)
    lanes = min(w, -(-tile // vw))
    subwarp = 1 << math.ceil(math.log2(lanes))                       # a power of two dividing the warp
    vectors = -(-tile // (vw * subwarp))                             # vector loads per lane per non-zero
    per_warp = w // subwarp
    warps_per_cta = spec.threads_per_cta // w
    starts, widths = _tiles(p.n, tile)
    tiles = starts.size
    order = np.argsort(-lengths, kind="stable") if spec.row_swizzle else np.arange(p.m)
    slot = np.empty(p.m, dtype=np.int64)
    slot[order] = np.arange(p.m)                                      # launch slot of each row
    warps_per_tile = -(-p.m // per_warp)
    ctas_per_tile = -(-warps_per_tile // warps_per_cta)
    warp_local = slot // per_warp
    # per warp (one tile): lock-step iterations = its longest row
    iters = np.zeros(warps_per_tile, dtype=np.int64)
    np.maximum.at(iters, warp_local, lengths)
    # reverse-offset memory alignment: A loaded in vectors from each row's start backed up to a vector boundary
    a_vector = vw if spec.reverse_offset_alignment else 1
    offset = np.asarray(csr.indptr[:-1], dtype=np.int64) % a_vector   # leading entries loaded and masked
    per_batch = subwarp * a_vector
    batches = np.zeros(warps_per_tile, dtype=np.int64)
    np.maximum.at(batches, warp_local, ceil_div(lengths + offset, per_batch))
    loop = spec.loop_overhead_instructions
    issue = (batches * (2 + 2 + 1 + loop) + iters * (2 + vectors * (1 + vw * m.fma_issue_cycles) + loop)
             + vectors + 2)
    latency = m.dram_latency + batches * (m.dram_latency + m.shared_memory_latency + m.l2_latency)
    # A's values and indices, per row per batch (the same in every tile)
    row_of = np.repeat(np.arange(p.m), lengths)
    pos = np.arange(p.nnz) - csr.indptr[row_of]
    entry = csr.indptr[row_of] + pos
    batch_key = (pos + offset[row_of]) // per_batch
    stream_row = (distinct_per_group(row_of, batch_key * (p.nnz * vb // sector + 1) + entry * vb // sector, p.m)
                  + distinct_per_group(row_of, batch_key * (p.nnz * INDEX_BYTES // sector + 1)
                                       + entry * INDEX_BYTES // sector, p.m))
    pointers = np.full(p.m, 1, dtype=np.int64)                       # two adjacent row pointers: one sector
    cta_local_of_row = warp_local // warps_per_cta
    b_requests, b_ptr, b_cached = _dense_rows(p, row_of, p.m, cta_local_of_row[row_of], ctas_per_tile, starts, widths,
                                              sector)
    c_store = _row_segments(np.arange(p.m, dtype=np.int64), starts, widths, p.n, vb, sector)
    staged = 2 * (lengths + offset) * (vb + INDEX_BYTES)              # shared-memory write + read of A
    row_l1 = (stream_row[:, None] + pointers[:, None] + b_requests + c_store) * sector + staged[:, None]
    row_l2 = stream_row[:, None] + pointers[:, None] + c_store
    l1 = np.zeros((ctas_per_tile, tiles), dtype=np.int64)
    l2 = np.zeros((ctas_per_tile, tiles), dtype=np.int64)
    np.add.at(l1, cta_local_of_row, row_l1)
    np.add.at(l2, cta_local_of_row, row_l2)
    warp_cta = (np.arange(tiles)[:, None] * ctas_per_tile + np.arange(warps_per_tile)[None, :] // warps_per_cta)
    return Schedule(
        kernel="sputnik", threads_per_cta=spec.threads_per_cta, registers_per_thread=spec.registers_per_thread,
        shared_memory_per_cta=spec.threads_per_cta * a_vector * (vb + INDEX_BYTES), warp_cta=warp_cta.ravel(),
        group_warp=np.arange(warps_per_tile * tiles), group_issue=np.tile(issue, tiles),
        group_latency=np.tile(latency, tiles), cta_l1_bytes=l1.T.ravel(), cta_l2_sectors=l2.T.ravel(),
        dram_read_bytes=p.nnz * (vb + INDEX_BYTES) + (p.m + 1) * INDEX_BYTES + p.k * p.n * vb,
        dram_write_bytes=p.m * p.n * vb, dense_operand_bytes=p.k * p.n * vb, fmas=p.nnz * p.n, tensor_macs=0,
        products=p.nnz * p.n, atomics=0,
        tensor_core=False, cached_ptr=b_ptr, cached_sectors=b_cached)


def merge(p: SparseProblem, m: Machine, spec: SimtSpec) -> Schedule:
    csr, lengths, vb, sector, w = p.csr, p.lengths, p.value_bytes, m.sector, m.warp_size
    share = w * spec.merge_items_per_thread
    items = p.nnz + p.m
    warps_per_tile = -(-items // share)
    row_of = np.repeat(np.arange(p.m), lengths)
    warp_of_nnz = (np.arange(p.nnz) + row_of) // share
    warp_of_end = (csr.indptr[1:] + np.arange(p.m)) // share
    nnz_w = np.bincount(warp_of_nnz, minlength=warps_per_tile).astype(np.int64)
    ends_w = np.bincount(warp_of_end, minlength=warps_per_tile).astype(np.int64)
    first = np.concatenate(([0], np.cumsum(nnz_w)[:-1]))
    batches = ceil_div(nnz_w, w)
    search = max(1, math.ceil(math.log2(items + 1)))                  # the merge-path binary search
    loop = spec.loop_overhead_instructions
    starts, widths = _tiles(p.n, w)
    tiles = starts.size
    carry = (np.arange(warps_per_tile) < warps_per_tile - 1).astype(np.int64)   # a row cut by the share end
    issue = (search * (1 + loop) + batches * (2 + loop) + nnz_w * (2 + 1 + m.fma_issue_cycles + loop)
             + ends_w + carry)
    latency = search * m.dram_latency + batches * (m.dram_latency + m.l2_latency)
    stream = (span_sectors(first * vb, nnz_w * vb, sector) + span_sectors(first * INDEX_BYTES, nnz_w * INDEX_BYTES, sector)
              + search)
    warps_per_cta = spec.threads_per_cta // w
    ctas_per_tile = -(-warps_per_tile // warps_per_cta)
    cta_local_warp = np.arange(warps_per_tile) // warps_per_cta
    b_requests, b_ptr, b_cached = _dense_rows(p, warp_of_nnz, warps_per_tile, cta_local_warp[warp_of_nnz],
                                              ctas_per_tile, starts, widths, sector)
    c_rows = _row_segments(np.arange(p.m, dtype=np.int64), starts, widths, p.n, vb, sector)
    c_store = np.zeros((warps_per_tile, tiles), dtype=np.int64)
    np.add.at(c_store, warp_of_end, c_rows)
    carry_sectors = carry[:, None] * span_sectors(np.zeros_like(starts), widths * vb, sector)[None, :]   # atomic requests
    warp_l1 = (stream[:, None] + b_requests + c_store) * sector
    warp_l2 = stream[:, None] + c_store + carry_sectors
    l1 = np.zeros((ctas_per_tile, tiles), dtype=np.int64)
    l2 = np.zeros((ctas_per_tile, tiles), dtype=np.int64)
    np.add.at(l1, cta_local_warp, warp_l1)
    np.add.at(l2, cta_local_warp, warp_l2)
    warp_cta = np.arange(tiles)[:, None] * ctas_per_tile + cta_local_warp[None, :]
    # carry-outs: a warp whose share ends inside a row adds its partial sums into that row's C segment of each tile
    cut = np.flatnonzero(carry)
    cut_row = np.minimum(p.m - 1, np.searchsorted(warp_of_end, cut, side="right"))
    first = (cut_row[None, :] * p.n + starts[:, None]) * vb // sector                  # (tiles, cut warps)
    carry_runs = AtomicRuns(warp_cta[:, cut], first,
                            np.repeat(span_sectors(np.zeros_like(starts), widths * vb, sector)[:, None], cut.size, axis=1))
    return Schedule(
        kernel="merge", threads_per_cta=spec.threads_per_cta, registers_per_thread=spec.registers_per_thread,
        shared_memory_per_cta=0, warp_cta=warp_cta.ravel(), group_warp=np.arange(warps_per_tile * tiles),
        group_issue=np.tile(issue, tiles), group_latency=np.tile(latency, tiles), cta_l1_bytes=l1.T.ravel(),
        cta_l2_sectors=l2.T.ravel(),
        dram_read_bytes=p.nnz * (vb + INDEX_BYTES) + (p.m + 1) * INDEX_BYTES + p.k * p.n * vb,
        dram_write_bytes=p.m * p.n * vb, dense_operand_bytes=p.k * p.n * vb, fmas=p.nnz * p.n, tensor_macs=0,
        products=p.nnz * p.n,
        atomics=int(carry.sum() * span_sectors(np.zeros_like(starts), widths * vb, sector).sum()), tensor_core=False,
        cached_ptr=b_ptr, cached_sectors=b_cached, atomic=carry_runs)

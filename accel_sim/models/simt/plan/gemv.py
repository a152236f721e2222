"""Dense GEMV on the CUDA cores, a warp per output row: the batch-1 baseline y = W x that dense
libraries run instead of a tensor-core GEMM tile (cuBLAS gemv; the warp-per-row form of csr_vector
without indices).

C (M x 1) = A (M x K, dense, the weights transposed) x B (K x 1); a B with N columns runs the
kernel once per column (grid.y = N, CTAs column after column, each on a contiguous copy of its
column). A CTA of ``threads_per_cta`` threads owns one row per warp. Per warp iteration every
lane loads 16 bytes of its row of A (one coalesced 128-bit load: 512 bytes per warp; 8 FP16 or
4 FP32 values per lane at the arch word) and the matching values of B, then does one FMA per
value; after the row a shuffle reduction and lane 0's store of y.

B is loaded read-only (``ld.global.nc``) and listed as the CTA's cached sectors: with
``dense_gemv`` in ``simt.sm_l1_kernels`` (the default) it goes through the L1 data cache shared by
the CTAs resident on the SM, so an SM fetches B from L2 about once, not once per CTA. The rows of A
are streamed past the L1 (``ld.global.nc.L1::no_allocate``, PTX ISA): they are in the CTA's own L1
bytes and L2 sectors, never in the shared L1 (assumption: a streaming kernel does not let its
weights evict B).

Memory-level parallelism: the A and B loads of an iteration are independent of each other
(addresses known ahead) and of the FMAs, so an iteration exposes one memory latency, the larger
of DRAM's and L2's. Assumption: no unrolling, one iteration's loads in flight per warp; the bytes
in flight per SM are then the resident warps x 512 bytes (occupancy): an SM moves at most that
per latency (Little's law), the counting paths' latency hiding by resident CTAs.
"""
from __future__ import annotations

import numpy as np

from accel_sim.models.simt.plan.gemm import VECTOR_BYTES
from accel_sim.models.simt.plan.machine import Machine
from accel_sim.models.simt.plan.problem import SparseProblem
from accel_sim.models.simt.plan.schedule import Schedule, per_cta
from accel_sim.models.simt.plan.sectors import span_sectors
from accel_sim.models.simt.spec import SimtSpec

SETUP_INSTRUCTIONS = 2    # row address and accumulator set-up before the loop (as csr_vector's)


def dense_gemv(p: SparseProblem, m: Machine, spec: SimtSpec) -> Schedule:
    w, sector, eb = m.warp_size, m.sector, p.value_bytes
    rows, columns = p.m, p.n
    row_bytes = p.k * eb
    trips = -(-row_bytes // (w * VECTOR_BYTES))                           # iterations of every warp (row)
    values = max(1, VECTOR_BYTES // eb)                                    # FMAs per lane per iteration
    reduction = int(np.log2(w)) * (1 + m.fma_issue_cycles)                 # shuffle + add per halving
    issue = trips * (2 + values * m.fma_issue_cycles + spec.loop_overhead_instructions) \
        + SETUP_INSTRUCTIONS + reduction + 1
    latency = trips * max(m.dram_latency, m.l2_latency)
    warps_per_cta = spec.threads_per_cta // w
    row_ctas = -(-rows // warps_per_cta)                                   # CTAs of one column
    cta_of_row = np.arange(rows, dtype=np.int64) // warps_per_cta
    ctas = row_ctas * columns
    a_sectors = span_sectors(np.arange(rows, dtype=np.int64) * row_bytes, np.full(rows, row_bytes), sector)
    b_sectors = int(span_sectors(0, row_bytes, sector))                    # one column of B (its contiguous copy)
    first = np.arange(row_ctas, dtype=np.int64) * warps_per_cta
    y_sectors = span_sectors(first * eb, np.minimum(warps_per_cta, rows - first) * eb, sector)
    own = per_cta(a_sectors, cta_of_row, row_ctas) + y_sectors              # A rows streamed, y stored
    l1 = per_cta((a_sectors + b_sectors) * sector, cta_of_row, row_ctas)
    column_of_cta = np.repeat(np.arange(columns, dtype=np.int64), row_ctas)
    cached = (column_of_cta[:, None] * b_sectors + np.arange(b_sectors, dtype=np.int64)[None, :]).ravel()
    warps = rows * columns
    return Schedule(
        kernel="dense_gemv", threads_per_cta=spec.threads_per_cta, registers_per_thread=spec.registers_per_thread,
        shared_memory_per_cta=0,
        warp_cta=(cta_of_row[None, :] + row_ctas * np.arange(columns, dtype=np.int64)[:, None]).ravel(),
        group_warp=np.arange(warps, dtype=np.int64), group_issue=np.full(warps, issue, dtype=np.int64),
        group_latency=np.full(warps, latency, dtype=np.int64), cta_l1_bytes=np.tile(l1, columns),
        cta_l2_sectors=np.tile(own, columns).astype(np.int64),
        dram_read_bytes=rows * row_bytes + p.k * columns * eb, dram_write_bytes=rows * columns * eb,
        dense_operand_bytes=p.k * columns * eb, fmas=rows * p.k * columns, tensor_macs=0,
        products=rows * p.k * columns, atomics=0, tensor_core=False,
        cached_ptr=np.arange(ctas + 1, dtype=np.int64) * b_sectors, cached_sectors=cached,
        in_flight_bytes_per_cta=spec.threads_per_cta * VECTOR_BYTES)              # one 16-byte load per lane

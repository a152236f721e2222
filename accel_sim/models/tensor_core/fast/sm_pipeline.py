"""Fast path, SM pipeline: shared memory and tensor cores per stage, and the three-path pipeline.

Each stage of K passes three paths in order: **load** (L2 -> shared memory, cp.async; see
:mod:`.memory`), **shared memory** (the fill written plus the warps' ldmatrix reads, at the SM's
shared-memory bandwidth; the wave's slowest SM sets the stage) and **compute** (the tensor
cores; warps go round robin to the SM's sub-partitions, so the busiest one has ``ceil(warps /
tensor cores)`` warps; its register-file operand reads overlap its MMAs and the longer of the
two is the stage). A stage enters a path when the path is free and the previous path is done
with it; loaded data arrives ``latency`` cycles after its transfer.

The fill is cp.async: each SM's bytes are written into shared memory as they arrive (PTX ISA,
``cp.async``: the copy is asynchronous to the issuing thread and completes into shared memory;
CUDA C++ Programming Guide, "Asynchronous Data Copies": ``memcpy_async`` / ``cp.async`` bypass
the registers), so a stage's fill starts when its first bytes land (``latency`` after its load
starts) and, its rate capped by the arrival rate, cannot end before the last bytes land; only the
ldmatrix reads wait for the whole stage (``cp.async.wait_group`` then a barrier: CUTLASS
``cutlass/gemm/threadblock/mma_multistage.h``, ``cp_async_wait<Stages - 2>()`` and
``__syncthreads()`` before the warps' fragment loads). The shared-memory port serves one stage's
fill then its reads after the previous stage's reads, so with the wave's slowest fill + reads
``S`` and slowest reads ``R`` a stage leaves shared memory at
``max(arrival end + R, max(arrival start, previous stage out) + S)``. Without cp.async
(``shared_memory_fill: registers``, sm70: CUTLASS ``mma_pipelined.h`` loads a stage into registers
and stores it to shared memory once it has all arrived) the fill starts at the arrival end.

Stages 1 .. n-1 are identical and the last may be shorter, so the finish has a closed form
after stage n-1 (each term is linear in the stage number, so its maximum is at an end), then one
step of the recurrence. With ``loads_in_flight: stages`` the load of stage j also waits for its
slot of the kernel's buffer ring (stage j - (stages - 1) entering the tensor cores; with one
stage, stage j - 1 leaving them): :func:`ring_pipeline_finish` runs the recurrence stage by
stage, all waves at once.
"""
from __future__ import annotations

import numpy as np

from accel_sim.models.tensor_core.fast.memory import transfer_cycles
from accel_sim.models.tensor_core.fast.waves import WaveKinds
from accel_sim.models.tensor_core.plan import TensorCorePlan
from accel_sim.models.tensor_core.plan.mma import cycles_per_mma, mma_read_bits, mmas_per_warp
from accel_sim.models.tensor_core.spec import KernelTile


def shared_memory_cycles(plan: TensorCorePlan, kinds: WaveKinds, fill: np.ndarray,
                         reads: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per wave: the slowest SM's shared-memory time for its per-kind CTA ``fill`` and ``reads`` bits
    (each a transfer of its own), and the slowest SM's reads alone."""
    bandwidth = plan.spec.shared_memory_bandwidth
    read_cycles = transfer_cycles(reads, bandwidth)
    return kinds.maxima(transfer_cycles(fill, bandwidth) + read_cycles), kinds.maxima(read_cycles)


def tensor_core_cycles(plan: TensorCorePlan, tile: KernelTile, extent: int) -> tuple[int, int]:
    """(math, register file) cycles of the busiest sub-partition for one stage of K ``extent``."""
    spec = plan.spec
    mmas = -(-tile.warps // spec.tensor_cores_per_sm) * mmas_per_warp(spec, plan.problem, tile, extent)
    return (mmas * cycles_per_mma(spec, plan.problem),
            int(transfer_cycles(mmas * mma_read_bits(spec, plan.problem), spec.register_file_bandwidth)))


def _paths(times: dict) -> tuple:
    return tuple(np.asarray(times[p]) for p in ("load", "shared_memory", "shared_memory_reads", "compute"))


def _shared_memory_out(arrival_start, arrival_end, previous, smem, reads):
    """When a stage leaves shared memory: its fill from its first bytes (or the port free) at the
    arrival rate or slower, then its reads once it has all landed."""
    return np.maximum(arrival_end + reads, np.maximum(arrival_start, previous) + smem)


def ring_pipeline_finish(latency: int, stages: int, ring: int, full: dict, last: dict,
                         overlap: bool = True) -> np.ndarray:
    """Per wave: when the last stage leaves the tensor cores, a stage's load waiting for its ring slot:
    load j starts when the load path is free and stage j - (ring - 1) has entered the tensor cores
    (``ring`` > 1) or stage j - 1 has left them (``ring`` = 1). ``overlap`` False: the fill waits for
    the whole stage (``shared_memory_fill: registers``)."""
    tl, ts, tr, tm = _paths(full)
    lend = send = cend = np.zeros(np.broadcast(tl, ts, tr, tm).shape, dtype=np.int64)
    starts = []                                                # when each stage entered the tensor cores
    for j in range(stages):
        if j == stages - 1:
            tl, ts, tr, tm = _paths(last)
        gate = cend if ring == 1 and j else (starts[j - ring + 1] if ring > 1 and j >= ring - 1 else 0)
        begin = np.maximum(lend, gate)
        lend = begin + tl
        send = _shared_memory_out((begin if overlap else lend) + latency, lend + latency, send, ts, tr)
        start = np.maximum(send, cend)
        starts.append(start)
        cend = start + tm
    return cend


def _tandem_finish(latency, stages, tl, ts, tm, ll, ls, lm):
    """The three paths in tandem, each stage's shared memory after its whole load has landed."""
    if stages == 1:
        return latency + ll + ls + lm
    before = stages - 2
    fs = latency + tl + ts + before * np.maximum(tl, ts)
    fm = latency + tl + ts + tm + before * np.maximum(np.maximum(tl, ts), tm)
    fs = np.maximum(fs, (stages - 1) * tl + ll + latency) + ls
    return np.maximum(fm, fs) + lm


def pipeline_finish(latency: int, stages: int, full: dict, last: dict, overlap: bool = True) -> np.ndarray:
    """Per wave: when the last stage leaves the tensor cores. ``full`` / ``last`` hold the path
    times (``load``, ``shared_memory`` (fill + reads), ``shared_memory_reads``, ``compute``) of a
    full stage and of the last one. After m identical stages (load j ends at j x tl) stage m leaves
    shared memory at latency + max(m tl + tr, tl + tr + (m - 1) ts, m ts) (the recurrence's fourth term,
    (m - 1) tl + ts, never exceeds these) and the
    tensor cores at max(stage 1 out + m tm, stage m out + tm). ``overlap`` False (the fill waits for
    the whole stage): the tandem line ``latency + tl + ts + (m - 1) max(tl, ts)`` for shared memory."""
    tl, ts, tr, tm = _paths(full)
    ll, ls, lr, lm = _paths(last)
    if not overlap:
        return _tandem_finish(latency, stages, tl, ts, tm, ll, ls, lm)
    if stages == 1:
        return latency + np.maximum(ll + lr, ls) + lm
    m = stages - 1
    first = latency + np.maximum(tl + tr, ts)
    send = latency + np.maximum(np.maximum(m * tl + tr, tl + tr + (m - 1) * ts), m * ts)
    cend = np.maximum(first + m * tm, send + tm)
    send = _shared_memory_out(m * tl + latency, m * tl + ll + latency, send, ls, lr)
    return np.maximum(send, cend) + lm

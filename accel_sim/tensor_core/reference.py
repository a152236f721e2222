"""Per-stage SimPy reference of the tensor-core kernel (slow; for tests and small GEMMs).

It shares only the widths and MMA counts of :mod:`problem` with the fast path and
rebuilds the rest the plain way: it walks the CTAs one by one in launch order (Python
integers, sets of DRAM panels already read), computes each stage's path times per CTA
and takes the wave's sum / max, then runs each wave as SimPy processes - a loader, the
shared-memory path and the math path connected by ``Store`` s, one event per stage and
path - followed by the epilogue. Behaviour: :mod:`kernel_run`.
"""
from __future__ import annotations

import math
from types import MappingProxyType

import simpy

from accel_sim.errors import SimulationError
from accel_sim.tensor_core.kernel_run import PATHS, KernelRun
from accel_sim.tensor_core.problem import (
    BITS_PER_BYTE,
    TCProblem,
    cycles_per_mma,
    element_bits,
    mma_read_bits,
    mmas_per_warp,
    transfer_cycles,
    warps_per_tensor_core,
)
from accel_sim.tensor_core.spec import KernelTile, TensorCoreSpec


def _ctas(problem: TCProblem, tile: KernelTile) -> list[tuple[tuple[int, int], tuple[int, int], int, int]]:
    """(A panel, B panel, rows, cols) of every CTA in launch order."""
    gm, gn = -(-problem.m // tile.m), -(-problem.n // tile.n)
    out = []
    for g in range(problem.groups):
        for j in range(gn):
            for i in range(gm):
                out.append(((g, i), (g, j), min(tile.m, problem.m - i * tile.m), min(tile.n, problem.n - j * tile.n)))
    return out


def _stage_extents(problem: TCProblem, tile: KernelTile) -> list[int]:
    extents, left = [], problem.k
    while left > 0:
        extents.append(min(tile.k, left))
        left -= extents[-1]
    return extents


def _pipeline(stages: list[dict[str, int]], latency: int, epilogue: int, max_cycles: int) -> int:
    """Run one wave's stages through loader -> shared memory -> math; return its cycles."""
    env = simpy.Environment()
    loaded, staged = simpy.Store(env), simpy.Store(env)
    done = env.event()

    def arrive(index: int):
        yield env.timeout(latency)
        yield loaded.put(index)

    def loader():
        for index, stage in enumerate(stages):
            yield env.timeout(stage["load"])
            env.process(arrive(index))

    def shared_memory():
        for _ in stages:
            index = yield loaded.get()
            yield env.timeout(stages[index]["shared_memory"])
            yield staged.put(index)

    def tensor_cores():
        for _ in stages:
            index = yield staged.get()
            yield env.timeout(stages[index]["compute"])
        yield env.timeout(epilogue)
        done.succeed()

    for process in (loader, shared_memory, tensor_cores):
        env.process(process())
    env.run(until=simpy.AnyOf(env, [done, env.timeout(max_cycles + 1)]))
    if not done.triggered:
        raise SimulationError(f"tensor-core reference wave ran past its max_cycles guard {max_cycles}")
    return int(env.now)


def reference_kernel_timing(spec: TensorCoreSpec, problem: TCProblem, tile: KernelTile, latency: int) -> KernelRun:
    """The kernel's cycles and traffic, wave by wave. Each wave runs under a ``max_cycles`` guard:
    its stages one after the other with nothing overlapped (no correct run takes longer)."""
    bits = element_bits(spec, problem)
    ctas = _ctas(problem, tile)
    extents = _stage_extents(problem, tile)
    footprint = problem.groups * (problem.m * problem.slots(problem.k) * bits.a_slot
                                  + problem.k * problem.n * bits.b_value)
    resident = footprint <= spec.l2_size * BITS_PER_BYTE
    wptc = warps_per_tensor_core(spec, tile)
    seen_a: set = set()
    seen_b: set = set()
    cycles = 0
    busy = dict.fromkeys(PATHS + ("compute",), 0)
    totals = dict.fromkeys(("dram_a", "dram_b", "fill_a", "fill_b", "read_a", "read_b", "mmas", "c"), 0)
    waves = [ctas[s:s + spec.sms] for s in range(0, len(ctas), spec.sms)]
    for wave in waves:
        if not resident:
            seen_a, seen_b = set(), set()
        new_rows = new_cols = 0
        for a_panel, b_panel, rows, cols in wave:
            if a_panel not in seen_a:
                seen_a.add(a_panel)
                new_rows += rows
            if b_panel not in seen_b:
                seen_b.add(b_panel)
                new_cols += cols
        stages = []
        for extent in extents:
            a_row = problem.slots(extent) * bits.a_slot
            b_col = extent * bits.b_value
            fills, smem = [], []
            for _, _, rows, cols in wave:
                fill = rows * a_row + cols * b_col
                reads = math.ceil(cols / tile.warp_n) * rows * a_row + math.ceil(rows / tile.warp_m) * cols * b_col
                fills.append(fill)
                smem.append(transfer_cycles(fill + reads, spec.shared_memory_bandwidth))
                totals["fill_a"] += rows * problem.slots(extent)
                totals["fill_b"] += cols * extent
                totals["read_a"] += math.ceil(cols / tile.warp_n) * rows * problem.slots(extent)
                totals["read_b"] += math.ceil(rows / tile.warp_m) * cols * extent
                totals["mmas"] += tile.warps * mmas_per_warp(spec, problem, tile, extent)
            l2 = max(transfer_cycles(sum(fills), spec.l2_bandwidth), transfer_cycles(max(fills), spec.l2_to_sm_bandwidth))
            dram = transfer_cycles(new_rows * a_row + new_cols * b_col, spec.dram_bandwidth)
            totals["dram_a"] += new_rows * problem.slots(extent)
            totals["dram_b"] += new_cols * extent
            mmas = wptc * mmas_per_warp(spec, problem, tile, extent)
            stage = {"l2": l2, "dram": dram, "load": max(l2, dram), "shared_memory": max(smem),
                     "math": mmas * cycles_per_mma(spec),
                     "register_file": transfer_cycles(mmas * mma_read_bits(spec, problem), spec.register_file_bandwidth)}
            stage["compute"] = max(stage["math"], stage["register_file"])
            stages.append(stage)
            for path in busy:
                busy[path] += stage[path]
        outputs = [rows * cols * bits.c_value for _, _, rows, cols in wave]
        totals["c"] += sum(rows * cols for _, _, rows, cols in wave)
        epilogue = max(transfer_cycles(sum(outputs), spec.l2_bandwidth),
                       transfer_cycles(max(outputs), spec.l2_to_sm_bandwidth))
        serial = latency + sum(s["load"] + s["shared_memory"] + s["compute"] for s in stages) + epilogue
        cycles += _pipeline(stages, latency, epilogue, max_cycles=serial)
    return KernelRun(problem=problem, tile=tile, cycles=cycles, compute_cycles=busy.pop("compute"),
                     busy=MappingProxyType(busy), totals=MappingProxyType(totals), waves=len(waves),
                     ctas=len(ctas), l2_resident=resident)

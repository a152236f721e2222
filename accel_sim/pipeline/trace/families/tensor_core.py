"""The tensor-core kernel's trace (the fastest candidate): per SM holding a CTA, each stage of K
on its shared memory (the fill and the warps' ldmatrix reads) and on its tensor cores (the MMAs'
MACs, padding included), the wave's shared-memory barrier, the L2 rounds and the DRAM reads."""
from __future__ import annotations

from accel_sim.models.tensor_core.plan.mma import products_per_mma
from accel_sim.models.tensor_core.reference import reference
from accel_sim.pipeline.trace.source import Example, TraceSource


def totals(plan, counters) -> dict[str, float]:
    spec, bits = plan.spec, plan.bits
    return {"cycles": counters.cycles, "macs": counters.mmas * products_per_mma(spec, plan.problem),
            "dram_bytes": (counters.dram_a * bits.a_slot + bits.group_stream(counters.dram_a)
                           + counters.dram_b * bits.b_value) / 8}


def estimate(plan) -> int:
    """Per CTA and stage of K: shared memory, tensor cores, a barrier wait, an L2 round and a DRAM read."""
    stages = max(-(-plan.problem.k // tile.k) for tile in plan.kernels)
    ctas = max(len(grid.rows) for grid in plan.grids)
    return ctas * (stages + 1) * 5


SOURCE = TraceSource("tensor_core", lambda plan, recorder: reference(plan, None, recorder), totals, estimate,
                     Example("ampere_a100", "trace_examples", "conv_small"))

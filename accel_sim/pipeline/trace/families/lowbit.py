"""The low-bit array's trace: the binarizer, each PE's column per pass (its MACs), each PE's wait
at the pass barrier for the slowest (the idle PE-cycles) and the pipeline drain after each pass."""
from __future__ import annotations

from accel_sim.models.lowbit.reference import reference
from accel_sim.pipeline.trace.source import Example, TraceSource


def totals(plan, counters) -> dict[str, float]:
    return {"cycles": counters.cycles, "macs": counters.macs_issued, "stall_cycles": counters.idle_pe_cycles}


def estimate(plan) -> int:
    passes = -(-len(plan.column_elements) // plan.spec.pes)
    return passes * (2 * plan.spec.pes + 1) + 1


SOURCE = TraceSource("lowbit", lambda plan, recorder: reference(plan, None, recorder), totals, estimate,
                     Example("lowbit", "tiny_conv", "conv2"))

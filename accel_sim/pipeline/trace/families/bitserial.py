"""The bit-serial tiles' trace: each column unit's steps (a ShapeShifter column group, a Pragmatic
column, or the whole grid), their cost in cycles and the MACs their slots issue, and each unit's
waits for the units it must not run ahead of (the column registers)."""
from __future__ import annotations

from accel_sim.models.bitserial.reference import reference
from accel_sim.pipeline.trace.source import Example, TraceSource


def totals(plan, counters) -> dict[str, float]:
    return {"cycles": counters.cycles, "macs": counters.macs_issued}


def estimate(plan) -> int:
    """Per step (every pass, window set, chunk and call): a step and a wait per unit."""
    steps = sum(p.acts.shape[0] * sum(chunk.lines.shape[0] for chunk in plan.chunks[p.group]) for p in plan.passes)
    return 2 * steps * plan.spec.columns


SOURCE = TraceSource("bitserial", lambda plan, recorder: reference(plan, None, recorder), totals, estimate,
                     Example("bitserial_dnnsim_shapeshifter_gs1_cr1", "trace_examples", "conv_small"))

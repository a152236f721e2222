"""The vector unit's trace (a vector layer on any arch): per unit, the SRAM reader's vectors into
the FIFO, the ALUs' work on each (its multiplications shown as the MACs column), the waits on the
FIFO (full or empty: no counter of the vector unit counts them) and the row reductions."""
from __future__ import annotations

from accel_sim.models.vector_unit.reference import reference
from accel_sim.pipeline.trace.source import Example, TraceSource


def totals(plan, counters) -> dict[str, float]:
    return {"cycles": counters.busy_cycles, "macs": counters.mults}


def estimate(plan) -> int:
    """Per vector of every pass: a read, a push, a pop, the work and two waits; a reduction per row."""
    vectors = sum(rows * -(-width // plan.lanes) for rows, width in plan.unit_rows) * len(plan.passes)
    return 6 * vectors + sum(rows for rows, _ in plan.unit_rows) * len(plan.passes)


SOURCE = TraceSource("vector_unit", lambda plan, recorder: reference(plan, None, recorder), totals, estimate,
                     Example("lowbit", "trace_examples", "softmax_small"))

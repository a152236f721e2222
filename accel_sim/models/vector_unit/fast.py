"""Closed-form counting of a vector layer (same counters as the SimPy reference).

Per pass of a row of ``n`` vectors, the SRAM reader (``r`` cycles a vector) feeds the ALUs
(``c`` cycles a vector) through a FIFO: the first vector takes ``r + c`` and each further one
the slower stage's time, ``r + c + (n - 1) max(r, c)``, then the pass's barrier. Rows and
passes follow each other; a unit's time is its rows times one row's; the layer's is the
busiest unit's, after the kernel's launch gap when the layer launches one.
"""
from __future__ import annotations

import math

from accel_sim.foundations.errors import SimulationError
from accel_sim.models.vector_unit.counters import VectorCounters
from accel_sim.models.vector_unit.plan import VectorPlan


def row_cycles(plan: VectorPlan, width: int) -> int:
    n = math.ceil(width / plan.lanes)
    return sum(p.read_cycles + p.compute_cycles + (n - 1) * max(p.read_cycles, p.compute_cycles) + p.barrier_cycles
               for p in plan.passes)


def fast(plan: VectorPlan, max_cycles: int | None = None) -> VectorCounters:
    busy = max(rows * row_cycles(plan, width) for rows, width in plan.unit_rows)
    if max_cycles is not None and plan.launch_cycles + busy > max_cycles:
        raise SimulationError(f"{plan.layer.name}: {plan.launch_cycles + busy} cycles pass max_cycles={max_cycles}")
    elements = sum(rows * width for rows, width in plan.unit_rows)
    rows = sum(rows for rows, _ in plan.unit_rows)
    vectors = sum(rows * math.ceil(width / plan.lanes) for rows, width in plan.unit_rows) * len(plan.passes)
    per = [p.work for p in plan.passes]
    bits = plan.spec.element_bits
    return VectorCounters(
        launch_cycles=plan.launch_cycles, busy_cycles=busy, vectors=vectors,
        adds=elements * sum(w.adds for w in per), mults=elements * sum(w.mults for w in per),
        special=elements * sum(w.special for w in per) + rows * sum(w.row_special for w in per),
        reductions=rows * sum(w.reduced for w in per),
        sram_read_bits=elements * bits * sum(w.reads for w in per),
        sram_write_bits=elements * bits * sum(w.writes for w in per))

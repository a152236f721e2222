"""Eyeriss v2's trace: per round, each weight router's loads, each PE's work unit (its MACs: a
non-zero iact times a non-zero weight), its wait for its weights and for the round's slowest PE.
The reference counts DRAM bits from the plan without timing them, so no DRAM events."""
from __future__ import annotations

from accel_sim.models.eyeriss_v2.reference import _Model, reference
from accel_sim.pipeline.trace.source import Example, TraceSource


def totals(plan, counters) -> dict[str, float]:
    return {"cycles": counters.cycles, "macs": counters.macs_issued}


def estimate(plan) -> int:
    """Per work unit: its compute, a weight wait, a round wait and a router load."""
    return 4 * sum(1 for _ in _Model(plan).units())


SOURCE = TraceSource("eyeriss_v2", lambda plan, recorder: reference(plan, None, recorder), totals, estimate,
                     Example("eyeriss_v2", "trace_examples", "conv_small"))

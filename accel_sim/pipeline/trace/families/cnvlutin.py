"""Cnvlutin's trace: each neuron lane's windows (the cycles its non-zero neurons, or the baseline's
every brick slot, take; the MACs they issue), its waits at the window barrier for the slowest lane
(shown as stalls; no counter of Cnvlutin counts them) and the three DRAM streams."""
from __future__ import annotations

from accel_sim.models.cnvlutin.reference import reference
from accel_sim.pipeline.trace.source import Example, TraceSource


def totals(plan, counters) -> dict[str, float]:
    return {"cycles": counters.cycles, "macs": counters.macs_issued,
            "dram_bytes": (counters.dram_read_words + counters.dram_write_words) * plan.arch.word_bits / 8}


def estimate(plan) -> int:
    """A window event and a barrier wait per lane, window and filter pass; the three streams."""
    windows = sum(work.lane_nonzeros.shape[0] * work.out[0] * work.out[1] for work in plan.groups)
    return 2 * plan.spec.neuron_lanes * windows * len(plan.filters_per_pass) + 3


SOURCE = TraceSource("cnvlutin", lambda plan, recorder: reference(plan, None, recorder), totals, estimate,
                     Example("cnvlutin", "trace_examples", "conv_small"))

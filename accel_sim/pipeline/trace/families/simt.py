"""A SIMT kernel's trace (the fastest candidate): each CTA on its SM slot from dispatch to its
end, with its share of the kernel's MACs (in proportion to its issue slots: the schedule does not
split MACs by CTA), the time the SMs' links still serve the CTAs' demands, and the L2 and DRAM
traffic (one event each: the reference moves the kernel's traffic as one burst list)."""
from __future__ import annotations

from accel_sim.models.simt.reference import reference
from accel_sim.pipeline.trace.source import Example, TraceSource


def totals(plan, counters) -> dict[str, float]:
    return {"cycles": counters.cycles, "macs": counters.fmas + counters.tensor_macs,
            "dram_bytes": counters.dram_read_bytes + counters.dram_write_bytes}


def estimate(plan) -> int:
    """A CTA event each, the serving wait, L2 and DRAM."""
    return max(c.schedule.ctas for c in plan.candidates) + 3


SOURCE = TraceSource("simt", lambda plan, recorder: reference(plan, None, recorder), totals, estimate,
                     Example("ampere_a100_simt", "trace_examples", "conv_small"))

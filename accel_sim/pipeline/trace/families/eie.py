"""EIE's recorded events: the DRAM spill, every broadcast of the LNZD root (and its waits for a full
FIFO), every FIFO entry, every PE's column slices (their entries are its MACs), its waits for an
empty FIFO and at the vector barrier. EIE's teaching trace (:mod:`accel_sim.pipeline.trace.eie`)
shows one vector entry by entry; these events give its track kinds and counter columns, and the
trace tests check them against the counters."""
from __future__ import annotations

from accel_sim.models.eie.reference import reference
from accel_sim.pipeline.trace.source import Example, TraceSource


def totals(plan, counters) -> dict[str, float]:
    return {"cycles": counters.compute_cycles + counters.spill_stall_cycles, "macs": sum(counters.pe_entries),
            "stall_cycles": counters.fifo_full_stall_cycles + counters.pe_starved_cycles + counters.pe_tail_cycles,
            "dram_bytes": counters.dram_spill_bytes}


def estimate(plan) -> int:
    """Per vector and non-zero activation: a send and a push and pop per PE, a slice and a wait per PE."""
    nonzero = int((plan.activations != 0).sum())
    return nonzero * (1 + 4 * plan.spec.n_pes) + plan.layer.m * plan.spec.n_pes + 2


SOURCE = TraceSource("eie", lambda plan, recorder: reference(plan, None, recorder), totals, estimate,
                     Example("eie_4pe_example", "eie_4pe_example"))

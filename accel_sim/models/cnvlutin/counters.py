"""What a Cnvlutin layer counts: time, neuron-memory traffic, MACs and DRAM words."""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.contract import Counters


@dataclass(frozen=True)
class CnvlutinCounters(Counters):
    cycles: int                 # the layer: compute and the DRAM streams overlapped
    compute_cycles: int         # the units' time over every pass of every group
    dram_cycles: int            # the longest DRAM stream, latency included (USER bandwidth; 0 with CALC)
    window_slots: int           # brick slots (lanes x slice depth) at every position of every window, one pass
    window_nonzeros: int        # non-zero neurons at every position of every window, one pass
    neuron_reads: int           # neuron-memory reads (words): every slot (baseline) or non-zero (Cnvlutin), all passes
    offset_reads: int           # zero-free offsets read with the non-zero neurons (Cnvlutin only)
    macs_issued: int            # multiplications done (the baseline multiplies zeros too)
    dram_read_words: int        # inputs and weights, each read once
    dram_write_words: int       # outputs, written once

"""What a DLU layer counts: pipeline time by cause, MACs, local-memory and DRAM words, statistics."""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.contract import Counters


@dataclass(frozen=True)
class DLUCounters(Counters):
    cycles: int                  # every group: the lock-step steps plus the histogram readouts
    compute_cycles: int          # per step the array or the statistics block (the longer), plus the readouts
    load_stall_cycles: int       # step time beyond compute spent waiting for operand loads
    writeback_stall_cycles: int  # step time beyond compute and load spent writing results back
    readout_cycles: int          # software reading the statistics store, once per group
    tiles: int                   # tiles computed by the array, every group
    macs: int                    # MACs issued (the datapath is dense: every operand pair)
    operand_reads: int           # local-memory words read by the lanes (each broadcast word once)
    input_fill_words: int        # input words fetched from DRAM into the local memory
    weight_fill_words: int       # weight words fetched from DRAM into the local memory
    output_words: int            # results narrowed and written back to DRAM
    statistics_results: int      # results through the leading-bit detectors
    histogram_readouts: int      # readouts of the statistics store (and settings-block writes)

"""What a systolic layer counts: SCALE-Sim's timing quantities and every word each memory moves.

Fields are sums over the layer's groups (each group runs like a separate SCALE-Sim layer).
SCALE-Sim's "Stall Cycles" is ``read_stall_cycles + write_stall_cycles``: each demand cycle
stalls by the largest of its three operands' charges, counted as a write stall up to what the
output buffer charged and as a read stall beyond it.
"""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.contract import Counters


@dataclass(frozen=True)
class SystolicCounters(Counters):
    cycles: int                 # cycles: SCALE-Sim "Total Cycles", the cycle of the last output write
    compute_cycles: int         # cycles: the same without any stall (index of the last demand cycle)
    read_stall_cycles: int      # cycles: the array waiting for ifmap / filter prefetch bursts (USER bandwidth)
    write_stall_cycles: int     # cycles: the array waiting for an ofmap drain to free the buffer
    cycles_incl_prefetch: int   # cycles: first DRAM read to last output drain (SCALE-Sim "Total Cycles (incl. prefetch)")
    folds: int                  # folds the array ran
    macs_issued: int            # MACs the PEs performed (the condensed reduction under N:M)
    ifmap_sram_reads: int       # words the array streams / preloads from the ifmap buffer (padding windows included)
    filter_sram_reads: int      # words the array streams / preloads from the filter buffer
    ofmap_sram_writes: int      # words (outputs or partial sums) the array writes into the ofmap buffer
    ifmap_dram_reads: int       # words filled into the ifmap buffer from DRAM
    filter_dram_reads: int      # words filled into the filter buffer from DRAM
    ofmap_dram_writes: int      # words drained from the ofmap buffer to DRAM
    nm_metadata_reads: int      # kept weights whose N:M position index is fetched from DRAM (0 without metadata)

"""Raw counters of one vector layer (both paths return this; compared field by field)."""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.contract import Counters


@dataclass(frozen=True)
class VectorCounters(Counters):
    launch_cycles: int      # cycles from the call to the first read (the kernel's launch gap; 0: none)
    busy_cycles: int        # cycles: the busiest unit, first read to last result
    vectors: int            # vectors of lanes elements processed (summed over passes and units)
    adds: int               # ALU additions / comparisons (actions)
    mults: int              # ALU multiplications (actions)
    special: int            # special-function results (actions)
    reductions: int         # row reductions over the lanes (actions)
    sram_read_bits: int     # bits read from SRAM
    sram_write_bits: int    # bits written to SRAM

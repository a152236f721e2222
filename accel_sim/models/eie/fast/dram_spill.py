"""DRAM spill on the fast path: the cycles to load the spilled bytes before the layer.

With ``eie.sram_overflow: dram_spill`` the bytes that do not fit the PEs' SRAMs
(:mod:`accel_sim.models.eie.plan.storage`) stream in at ``dram.bandwidth`` bytes per cycle after
``dram.latency``, before the first vector; an ideal ('calc') DRAM takes no time.
"""
from __future__ import annotations

import math

from accel_sim.foundations.arch import ArchBase


def spill_stall_cycles(arch: ArchBase, spill_bytes: int) -> int:
    if spill_bytes == 0 or arch.dram.bandwidth_mode == "calc":
        return 0
    return math.ceil(spill_bytes / arch.dram.bandwidth) + arch.dram.latency

"""DRAM spill: the stored bytes that do not fit a PE's SRAMs, loaded from DRAM before the layer.

With ``eie.sram_overflow: dram_spill`` (issue 4) each PE's entries beyond its sparse-matrix SRAM
and pointers beyond its pointer SRAM are read from DRAM (whole bytes per PE) before the first
vector starts; they stream at ``dram.bandwidth`` bytes per cycle after ``dram.latency``. An
ideal ('calc') DRAM delivers them at once (the bytes are still counted).
"""
from __future__ import annotations

import math

import simpy

from accel_sim.foundations.arch import DramSpec
from accel_sim.models.eie.plan.operands import StoredWeights
from accel_sim.models.eie.spec import EIESpec

BITS_PER_BYTE = 8


def spilled_bytes(spec: EIESpec, stored: StoredWeights, pointer_bits: int, spmat_sram_size: int,
                  pointer_sram_size: int) -> int:
    """Bytes of the stored entries and pointers beyond each PE's SRAM capacities (bytes; the plan's:
    grown to hold the layer under ``grow_on_chip``)."""
    spmat_capacity = spmat_sram_size * BITS_PER_BYTE
    pointer_capacity = pointer_sram_size * BITS_PER_BYTE
    total = 0
    for pe in stored.pes:
        excess = max(pe.codes.size * spec.entry_bits - spmat_capacity, 0)
        excess += max(pe.col_ptr.size * pointer_bits - pointer_capacity, 0)
        total += -(-excess // BITS_PER_BYTE)
    return total


def load(env: simpy.Environment, dram: DramSpec, nbytes: int):
    """The process loading ``nbytes`` spilled bytes; it ends (returning the cycle) when the last byte is in."""
    if nbytes and dram.bandwidth_mode == "user":
        if dram.latency:
            yield env.timeout(dram.latency)
        yield env.timeout(math.ceil(nbytes / dram.bandwidth))
    return int(env.now)

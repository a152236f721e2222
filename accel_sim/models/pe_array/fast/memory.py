"""Memory traffic of one group and the DRAM streams' time.

Each operand comes from DRAM once when it stays in its buffer (:mod:`..plan.memory`), else
once per pass: weights once per pixel tile, inputs once per filter tile. Every pixel tile
streams the group's weights from the weight buffer; every tile loads its pixels' activations
(``K`` per pixel) from the input buffer into the column register files. The rows read them
there: the dense levels in lockstep, one read broadcast down a column per position; the
decoding levels each row at its own processed positions. DRAM transfers overlap compute
(double buffering): with ``dram.bandwidth_mode: user`` the weight, input and output streams
each move ``dram.bandwidth`` bytes per cycle, the longest plus ``dram.latency`` is the
memory time; ``calc``: memory never stalls.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from accel_sim.foundations.arch import ArchBase
from accel_sim.models.pe_array.plan import GroupPlan

BITS_PER_BYTE = 8


@dataclass(frozen=True)
class GroupTraffic:
    weight_dram_bits: int
    input_dram_bits: int
    output_words: int
    weight_sram_read_bits: int
    input_sram_read_words: int


def group_traffic(arch: ArchBase, work: GroupPlan) -> GroupTraffic:
    weight_passes = 1 if work.weights_resident else work.pixel_tiles
    input_passes = 1 if work.inputs_resident else work.filter_tiles
    return GroupTraffic(
        weight_dram_bits=work.weight_bits * weight_passes,
        input_dram_bits=work.input_words * arch.word_bits * input_passes,
        output_words=work.m * work.n,
        weight_sram_read_bits=work.weight_bits * work.pixel_tiles,
        input_sram_read_words=work.k * work.m * work.filter_tiles)


def dram_cycles(arch: ArchBase, weight_bits: int, input_bits: int, output_words: int) -> int:
    """Cycles the DRAM streams need (0 in calc mode: memory never stalls)."""
    if arch.dram.bandwidth_mode == "calc":
        return 0
    streams = (weight_bits, input_bits, output_words * arch.word_bits)
    return max(math.ceil(bits / BITS_PER_BYTE / arch.dram.bandwidth) for bits in streams) + arch.dram.latency

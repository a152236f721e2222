"""The buffers' traffic and the DRAM streams.

The buffer controller walks the array's tile order (:func:`.array.tiles`) ahead of it, the
way a prefetcher does: a group's weights are fetched from DRAM at its first tile if they stay
in the weight buffer (:mod:`..plan.memory`), else at the first filter tile of every pixel
tile; its inputs at its first tile if they stay in the input buffer, else at the first pixel
tile of every filter tile. Every pixel tile streams the group's weights out of the weight
buffer (counted at its first filter tile); every tile drains its rows' accumulators into the
output buffer, which is written to DRAM.

With ``dram.bandwidth_mode: user`` each operand has its own
:class:`~accel_sim.hardware.Link` s (weights, inputs, outputs) moving ``dram.bandwidth``
bytes per cycle; a line's data is in place ``dram.latency`` cycles after its cycle on the
interface. The streams run from the start of the layer, overlapped with compute (double
buffering), each one continuous transfer of the layer's traffic. ``calc``: no DRAM time.
"""
from __future__ import annotations

import simpy

from accel_sim.foundations.errors import SimulationError
from accel_sim.hardware import Link, WordsPerCycle
from accel_sim.models.pe_array.plan import PEArrayPlan
from accel_sim.models.pe_array.reference.array import tiles
from accel_sim.models.pe_array.reference.tally import Tally

BITS_PER_BYTE = 8


def count_traffic(plan: PEArrayPlan, tally: Tally) -> None:
    word = plan.arch.word_bits
    for work in plan.groups:
        for tile in tiles(plan.spec, work):
            first = tile.filter_tile == 0 and tile.pixel_tile == 0
            if tile.filter_tile == 0:
                tally.weight_sram_read_bits += work.weight_bits
            if first or (tile.filter_tile == 0 and not work.weights_resident):
                tally.weight_dram_bits += work.weight_bits
            if first or (tile.pixel_tile == 0 and not work.inputs_resident):
                tally.input_dram_bits += work.input_words * word
            tally.output_words += len(tile.filters) * len(tile.pixels)


def dram_streams(env: simpy.Environment, plan: PEArrayPlan, tally: Tally) -> list[simpy.Process]:
    """The three DRAM streams (user bandwidth), each returning its end cycle; none in calc mode."""
    dram = plan.arch.dram
    if dram.bandwidth_mode == "calc":
        return []
    bits_per_cycle = dram.bandwidth * BITS_PER_BYTE
    if not float(bits_per_cycle).is_integer():
        raise SimulationError(f"{plan.layer.name}: the reference's DRAM channels move whole bits per cycle; "
                              f"dram.bandwidth {dram.bandwidth} B/cycle is {bits_per_cycle} bits")

    def channel(name: str) -> Link:   # one bit per word: the streams move bit counts
        return Link(env, f"DRAM {name}", WordsPerCycle(int(bits_per_cycle)), dram.latency + 1, recorder=tally.recorder)

    return [channel("weights").get(tally.weight_dram_bits, "weights"),
            channel("inputs").get(tally.input_dram_bits, "inputs"),
            channel("outputs").put(tally.output_words * plan.arch.word_bits, "outputs")]

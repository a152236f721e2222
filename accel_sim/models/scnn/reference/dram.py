"""DRAM traffic, reference: what each pass moves over the DRAM bus (a :class:`~accel_sim.hardware.Link`).

The modelling choices (the paper leaves them open):

- a layer of one pass finds its inputs on chip (the previous layer's OARAM) and leaves its
  outputs there unless a PE's compressed outputs overflow its OARAM; a layer streamed through
  DRAM (several passes: temporal tiles or channel chunks) first loads each pass's input tiles
  (nothing overlaps the load: the IARAM holds one tile) and writes its outputs to DRAM;
- during a pass's compute one burst list streams: the chunk's weights (read once per pass),
  the halo partial sums crossing temporal tiles (24-bit, written and read back once per pass),
  the owned partial sums crossing channel-chunk boundaries when they do not fit every PE's
  OARAM (read before every chunk but the first, written after every chunk but the last) and,
  in the last chunk's pass, the outputs;
- operands move in their DRAM format but take the time of their on-chip format (DCNN-opt's
  compression saves energy only, paper Table 6).

How the layer is cut into passes (temporal tiles, channel chunks) is the plan's ``scnn.dram_tile_order``
(:mod:`accel_sim.models.scnn.plan.temporal_tiling`): with 'min_traffic' the plan picks the cut these rules make
move the fewest bits (:func:`~accel_sim.models.scnn.plan.temporal_tiling.dram_bits`), and this block moves them.
"""
from __future__ import annotations

import simpy

from accel_sim.hardware import BytesPerCycle, Link
from accel_sim.hardware.recorder import Recorder
from accel_sim.models.scnn.plan import Plan
from accel_sim.models.scnn.reference.drain import Ownership

BITS_PER_BYTE = 8


class DramTraffic:
    def __init__(self, env: simpy.Environment, plan: Plan, owners: Ownership, recorder: Recorder | None = None):
        self.plan = plan
        self.bus = Link(env, "dram", BytesPerCycle(plan.spec.dram_bandwidth), recorder=recorder)   # amounts in bits
        spec, tiling = plan.spec, plan.tiling
        self.through_dram = tiling.passes > 1
        self.psum_words = owners.owned.sum(axis=1) * plan.view.out_channels       # (temporal tiles,)
        self.psums_on_chip = bool((owners.owned * plan.view.out_channels * spec.accumulator_bits
                                   <= spec.oaram_size * BITS_PER_BYTE).all())
        self.spill_bits = owners.spill.sum(axis=1) * plan.view.out_channels * spec.accumulator_bits
        self.psum_oaram_words = 0   # partial sums kept in the OARAMs between chunks (written, then read)
        self.iaram_write_bits = 0
        self.timed = spec.dram == "modelled"   # ignored (DNNsim): bits counted, no time

    def outputs_to_dram(self, image: int, conv_group: int) -> bool:
        return self.through_dram or bool((self.plan.output_bits[image, conv_group]
                                          > self.plan.spec.oaram_size * BITS_PER_BYTE).any())

    def load_inputs(self, image: int, conv_group: int, temporal_tile: int, chunk: int) -> simpy.Process | None:
        """The pass's input tiles into the IARAMs (None: they are on chip already)."""
        if not self.through_dram:
            return None
        chip = int(self.plan.input_bits[image, conv_group, temporal_tile, chunk].sum())
        self.iaram_write_bits += chip
        dram = int(self.plan.input_dram_bits(image, conv_group)[temporal_tile, chunk])
        return self.bus.get(dram, f"inputs {temporal_tile}.{chunk}", timed=chip if self.timed else 0)

    def stream(self, image: int, conv_group: int, temporal_tile: int, chunk: int) -> simpy.Process:
        """The burst list streaming during the pass's compute."""
        plan, t = self.plan, temporal_tile
        last, first = chunk == plan.tiling.channel_chunks - 1, chunk == 0
        read = int(plan.weight_dram_bits[conv_group, chunk])
        timed = int(plan.weight_chip_bits[conv_group, chunk])
        write = 0
        spill = int(self.spill_bits[t])
        read, write, timed = read + spill, write + spill, timed + 2 * spill
        psum_bits = int(self.psum_words[t]) * plan.spec.accumulator_bits
        if self.psums_on_chip and not last:
            self.psum_oaram_words += int(self.psum_words[t])
        if not self.psums_on_chip:
            read += 0 if first else psum_bits
            write += 0 if last else psum_bits
            timed += (0 if first else psum_bits) + (0 if last else psum_bits)
        if last and self.outputs_to_dram(image, conv_group):
            write += int(plan.output_dram_bits[image, conv_group, t])
            timed += int(plan.output_bits[image, conv_group, t].sum())
        return self.bus.burst(read, write, f"stream {t}.{chunk}", timed=timed if self.timed else 0)

"""Discrete-event reference of the PE array (SimPy), for tests and small layers.

Agents (one module per hardware block):

- :mod:`.decoder`: per PE row, the weight feeder in front of the row's one-entry register
  (:class:`~accel_sim.hardware.Fifo`): the index decoder (skipping, reassignment), the
  decompressor (memory, gating) or the dense weight reader (none);
- :mod:`.datapath`: per PE row, the row process consuming vectors or chunks; per tile, the
  columns' activation register files;
- :mod:`.reassignment`: per window, the crossbar arbiter that gives idle rows other rows' chunks;
- :mod:`.array`: the controller running the tiles in order, each ending when all its rows are done;
- :mod:`.memory`: the buffers' traffic and the DRAM streams (:class:`~accel_sim.hardware.Link` s).

Events are per tile, per FIFO entry (chunk or vector), per crossbar grant and per DRAM
transfer; every pixel tile is run. The layer ends when the array and the DRAM streams are done.
"""
from __future__ import annotations

import simpy

from accel_sim.foundations.errors import SimulationError
from accel_sim.models.pe_array.counters import PEArrayCounters
from accel_sim.models.pe_array.plan import PEArrayPlan
from accel_sim.hardware.recorder import Recorder
from accel_sim.models.pe_array.reference.array import array
from accel_sim.models.pe_array.reference.datapath import row_agent
from accel_sim.models.pe_array.reference.memory import count_traffic, dram_streams
from accel_sim.models.pe_array.reference.tally import Tally


def reference(plan: PEArrayPlan, max_cycles: int | None = None, recorder: Recorder | None = None) -> PEArrayCounters:
    """``recorder`` (teaching traces): each row's vectors or chunks (their MACs; a reassigned chunk as a
    flow from the row it came from), its waits for its feeder and for the tile's slowest row, the
    DRAM streams."""
    env = simpy.Environment()
    tally = Tally(recorder)
    if recorder is not None:
        for row in range(plan.spec.rows):
            recorder.agent(row_agent(row), "pe")
    count_traffic(plan, tally)
    streams = dram_streams(env, plan, tally)
    compute = env.process(array(env, plan, tally))
    compute_end = [0]

    def array_done():
        yield compute
        compute_end[0] = int(env.now)

    done = env.all_of([env.process(array_done()), *streams])
    env.run(until=done if max_cycles is None else env.any_of([done, env.timeout(max_cycles + 1)]))
    if not done.triggered:
        raise SimulationError(f"{plan.layer.name}: the reference passed max_cycles={max_cycles}")
    return PEArrayCounters(
        cycles=int(env.now), compute_cycles=compute_end[0], dram_cycles=max((s.value for s in streams), default=0),
        row_busy_cycles=tally.row_busy_cycles, filter_tiles=tally.filter_tiles, pixel_tiles=tally.pixel_tiles,
        macs_issued=tally.macs_issued, macs_gated=tally.macs_gated, macs_skipped=tally.macs_skipped,
        nm_padding_slots=tally.nm_padding_slots, decoder_chunks=tally.decoder_chunks,
        macs_reassigned=tally.macs_reassigned, crossbar_weights=tally.crossbar_weights,
        crossbar_psums=tally.crossbar_psums, weight_dram_bits=tally.weight_dram_bits,
        input_dram_bits=tally.input_dram_bits, output_words=tally.output_words,
        weight_sram_read_bits=tally.weight_sram_read_bits, input_sram_read_words=tally.input_sram_read_words,
        activation_rf_reads=tally.activation_rf_reads)

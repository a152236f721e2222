"""Discrete-event reference of the DLU-style array (SimPy), for tests and small layers.

Each group of the layer runs through a pipeline of four processes, the hardware stages,
linked by one-entry stores (the registers between them) and meeting at a step
:class:`~accel_sim.hardware.Barrier` (the double-buffered local memory switches halves
only when every stage is done with its tile: a lock-step pipeline):

- **loader**: per tile, reads the tile's new input and weight words from DRAM, each operand
  stream on its own :class:`~accel_sim.hardware.Link` (``dram.bandwidth`` whole bytes per
  cycle, both streams at once), and puts the tile into ``loaded`` (the half of the local
  memory that is not being computed);
- **array**: takes the loaded tile, spends one cycle per reduction step of its chunk (one
  operand pair per lane per cycle) and puts the block into ``results``;
- **statistics**: takes the block and passes it on to ``observed`` at once (the leading-bit
  detectors tap the results on their way to the write-back); for a completed block of a
  fixed-point type, every unit's statistics block (a process per unit) takes its share of
  the results, ``stats_results_per_cycle`` per cycle after ``stats_latency``;
- **write-back**: takes the block from ``observed`` and writes a completed block to DRAM on
  the output channel (posted writes).

The pipeline starts empty: ``loaded`` and ``results`` hold a bubble, and the loader sends
bubbles once its tiles are done until the last tile has drained. After a group's last step,
software reads the statistics store out, ``readout_words_per_cycle`` counters per cycle.

Events are per tile and stage, per DRAM transfer, per unit's statistics share and per step
barrier. Step times come from the processes (each stage logs when it finishes a step; the
barrier opens the next): a step's compute is the array's or the statistics block's time,
whichever is longer; load stall what the loader adds to that, write-back stall the rest.

DRAM timing: a transfer of ``lines`` bus lines (``ceil(bytes / dram.bandwidth)``) issued in
cycle ``t`` delivers its data ``dram.latency`` cycles after its last line, in cycle
``t + lines + dram.latency``; in :class:`~accel_sim.hardware.Link`'s terms (latency counts from the
last line's own cycle) the read latency is ``dram.latency + 1``. Writes are posted
(latency 0). ``calc`` mode has no DRAM time: the words are counted, the transfers take none.
A channel moves at least one byte per cycle: the reference refuses ``dram.bandwidth < 1``.
"""
from __future__ import annotations

from typing import NamedTuple

import simpy

from accel_sim.models.dlu.counters import DLUCounters
from accel_sim.models.dlu.plan import DLUPlan
from accel_sim.foundations.errors import SimulationError
from accel_sim.hardware import Barrier, Fifo, Link, LogEntry, WordsPerCycle
from accel_sim.hardware.recorder import BUSY, COMPUTE, Recorder

BITS_PER_BYTE = 8
REGISTER_DEPTH = 1   # one tile between two stages: the other half of the double buffer, the output block
PIPELINE_STEPS = 3   # a tile is loaded, computed, then drained (statistics and write-back side by side)
BUBBLE = None        # an empty pipeline slot
POSTED = 0           # the latency of a posted write
STAGES = ("load", "array", "statistics", "writeback")


class _Tile(NamedTuple):
    index: int
    rows: int
    cols: int
    chunk: int
    input_words: int
    weight_words: int
    last_chunk: bool


class _Tally:
    """What the stages report as they work, and when each finished each step."""

    def __init__(self, recorder: Recorder | None = None) -> None:
        self.recorder = recorder
        self.tiles = self.macs = self.operand_reads = 0
        self.input_fill_words = self.weight_fill_words = self.output_words = self.statistics_results = 0
        self.readouts = self.readout_cycles = 0
        self.compute_cycles = self.load_stall_cycles = self.writeback_stall_cycles = 0
        self.step_start: list[int] = []
        self.finished: list[dict[str, int]] = []

    def start(self, step: int, now: int) -> None:
        if step == len(self.step_start):
            self.step_start.append(now)
            self.finished.append({})

    def finish(self, stage: str, step: int, now: int) -> None:
        self.finished[step][stage] = now

    def close_steps(self, end: int) -> None:
        """Charge every step of a group (the last ends at ``end``) to compute and stall causes."""
        ends = self.step_start[1:] + [end]
        for start, step_end, done in zip(self.step_start, ends, self.finished):
            busy = max(done["array"], done["statistics"])
            loaded = max(busy, done["load"])
            self.compute_cycles += busy - start
            self.load_stall_cycles += loaded - busy
            self.writeback_stall_cycles += step_end - loaded
            if self.recorder is not None:
                if loaded > busy:
                    self.recorder.stall("array", busy, loaded, "operand loads")
                if step_end > loaded:
                    self.recorder.stall("array", loaded, step_end, "write-back")
        self.step_start, self.finished = [], []


class _Group:
    """One group's pipeline: the registers, the step barrier and the DRAM channels."""

    def __init__(self, env: simpy.Environment, plan: DLUPlan, tally: _Tally, log: list[LogEntry]):
        self.env, self.plan, self.tally, self.log = env, plan, tally, log
        recorder = self.recorder = tally.recorder
        if recorder is not None:
            for stage, kind in zip(STAGES, ("buffer", "pe", "control", "buffer")):
                recorder.agent(stage, kind)
        work = plan.tiles
        self.tiles = [_Tile(index, *fields) for index, fields in enumerate(zip(*(
            a.tolist() for a in (work.rows, work.cols, work.chunk, work.input_words, work.weight_words,
                                 work.last_chunk))))]
        self.steps = len(self.tiles) + PIPELINE_STEPS - 1
        self.loaded = Fifo(env, REGISTER_DEPTH, "loaded", log, recorder)
        self.results = Fifo(env, REGISTER_DEPTH, "results", log, recorder)
        self.observed = Fifo(env, REGISTER_DEPTH, "observed", log, recorder)
        if recorder is not None:
            self.loaded.source, self.results.source, self.observed.source = "load", "array", "statistics"
        self.loaded.put(BUBBLE)
        self.results.put(BUBBLE)
        self.barrier = Barrier(env, len(STAGES), "step")
        dram = plan.arch.dram
        self.channels = None
        if dram.bandwidth_mode == "user":
            self.channels = {name: Link(env, name, WordsPerCycle(dram.bandwidth), latency, BITS_PER_BYTE, log=log,
                                        recorder=recorder)
                             for name, latency in (("inputs", dram.latency + 1), ("weights", dram.latency + 1),
                                                   ("outputs", POSTED))}

    def bytes_of(self, words: int, bits: int | None = None) -> int:
        return -(-words * (bits or self.plan.spec.bits) // BITS_PER_BYTE)

    def _end_step(self, stage: str, step: int):
        self.tally.finish(stage, step, int(self.env.now))
        yield self.barrier.put()

    def load(self):
        for step in range(self.steps):
            self.tally.start(step, int(self.env.now))
            tile = self.tiles[step] if step < len(self.tiles) else BUBBLE
            if tile is not BUBBLE:
                self.tally.input_fill_words += tile.input_words
                self.tally.weight_fill_words += tile.weight_words
                if self.channels is not None:
                    reads = [self.channels[name].get(self.bytes_of(words, bits), f"load tile {tile.index}")
                             for name, words, bits in (("inputs", tile.input_words, None),
                                                       ("weights", tile.weight_words, self.plan.weight_bits))
                             if words]
                    yield self.env.all_of(reads)
            yield self.loaded.put(tile)
            yield from self._end_step("load", step)

    def array(self):
        for step in range(self.steps):
            self.tally.start(step, int(self.env.now))
            tile = yield self.loaded.get()
            if tile is not BUBBLE:
                self.tally.tiles += 1
                self.tally.macs += tile.rows * tile.cols * tile.chunk
                self.tally.operand_reads += (tile.rows + tile.cols) * tile.chunk
                yield self.env.timeout(tile.chunk)
                if self.recorder is not None:
                    self.recorder.record("array", COMPUTE, self.env.now - tile.chunk, self.env.now,
                                         f"tile {tile.index}", macs=tile.rows * tile.cols * tile.chunk)
            yield self.results.put(tile)
            yield from self._end_step("array", step)

    def _unit_statistics(self, results: int):
        spec = self.plan.spec
        yield self.env.timeout(spec.stats_latency + -(-results // spec.stats_results_per_cycle))

    def statistics(self):
        units = self.plan.spec.processing_units
        for step in range(self.steps):
            self.tally.start(step, int(self.env.now))
            tile = yield self.results.get()
            yield self.observed.put(tile)
            if tile is not BUBBLE and tile.last_chunk and self.plan.statistics:
                outputs = tile.rows * tile.cols
                self.tally.statistics_results += outputs
                shares = [outputs // units + (unit < outputs % units) for unit in range(units)]
                start = self.env.now
                yield self.env.all_of([self.env.process(self._unit_statistics(share)) for share in shares if share])
                if self.recorder is not None:
                    self.recorder.record("statistics", BUSY, start, self.env.now, f"leading bits of tile {tile.index}")
            yield from self._end_step("statistics", step)

    def writeback(self):
        for step in range(self.steps):
            self.tally.start(step, int(self.env.now))
            tile = yield self.observed.get()
            if tile is not BUBBLE and tile.last_chunk:
                outputs = tile.rows * tile.cols
                self.tally.output_words += outputs
                if self.channels is not None:
                    yield self.channels["outputs"].put(self.bytes_of(outputs), f"write tile {tile.index}")
            yield from self._end_step("writeback", step)

    def run(self):
        yield self.env.all_of([self.env.process(getattr(self, stage)()) for stage in STAGES])
        self.tally.close_steps(int(self.env.now))
        if self.plan.statistics:
            start = self.env.now
            yield self.env.timeout(-(-self.plan.histogram_counters // self.plan.spec.readout_words_per_cycle))
            self.tally.readouts += 1
            self.tally.readout_cycles += int(self.env.now - start)
            if self.recorder is not None:
                self.recorder.record("statistics", BUSY, start, self.env.now, "histogram readout")
            self.log.append(LogEntry("readout", "end", int(self.env.now)))


def reference(plan: DLUPlan, max_cycles: int | None = None, log: list[LogEntry] | None = None,
              recorder: Recorder | None = None) -> DLUCounters:
    """Run the layer's groups one after the other; ``log`` receives the ``(who, what, when)`` of the
    registers, DRAM channels and readouts; ``recorder`` (teaching traces) the array's tiles and
    stalls, the register entries, the statistics work and the DRAM transfers."""
    env = simpy.Environment()
    tally = _Tally(recorder)
    log = [] if log is None else log

    def layer():
        for _ in range(plan.groups):
            yield env.process(_Group(env, plan, tally, log).run())

    done = env.process(layer())
    env.run(until=done if max_cycles is None else env.any_of([done, env.timeout(max_cycles + 1)]))
    if not done.triggered:
        raise SimulationError(f"{plan.layer.name}: the reference passed max_cycles={max_cycles}")
    return DLUCounters(
        cycles=int(env.now), compute_cycles=tally.compute_cycles + tally.readout_cycles,
        load_stall_cycles=tally.load_stall_cycles, writeback_stall_cycles=tally.writeback_stall_cycles,
        readout_cycles=tally.readout_cycles, tiles=tally.tiles, macs=tally.macs, operand_reads=tally.operand_reads,
        input_fill_words=tally.input_fill_words, weight_fill_words=tally.weight_fill_words,
        output_words=tally.output_words, statistics_results=tally.statistics_results,
        histogram_readouts=tally.readouts)

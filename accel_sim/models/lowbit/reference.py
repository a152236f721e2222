"""Discrete-event reference of the low-bit array (SimPy), for tests and small layers.

Processes: a **binarizer** (binary layers: packs the whole input, ``binarizer_width`` values per
cycle, before the first pass), one **PE** process per PE and pass (its column: one event per
column, the time its datapath needs for the pass's rows: ``ceil(elements / lanes)`` cycles a
row), meeting at the pass :class:`~accel_sim.hardware.Barrier` (idle PEs arrive at once), and
the **array** that runs the passes, tile by tile when the plan cuts the rows into tiles, and
drains the pipeline after each. Memory goes through one
DRAM :class:`~accel_sim.hardware.Link` (``dram_bandwidth`` bytes a cycle, ``dram.latency``): the
array loads the first pass's weights and input before the binarizer, then during each pass
issues one burst reading the next pass's load (its weights unless resident from the first tile;
its groups' input, or the whole input once when it fits, or, with row tiles, the tile's share on
the tile's first pass) and writing the previous pass's outputs (with a ``max_pool``, its tile's
share of the pooled rows, pooled in the output stage), and
starts the next pass when both the pass and the burst are done; the last outputs are written
at the end. Counts are tallied by the processes as they work (DRAM bits by the link);
imbalance is read from when each PE reached the barrier, stalls from when each step ended.
"""
from __future__ import annotations

import math

import simpy

from accel_sim.hardware import Barrier, Link, run_until_done
from accel_sim.hardware.recorder import BUSY, COMPUTE, Recorder
from accel_sim.hardware.rate import BytesPerCycle
from accel_sim.models.lowbit.counters import LowbitCounters
from accel_sim.models.lowbit.plan import LowbitPlan, split

INTEGER_PRECISIONS = ("int16", "int8", "int4")


class _Tally:
    def __init__(self) -> None:
        self.binarize = self.compute = self.drain = self.idle = self.passes = self.tiles = 0
        self.operations: dict[str, int] = {}
        self.issued = self.skipped = self.scaled = self.outputs = self.binarized_words = self.beta_adds = 0
        self.weight_bits = self.input_bits = 0
        self.stall = self.weight_loaded = self.input_loaded = self.outputs_written = self.pool_compares = 0

    def add(self, what: str, count: int) -> None:
        self.operations[what] = self.operations.get(what, 0) + count


ARRAY = "array"   # the recorder's agents: the binarizer and the pipeline drain on the array, PE i


def reference(plan: LowbitPlan, max_cycles: int | None = None, recorder: Recorder | None = None) -> LowbitCounters:
    """``recorder`` (teaching traces) gets the binarizer's work, each PE's column and barrier wait, the
    drains, the array's waits on DRAM and the DRAM transfers."""
    env = simpy.Environment()
    if recorder is not None:
        recorder.agent(ARRAY, "control")
        for i in range(spec.pes if (spec := plan.spec) else 0):
            recorder.agent(f"PE {i}", "pe")
    spec, precision, rows, k = plan.spec, plan.precision, plan.rows, plan.reduction
    columns = [int(e) for e in plan.column_elements]
    n = plan.layer.gemm().n
    words = math.ceil(k / spec.word_bits)
    tally = _Tally()

    def binarizer():
        start = env.now
        yield env.timeout(math.ceil(plan.binarize_values / spec.binarizer_width))
        tally.binarize += int(env.now - start)
        if recorder is not None and env.now > start:
            recorder.record(ARRAY, BUSY, start, env.now, "binarize inputs")
        if plan.binarize_values:
            tally.binarized_words += plan.binarize_values // k * words
            tally.beta_adds += plan.binarize_values if spec.activation_scale else 0

    def pe(column: int | None, rows: int, barrier: Barrier, arrivals: list[int], index: int):
        if column is not None:
            elements = columns[column]
            start = env.now
            yield env.timeout(rows * math.ceil(elements / plan.lanes))
            done = rows * elements
            if precision == "binary":
                tally.add("xnor", done)
                tally.issued += rows * k
                tally.weight_bits += words * spec.word_bits
            else:
                tally.weight_bits += k * plan.weight_bits
                if precision in ("ternary", "log2"):
                    tally.add("add", done)
                    tally.add("shift", done if precision == "log2" else 0)
                    tally.issued += done
                    tally.skipped += rows * (k - elements)
                else:
                    tally.add("mult" if precision in INTEGER_PRECISIONS else "fp", rows * k)
                    tally.issued += rows * k
            tally.outputs += rows
            if recorder is not None:
                macs = done if precision in ("ternary", "log2") else rows * k   # what the branch above issued
                recorder.record(f"PE {index}", COMPUTE, start, env.now, f"column {column}", macs=macs)
            tally.scaled += rows if precision in ("binary", "ternary") else 0
            tally.scaled += rows if precision == "binary" and spec.activation_scale else 0
        arrivals.append(int(env.now))
        yield barrier.put(f"PE {index}" if recorder is not None else "")

    dram = Link(env, "dram", BytesPerCycle(spec.dram_bandwidth), plan.arch.dram.latency + 1, recorder=recorder)
    groups_total = plan.layer.gemm().groups
    starts = list(range(0, len(columns), spec.pes))
    tile_rows = [int(r) for r in split(rows, plan.row_tiles)]
    tile_inputs = [int(b) for b in split(plan.input_group_bits * groups_total, plan.row_tiles)]
    tile_written = [int(r) for r in split(plan.written_rows, plan.row_tiles)]
    steps = [(tile, index) for tile in range(plan.row_tiles) for index in range(len(starts))]

    def load(step: int) -> int:
        """Bits pass ``step`` (tile by tile) loads: its columns' stored weights, and the input it needs."""
        if step >= len(steps):
            return 0
        tile, index = steps[step]
        members = range(starts[index], min(starts[index] + spec.pes, len(columns)))
        resident = plan.weights_resident and tile > 0
        weights = 0 if resident else len(members) * plan.column_bits
        if plan.row_tiles > 1:
            inputs = tile_inputs[tile] if index == 0 else 0
        elif plan.input_fits:
            inputs = plan.input_group_bits * groups_total if index == 0 else 0
        else:
            inputs = plan.input_group_bits * len({c // n for c in members})
        tally.weight_loaded += weights
        tally.input_loaded += inputs
        return weights + inputs

    def run_pass(members: list[int], rows: int):
        start, arrivals = int(env.now), []
        barrier = Barrier(env, spec.pes, "pass", recorder)
        yield env.all_of([env.process(pe(members[i] if i < len(members) else None, rows, barrier, arrivals, i))
                          for i in range(spec.pes)])
        end = int(env.now)
        tally.passes += 1
        tally.compute += end - start
        tally.idle += sum(end - t for t in arrivals)
        groups = len({c // n for c in members})
        tally.input_bits += groups * rows * (words * spec.word_bits if precision == "binary"
                                             else k * plan.input_bits)
        yield env.timeout(plan.pipeline_depth)
        if recorder is not None and plan.pipeline_depth:
            recorder.record(ARRAY, BUSY, env.now - plan.pipeline_depth, env.now, "pipeline drain")
        tally.drain += plan.pipeline_depth
        return int(env.now) - start

    def waited(event_or_none, cause: str = ""):
        start = int(env.now)
        if event_or_none is not None:
            yield event_or_none
        tally.stall += int(env.now) - start
        if recorder is not None and env.now > start:
            recorder.stall(ARRAY, start, env.now, cause)

    def array():
        first = load(0)
        yield env.process(waited(dram.get(first, "load pass 0") if first else None, "first pass's weights from DRAM"))
        yield env.process(binarizer())
        written = 0
        for step, (tile, index) in enumerate(steps):
            if index == 0:
                tally.tiles += 1
            members = list(range(starts[index], min(starts[index] + spec.pes, len(columns))))
            start = int(env.now)
            work = env.process(run_pass(members, tile_rows[tile]))
            reads = load(step + 1)
            events = [work] + ([dram.burst(reads, written, f"pass {index}")] if reads or written else [])
            yield env.all_of(events)
            tally.stall += int(env.now) - start - work.value   # the burst outlasting the pass
            if recorder is not None and env.now > start + work.value:
                recorder.stall(ARRAY, start + work.value, env.now, "next pass's loads / write-back on DRAM")
            written = tile_written[tile] * len(members) * plan.output_bits   # pooled in the output stage
            tally.pool_compares += tile_written[tile] * len(members) * plan.pool_window
            tally.outputs_written += written
        yield env.process(waited(dram.put(written, "write back") if written else None, "last outputs to DRAM"))

    cycles = run_until_done(env, env.process(array()), max_cycles, plan.layer.name)
    ops = tally.operations
    return LowbitCounters(
        cycles=cycles, binarize_cycles=tally.binarize, compute_cycles=tally.compute, drain_cycles=tally.drain,
        idle_pe_cycles=tally.idle, passes=tally.passes, row_tiles=tally.tiles, xnor_words=ops.get("xnor", 0), adds=ops.get("add", 0),
        shifts=ops.get("shift", 0), mults=ops.get("mult", 0), fp_macs=ops.get("fp", 0),
        macs_issued=tally.issued, macs_skipped=tally.skipped, scale_mults=tally.scaled, beta_adds=tally.beta_adds, outputs=tally.outputs,
        pool_compares=tally.pool_compares,
        binarized_words=tally.binarized_words, weight_read_bits=tally.weight_bits, input_read_bits=tally.input_bits,
        dram_read_bits=dram.counter.reads, dram_write_bits=dram.counter.writes, dram_busy_cycles=dram.busy_cycles,
        memory_stall_cycles=tally.stall, weight_buffer_write_bits=tally.weight_loaded,
        input_buffer_write_bits=tally.input_loaded, output_buffer_write_bits=tally.outputs_written,
        output_buffer_read_bits=dram.counter.writes)

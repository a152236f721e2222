"""Streaming operand fetch, reference (SimPy): ``systolic.operand_fetch: streaming``.

Agents, one event per block fetch, fold and drain (never per word or line):

- a loader per read operand walks the folds in run order (column folds outer, row folds inner)
  and fetches the block a fold needs when the buffer does not hold it: a resident operand (whole
  matrix within half its buffer) keeps every block, any other holds one block per half of its
  double buffer, so it first takes a free half (a FIFO of two tokens) and sends the block ready
  ``dram.latency`` cycles after its last word left the stream;
- the array runs one fold at a time: for each operand whose block is new it hands back the half
  of the block it has finished with, waits for the new block, then computes for ``fold_lines``
  cycles and passes the outputs the fold completed to the drain;
- the drain writes those outputs to DRAM at the ofmap stream's width.

Each group runs in its own environment from cycle 0; the counters are summed.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields

import simpy

from accel_sim.foundations.errors import SimulationError
from accel_sim.hardware.fifo import Fifo
from accel_sim.models.systolic.counters import SystolicCounters
from accel_sim.models.systolic.plan import SystolicPlan
from accel_sim.models.systolic.plan.operands import READ_OPERANDS
from accel_sim.models.systolic.plan.streaming import DOUBLE_BUFFER_HALVES, OPERAND_DIMS, OUTPUT_DIMS, REDUCTION_DIM


@dataclass(frozen=True)
class Fold:
    """What one fold uses: per read operand its block (key, words); its output block and the
    outputs it completes."""

    blocks: dict[str, tuple[tuple[int, int], int]]
    output_words: int
    final_outputs: int
    macs: int


def folds_in_order(plan: SystolicPlan) -> list[Fold]:
    mapping = plan.mapping
    flow = mapping.dataflow
    folds = []
    for c in range(mapping.col_folds):
        for r in range(mapping.row_folds):
            extent = {flow.rows_dim: mapping.used_rows(r), flow.cols_dim: mapping.used_cols(c),
                      flow.temporal_dim: mapping.t}
            index = {flow.rows_dim: r, flow.cols_dim: c, flow.temporal_dim: 0}
            blocks = {op: ((index[a], index[b]), extent[a] * extent[b])
                      for op, (a, b) in OPERAND_DIMS.items()}
            out = extent[OUTPUT_DIMS[0]] * extent[OUTPUT_DIMS[1]]
            complete = flow.temporal_dim == REDUCTION_DIM or r == mapping.row_folds - 1
            folds.append(Fold(blocks, out, out if complete else 0, out * extent[REDUCTION_DIM]))
    return folds


def fetches(plan: SystolicPlan, folds: list[Fold], operand: str) -> list[int]:
    """Folds before which ``operand``'s buffer fetches a block."""
    held: set[tuple[int, int]] = set()
    last = None
    needed = []
    for number, fold in enumerate(folds):
        key = fold.blocks[operand][0]
        if plan.resident[operand]:
            if key not in held:
                held.add(key)
                needed.append(number)
        elif key != last:
            needed.append(number)
        last = key
    return needed


class StreamingGroup:
    def __init__(self, env: simpy.Environment, plan: SystolicPlan):
        self.env, self.plan = env, plan
        self.folds = folds_in_order(plan)
        self.fetch_at = {op: fetches(plan, self.folds, op) for op in READ_OPERANDS}
        depth = len(self.folds)
        self.free = {op: Fifo(env, DOUBLE_BUFFER_HALVES, f"{op}_free_halves") for op in READ_OPERANDS}
        self.ready = {op: Fifo(env, depth, f"{op}_ready") for op in READ_OPERANDS}
        self.to_drain = Fifo(env, depth, "ofmap_drain")
        self.dram_reads = dict.fromkeys(READ_OPERANDS, 0)
        self.sram_reads = dict.fromkeys(READ_OPERANDS, 0)
        self.sram_writes = self.drained = self.macs = 0
        self.array_end = self.drain_end = 0

    def loader(self, operand: str):
        plan, env = self.plan, self.env
        resident = plan.resident[operand]
        if not resident:
            for _ in range(DOUBLE_BUFFER_HALVES):
                yield self.free[operand].put("half")
        for number in self.fetch_at[operand]:
            if not resident:
                yield self.free[operand].get()
            words = self.folds[number].blocks[operand][1]
            yield env.timeout(math.ceil(words / plan.dram_words_per_cycle))
            self.dram_reads[operand] += words
            yield self.ready[operand].put(env.now + plan.arch.dram.latency)

    def array(self):
        env, plan = self.env, self.plan
        pending = {op: set(self.fetch_at[op]) for op in READ_OPERANDS}
        started = dict.fromkeys(READ_OPERANDS, False)
        for number, fold in enumerate(self.folds):
            needed = [op for op in READ_OPERANDS if number in pending[op]]
            for op in needed:   # the blocks they replace are done with: their halves are free now
                if started[op] and not plan.resident[op]:
                    yield self.free[op].put("half")
                started[op] = True
            for op in needed:
                arrival = yield self.ready[op].get()
                if arrival > env.now:
                    yield env.timeout(arrival - env.now)
            for op in READ_OPERANDS:
                self.sram_reads[op] += fold.blocks[op][1]
            self.macs += fold.macs
            yield env.timeout(plan.mapping.fold_lines)
            self.sram_writes += fold.output_words
            if fold.final_outputs:
                yield self.to_drain.put(fold.final_outputs)
        self.array_end = env.now

    def drain(self):
        outputs = sum(1 for fold in self.folds if fold.final_outputs)
        for _ in range(outputs):
            words = yield self.to_drain.get()
            yield self.env.timeout(math.ceil(words / self.plan.ofmap_line_words))
            self.drained += words
            self.drain_end = self.env.now


def simulate_streaming_group(plan: SystolicPlan) -> SystolicCounters:
    env = simpy.Environment()
    group = StreamingGroup(env, plan)
    for op in READ_OPERANDS:
        env.process(group.loader(op))
    env.process(group.drain())
    env.process(group.array())
    env.run()
    mapping = plan.mapping
    last_line = group.array_end - 1
    cycles = max(last_line, group.drain_end)
    compute = len(group.folds) * mapping.fold_lines - 1
    kept = sum(words for key, words in {f.blocks["filter"] for f in group.folds})
    return SystolicCounters(
        cycles=cycles, compute_cycles=compute, read_stall_cycles=last_line - compute,
        write_stall_cycles=cycles - last_line, cycles_incl_prefetch=cycles, folds=len(group.folds),
        macs_issued=group.macs, ifmap_sram_reads=group.sram_reads["ifmap"],
        filter_sram_reads=group.sram_reads["filter"], ofmap_sram_writes=group.sram_writes,
        ifmap_dram_reads=group.dram_reads["ifmap"], filter_dram_reads=group.dram_reads["filter"],
        ofmap_dram_writes=group.drained, nm_metadata_reads=kept if plan.metadata_bits else 0)


def streaming_reference(plan: SystolicPlan, max_cycles: int | None = None) -> SystolicCounters:
    """Every group of the layer, one after the other."""
    runs = [simulate_streaming_group(plan) for _ in range(plan.mapping.groups)]
    total = SystolicCounters(**{f.name: sum(getattr(run, f.name) for run in runs) for f in fields(SystolicCounters)})
    if max_cycles is not None and total.cycles > max_cycles:
        raise SimulationError(f"{plan.layer.name}: {total.cycles} cycles exceed the max_cycles guard {max_cycles}")
    return total

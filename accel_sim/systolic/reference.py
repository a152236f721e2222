"""Per-fold SimPy reference of the systolic model (slow; for tests and small layers).

It shares only the mapping and the operand addresses with the fast path and rebuilds the
rest the way SCALE-Sim does:

- each fold's demand matrices are built by padding, flipping and skewing operand blocks
  (:func:`accel_sim.systolic.operands.fold_demand_matrix`);
- the memories are SimPy components (:mod:`accel_sim.hardware`): one :class:`DramChannel` per
  operand stream, :class:`ReadScratchpad` s that fill before cycle 0 and claim prefetch bursts
  on misses (USER bandwidth only; with CALC bandwidth reads never stall), and a
  :class:`WriteScratchpad` draining outputs;
- the array is a SimPy process that runs one child process per fold. Inside a fold it walks
  the demand cycles one by one (the per-cycle reference), serving each cycle's requests
  word by word; it yields to the event queue only to wait for a prefetch burst or a drain
  it stalls on, and once at the end of the fold.

SimPy time is the SCALE-Sim cycle number: the environment starts before cycle 0 so the
initial fills can end in cycle -1.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import simpy

from accel_sim.arch.spec import ArchSpec
from accel_sim.errors import SimulationError
from accel_sim.hardware.dram_channel import DramChannel, LogEntry
from accel_sim.hardware.scalesim_scratchpad import ReadScratchpad, WriteScratchpad
from accel_sim.systolic import operands
from accel_sim.systolic.mapping import SystolicMapping
from accel_sim.systolic.model import (POSTED_WRITE_LATENCY, READ_OPERANDS, GroupTiming, calc_group_timing,
                                      capacity_words, dram_words_per_cycle, ofmap_line_words)
from accel_sim.systolic.operands import NO_ADDRESS
from accel_sim.systolic.timing import Timeline
from accel_sim.workload.layer import Layer

PREFILL_READY_CYCLE = -1  # SCALE-Sim times the initial fills to end the cycle before the first demand


@dataclass
class ArrayState:
    """What the array process carries from fold to fold."""

    stall: int = 0            # SCALE-Sim's accumulated stall
    last_cycle: int = 0       # cycle of the last output write
    log: list[LogEntry] = field(default_factory=list)


class SystolicArrayProcess:
    """The array: folds in SCALE-Sim order (column folds outer), one SimPy process each."""

    def __init__(self, env: simpy.Environment, mapping: SystolicMapping, matrices: operands.OperandMatrices,
                 reads: dict[str, ReadScratchpad], writes: WriteScratchpad, state: ArrayState):
        self.env = env
        self.mapping = mapping
        self.matrices = matrices
        self.reads = reads
        self.writes = writes
        self.state = state

    def run(self):
        m = self.mapping
        if self.env.now < 0:  # the fills run before cycle 0; the array starts in cycle 0
            yield self.env.timeout(-self.env.now)
        for fold_col in range(m.col_folds):
            for fold_row in range(m.row_folds):
                yield self.env.process(self.fold(fold_col * m.row_folds + fold_row, fold_col, fold_row))
        self.writes.flush(self.state.last_cycle)
        if self.writes.drains:
            yield self.env.all_of(self.writes.drains)

    def fold(self, index: int, fold_col: int, fold_row: int):
        m = self.mapping
        demand = {op: operands.fold_demand_matrix(m, self.matrices, op, fold_col, fold_row)
                  for op in self.reads}
        outputs = (operands.fold_demand_matrix(m, self.matrices, "ofmap", fold_col, fold_row)
                   != NO_ADDRESS).sum(axis=1)
        self.state.log.append(LogEntry(f"fold {index}", "start", index * m.fold_lines + self.state.stall))
        for local in range(m.fold_lines):
            line = index * m.fold_lines + local
            cycle = line + self.state.stall
            line_stall = 0
            waits: list[simpy.Event] = []
            for operand, buffer in self.reads.items():
                requests = demand[operand][local]
                requests = requests[requests != NO_ADDRESS]
                if requests.size:
                    claimed = len(buffer.pending)
                    line_stall = max(line_stall, buffer.serve(requests, cycle))
                    waits.extend(buffer.pending[claimed:])
            write_stall = self.writes.store(int(outputs[local]), cycle) if outputs[local] else 0
            if write_stall > 0 and self.writes.stalled_on is not None:
                waits.append(self.writes.stalled_on)
            line_stall = max(line_stall, write_stall)
            if line == m.demand_lines - 1:
                self.state.last_cycle = cycle + write_stall
            self.state.stall += line_stall
            if line_stall > 0 and waits:
                # the array waits for the burst / drain it needs, then for SCALE-Sim's charge
                yield self.env.all_of(waits)
                resume = line + 1 + self.state.stall
                if resume > self.env.now:
                    yield self.env.timeout(resume - self.env.now)
        end = (index + 1) * m.fold_lines + self.state.stall
        if end > self.env.now:
            yield self.env.timeout(end - self.env.now)
        self.state.log.append(LogEntry(f"fold {index}", "end", end))


def reference_group_timing(arch: ArchSpec, layer: Layer, mapping: SystolicMapping, max_cycles: int,
                           log: list[LogEntry] | None = None) -> GroupTiming:
    """Run one group through the SimPy reference; raises SimulationError past ``max_cycles``."""
    matrices = operands.operand_matrices(mapping, layer)
    user = arch.dram.bandwidth_mode == "user"
    log = log if log is not None else []
    words = dram_words_per_cycle(arch)
    fetches = {op: operands.fetch_sequence(mapping, matrices, op) for op in READ_OPERANDS} if user else {}
    prefill = max((-(-fetch.size // words) for fetch in fetches.values()), default=0) + arch.dram.latency
    env = simpy.Environment(initial_time=PREFILL_READY_CYCLE - prefill)
    reads: dict[str, ReadScratchpad] = {}
    for operand, fetch in fetches.items():
        channel = DramChannel(env, f"{operand}_dram", words, arch.dram.latency, arch.word_bits, log=log)
        reads[operand] = ReadScratchpad(env, f"{operand}_sram", capacity_words(arch, operand), fetch, channel)
        reads[operand].prefill(PREFILL_READY_CYCLE)
    ofmap_channel = DramChannel(env, "ofmap_dram", ofmap_line_words(arch), arch.dram.latency, arch.word_bits,
                                write_latency=POSTED_WRITE_LATENCY, log=log)
    writes = WriteScratchpad(env, "ofmap_sram", capacity_words(arch, "ofmap"), ofmap_channel)
    state = ArrayState(log=log)
    array = env.process(SystolicArrayProcess(env, mapping, matrices, reads, writes, state).run())
    guard = env.timeout(max_cycles - env.now + 1)
    env.run(until=env.any_of([array, guard]))
    if not array.triggered:
        raise SimulationError(f"{layer.name}: reference ran past the max_cycles guard {max_cycles}")
    result = Timeline(cycles=state.last_cycle, compute_cycles=mapping.demand_lines - 1,
                      scalesim_stall_cycles=state.stall, ofmap_dram_words=writes.drained.reads,
                      first_drain_cycle=writes.drain_starts[0], last_drain_cycle=max(writes.drain_ends))
    if user:
        first_read = min(-b.geometry.initial_lines for b in reads.values())
        return GroupTiming(cycles=result.cycles, compute_cycles=result.compute_cycles,
                           scalesim_stall_cycles=result.scalesim_stall_cycles,
                           dram_read_words={op: b.channel.counter.reads for op, b in reads.items()},
                           dram_write_words=result.ofmap_dram_words,
                           cycles_incl_prefetch=result.last_drain_cycle - first_read)
    footprints = {"ifmap": int(np.unique(matrices.ifmap[matrices.ifmap != NO_ADDRESS]).size),
                  "filter": int(np.unique(matrices.filter).size)}
    first_requests = {}
    for operand in READ_OPERANDS:
        demand = np.concatenate([operands.fold_demand_matrix(mapping, matrices, operand, fold_col, fold_row)
                                 for fold_col in range(mapping.col_folds) for fold_row in range(mapping.row_folds)])
        requested = np.nonzero((demand != NO_ADDRESS).any(axis=1))[0]
        if requested.size:
            first_requests[operand] = int(requested[0])
    return calc_group_timing(arch, mapping, result, footprints, first_requests)

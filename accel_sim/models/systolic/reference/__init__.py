"""Discrete-event reference of the systolic model (SimPy), for tests and small layers.

It shares only the plan (mapping, operand blocks, fetch orders, buffer sizes) with the fast
path and rebuilds the rest literally, the way SCALE-Sim runs a layer:

- :mod:`.array`: the PE array, a process issuing demand lines fold by fold;
- :mod:`.demand`: each fold's demand matrices built by padding, flipping and skewing blocks;
- :mod:`.read_buffers`: the ifmap / filter buffers (USER: SCALE-Sim scratchpads filling from
  their DRAM channels before cycle 0 and claiming prefetch bursts on misses; CALC: stall-free
  buffers counting what they fetch, set by set);
- :mod:`.ofmap_drain`: the ofmap buffer draining to DRAM;
- :mod:`.streaming`: ``operand_fetch: streaming`` (loaders, array and drain, one event per block / fold).

Each group of the layer runs in its own environment, like a separate SCALE-Sim layer; the
counters are summed. SimPy time is the SCALE-Sim cycle number: an environment starts before
cycle 0 so the initial fills can end in cycle -1.
"""
from __future__ import annotations

import math
from dataclasses import fields

import simpy

from accel_sim.foundations.errors import SimulationError
from accel_sim.hardware.link import READ
from accel_sim.hardware.log import LogEntry
from accel_sim.hardware.recorder import Recorder
from accel_sim.models.systolic.counters import SystolicCounters
from accel_sim.models.systolic.plan import SystolicPlan
from accel_sim.models.systolic.plan.operands import READ_OPERANDS
from accel_sim.models.systolic.reference.array import SystolicArray
from accel_sim.models.systolic.reference.ofmap_drain import OfmapDrain
from accel_sim.models.systolic.reference.read_buffers import PREFILL_READY_CYCLE, EstimatingReadBuffer, user_read_buffer
from accel_sim.models.systolic.reference.streaming import streaming_reference


def simulate_group(plan: SystolicPlan, max_cycles: int | None = None,
                   log: list[LogEntry] | None = None, recorder: Recorder | None = None) -> SystolicCounters:
    """Run one group; ``log`` collects the (who, what, when) of folds, fills, bursts and drains."""
    log = log if log is not None else []
    arch = plan.arch
    start = 0
    if plan.user_bandwidth:
        fill_lines = max(math.ceil(plan.fetch_sequences[op].size / plan.dram_words_per_cycle) for op in READ_OPERANDS)
        start = PREFILL_READY_CYCLE - fill_lines - arch.dram.latency
    env = simpy.Environment(initial_time=start)
    reads = {op: user_read_buffer(env, plan, op, log, recorder) for op in READ_OPERANDS} if plan.user_bandwidth else {}
    estimates = ({} if plan.user_bandwidth else
                 {op: EstimatingReadBuffer(f"{op}_sram", plan.capacity_words[op], arch.word_bits,
                                           int(getattr(plan.matrices, op).max()) + 1) for op in READ_OPERANDS})
    drain = OfmapDrain(env, plan, log, recorder)
    array = SystolicArray(env, plan, reads, estimates, drain, max_cycles, log, recorder)
    env.run(env.process(array.run()))
    if plan.user_bandwidth:
        dram_reads = {op: buffer.channel.counter.reads for op, buffer in reads.items()}
        first_dram_cycle = min(e.when for e in log if e.what == f"{READ} start") + arch.dram.latency
    else:
        dram_reads = {op: estimate.fetched.reads for op, estimate in estimates.items()}
        first_dram_cycle = min(estimate.first_fill_cycle() for estimate in estimates.values())
    cycles = array.last_write_cycle
    if max_cycles is not None and cycles > max_cycles:
        raise SimulationError(f"{plan.layer.name}: {cycles} cycles exceed the max_cycles guard {max_cycles}")
    return SystolicCounters(
        cycles=cycles, compute_cycles=array.lines - 1, read_stall_cycles=array.read_stall,
        write_stall_cycles=array.write_stall, cycles_incl_prefetch=drain.last_drain_cycle - first_dram_cycle,
        folds=array.folds, macs_issued=array.macs, ifmap_sram_reads=array.sram_reads["ifmap"],
        filter_sram_reads=array.sram_reads["filter"], ofmap_sram_writes=drain.written,
        ifmap_dram_reads=dram_reads["ifmap"], filter_dram_reads=dram_reads["filter"],
        ofmap_dram_writes=drain.drained_words, nm_metadata_reads=array.kept_weights if plan.metadata_bits else 0)


def reference(plan: SystolicPlan, max_cycles: int | None = None, recorder: Recorder | None = None) -> SystolicCounters:
    """Every group of the layer, one after the other; ``max_cycles`` bounds the layer's cycles.
    ``recorder`` (teaching traces) gets each group's folds, stalls and DRAM bursts, a group's
    cycles shifted by the cycles of the groups before."""
    if plan.streaming:
        return streaming_reference(plan, max_cycles)
    runs: list[SystolicCounters] = []
    for _ in range(plan.mapping.groups):
        spent = sum(run.cycles for run in runs)
        if recorder is not None:
            recorder.offset = spent
        runs.append(simulate_group(plan, None if max_cycles is None else max_cycles - spent, log=None,
                                   recorder=recorder))
    return SystolicCounters(**{f.name: sum(getattr(run, f.name) for run in runs) for f in fields(SystolicCounters)})

"""Fast path of the systolic model: closed forms and vectorised numpy, no event queue.

- :mod:`.demand`: the read operands' demand streams over a group, by index arithmetic;
- :mod:`.fold_sets`: USER-mode misses of operands holding each address once (GEMM ifmaps, filters),
  fold by fold from closed-form fetch ranks (memory of one fold, repeated sweeps scanned once);
- :mod:`.read_buffers`: the ifmap / filter buffers under USER bandwidth (vectorised miss scan of a
  whole group's demand stream, for convolution ifmaps and row-wise sparsity);
- :mod:`.stacked_scan`: the same for a streamed convolution ifmap, jumping over the requests whose
  own fetch set is resident (a few searches per miss, not a pass per sweep);
- :mod:`.ifmap_copies`: where each copy of a convolution's input word sits in that fetch sequence,
  in closed form (which set brings a missed address in; is another copy resident);
- :mod:`.estimate_buffer`: the same under CALC bandwidth (the footprint when it fits, else block by
  block in closed form or by an epoch scan of the demand stream);
- :mod:`.ofmap_drain`: the output buffer (write counts per fold shape in closed form, drain-to-drain jumps);
- :mod:`.footprint`: the read operands' distinct words, in closed form;
- :mod:`.timeline`: the array's demand lines against the three buffers (SCALE-Sim's timing);
- :mod:`.streaming`: ``operand_fetch: streaming`` (blocks fetched once per use, double-buffered).

One group is timed and the counts multiplied by the number of groups (they are identical and
run one after the other, each like a separate SCALE-Sim layer).
"""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.errors import SimulationError
from accel_sim.hardware.scalesim_scratchpad import NO_ADDRESS, ReadBufferGeometry, WriteBufferGeometry
from accel_sim.models.systolic.counters import SystolicCounters
from accel_sim.models.systolic.fast.demand import FoldRequests, demand_stream, first_demand_line, streamed_requests
from accel_sim.models.systolic.fast.fold_sets import StackedFetch, first_request_line, fold_set_misses, has_closed_form
from accel_sim.models.systolic.fast.footprint import read_footprint_words
from accel_sim.models.systolic.fast.estimate_buffer import calc_first_fill_cycle, calc_overflows, calc_read_words, sweeps
from accel_sim.models.systolic.fast.ifmap_copies import IfmapCopies
from accel_sim.models.systolic.fast.read_buffers import ReadStream, read_misses
from accel_sim.models.systolic.fast.stacked_scan import stacked_misses
from accel_sim.models.systolic.fast.streaming import streaming_fast
from accel_sim.models.systolic.fast.timeline import Timeline, timeline
from accel_sim.models.systolic.plan import SystolicPlan
from accel_sim.models.systolic.plan.buffers import OFMAP_WRITE_LATENCY
from accel_sim.models.systolic.plan.mapping import SystolicMapping
from accel_sim.models.systolic.plan.operands import READ_OPERANDS, role


@dataclass(frozen=True)
class GroupTiming:
    """One group's timeline and the DRAM side of its read buffers."""

    timeline: Timeline
    dram_read_words: dict[str, int]   # per read operand
    first_dram_cycle: int             # the first fill's first word (negative: before compute starts)


def _read_stream(plan: SystolicPlan, operand: str) -> ReadStream:
    """One read operand's buffer and misses: fold by fold in closed form when each address sits
    once in its fetch sequence, else by a scan of the whole group's demand stream."""
    mapping, capacity = plan.mapping, plan.capacity_words[operand]
    if has_closed_form(mapping, plan.layer, operand):
        fetch = StackedFetch(mapping, operand)
        geometry = ReadBufferGeometry(capacity, plan.dram_words_per_cycle, fetch.fetch_words, fetch.valid_words)
        misses = fold_set_misses(mapping, geometry, fetch, operand)
    else:
        sequence = plan.fetch_sequences[operand]
        geometry = ReadBufferGeometry(capacity, plan.dram_words_per_cycle, sequence.size,
                                      int((sequence != NO_ADDRESS).sum()))
        repeats = sweeps(mapping, operand)  # one sweep scanned per window start it meets
        col_folds = 1 if repeats > 1 else None
        sweep = (streamed_requests(mapping, plan.matrices, operand, col_folds) if role(mapping, operand).kind == "stream"
                 and mapping.row_wise is None else demand_stream(mapping, plan.matrices, operand, col_folds))
        repeat_lines = mapping.row_folds * mapping.fold_lines
        if isinstance(sweep, FoldRequests):
            misses = stacked_misses(geometry, sequence, sweep, IfmapCopies(mapping, plan.layer), repeats, repeat_lines)
        else:
            misses = read_misses(geometry, sequence, sweep, repeats, repeat_lines)
    return ReadStream(geometry, misses, plan.arch.dram.latency)


def user_group_timing(plan: SystolicPlan) -> GroupTiming:
    """USER bandwidth: read misses claim prefetch bursts; the array stalls on late ones."""
    reads = [_read_stream(plan, operand) for operand in READ_OPERANDS]
    ofmap = WriteBufferGeometry(plan.capacity_words["ofmap"], plan.ofmap_line_words)
    return GroupTiming(timeline(plan.mapping, ofmap, OFMAP_WRITE_LATENCY, tuple(reads)),
                       {op: r.dram_words for op, r in zip(READ_OPERANDS, reads)},
                       min(-r.geometry.initial_lines for r in reads))


def _first_request_line(plan: SystolicPlan, operand: str) -> int:
    if has_closed_form(plan.mapping, plan.layer, operand):
        return first_request_line(plan.mapping, operand)
    return first_demand_line(plan.mapping, plan.matrices, operand) or 0


def calc_group_timing(plan: SystolicPlan) -> GroupTiming:
    """CALC bandwidth: stall-free reads; DRAM words and first DRAM cycle from the footprints when the
    operands fit their buffers (the demand stream and the first request's demand cycle are needed
    only for an operand that overflows its buffer)."""
    mapping = plan.mapping
    ofmap = WriteBufferGeometry(plan.capacity_words["ofmap"], plan.ofmap_line_words)
    dram, starts = {}, []
    for operand in READ_OPERANDS:
        capacity = plan.capacity_words[operand]
        footprint = read_footprint_words(mapping, plan.layer, operand)
        dram[operand] = calc_read_words(plan, operand, footprint)
        first_request = 0
        if calc_overflows(footprint, capacity):
            first_request = _first_request_line(plan, operand)
        starts.append(calc_first_fill_cycle(footprint, capacity, first_request))
    return GroupTiming(timeline(mapping, ofmap, OFMAP_WRITE_LATENCY), dram, min(starts))


def array_sram_reads(mapping: SystolicMapping) -> dict[str, int]:
    """Words the array takes from each read buffer over one group.

    A streamed operand: ``T x (its edge dimension)`` per sweep, swept once per fold of the
    other array dimension; a preloaded operand: once (``Sr x Sc``). Row-wise sparsity: every fold
    reads ``T + R - 1`` skewed ifmap lines of ``R x BS`` words (idle ones included, as SCALE-Sim counts).
    """
    counts = {}
    for operand in READ_OPERANDS:
        r = role(mapping, operand)
        if mapping.row_wise is not None and operand == "ifmap":
            counts[operand] = mapping.folds * (mapping.t + mapping.rows - 1) * mapping.rows * mapping.row_wise.block_size
        elif r.kind == "stream":
            sweeps = mapping.col_folds if r.edge_dim == mapping.dataflow.rows_dim else mapping.row_folds
            counts[operand] = mapping.t * mapping.dim(r.edge_dim) * sweeps
        else:
            counts[operand] = mapping.sr * mapping.sc
    return counts


def fast(plan: SystolicPlan, max_cycles: int | None = None) -> SystolicCounters:
    mapping = plan.mapping
    if plan.streaming:
        counters = streaming_fast(plan, array_sram_reads(mapping))
        if max_cycles is not None and counters.cycles > max_cycles:
            raise SimulationError(f"{plan.layer.name}: {counters.cycles} cycles exceed the max_cycles guard {max_cycles}")
        return counters
    group = user_group_timing(plan) if plan.user_bandwidth else calc_group_timing(plan)
    line = group.timeline
    groups = mapping.groups
    cycles = line.cycles * groups
    if max_cycles is not None and cycles > max_cycles:
        raise SimulationError(f"{plan.layer.name}: {cycles} cycles exceed the max_cycles guard {max_cycles}")
    reads = array_sram_reads(mapping)
    return SystolicCounters(
        cycles=cycles, compute_cycles=line.compute_cycles * groups, read_stall_cycles=line.read_stall_cycles * groups,
        write_stall_cycles=line.write_stall_cycles * groups,
        cycles_incl_prefetch=(line.last_drain_cycle - group.first_dram_cycle) * groups,
        folds=mapping.folds * groups, macs_issued=mapping.macs_issued_per_group * groups,
        ifmap_sram_reads=reads["ifmap"] * groups, filter_sram_reads=reads["filter"] * groups,
        ofmap_sram_writes=line.ofmap_sram_words * groups,
        ifmap_dram_reads=group.dram_read_words["ifmap"] * groups,
        filter_dram_reads=group.dram_read_words["filter"] * groups,
        ofmap_dram_writes=line.ofmap_dram_words * groups,
        nm_metadata_reads=mapping.kept_weights_per_group * groups if plan.metadata_bits else 0)

"""The array's demand lines against its memories, fast path: SCALE-Sim's timing of one group.

SCALE-Sim's ``double_buffered_scratchpad.service_memory_requests``: the array issues one demand
line per cycle; line ``i`` is issued in cycle ``i + S`` where ``S`` is the stall accumulated so
far, and each line adds ``max(ifmap stall, filter stall, ofmap stall)``. Nothing happens
between events (read misses, drains, write stalls), so the walk jumps from one to the next:
:class:`~accel_sim.models.systolic.fast.ofmap_drain.DrainTimeline` finds the write events,
:func:`~accel_sim.models.systolic.fast.read_buffers.read_misses` the read ones.
"""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.hardware.scalesim_scratchpad import HIT_LATENCY, WriteBufferGeometry
from accel_sim.models.systolic.fast.ofmap_drain import DrainTimeline, FoldedWrites
from accel_sim.models.systolic.fast.read_buffers import ReadStream
from accel_sim.models.systolic.plan.mapping import SystolicMapping


@dataclass(frozen=True)
class Timeline:
    """Memory-aware timing of one group (SCALE-Sim's report quantities)."""

    cycles: int                 # "Total Cycles": cycle of the last output write
    compute_cycles: int         # the same without any stall
    read_stall_cycles: int      # SCALE-Sim's "Stall Cycles" = read + write stall cycles
    write_stall_cycles: int
    ofmap_sram_words: int       # words the array writes into the output buffer
    ofmap_dram_words: int       # words drained to DRAM
    last_drain_cycle: int


def timeline(mapping: SystolicMapping, ofmap: WriteBufferGeometry, write_latency: int,
             reads: tuple[ReadStream, ...] = ()) -> Timeline:
    """Walk the group's demand lines from event to event (read misses, drains, write stalls)."""
    lines = mapping.demand_lines
    writes = DrainTimeline(ofmap, FoldedWrites(mapping), write_latency)
    events: dict[int, list[int]] = {}
    for slot, stream in enumerate(reads):
        for line, bursts in zip(stream.misses.lines.tolist(), stream.misses.bursts.tolist()):
            events.setdefault(line, [0] * len(reads))[slot] = bursts
    events.setdefault(lines - 1, [0] * len(reads))
    burst_cycles = [stream.burst_cycles for stream in reads]
    ready = [-1] * len(reads)  # end cycle of the last burst of each read stream (fill ends at -1)
    stall = read_stall = write_stall = 0
    last_cycle = 0
    for line in sorted(events):
        while (waiting := writes.advance(line, stall)) is not None:
            wait = writes.line(waiting, waiting + stall)
            stall += wait
            write_stall += wait
        cycle = line + stall
        write_wait = writes.line(line, cycle)
        if line == lines - 1:
            last_cycle = cycle + write_wait
        line_stall = write_wait
        for slot, bursts in enumerate(events[line]):
            offset = HIT_LATENCY
            for _ in range(bursts):
                ready[slot] += burst_cycles[slot]
                wait = ready[slot] - (cycle + offset)
                offset += wait + max(wait, 0)  # SCALE-Sim counts a positive wait twice
            line_stall = max(line_stall, offset - HIT_LATENCY)
        stall += line_stall
        write_stall += write_wait
        read_stall += line_stall - write_wait
    writes.flush(last_cycle)
    return Timeline(cycles=last_cycle, compute_cycles=mapping.group_compute_cycles, read_stall_cycles=read_stall,
                    write_stall_cycles=write_stall, ofmap_sram_words=writes.written_words,
                    ofmap_dram_words=writes.drained_words, last_drain_cycle=max(writes.drain_ends))

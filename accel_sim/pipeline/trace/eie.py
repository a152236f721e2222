"""EIE's teaching trace: every broadcast and every PE's work, cycle by cycle, for one input
vector, expanded from the discrete-event reference's log (:func:`accel_sim.models.eie.reference.run`
with ``record=True``: each broadcast and each popped slice with its cycle)."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from accel_sim.pipeline.catalog import ArchSpec
from accel_sim.models.eie.family import FAMILY
from accel_sim.models.eie.reference import VectorLog, run
from accel_sim.foundations.errors import InputError
from accel_sim.pipeline.trace.events import CounterSample, CycleTable, Flow, Slice, Trace
from accel_sim.hardware.recorder import Recorder
from accel_sim.pipeline.trace.families.eie import SOURCE
from accel_sim.pipeline.trace.recorded import AMOUNT, COUNTER_COLUMNS, cumulative, format_amount
from accel_sim.foundations.workload.layer import Layer

MAX_TRACE_CYCLES = 20_000  # a teaching trace; larger runs make unreadable files (use `accel-sim run`)
BROADCAST_TRACK = "LNZD broadcast"
# The cumulative counters of the cycle table (``Trace.counter_columns``), at the end of each cycle.
# (with the recorded events' macs, stall_cycles and dram_bytes of every family's trace)
EIE_COUNTERS = ("broadcasts", "zero activations skipped", "padding entries", "empty slices", "broadcast stalls")


def pe_track(pe: int) -> str:
    return f"PE {pe}"


def fifo_track(pe: int) -> str:
    return f"FIFO PE {pe}"


@dataclass(frozen=True)
class PEAction:
    """What one PE did in one cycle: 'mac' (a real entry), 'pad' (a padding entry) or 'empty'
    (a cycle spent on, or a pop of, an empty slice)."""

    kind: str
    column: int
    row: int = -1          # global output row of the entry
    code: int = 0          # codebook index v
    pop: bool = False      # the PE popped its FIFO head this cycle


@dataclass(frozen=True)
class CycleRecord:
    cycle: int
    broadcast: tuple[int, int, int] | None      # (broadcast number, column j, activation code)
    pe: tuple[PEAction | None, ...]
    fifo: tuple[int, ...]                        # occupancy of each FIFO at the end of the cycle


def cycle_records(vector: VectorLog, n_pes: int) -> list[CycleRecord]:
    """The vector's log as one record per cycle (cycles relative to the vector's start)."""
    last_pop = max((s.start for s in vector.slices), default=0)
    n_cycles = max(1, vector.cycles, last_pop + 1)
    actions: list[list[PEAction | None]] = [[None] * n_pes for _ in range(n_cycles)]
    pushes = np.zeros((n_cycles, n_pes), dtype=np.int64)
    pops = np.zeros((n_cycles, n_pes), dtype=np.int64)
    sent: list[tuple[int, int, int] | None] = [None] * n_cycles
    for b in vector.broadcasts:
        sent[b.cycle] = (b.broadcast, b.column, b.code)
        pushes[b.cycle] += 1
    for s in sorted(vector.slices, key=lambda s: (s.pe, s.broadcast)):
        pops[s.start, s.pe] += 1
        if s.codes:
            for i, (row, code) in enumerate(zip(s.rows, s.codes)):
                actions[s.start + i][s.pe] = PEAction("pad" if code == 0 else "mac", s.column, row, code, i == 0)
        else:  # a later slice popped in the same cycle overwrites this one
            actions[s.start][s.pe] = PEAction("empty", s.column, pop=True)
    occupancy = np.cumsum(pushes - pops, axis=0)
    return [CycleRecord(c, sent[c], tuple(actions[c]), tuple(int(o) for o in occupancy[c])) for c in range(n_cycles)]


def _cell(action: PEAction | None) -> str:
    if action is None:
        return "."
    if action.kind == "mac":
        return f"c{action.column} r{action.row} v{action.code}"
    return f"c{action.column} {action.kind}"


def _fifo_contents(log: VectorLog, records: list[CycleRecord], n_pes: int) -> list[list[tuple[int, ...]]]:
    """The columns waiting in each PE's FIFO at the end of each cycle (oldest first): the FIFO is in
    order, so it holds the broadcasts pushed so far minus the slices popped so far."""
    pushed, popped = [], [0] * n_pes
    pops: dict[int, list[int]] = {}
    for s in log.slices:
        pops.setdefault(s.start, []).append(s.pe)
    broadcasts = {b.cycle: b.column for b in log.broadcasts}
    out = []
    for record in records:
        if record.cycle in broadcasts:
            pushed.append(broadcasts[record.cycle])
        for pe in pops.get(record.cycle, ()):
            popped[pe] += 1
        out.append([tuple(pushed[popped[pe]:]) for pe in range(n_pes)])
    return out


def _fifo_slices(contents: list[list[tuple[int, ...]]], n_pes: int) -> list[Slice]:
    """One slice per run of cycles with the same FIFO contents (an empty FIFO has none)."""
    slices = []
    for pe in range(n_pes):
        start = 0
        for cycle in range(1, len(contents) + 1):
            if cycle < len(contents) and contents[cycle][pe] == contents[start][pe]:
                continue
            held = contents[start][pe]
            if held:
                slices.append(Slice(fifo_track(pe), " ".join(f"a{c}" for c in held), start, cycle - start,
                                    args={"entries": len(held), "columns": list(held), "state": "work"}))
            start = cycle
    return slices


def _skipped_zeros(log: VectorLog, k: int) -> dict[int, int]:
    """Zero activations the LNZD passed over before each broadcast (by cycle): the columns between
    two broadcast columns; the zeros after the last non-zero are counted with the last broadcast."""
    skipped, previous = {}, -1
    for b in log.broadcasts:
        skipped[b.cycle] = b.column - previous - 1
        previous = b.column
    if log.broadcasts:
        skipped[log.broadcasts[-1].cycle] += k - 1 - previous
    return skipped


def _flows(log: VectorLog, n_pes: int) -> list[Flow]:
    """Each broadcast into every PE's FIFO, and each FIFO pop into its PE."""
    flows = [Flow(f"a{b.column}", BROADCAST_TRACK, fifo_track(pe), b.cycle, b.cycle)
             for b in log.broadcasts for pe in range(n_pes)]
    flows += [Flow(f"a{s.column}", fifo_track(s.pe), pe_track(s.pe), s.start, s.start) for s in log.slices]
    return sorted(flows, key=lambda f: (f.start, f.source, f.target))


def build_trace(arch: ArchSpec, layer: Layer, vector: int = 0) -> Trace:
    """The trace of input vector ``vector`` of ``layer`` (refused above MAX_TRACE_CYCLES cycles)."""
    plan = FAMILY.plan(arch, layer)
    cycles = FAMILY.fast(plan).compute_cycles
    if cycles > MAX_TRACE_CYCLES:
        raise InputError.single(f"layer {layer.name}", "trace", f"{cycles:,} cycles; a teaching trace is "
                                f"limited to {MAX_TRACE_CYCLES:,} (use a smaller layer, or `accel-sim run`)")
    SOURCE.check_size(arch, layer, plan)
    spec = plan.spec
    recorder = Recorder()
    log = run(plan, record=True, recorder=recorder).vectors[vector]
    n_pes = spec.n_pes
    records = cycle_records(log, n_pes)
    contents = _fifo_contents(log, records, n_pes)
    skipped = _skipped_zeros(log, layer.k)
    broadcast_cycles = [b.cycle for b in log.broadcasts]
    slices, counters, rows = _fifo_slices(contents, n_pes), [], []
    totals = dict.fromkeys(EIE_COUNTERS, 0)
    occupancy = [0] * n_pes
    for pe in range(n_pes):
        counters.append(CounterSample(fifo_track(pe), 0, 0))
    empties = Counter(s.start for s in log.slices if not s.codes)   # every empty slice, by its pop cycle
    for record in records:
        totals["empty slices"] += empties[record.cycle]
        if record.broadcast is not None:
            t, column, value = record.broadcast
            totals["broadcasts"] += 1
            totals["zero activations skipped"] += skipped[record.cycle]
            slices.append(Slice(BROADCAST_TRACK, f"a{column}", record.cycle,
                                args={"broadcast": t, "column": column, "activation_code": value,
                                      "state": "work", "skipped": skipped[record.cycle]}))
        elif broadcast_cycles and broadcast_cycles[0] < record.cycle < broadcast_cycles[-1]:
            totals["broadcast stalls"] += 1    # the root waits for room in every FIFO
            slices.append(Slice(BROADCAST_TRACK, "wait: a FIFO is full", record.cycle, args={"state": "stall"}))
        for pe, action in enumerate(record.pe):
            if action is not None:
                name = f"c{action.column} r{action.row}" if action.kind == "mac" else f"c{action.column} {action.kind}"
                free = action.kind == "empty" and not spec.empty_column_costs_cycle  # popped at no cycle cost
                state = "work" if action.kind == "mac" else "skip" if free else "zero"
                slices.append(Slice(pe_track(pe), name, record.cycle,
                                    args={"column": action.column, "row": action.row, "code": action.code,
                                          "kind": action.kind, "popped_fifo": action.pop, "state": state,
                                          **({"skipped": 1} if free else {})}))
            if action is not None and action.kind == "pad":
                totals["padding entries"] += 1
            if record.fifo[pe] != occupancy[pe]:
                occupancy[pe] = record.fifo[pe]
                counters.append(CounterSample(fifo_track(pe), record.cycle, record.fifo[pe]))
        broadcast = "." if record.broadcast is None else f"a{record.broadcast[1]}={record.broadcast[2]}"
        rows.append((str(record.cycle), broadcast, *(_cell(a) for a in record.pe), " ".join(map(str, record.fifo)),
                     *(str(totals[c]) for c in EIE_COUNTERS)))
    so_far = [cumulative(recorder.events, AMOUNT[name], log.start, len(rows)) for name in COUNTER_COLUMNS]
    rows = [(*row, *(format_amount(column[i]) for column in so_far)) for i, row in enumerate(rows)]
    columns = ("cycle", "broadcast", *(pe_track(p) for p in range(n_pes)), "FIFO occupancy", *EIE_COUNTERS,
               *COUNTER_COLUMNS)
    notes = (f"{layer.name}: {layer.n} x {layer.k} matrix on {n_pes} PEs, FIFO depth {spec.fifo_depth}, "
             f"LNZD latency {spec.lnzd_latency} cycles; {log.cycles} cycles, {len(log.broadcasts)} broadcasts",
             "PE cells: c<column> r<output row> v<codebook index> = one entry (multiply-accumulate); "
             "'pad' = padding entry; 'empty' = a popped column slice with no entries; '.' = idle",
             "FIFO occupancy is at the end of the cycle (after the PEs' pops and the broadcast's push)",
             "The LNZD broadcasts only non-zero activations: the zero ones are skipped at no cycle; "
             "a padding entry (a zero weight kept to bound the relative index) costs a cycle",
             "Counter columns (" + ", ".join(EIE_COUNTERS) + ") are totals so far, at the end of the cycle; "
             "macs (entries multiplied, padding included), stall_cycles (FIFO full, PE starved, PE waiting at the "
             "vector barrier), dram_bytes: the run's counters so far")
    tracks = (BROADCAST_TRACK, *(fifo_track(p) for p in range(n_pes)), *(pe_track(p) for p in range(n_pes)))
    kinds = {BROADCAST_TRACK: "network", **{fifo_track(p): "fifo" for p in range(n_pes)},
             **{pe_track(p): "pe" for p in range(n_pes)}}
    return Trace(title=f"EIE {arch.name} / {layer.name} (vector {vector})", clock_hz=arch.clock,
                 tracks=tracks, slices=tuple(slices), counters=tuple(counters),
                 table=CycleTable(columns, tuple(rows)), notes=notes, flows=tuple(_flows(log, n_pes)),
                 track_kinds=MappingProxyType(kinds), counter_columns=(*EIE_COUNTERS, *COUNTER_COLUMNS))

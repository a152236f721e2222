"""EIE's teaching trace: every broadcast and every PE's work, cycle by cycle, for one input
vector, expanded from the discrete-event reference's log (:func:`accel_sim.models.eie.reference.run`
with ``record=True``: each broadcast and each popped slice with its cycle)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accel_sim.pipeline.catalog import ArchSpec
from accel_sim.models.eie.family import FAMILY
from accel_sim.models.eie.reference import VectorLog, run
from accel_sim.foundations.errors import InputError
from accel_sim.hardware.recorder import Recorder
from accel_sim.pipeline.trace.families.eie import SOURCE
from accel_sim.pipeline.trace.events import CounterSample, CycleTable, Slice, Trace
from accel_sim.pipeline.trace.recorded import AMOUNT, COUNTER_COLUMNS, cumulative, format_amount
from accel_sim.foundations.workload.layer import Layer

MAX_TRACE_CYCLES = 20_000  # a teaching trace; larger runs make unreadable files (use `accel-sim run`)
BROADCAST_TRACK = "LNZD broadcast"


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
    slices, counters, rows = [], [], []
    occupancy = [0] * n_pes
    for pe in range(n_pes):
        counters.append(CounterSample(fifo_track(pe), 0, 0))
    for record in records:
        if record.broadcast is not None:
            t, column, value = record.broadcast
            slices.append(Slice(BROADCAST_TRACK, f"a{column}", record.cycle,
                                args={"broadcast": t, "column": column, "activation_code": value}))
        for pe, action in enumerate(record.pe):
            if action is not None and not (action.kind == "empty" and not spec.empty_column_costs_cycle):
                name = f"c{action.column} r{action.row}" if action.kind == "mac" else f"c{action.column} {action.kind}"
                slices.append(Slice(pe_track(pe), name, record.cycle,
                                    args={"column": action.column, "row": action.row, "code": action.code,
                                          "kind": action.kind, "popped_fifo": action.pop}))
            if record.fifo[pe] != occupancy[pe]:
                occupancy[pe] = record.fifo[pe]
                counters.append(CounterSample(fifo_track(pe), record.cycle, record.fifo[pe]))
        broadcast = "." if record.broadcast is None else f"a{record.broadcast[1]}={record.broadcast[2]}"
        rows.append((str(record.cycle), broadcast, *(_cell(a) for a in record.pe), " ".join(map(str, record.fifo))))
    so_far = [cumulative(recorder.events, AMOUNT[name], log.start, len(rows)) for name in COUNTER_COLUMNS]
    rows = [(*row, *(format_amount(column[i]) for column in so_far)) for i, row in enumerate(rows)]
    columns = ("cycle", "broadcast", *(pe_track(p) for p in range(n_pes)), "FIFO occupancy", *COUNTER_COLUMNS)
    notes = (f"{layer.name}: {layer.n} x {layer.k} matrix on {n_pes} PEs, FIFO depth {spec.fifo_depth}, "
             f"LNZD latency {spec.lnzd_latency} cycles; {log.cycles} cycles, {len(log.broadcasts)} broadcasts",
             "PE cells: c<column> r<output row> v<codebook index> = one entry (multiply-accumulate); "
             "'pad' = padding entry; 'empty' = a popped column slice with no entries; '.' = idle",
             "FIFO occupancy is at the end of the cycle (after the PEs' pops and the broadcast's push)",
             "macs, stall_cycles (FIFO full, PE starved, PE waiting at the vector barrier), dram_bytes: the run's "
             "counters so far")
    return Trace(title=f"EIE {arch.name} / {layer.name} (vector {vector})", clock_hz=arch.clock,
                 tracks=(BROADCAST_TRACK, *(pe_track(p) for p in range(n_pes))), slices=tuple(slices),
                 counters=tuple(counters), table=CycleTable(columns, tuple(rows)), notes=notes,
                 track_kinds={BROADCAST_TRACK: "control", **{pe_track(p): "pe" for p in range(n_pes)}},
                 counter_columns=COUNTER_COLUMNS)

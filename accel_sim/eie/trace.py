"""EIE's teaching trace: every broadcast and every PE's work, cycle by cycle, from the per-cycle
reference (:mod:`accel_sim.eie.reference`) of the layer's first input vector."""
from __future__ import annotations

from accel_sim.arch.spec import ArchSpec
from accel_sim.eie import model
from accel_sim.eie.reference import run_vector
from accel_sim.errors import InputError
from accel_sim.trace.events import CounterSample, CycleTable, Slice, Trace
from accel_sim.workload.layer import Layer

MAX_TRACE_CYCLES = 20_000  # a teaching trace; larger runs make unreadable files (use `accel-sim run`)
BROADCAST_TRACK = "LNZD broadcast"


def pe_track(pe: int) -> str:
    return f"PE {pe}"


def fifo_track(pe: int) -> str:
    return f"FIFO PE {pe}"


def _cell(action) -> str:
    if action is None:
        return "."
    if action.kind == "mac":
        return f"c{action.column} r{action.row} v{action.code}"
    return f"c{action.column} {action.kind}"


def build_trace(arch: ArchSpec, layer: Layer, vector: int = 0) -> Trace:
    """The trace of input vector ``vector`` of ``layer`` (refused above MAX_TRACE_CYCLES cycles)."""
    plan = model.plan_layer(arch, layer)
    timeline, _, _ = model.fast_vector(plan, vector)
    if timeline.cycles > MAX_TRACE_CYCLES:
        raise InputError.single(f"layer {layer.name}", "trace", f"{timeline.cycles:,} cycles; a teaching trace is "
                                f"limited to {MAX_TRACE_CYCLES:,} (use a smaller layer, or `accel-sim run`)")
    spec = plan.spec
    encoded, codebook = model.encode_layer(plan)
    run = run_vector(encoded, codebook, plan.activations[vector], fifo_depth=spec.fifo_depth,
                           lnzd_latency=spec.lnzd_latency, entries_per_read=spec.entries_per_read,
                           empty_column_costs_cycle=spec.empty_column_costs_cycle,
                           max_cycles=timeline.cycles + 1, record=True)
    n_pes = spec.n_pes
    slices, counters, rows = [], [], []
    occupancy = [0] * n_pes
    for pe in range(n_pes):
        counters.append(CounterSample(fifo_track(pe), 0, 0))
    for record in run.log:
        if record.broadcast is not None:
            t, column, value = record.broadcast
            slices.append(Slice(BROADCAST_TRACK, f"a{column}", record.cycle,
                                args={"broadcast": t, "column": column, "activation_code": value}))
        for pe, action in enumerate(record.pe):
            if action is not None and action.kind in ("mac", "pad", "empty") and not (
                    action.kind == "empty" and not spec.empty_column_costs_cycle):
                name = f"c{action.column} r{action.row}" if action.kind == "mac" else f"c{action.column} {action.kind}"
                slices.append(Slice(pe_track(pe), name, record.cycle,
                                    args={"column": action.column, "row": action.row, "code": action.code,
                                          "kind": action.kind, "popped_fifo": action.pop}))
            if record.fifo[pe] != occupancy[pe]:
                occupancy[pe] = record.fifo[pe]
                counters.append(CounterSample(fifo_track(pe), record.cycle, record.fifo[pe]))
        broadcast = "." if record.broadcast is None else f"a{record.broadcast[1]}={record.broadcast[2]}"
        rows.append((str(record.cycle), broadcast, *(_cell(a) for a in record.pe), " ".join(map(str, record.fifo))))
    columns = ("cycle", "broadcast", *(pe_track(p) for p in range(n_pes)), "FIFO occupancy")
    notes = (f"{layer.name}: {layer.n} x {layer.k} matrix on {n_pes} PEs, FIFO depth {spec.fifo_depth}, "
             f"LNZD latency {spec.lnzd_latency} cycles; {run.cycles} cycles, {run.broadcast.size} broadcasts",
             "PE cells: c<column> r<output row> v<codebook index> = one entry (multiply-accumulate); "
             "'pad' = padding entry; 'empty' = a popped column slice with no entries; '.' = idle",
             "FIFO occupancy is at the end of the cycle (after the PEs' pops and the broadcast's push)")
    return Trace(title=f"EIE {arch.name} / {layer.name} (vector {vector})", clock_hz=arch.clock,
                 tracks=(BROADCAST_TRACK, *(pe_track(p) for p in range(n_pes))), slices=tuple(slices),
                 counters=tuple(counters), table=CycleTable(columns, tuple(rows)), notes=notes)

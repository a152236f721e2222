"""The generic teaching trace: a reference run's recorded events (:class:`~accel_sim.hardware.recorder.Recorder`)
as a :class:`~accel_sim.pipeline.trace.events.Trace`.

One slice track per agent, in the order the reference declared them, with the agent's kind; a
slice per event (an instantaneous event, such as a FIFO push, shows as one cycle); a flow per
event that names the agent its value came from; a FIFO occupancy counter per FIFO agent (from its
push / pop events); and the cycle table: per cycle what each agent was doing ('.': idle) and the
cumulative counters :data:`COUNTER_COLUMNS` (an event's amount spread evenly over its cycles,
whole at its last). A run starting before cycle 0 (a prefill) is shifted so the trace starts at 0;
the notes say by how much.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from accel_sim.hardware.recorder import Event, Recorder
from accel_sim.pipeline.trace.events import CounterSample, CycleTable, Flow, Slice, Trace

COUNTER_COLUMNS = ("macs", "stall_cycles", "dram_bytes")   # cumulative, per cycle
AMOUNT = {"macs": "macs", "stall_cycles": "stall", "dram_bytes": "dram_bytes"}
IDLE = "."
PUSH, POP = "push", "pop"


def cumulative(events: Sequence[Event], field: str, origin: int, n: int) -> np.ndarray:
    """Per cycle ``origin + i`` (``i < n``), the amount of ``field`` the events had added by the end of it."""
    lo = min([origin, *(e.start for e in events)])
    hi = max([origin + n, *(e.start + max(1, e.end - e.start) for e in events)])
    step = np.zeros(hi - lo + 1, dtype=np.float64)
    for e in events:
        amount = getattr(e, field)
        if not amount:
            continue
        start, duration = e.start - lo, max(1, e.end - e.start)
        step[start] += amount / duration
        step[start + duration] -= amount / duration
    so_far = np.cumsum(np.cumsum(step[:-1]))
    return so_far[origin - lo:origin - lo + n]


def format_amount(value: float) -> str:
    return f"{value:.0f}" if abs(value - round(value)) < 1e-6 else f"{value:.1f}"


def _fifo_counters(events: Sequence[Event], fifos: Sequence[str], origin: int) -> list[CounterSample]:
    samples: list[CounterSample] = []
    for fifo in fifos:
        occupancy, samples_here = 0, [CounterSample(fifo, 0, 0)]
        for e in sorted((e for e in events if e.agent == fifo and e.label in (PUSH, POP)), key=lambda e: e.start):
            occupancy += 1 if e.label == PUSH else -1
            samples_here.append(CounterSample(fifo, e.start - origin, occupancy))
        samples += samples_here
    return samples


def _table(recorder: Recorder, origin: int, n: int) -> CycleTable:
    agents = list(recorder.agents)
    cells = {agent: np.full(n, -1, dtype=np.int64) for agent in agents}
    for i, e in enumerate(recorder.events):   # later events overwrite earlier ones in a shared cycle
        start = e.start - origin
        cells[e.agent][start:start + max(1, e.end - e.start)] = i
    labels = [e.label for e in recorder.events]
    counters = {name: cumulative(recorder.events, AMOUNT[name], origin, n) for name in COUNTER_COLUMNS}
    rows = tuple((str(c + origin), *(IDLE if cells[a][c] < 0 else labels[cells[a][c]] for a in agents),
                  *(format_amount(counters[name][c]) for name in COUNTER_COLUMNS)) for c in range(n))
    return CycleTable(("cycle", *agents, *COUNTER_COLUMNS), rows)


def trace_from_recording(recorder: Recorder, title: str, clock_hz: float, notes: Sequence[str] = ()) -> Trace:
    """The trace of one recorded run."""
    events = recorder.events
    origin = min(0, min((e.start for e in events), default=0))
    n = max(1, max((max(e.end, e.start + 1) for e in events), default=1) - origin)
    slices = tuple(Slice(e.agent, e.label, e.start - origin, max(1, e.end - e.start),
                         args={"what": e.what, "cycles": f"{e.start}-{e.end}", **({"macs": e.macs} if e.macs else {}),
                               **({"stall_cycles": e.stall} if e.stall else {}),
                               **({"dram_bytes": e.dram_bytes} if e.dram_bytes else {}),
                               **({"cause": e.cause} if e.cause else {})})
                   for e in events)
    flows = tuple(Flow(e.label, e.source, e.agent, e.start - origin, max(e.start, e.end) - origin)
                  for e in events if e.source in recorder.agents)
    fifos = [a for a, kind in recorder.agents.items() if kind == "fifo"]
    shift = ((f"cycle 0 of the trace is cycle {origin} of the run (work before the array's cycle 0)",)
             if origin else ())
    legend = ("cells: what each agent does in the cycle ('.' = idle); macs, stall_cycles, dram_bytes: "
              "the run's counters so far (an event's amount spread over its cycles)",)
    return Trace(title=title, clock_hz=clock_hz, tracks=tuple(recorder.agents), slices=slices,
                 counters=tuple(_fifo_counters(events, fifos, origin)), table=_table(recorder, origin, n),
                 notes=(*notes, *shift, *legend), flows=flows, track_kinds=dict(recorder.agents),
                 counter_columns=COUNTER_COLUMNS)

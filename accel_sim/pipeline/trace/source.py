"""How a family's reference is traced: a :class:`TraceSource` per family (``trace/families/<family>.py``),
and :func:`build_trace`, which refuses a layer too large for a teaching trace before simulating
(from the plan's estimate of its events and the fast path's cycles), runs the reference with a
:class:`~accel_sim.hardware.recorder.Recorder` and builds the generic trace from its events.

A source also says which of the run's counters its events must add up to (``totals``): the
cycles (the last event's end), the MACs issued (the compute events' MACs), the stall cycles and the
DRAM bytes, for the families whose counters have them; the trace tests check every family's.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.layer import Layer
from accel_sim.hardware.recorder import Recorder
from accel_sim.pipeline.catalog import MODELS, ArchSpec
from accel_sim.pipeline.trace.events import Trace
from accel_sim.pipeline.trace.recorded import trace_from_recording

MAX_TRACE_EVENTS = 50_000   # a teaching trace; larger runs make files no viewer reads comfortably
MAX_TRACE_CYCLES = 20_000   # rows of the cycle table
TOTALS = ("cycles", "macs", "stall_cycles", "dram_bytes")


@dataclass(frozen=True)
class Example:
    """A shipped arch and workload (and layer) whose trace fits the limits."""

    arch: str
    workload: str
    layer: str | None = None

    def command(self) -> str:
        layer = f" --layer {self.layer}" if self.layer else ""
        return f"accel-sim trace --arch {self.arch} --workload {self.workload}{layer}"


@dataclass(frozen=True)
class TraceSource:
    family: str
    record: Callable[[Any, Recorder], Any]                # (plan, recorder) -> the reference's counters
    totals: Callable[[Any, Any], Mapping[str, float]]     # (plan, counters) -> some of TOTALS
    estimate: Callable[[Any], int]                        # plan -> the events the run will record (about)
    example: Example
    notes: Callable[[Any], tuple[str, ...]] = lambda plan: ()

    @property
    def model(self) -> Any:
        return next(m for m in MODELS if m.name == self.family)

    def plan(self, arch: ArchSpec, layer: Layer) -> Any:
        return self.model.plan(arch, layer)

    def check_size(self, arch: ArchSpec, layer: Layer, plan: Any) -> None:
        """Refuse (one line) a layer whose trace would pass the limits, before simulating it."""
        events = self.estimate(plan)
        cycles = self.totals(plan, self.model.fast(plan, None)).get("cycles", 0)
        if events > MAX_TRACE_EVENTS or cycles > MAX_TRACE_CYCLES:
            raise InputError.single(f"layer {layer.name}", "trace",
                                    f"about {events:,} events over {cycles:,} cycles; a teaching trace is limited to "
                                    f"{MAX_TRACE_EVENTS:,} events and {MAX_TRACE_CYCLES:,} cycles (this fits: "
                                    f"{self.example.command()})")


def record(source: TraceSource, plan: Any) -> tuple[Recorder, Any]:
    """Run the reference on ``plan`` with a recorder: its events and its counters."""
    recorder = Recorder()
    counters = source.record(plan, recorder)
    return recorder, counters


def build_trace(source: TraceSource, arch: ArchSpec, layer: Layer) -> Trace:
    plan = source.plan(arch, layer)
    source.check_size(arch, layer, plan)
    recorder, counters = record(source, plan)
    totals = ", ".join(f"{name} {value:,.0f}" for name, value in source.totals(plan, counters).items())
    return trace_from_recording(recorder, f"{source.family} {arch.name} / {layer.name}", arch.clock,
                                (f"{layer.name} on {arch.name}: {len(recorder.events):,} events; the run's counters: "
                                 f"{totals}", *source.notes(plan)))

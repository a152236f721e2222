"""What a trace holds: slices on named tracks, flows between tracks, counter samples and a
per-cycle table. One schema for every family: a family's builder fills it from its reference's
event log, the writers (Perfetto JSON, text table, HTML viewer) read only this.

Track kinds (``Trace.track_kinds``) tell a viewer how to draw an agent: one of
:data:`TRACK_KINDS`. Cumulative counters for the viewer ("the counters so far") are columns of
the cycle table named in ``Trace.counter_columns``; row ``i`` of the table is cycle ``i``.

A slice may say what kind of cycle it was in ``args["state"]``, one of :data:`SLICE_STATES`, and
how many zeros it passed over at no cycle cost in ``args["skipped"]`` (an int): the HTML viewer
colours and badges them so a student sees where zeros were gated or skipped."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType


@dataclass(frozen=True)
class Slice:
    """``track`` was doing ``name`` from cycle ``start`` for ``duration`` cycles."""

    track: str
    name: str
    start: int
    duration: int = 1
    args: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        if self.start < 0 or self.duration < 1:
            raise ValueError(f"slice {self.name!r} on {self.track!r}: start {self.start}, duration {self.duration}")


TRACK_KINDS = ("pe", "fifo", "buffer", "crossbar", "network", "dram", "control")
# work: a useful operation; zero: a cycle spent on a zero operand (gated, or a padding entry);
# skip: zeros passed over at no cycle cost, and nothing else done in the cycle; stall: waiting (a full
# FIFO, a barrier, a bank conflict, memory).
SLICE_STATES = ("work", "zero", "skip", "stall")


@dataclass(frozen=True)
class Flow:
    """A value ``name`` leaving track ``source`` at cycle ``start`` and arriving on ``target`` at ``end``."""

    name: str
    source: str
    target: str
    start: int
    end: int

    def __post_init__(self) -> None:
        if self.start < 0 or self.end < self.start:
            raise ValueError(f"flow {self.name!r} {self.source!r} -> {self.target!r}: start {self.start}, end {self.end}")


@dataclass(frozen=True)
class CounterSample:
    """Counter track ``track`` holds ``value`` from cycle ``cycle`` on."""

    track: str
    cycle: int
    value: float


@dataclass(frozen=True)
class CycleTable:
    """A plain table: one row per cycle, cells already formatted."""

    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def __post_init__(self) -> None:
        for row in self.rows:
            if len(row) != len(self.columns):
                raise ValueError(f"row {row} has {len(row)} cells for {len(self.columns)} columns")


@dataclass(frozen=True)
class Trace:
    """A run's events. ``tracks`` fixes the display order of the slice tracks."""

    title: str
    clock_hz: float
    tracks: tuple[str, ...]
    slices: tuple[Slice, ...]
    counters: tuple[CounterSample, ...]
    table: CycleTable
    notes: tuple[str, ...] = ()
    flows: tuple[Flow, ...] = ()
    track_kinds: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    counter_columns: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        unknown = {s.track for s in self.slices} - set(self.tracks)
        unknown |= {t for f in self.flows for t in (f.source, f.target)} - set(self.tracks)
        if unknown:
            raise ValueError(f"slices or flows on undeclared tracks: {sorted(unknown)}")
        kinds = set(self.track_kinds.values()) - set(TRACK_KINDS)
        if kinds:
            raise ValueError(f"unknown track kinds {sorted(kinds)}; known: {TRACK_KINDS}")
        missing = set(self.counter_columns) - set(self.table.columns)
        if missing:
            raise ValueError(f"counter columns {sorted(missing)} are not columns of the cycle table")

"""What a trace holds: slices on named tracks, counter samples and a per-cycle table."""
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

    def __post_init__(self) -> None:
        unknown = {s.track for s in self.slices} - set(self.tracks)
        if unknown:
            raise ValueError(f"slices on undeclared tracks: {sorted(unknown)}")
